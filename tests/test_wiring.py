"""The two attention wirings: Bahdanau's queries with s_{t-1} and feeds the context into the cell, Luong's queries
with s_t after the cell. Checked against a step written out by hand, and by spying on the scorer's queries."""
import pytest
import torch

from helpers.attention import SCORERS, AdditiveAttention
from helpers.seq2seq import BahdanauDecoder, LuongDecoder, make_batch, make_model
from helpers.toylang import sample_pairs
from helpers.training import train

PAIRS = sample_pairs(5, 4, 12, seed=3)


def small(wiring, scorer="additive"):
    return make_model("attention", scorer=scorer, wiring=wiring, emb=12, hidden=16, attn_hidden=10, seed=0).double()


def hand_step(dec, y_prev, s_prev, enc):
    """One Bahdanau step with every operation written out (GRU equations included)."""
    e = dec.embedding.weight[y_prev]                                                  # (B, emb)
    sc = dec.scorer
    feats = torch.tanh((s_prev @ sc.W_q.weight.T)[:, None, :] + enc.outputs @ sc.W_k.weight.T)  # (B, S, h)
    scores = (feats @ sc.v.weight.T)[..., 0].masked_fill(~enc.mask[:, 0], float("-inf"))         # (B, S)
    weights = torch.exp(scores - scores.max(-1, keepdim=True).values)
    weights = weights / weights.sum(-1, keepdim=True)
    context = (weights[:, :, None] * enc.outputs).sum(1)                              # (B, 2H)
    x = torch.cat([e, context], -1)
    W_ir, W_iz, W_in = dec.cell.weight_ih.chunk(3)
    W_hr, W_hz, W_hn = dec.cell.weight_hh.chunk(3)
    b_ir, b_iz, b_in = dec.cell.bias_ih.chunk(3)
    b_hr, b_hz, b_hn = dec.cell.bias_hh.chunk(3)
    r = torch.sigmoid(x @ W_ir.T + b_ir + s_prev @ W_hr.T + b_hr)
    z = torch.sigmoid(x @ W_iz.T + b_iz + s_prev @ W_hz.T + b_hz)
    n = torch.tanh(x @ W_in.T + b_in + r * (s_prev @ W_hn.T + b_hn))
    s = (1 - z) * n + z * s_prev
    hidden = torch.tanh(torch.cat([s, context, e], -1) @ dec.pre_output.weight.T + dec.pre_output.bias)
    return hidden @ dec.output.weight.T + dec.output.bias, weights, s


def test_bahdanau_step_equals_the_step_written_out():
    m = small("bahdanau")
    assert isinstance(m.decoder, BahdanauDecoder) and m.config["wiring"] == "bahdanau"
    b = make_batch(PAIRS, m.src_vocab, m.tgt_vocab)
    enc = m.encode(b)
    s = m.decoder.initial_state(enc)[0]
    keys = m.decoder.key_proj(enc.outputs)
    for t in range(3):
        logits, w, s_new = m.decoder.step(b.tgt_in[:, t], s, keys, enc)
        ref_logits, ref_w, ref_s = hand_step(m.decoder, b.tgt_in[:, t], s, enc)
        torch.testing.assert_close(w, ref_w, atol=1e-10, rtol=1e-9)
        torch.testing.assert_close(s_new, ref_s, atol=1e-10, rtol=1e-9)
        torch.testing.assert_close(logits, ref_logits, atol=1e-10, rtol=1e-9)
        s = s_new
    full_logits, full_w = m(b)
    assert full_w.shape == (len(PAIRS), b.tgt_in.shape[1], b.src.shape[1])
    torch.testing.assert_close(full_w[:, 2], w)


class Spy(AdditiveAttention):
    """An additive scorer that remembers every query it was asked with."""

    def forward(self, query, keys, values, mask=None, prepared=None):
        self.queries.append(query.detach().clone())
        return super().forward(query, keys, values, mask, prepared)


@pytest.mark.parametrize("wiring", ["bahdanau", "luong"])
def test_which_state_asks_the_question(wiring):
    spy = Spy(16, 32, 10).double()
    spy.queries = []
    m = make_model("attention", scorer=spy, wiring=wiring, emb=12, hidden=16, seed=0).double()
    b = make_batch(PAIRS, m.src_vocab, m.tgt_vocab)
    enc = m.encode(b)
    s0 = m.decoder.initial_state(enc)
    m.decoder(b.tgt_in[:, :2], enc, s0)
    if wiring == "bahdanau":                       # step 1 asks with s_0: the state before any word is read
        torch.testing.assert_close(spy.queries[0][:, 0], s0[0])
    else:                                          # one call, queries s_1 and s_2: the GRU's outputs
        s_all, _ = m.decoder.rnn(m.decoder.embedding(b.tgt_in[:, :2]), s0)
        torch.testing.assert_close(spy.queries[0], s_all)
        assert not torch.allclose(spy.queries[0][:, 0], s0[0])


def test_the_context_enters_bahdanaus_cell_but_not_luongs():
    bah, lu = small("bahdanau"), small("luong")
    assert isinstance(lu.decoder, LuongDecoder)
    emb, ctx = 12, 32
    assert bah.decoder.cell.weight_ih.shape[1] == emb + ctx      # [y_{t-1}; c_t] goes in
    assert lu.decoder.rnn.weight_ih_l0.shape[1] == emb           # only y_{t-1} goes in


@pytest.mark.parametrize("name", list(SCORERS))
def test_every_scorer_works_in_bahdanaus_wiring_and_trains(name):
    m = make_model("attention", scorer=name, wiring="bahdanau", emb=12, hidden=16, attn_hidden=10, seed=0)
    log = train(m, sample_pairs(48, 4, 8, seed=1), steps=12, batch_size=16, progress=False)
    assert log.losses[-1] < log.losses[0]


def test_unknown_wiring_is_named():
    with pytest.raises(ValueError, match="wiring must be one of"):
        make_model("attention", wiring="sideways")
