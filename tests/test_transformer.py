"""MultiHeadAttention and the Transformer blocks against torch's modules (weights copied), positions, the translator."""
import math

import pytest
import torch
import torch.nn as nn

from helpers import ROOT
from helpers.attention import MultiHeadAttention, scaled_dot_product_attention
from helpers.masks import causal_mask, padding_mask
from helpers.seq2seq import make_batch
from helpers.toylang import sample_pairs
from helpers.transformer import (
    DecoderLayer,
    EncoderLayer,
    FeedForward,
    LearnedPositions,
    SinusoidalPositions,
    TinyDecoder,
    make_transformer,
    sinusoidal_positions,
)

torch.set_num_threads(1)
ATOL = 1e-5


# ---------------------------------------------------------------- copying weights into torch's modules
def copy_mha_into_torch(mine: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    """torch keeps W_q, W_k, W_v stacked in in_proj_weight (3d, d) and W_o in out_proj."""
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([mine.W_q.weight, mine.W_k.weight, mine.W_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([mine.W_q.bias, mine.W_k.bias, mine.W_v.bias]))
        ref.out_proj.weight.copy_(mine.W_o.weight)
        ref.out_proj.bias.copy_(mine.W_o.bias)


def copy_layer_into_torch(mine, ref) -> None:
    """EncoderLayer/DecoderLayer -> torch.nn.TransformerEncoderLayer/DecoderLayer (same sublayers, other names)."""
    copy_mha_into_torch(mine.self_attn, ref.self_attn)
    if hasattr(mine, "cross_attn"):
        copy_mha_into_torch(mine.cross_attn, ref.multihead_attn)
    ref.linear1.load_state_dict(mine.feed_forward.linear1.state_dict())
    ref.linear2.load_state_dict(mine.feed_forward.linear2.state_dict())
    for name in ("norm1", "norm2", "norm3"):
        if hasattr(mine, name):
            getattr(ref, name).load_state_dict(getattr(mine, name).state_dict())


def randomize_(module: nn.Module, seed: int) -> nn.Module:
    """Give every parameter (including LayerNorm's weight and bias) random values, so copying them matters."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    return module


D, H, B, NQ, NK = 12, 3, 2, 5, 7


def torch_mha_reference(seed=0):
    torch.manual_seed(seed)
    mine = randomize_(MultiHeadAttention(D, H), seed).eval()
    ref = nn.MultiheadAttention(D, H, batch_first=True).eval()
    copy_mha_into_torch(mine, ref)
    return mine, ref


def random_inputs(seed=1, n_q=NQ, n_k=NK):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(B, n_q, D, generator=gen), torch.randn(B, n_k, D, generator=gen),
            torch.randn(B, n_k, D, generator=gen))


# ---------------------------------------------------------------- MultiHeadAttention
def test_mha_matches_torch_without_mask():
    mine, ref = torch_mha_reference()
    q, k, v = random_inputs()
    out, w = mine(q, k, v)
    ref_out, ref_w = ref(q, k, v, need_weights=True, average_attn_weights=False)
    assert out.shape == (B, NQ, D) and w.shape == (B, H, NQ, NK)
    torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)
    torch.testing.assert_close(w, ref_w, atol=ATOL, rtol=0)


def test_mha_matches_torch_with_padding_mask():
    mine, ref = torch_mha_reference(1)
    q, k, v = random_inputs(2)
    lengths = torch.tensor([NK, 3])
    mask = padding_mask(lengths, NK)                                   # (B, 1, NK) True = real token
    out, w = mine(q, k, v, mask)
    ref_out, ref_w = ref(q, k, v, key_padding_mask=~mask[:, 0, :], need_weights=True,  # torch: True = ignore
                         average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)
    torch.testing.assert_close(w, ref_w, atol=ATOL, rtol=0)
    assert torch.all(w[1, :, :, 3:] == 0)


def test_mha_matches_torch_with_causal_mask_in_every_accepted_shape():
    mine, ref = torch_mha_reference(2)
    x, _, _ = random_inputs(3, n_q=NQ)
    mask = causal_mask(NQ)                                             # (NQ, NQ) True = may attend
    ref_out, ref_w = ref(x, x, x, attn_mask=~mask, need_weights=True, average_attn_weights=False)  # torch: True = hide
    for m in (mask, mask.expand(B, NQ, NQ), mask[None, None], mask.int()):
        out, w = mine(x, x, x, m)
        torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)
        torch.testing.assert_close(w, ref_w, atol=ATOL, rtol=0)
    assert torch.all(w[..., 0, 1:] == 0)


def test_mha_is_split_attend_concatenate_project():
    mine, _ = torch_mha_reference(3)
    q, k, v = random_inputs(4)
    out, w = mine(q, k, v)
    d_head = D // H
    heads = []
    for i in range(H):                                                   # one head at a time, by hand
        cols = slice(i * d_head, (i + 1) * d_head)
        Qi = q @ mine.W_q.weight[cols].T + mine.W_q.bias[cols]
        Ki = k @ mine.W_k.weight[cols].T + mine.W_k.bias[cols]
        Vi = v @ mine.W_v.weight[cols].T + mine.W_v.bias[cols]
        ctx, wi = scaled_dot_product_attention(Qi, Ki, Vi)
        torch.testing.assert_close(w[:, i], wi, atol=ATOL, rtol=0)
        heads.append(ctx)
    torch.testing.assert_close(out, mine.W_o(torch.cat(heads, dim=-1)), atol=ATOL, rtol=0)


@pytest.mark.parametrize("d", [8, 16, 24])
def test_mha_parameter_count_is_4d2_plus_4d_whatever_the_heads(d):
    counts = {h: sum(p.numel() for p in MultiHeadAttention(d, h).parameters()) for h in (1, 2, 4, 8) if d % h == 0}
    assert set(counts.values()) == {4 * d * d + 4 * d}
    assert sum(p.numel() for p in MultiHeadAttention(d, 2, bias=False).parameters()) == 4 * d * d
    assert counts[2] == sum(p.numel() for p in nn.MultiheadAttention(d, 2).parameters())


def test_mha_errors_name_the_shapes():
    mha = MultiHeadAttention(D, H)
    q, k, v = random_inputs()
    with pytest.raises(ValueError, match=r"not divisible by n_heads=5"):
        MultiHeadAttention(12, 5)
    with pytest.raises(ValueError, match=r"query has shape \(2, 5, 11\); expected \(batch, n, 12\)"):
        mha(q[..., :11], k, v)
    with pytest.raises(ValueError, match=r"key has shape \(2, 7, 12\) and value \(2, 6, 12\)"):
        mha(q, k, v[:, :6])
    with pytest.raises(ValueError, match=r"mask has shape \(2, 1, 6\).*\(2, 3, 5, 7\)"):
        mha(q, k, v, torch.ones(B, 1, 6, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"mask has shape \(2, 7\).*mask\[:, None, :\]"):
        mha(q, k, v, torch.ones(B, NK, dtype=torch.bool))


def test_mha_fully_masked_rows_give_zeros_not_nan():
    mha = MultiHeadAttention(D, H).eval()
    q, k, v = random_inputs()
    mask = torch.ones(B, NQ, NK, dtype=torch.bool)
    mask[0, 2] = False
    out, w = mha(q, k, v, mask)
    assert torch.isfinite(out).all() and torch.all(w[0, :, 2] == 0)


# ---------------------------------------------------------------- positions
def test_sinusoidal_positions_follow_the_formula():
    n, d = 50, 16
    pe = sinusoidal_positions(n, d)
    assert pe.shape == (n, d)
    for pos in (0, 1, 7, 49):
        for i in (0, 3, 7):
            angle = pos / 10000 ** (2 * i / d)
            assert math.isclose(pe[pos, 2 * i], math.sin(angle), abs_tol=1e-6)
            assert math.isclose(pe[pos, 2 * i + 1], math.cos(angle), abs_tol=1e-6)
    assert sinusoidal_positions(4, 5).shape == (4, 5)                  # odd d: the last column is a sine
    assert torch.allclose(sinusoidal_positions(3, 5)[:, 4], torch.sin(torch.arange(3.0) / 10000 ** (4 / 5)))


def test_self_attention_is_permutation_equivariant_until_positions_are_added():
    torch.manual_seed(0)
    n, d = 6, 8
    x = torch.randn(1, n, d)
    perm = torch.tensor([3, 0, 5, 1, 4, 2])
    mha = MultiHeadAttention(d, 2).eval()

    def self_attend(z):
        return mha(z, z, z)[0]

    torch.testing.assert_close(self_attend(x[:, perm]), self_attend(x)[:, perm], atol=1e-6, rtol=0)
    for positions in (SinusoidalPositions(n, d), LearnedPositions(n, d)):
        with_pos = self_attend(positions(x[:, perm]))
        assert not torch.allclose(with_pos, self_attend(positions(x))[:, perm], atol=1e-3)
    with pytest.raises(ValueError, match="exceeds max_len=6"):
        SinusoidalPositions(6, d)(torch.randn(1, 7, d))


# ---------------------------------------------------------------- blocks against torch's layers
def test_encoder_layer_matches_torch():
    d, h, d_ff = 12, 3, 20
    mine = randomize_(EncoderLayer(d, h, d_ff), 5).eval()
    ref = nn.TransformerEncoderLayer(d, h, d_ff, dropout=0.0, activation="relu", batch_first=True,
                                     norm_first=True).eval()
    copy_layer_into_torch(mine, ref)
    x = torch.randn(2, 6, d)
    mask = padding_mask(torch.tensor([6, 4]), 6)                        # (2, 1, 6)
    out, w = mine(x, mask)
    ref_out = ref(x, src_key_padding_mask=~mask[:, 0])
    assert w.shape == (2, h, 6, 6)
    torch.testing.assert_close(out[0], ref_out[0], atol=ATOL, rtol=0)
    torch.testing.assert_close(out[1, :4], ref_out[1, :4], atol=ATOL, rtol=0)  # torch's fast path may zero padding


def test_decoder_layer_matches_torch():
    d, h, d_ff = 12, 3, 20
    mine = randomize_(DecoderLayer(d, h, d_ff), 6).eval()
    ref = nn.TransformerDecoderLayer(d, h, d_ff, dropout=0.0, activation="relu", batch_first=True,
                                     norm_first=True).eval()
    copy_layer_into_torch(mine, ref)
    y, memory = torch.randn(2, 5, d), torch.randn(2, 7, d)
    src_mask = padding_mask(torch.tensor([7, 3]), 7)
    out, sw, cw = mine(y, memory, causal_mask(5), src_mask)
    ref_out = ref(y, memory, tgt_mask=~causal_mask(5), memory_key_padding_mask=~src_mask[:, 0])
    torch.testing.assert_close(out, ref_out, atol=ATOL, rtol=0)
    assert sw.shape == (2, h, 5, 5) and cw.shape == (2, h, 5, 7)
    assert torch.all(sw[..., 0, 1:] == 0) and torch.all(cw[1, ..., 3:] == 0)


def test_feed_forward_is_position_wise():
    ff = FeedForward(8, 16).eval()
    x = torch.randn(2, 5, 8)
    torch.testing.assert_close(ff(x)[:, 3], ff(x[:, 3:4])[:, 0])


# ---------------------------------------------------------------- the translator
def small_model(seed=0, **kw):
    return make_transformer(d_model=16, n_heads=2, n_layers=2, d_ff=32, dropout=0.0, seed=seed, **kw)


def toy_batch(model, n=6, lo=4, hi=9, seed=0):
    return make_batch(sample_pairs(n, lo, hi, seed=seed), model.src_vocab, model.tgt_vocab)


def test_translator_shapes_interface_and_both_mask_layouts():
    m = small_model()
    b = toy_batch(m)
    logits, w = m(b)
    B, S = b.src.shape
    T1 = b.tgt_in.shape[1]
    assert logits.shape == (B, T1, len(m.tgt_vocab)) and w.shape == (B, T1, S)
    assert m.config["kind"] == "transformer" and m.has_attention and m.n_parameters() > 0
    torch.testing.assert_close(w.sum(-1), torch.ones(B, T1))
    for i, n in enumerate(b.src_lengths.tolist()):
        assert torch.all(w[i, :, n:] == 0)                               # padding never attended
    b3 = make_batch(sample_pairs(6, 4, 9, seed=0), m.src_vocab, m.tgt_vocab)
    b3.src_mask = b3.src_mask.reshape(B, 1, S)                           # the announced (B, 1, S) layout
    torch.testing.assert_close(m(b3)[0], logits)
    maps = m.attention_maps(b)
    assert set(maps) == {(k, i) for k in ("encoder", "decoder_self", "decoder_cross") for i in range(2)}
    assert maps[("encoder", 0)].shape == (B, 2, S, S) and maps[("decoder_self", 1)].shape == (B, 2, T1, T1)
    torch.testing.assert_close(maps[("decoder_cross", 1)].mean(1), w)


def test_translator_loss_decreases_over_30_steps():
    from helpers.training import train

    m = small_model(seed=1)
    pairs = sample_pairs(200, 4, 8, seed=1)
    b = make_batch(pairs[:64], m.src_vocab, m.tgt_vocab)
    with torch.no_grad():
        before = float(m.loss(b))
    log = train(m, pairs, steps=30, batch_size=32, lr=3e-3, warmup=5, progress=False)
    with torch.no_grad():
        after = float(m.loss(b))
    assert after < before - 0.5, (before, after)
    assert sum(log.losses[-5:]) / 5 < sum(log.losses[:5]) / 5


def test_greedy_decode_format():
    m = small_model()
    b = toy_batch(m, n=4)
    tokens, weights = m.greedy_decode(b, max_len=6)
    assert len(tokens) == len(weights) == 4
    for toks, w, n_src in zip(tokens, weights, b.src_lengths.tolist(), strict=True):
        assert all(isinstance(t, str) and t in m.tgt_vocab.stoi for t in toks)
        assert "<eos>" not in toks and "<bos>" not in toks and len(toks) <= 6
        assert w.shape == (len(toks), n_src)
    # the decoded words are the argmax of a teacher-forced pass over them (same computation, one step at a time)
    toks = tokens[0]
    single = make_batch([(b.src[0, : b.src_lengths[0]].tolist(), [])], m.src_vocab, m.tgt_vocab)
    single.src = b.src[:1, : b.src_lengths[0]]
    single.src_mask = single.src_mask[:, : single.src.shape[1]]
    single.tgt_in = torch.tensor([[m.tgt_vocab.bos_id] + m.tgt_vocab.encode(toks)])
    logits, w_tf = m(single)
    assert m.tgt_vocab.decode(logits[0].argmax(-1).tolist())[: len(toks)] == toks
    torch.testing.assert_close(w_tf[0, : len(toks)], weights[0], atol=1e-5, rtol=0)


def trained_looking_model(seed=3):
    """A random small model with peaked attention and a sharp output layer, as after training (no argmax ties)."""
    m = small_model(seed=seed)
    with torch.no_grad():
        for module in m.modules():
            if isinstance(module, MultiHeadAttention):
                module.W_q.weight.mul_(4.0)                  # scores far from 0: weights far from uniform
        m.output.weight.mul_(20.0)
    return m.eval()


def padded_batch(m, n=6, seed=1):
    """Sources of 3 to 11 words, so that most sentences of the batch are padded."""
    b = toy_batch(m, n=n, lo=3, hi=11, seed=seed)
    assert len(set(b.src_lengths.tolist())) > 2
    return b


@pytest.mark.parametrize("max_len", [1, 4, 9, 20])
def test_cached_greedy_decode_equals_rerunning_the_prefix(max_len):
    """The KV cache gives the tokens and weights of re-running the whole prefix, with padding in the batch."""
    m = trained_looking_model()
    b = padded_batch(m)
    fast, w_fast = m.greedy_decode(b, max_len=max_len)
    slow, w_slow = m.greedy_decode(b, max_len=max_len, cache=False)
    assert fast == slow and max(len(t) for t in fast) == max_len
    for a, c in zip(w_fast, w_slow, strict=True):
        torch.testing.assert_close(a, c, atol=1e-5, rtol=0)


def cached_pass(m, b, tgt_in):
    """decode_step over a given target prefix, one position at a time -> logits (B, T, V), cross weights, caches."""
    from helpers.transformer import _source_mask

    src_mask = _source_mask(b)
    memory = m.encode(b)
    caches, logits, cross = m.start_caches(memory), [], []
    for t in range(tgt_in.shape[1]):
        step_logits, caches, w = m.decode_step(tgt_in[:, : t + 1], caches, src_mask)
        logits.append(step_logits)
        cross.append(w)
    return torch.cat(logits, dim=1), torch.cat(cross, dim=2), caches


@torch.no_grad()
def test_decode_step_gives_the_logits_and_weights_of_the_full_pass_and_caches_one_row_per_step():
    m = trained_looking_model()
    b = padded_batch(m)
    tgt_in = torch.randint(4, len(m.tgt_vocab), (b.src.shape[0], 12), generator=torch.Generator().manual_seed(0))
    tgt_in[:, 0] = m.tgt_vocab.bos_id
    logits, cross, caches = cached_pass(m, b, tgt_in)
    full = m.decode(tgt_in, m.encode(b), b.src_mask)
    torch.testing.assert_close(logits, full.logits, atol=1e-4, rtol=1e-5)
    torch.testing.assert_close(cross, full.cross_weights[-1], atol=1e-5, rtol=0)
    B, S = b.src.shape
    h, d_head = m.decoder_layers[0].self_attn.n_heads, m.decoder_layers[0].self_attn.d_head
    assert len(caches) == len(m.decoder_layers) == 2
    for cache, layer in zip(caches, m.decoder_layers, strict=True):
        assert cache.keys.shape == cache.values.shape == (B, h, 12, d_head)          # one row per position written
        assert cache.memory_keys.shape == cache.memory_values.shape == (B, h, S, d_head)
        torch.testing.assert_close(cache.memory_keys, layer.cross_attn.keys_values(m.encode(b), m.encode(b))[0])
        assert cache.nbytes() == 4 * 2 * B * (12 + S) * m.d_model


@torch.no_grad()
def test_a_stale_cache_would_fail_the_comparison(monkeypatch):
    """The comparison can fail: a cache that forgets to append its newest row gives other logits."""
    from helpers.transformer import LayerCache

    m = trained_looking_model()
    b = padded_batch(m)
    tgt_in = torch.randint(4, len(m.tgt_vocab), (b.src.shape[0], 6), generator=torch.Generator().manual_seed(1))
    tgt_in[:, 0] = m.tgt_vocab.bos_id
    right, _, _ = cached_pass(m, b, tgt_in)
    keep_first = LayerCache.append
    monkeypatch.setattr(LayerCache, "append",
                        lambda self, k, v: keep_first(self, k, v) if self.keys.shape[2] == 0 else self)
    stale, _, _ = cached_pass(m, b, tgt_in)
    torch.testing.assert_close(stale[:, 0], right[:, 0])              # the first step cannot tell...
    assert all(not torch.allclose(stale[:, t], right[:, t], atol=1e-3) for t in range(1, 6))  # ...every later one can


def test_the_cache_projects_the_memory_once_and_each_new_position_once():
    """Count the calls of every K/V projection during one cached greedy decode, and the rows each call projects."""
    m = trained_looking_model()
    b = padded_batch(m)
    calls = {}

    def count(name):
        def hook(module, inputs, output):
            calls.setdefault(name, []).append(tuple(inputs[0].shape))
        return hook

    for i, layer in enumerate(m.decoder_layers):
        for attn in ("self_attn", "cross_attn"):
            for w in ("W_k", "W_v"):
                getattr(getattr(layer, attn), w).register_forward_hook(count((i, attn, w)))
    tokens, _ = m.greedy_decode(b, max_len=9)
    steps = max(len(t) for t in tokens) + (1 if max(len(t) for t in tokens) < 9 else 0)
    B, S = b.src.shape
    for i in range(len(m.decoder_layers)):
        for w in ("W_k", "W_v"):
            assert calls[i, "cross_attn", w] == [(B, S, m.d_model)]               # the memory: once per sentence
            assert calls[i, "self_attn", w] == [(B, 1, m.d_model)] * steps        # one new position per step


def test_greedy_decode_stops_at_eos():
    m = small_model()
    with torch.no_grad():
        m.output.bias.fill_(-10.0)
        m.output.bias[m.tgt_vocab.eos_id] = 10.0                        # every step says <eos>
    tokens, weights = m.greedy_decode(toy_batch(m, n=3))
    assert tokens == [[], [], []] and all(w.shape[0] == 0 for w in weights)


def test_decoder_output_at_position_i_ignores_later_target_tokens():
    m = small_model()
    b = toy_batch(m, n=3)
    logits, _ = m(b)
    i = 2
    changed = b.tgt_in.clone()
    gen = torch.Generator().manual_seed(0)
    changed[:, i + 1:] = torch.randint(4, len(m.tgt_vocab), changed[:, i + 1:].shape, generator=gen)
    b.tgt_in = changed
    logits2, _ = m(b)
    torch.testing.assert_close(logits2[:, : i + 1], logits[:, : i + 1])
    assert not torch.allclose(logits2[:, i + 1:], logits[:, i + 1:])


def test_translator_rejects_a_bad_source_mask():
    m = small_model()
    b = toy_batch(m)
    b.src_mask = b.src_mask[..., :-1]
    with pytest.raises(ValueError, match=r"src_mask has shape \(6, 1, \d+\); expected \(6, 1, \d+\)"):
        m(b)


# ---------------------------------------------------------------- the decoder-only model and its causal mask
def test_tiny_decoder_causal_mask_hides_the_future_and_only_then():
    vocab = small_model().tgt_vocab
    ids = torch.randint(4, len(vocab), (2, 6), generator=torch.Generator().manual_seed(0))
    later = ids.clone()
    later[:, 4:] = (later[:, 4:] + 1 - 4) % (len(vocab) - 4) + 4
    for causal in (True, False):
        torch.manual_seed(0)
        model = TinyDecoder(vocab, d=16, heads=2, layers=1, causal=causal).eval()
        same = torch.allclose(model(ids)[:, :4], model(later)[:, :4])
        assert same == causal


def test_the_experiments_live_in_helpers_experiments_and_chapter_07_imports_them_from_there():
    """No module __getattr__ shim: helpers.transformer does not hand out helpers.experiments' names (issue 33)."""
    import helpers.transformer

    for name in ("CausalDemoResult", "causal_mask_demo", "next_word_accuracy", "next_word_scores", "generate",
                 "step_time_by_length"):
        assert not hasattr(helpers.transformer, name), f"helpers.transformer still hands out {name}"
    assert not hasattr(helpers.transformer, "__getattr__")
    source = (ROOT / "notebooks" / "07_self_attention_and_transformer.ipynb").read_text()
    assert "from helpers.transformer import LearnedPositions, make_transformer, sinusoidal_positions" in source


@torch.no_grad()
def test_decode_step_embeds_only_the_newest_word_and_writes_one_row_in_place():
    """The cache is what chapter 08 says: each step embeds one id, and no step copies the rows written before it."""
    m = trained_looking_model()
    b = padded_batch(m)
    embedded = []
    m.tgt_embedding.register_forward_hook(lambda module, inputs, output: embedded.append(tuple(inputs[0].shape)))
    tokens, _ = m.greedy_decode(b, max_len=7)
    B = b.src.shape[0]
    assert embedded and embedded == [(B, 1)] * len(embedded)                      # one id per sentence per step
    from helpers.transformer import _source_mask

    memory = m.encode(b)
    caches = m.start_caches(memory, capacity=5)
    buffers = [(c.key_buffer.data_ptr(), c.value_buffer.data_ptr()) for c in caches]
    ids = torch.full((B, 1), m.tgt_vocab.bos_id)
    for t in range(5):
        logits, caches, _ = m.decode_step(ids, caches, _source_mask(b))
        assert [c.length for c in caches] == [t + 1] * len(caches)
        assert [(c.key_buffer.data_ptr(), c.value_buffer.data_ptr()) for c in caches] == buffers   # no new buffer
        assert all(c.keys.data_ptr() == c.key_buffer.data_ptr() for c in caches)                   # a view of it
        ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    assert caches[0].reserved_nbytes() == caches[0].nbytes()                      # full: holds what it reserved
    with pytest.raises(ValueError, match="full"):
        m.decode_step(ids, caches, _source_mask(b))


def test_positions_start_offset_adds_the_later_rows():
    for cls in (SinusoidalPositions, LearnedPositions):
        p = cls(10, 4)
        x = torch.zeros(2, 3, 4)
        torch.testing.assert_close(p(x, start=5), p(torch.zeros(2, 8, 4))[:, 5:])
        with pytest.raises(ValueError, match="from position 8 exceeds max_len=10"):
            p(x, start=8)
