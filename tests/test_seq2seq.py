"""Encoder-decoder models: shapes, masking, bidirectional reading, decoding, a tiny overfit, the explorer function."""
import matplotlib.pyplot as plt
import pytest
import torch

from helpers.attention import SCORERS, MultiplicativeAttention
from helpers.seq2seq import (
    _reverse_within_length,
    forced_attention,
    greedy_decode,
    greedy_translate,
    length_batches,
    make_batch,
    make_model,
)
from helpers.tables import format_table
from helpers.toylang import sample_pairs
from helpers.training import gradient_to_first_word, train
from helpers.widgets import translate_and_show, translation_explorer

PAIRS = sample_pairs(6, 4, 15, seed=0)


def small(kind="attention", **kw):
    return make_model(kind, emb=16, hidden=24, attn_hidden=16, seed=0, **kw) if kind == "attention" else \
        make_model(kind, emb=16, hidden=24, seed=0, **kw)


def test_batch_padding_and_masks():
    b = make_batch(PAIRS, small().src_vocab, small().tgt_vocab)
    n, t = max(len(p[0]) for p in PAIRS), max(len(p[1]) for p in PAIRS)
    assert b.src.shape == (6, n) and b.src_mask.shape == (6, 1, n) and b.tgt_in.shape == (6, t + 1)
    for i, (s, t, _) in enumerate(PAIRS):
        assert b.src_mask[i].sum() == len(s) and (b.src[i, len(s):] == 0).all()
        assert b.tgt_in[i, 0] == 1 and b.tgt_out[i, len(t)] == 2


def test_length_batches_group_similar_lengths_and_cover_everything():
    lengths = [len(s) for s, _, _ in sample_pairs(300, 4, 40, seed=1)]
    stream = length_batches(lengths, 32, seed=0)
    epoch = [next(stream) for _ in range(10)]      # ceil(300 / 32) = 10 batches per epoch
    assert sorted(i for b in epoch for i in b) == list(range(300))
    assert max(max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in epoch) <= 8


@pytest.mark.parametrize("kind", ["attention", "none"])
def test_forward_shapes(kind):
    m = small(kind)
    b = make_batch(PAIRS, m.src_vocab, m.tgt_vocab)
    logits, weights = m(b)
    assert logits.shape == (6, b.tgt_in.shape[1], len(m.tgt_vocab))
    if kind == "attention":
        assert weights.shape == (6, b.tgt_in.shape[1], b.src.shape[1])
        assert torch.allclose(weights.sum(-1), torch.ones(6, b.tgt_in.shape[1]), atol=1e-5)
    else:
        assert weights is None
    assert m.loss(b).shape == ()


def test_padded_positions_get_zero_attention_and_do_not_change_results():
    m = small().eval()
    b = make_batch(PAIRS, m.src_vocab, m.tgt_vocab)
    _, w = m(b)
    for i, (s, _, _) in enumerate(PAIRS):
        assert (w[i, :, len(s):] == 0).all()
    # the same sentence alone (no padding) gives the same weights and logits
    shortest = min(range(6), key=lambda i: len(PAIRS[i][0]))
    alone = make_batch([PAIRS[shortest]], m.src_vocab, m.tgt_vocab)
    logits1, w1 = m(alone)
    logits_all, _ = m(b)
    n_t, n_s = alone.tgt_in.shape[1], len(PAIRS[shortest][0])
    assert torch.allclose(w1[0], w[shortest, :n_t, :n_s], atol=1e-5)
    assert torch.allclose(logits1[0], logits_all[shortest, :n_t], atol=1e-4)


def test_backward_direction_reads_each_sentence_right_to_left():
    m = small()
    b = make_batch(PAIRS, m.src_vocab)
    enc = m.encode(b)
    H = m.encoder.hidden
    for i, (s, _, _) in enumerate(PAIRS):
        rev = torch.tensor(m.src_vocab.encode(s[::-1]))[None]
        out, _ = m.encoder.backward_rnn(m.encoder.embedding(rev))
        assert torch.allclose(enc.outputs[i, : len(s), H:], out[0].flip(0), atol=1e-5)
        assert torch.allclose(enc.backward_final[i], out[0, -1], atol=1e-5)
        assert (enc.outputs[i, len(s):] == 0).all()
    x = torch.arange(12.0).reshape(2, 3, 2)
    assert _reverse_within_length(x, torch.tensor([2, 3]))[0, :, 0].tolist() == [2.0, 0.0, 4.0]


@pytest.mark.parametrize("name", sorted(SCORERS))
def test_every_scorer_plugs_in(name):
    m = make_model("attention", scorer=name, emb=16, hidden=24, attn_hidden=16, seed=0)
    b = make_batch(PAIRS, m.src_vocab, m.tgt_vocab)
    _, w = m(b)
    assert w.shape == (6, b.tgt_in.shape[1], b.src.shape[1]) and m.config["scorer"] == name


def test_custom_scorer_module_and_dropout_options():
    m = make_model("attention", scorer=MultiplicativeAttention(24, 48), emb=16, hidden=24, seed=0)
    assert isinstance(m.decoder.scorer, MultiplicativeAttention)
    with pytest.raises(ValueError, match="no attention"):
        make_model("none", scorer="dot")
    with pytest.raises(ValueError, match="kind"):
        make_model("transformer")
    m = small(context_dropout=0.5)
    b = make_batch(PAIRS, m.src_vocab, m.tgt_vocab)
    m.train()
    torch.manual_seed(0)
    a, _ = m(b)
    torch.manual_seed(1)
    c, _ = m(b)
    assert not torch.allclose(a, c), "context dropout should act in training mode"
    m.eval()
    assert torch.allclose(m(b)[0], m(b)[0])
    assert small(attn_dropout=0.3).decoder.scorer.dropout.p == 0.3


@pytest.mark.parametrize("kind", ["attention", "none"])
def test_greedy_decode_terminates_untrained(kind):
    m = small(kind)
    b = make_batch([p[0] for p in PAIRS], m.src_vocab)
    tokens, weights = greedy_decode(m, b, max_len=7)
    assert len(tokens) == 6 and all(len(t) <= 7 for t in tokens)
    if kind == "attention":
        assert all(w.shape == (len(t), len(p[0])) for w, t, p in zip(weights, tokens, PAIRS, strict=False))


def test_tiny_model_overfits_a_few_pairs():
    pairs = sample_pairs(8, 4, 6, seed=3)
    m = make_model("attention", emb=32, hidden=48, attn_hidden=32, seed=0)
    log = train(m, pairs, steps=150, batch_size=8, lr=1e-2, warmup=10, decay_to=0.3, progress=False)
    assert log.losses[-1] < 0.05 < log.losses[0]
    hyps, weights = greedy_translate(m, [p[0] for p in pairs])
    assert hyps == [p[1] for p in pairs]
    attn = forced_attention(m, pairs)
    assert [tuple(w.shape) for w in attn] == [(len(p[1]), len(p[0])) for p in pairs]
    with_eos = forced_attention(m, pairs, eos=True)                  # one more row: the one that writes <eos>
    assert [tuple(w.shape) for w in with_eos] == [(len(p[1]) + 1, len(p[0])) for p in pairs]
    assert all(torch.equal(a, b[:-1]) for a, b in zip(attn, with_eos, strict=True))


def test_gradient_reaches_the_first_word_through_attention_not_through_a_long_chain():
    long = sample_pairs(3, 40, 40, seed=5)
    with_attention = gradient_to_first_word(make_model("attention", seed=0), long)
    without = gradient_to_first_word(make_model("none", seed=0), long)
    assert with_attention > 1000 * without > 0


def test_translate_and_show_explains_unknown_words_and_draws_known_ones():
    m = small()
    shown = translate_and_show(m, "The zebra sleeps.")
    assert not shown.ok and shown.figure is None
    assert "Unknown word(s): 'zebra'" in shown.message and "Traceback" not in shown.message
    assert "Type a sentence" in translate_and_show(m, "  ").message
    shown = translate_and_show(m, "the dog sleeps", plot=True)
    from helpers.toylang import references

    assert shown.ok and shown.source == ["the", "dog", "sleeps"] and shown.reference == references(shown.source)[0]
    if shown.translation:
        ax = shown.figure.axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["the", "dog", "sleeps"]
        plt.close(shown.figure)
    assert "cannot parse" in translate_and_show(m, "dog the sleeps", plot=False).message
    assert "no attention" in translate_and_show(small("none"), "the dog sleeps").message


def test_explorer_updates_its_widgets_kernel_side():
    m = small()
    open_before = plt.get_fignums()
    box = translation_explorer(m, ["the dog sleeps", "a cat runs"])
    pick, typed, info, image = box.children
    assert "the dog sleeps" in info.value
    bundle, metadata = box._repr_mimebundle_()     # the output's metadata stores every state (the website's)
    fallback = bundle["text/plain"]
    states = metadata["course/explorer-states"]["states"]
    assert sorted(states) == ["0", "1"] and states["0"]["keys"] == ["the", "dog", "sleeps"]
    assert fallback.startswith("TranslationExplorer(2 test sentences; showing: the dog sleeps  ->")
    assert "children=" not in fallback, "a static reader sees what the explorer shows, not a VBox repr"
    pick.value = "a cat runs"
    assert "a cat runs" in info.value and "showing: a cat runs" in repr(box)
    typed.value = "the unicorn sleeps"
    assert "Unknown word(s): &#x27;unicorn&#x27;" in info.value and image.value == b""
    assert plt.get_fignums() == open_before, "the explorer must close the figures it renders"


def test_linear_probe_reads_a_planted_signal_and_not_noise():
    from helpers.training import linear_probe_accuracy

    g = torch.Generator().manual_seed(0)
    labels = [f"w{i % 5}" for i in range(500)]
    onehot = torch.nn.functional.one_hot(torch.tensor([i % 5 for i in range(500)]), 5).float()
    planted = torch.cat([onehot * 3, torch.randn(500, 20, generator=g)], dim=1)
    assert linear_probe_accuracy(planted, labels) == 100.0
    assert linear_probe_accuracy(torch.randn(500, 20, generator=g), labels) < 40


def test_probe_nouns_and_final_states_shapes():
    from helpers.training import _noun_targets, final_states, probe_nouns

    targets = _noun_targets("the dog near a river sees the cat".split())
    assert targets == {"first": "dog", "middle": "river", "last": "cat"}
    m = small("none")
    pairs = sample_pairs(50, 5, 9, seed=0)
    assert final_states(m, [p[0] for p in pairs], "forward").shape == (50, 24)
    assert final_states(m, [p[0] for p in pairs], "both").shape == (50, 48)
    acc = probe_nouns(m, pairs, "both", ("first", "middle", "last"))
    assert set(acc) == {"first", "middle", "last"} and all(0 <= a <= 100 for a in acc.values())


def test_evaluate_buckets_and_report():
    from helpers.training import evaluate_buckets, results_table

    m = small()
    res = evaluate_buckets(m, {"4-6": sample_pairs(5, 4, 6, seed=1), "7-9": sample_pairs(5, 7, 9, seed=2)})
    assert set(res["4-6"]) == {"bleu", "exact", "n", "align", "mass"} and res["7-9"]["n"] == 5
    table = format_table(results_table({"m": res}), index_name="bucket").splitlines()
    assert table[0].split() == ["bucket", "m", "bleu", "m", "exact"] and table[1].split()[0] == "4-6"


def test_attn_hidden_none_means_the_decoder_size():
    from helpers.seq2seq import make_model

    assert make_model(hidden=32, emb=16, attn_hidden=None).decoder.scorer.v.in_features == 32


def _manual_first_word_gradient(model, pair, last_words):
    """The same quantity as gradient_to_first_word(direction="both"), written out for one sentence."""
    batch = make_batch([pair], model.src_vocab, model.tgt_vocab)
    x = model.encoder.embedding(batch.src).detach().requires_grad_(True)
    enc = model.encoder.encode_embedded(x, x, batch.src_lengths, batch.src_mask)
    logits, _, _ = model.decoder(batch.tgt_in, enc, model.decoder.initial_state(enc))
    T = len(pair[1])
    loss = torch.nn.functional.cross_entropy(logits[0, T - last_words:T], batch.tgt_out[0, T - last_words:T],
                                             reduction="sum")
    loss.backward()
    return float(x.grad[0, 0].norm())


def test_gradient_to_first_word_of_the_last_words_through_both_directions_matches_a_hand_computation():
    pairs = sample_pairs(3, 8, 8, seed=2)
    m = make_model("none", emb=16, hidden=24, seed=1)
    want = sum(_manual_first_word_gradient(m, p, 3) for p in pairs) / 3
    assert gradient_to_first_word(m, pairs, direction="both", last_words=3) == pytest.approx(want, rel=1e-6)
    whole = gradient_to_first_word(m, pairs, direction="both")
    assert whole != pytest.approx(want, rel=1e-3), "last_words must restrict the loss to the last words"


def test_gradient_to_first_word_follows_the_backward_reading_and_is_zero_without_a_path():
    pairs = sample_pairs(2, 12, 12, seed=4)
    m = make_model("none", emb=16, hidden=24, seed=0)
    with torch.no_grad():                       # the left-to-right GRU no longer reads its input
        m.encoder.forward_rnn.weight_ih_l0.zero_()
    assert gradient_to_first_word(m, pairs, direction="forward", last_words=5) == 0.0
    assert gradient_to_first_word(m, pairs, direction="both", last_words=5) > 1e-4    # the backward path counts
    cut = make_model("none", emb=16, hidden=24, seed=0)
    with torch.no_grad():                       # the decoder never sees the context vector
        for layer in (cut.decoder.init, ):
            layer.weight.zero_()
        cut.decoder.rnn.weight_ih_l0[:, 16:].zero_()
        cut.decoder.pre_output.weight[:, 24:24 + cut.encoder.output_size].zero_()
    assert gradient_to_first_word(cut, pairs, direction="both", last_words=5) == 0.0
    with pytest.raises(ValueError, match="last_words"):
        gradient_to_first_word(m, pairs, last_words=0)
