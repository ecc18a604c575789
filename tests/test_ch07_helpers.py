"""Chapter 07's drawing of Transformer heads (head_map, draw_head, draw_layer_heads) and its HeadExplorer widget,
checked against the model's own attention maps."""
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from helpers import toylang
from helpers.plotting import HEAD_KINDS, draw_head, draw_layer_heads, head_map
from helpers.seq2seq import make_batch
from helpers.transformer import make_transformer
from helpers.widgets import HeadExplorer, head_readout_html

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def model():
    return make_transformer(d_model=16, n_heads=2, n_layers=2, d_ff=32, seed=0).eval()


@pytest.fixture(scope="module")
def pairs():
    long, short = toylang.sample_pairs(1, 12, 12, seed=4)[0], toylang.sample_pairs(1, 5, 5, seed=5)[0]
    return [long, short]


@pytest.fixture(scope="module")
def maps(model, pairs):
    return model.attention_maps(make_batch(pairs, model.src_vocab, model.tgt_vocab))


# ---------------------------------------------------------------- head_map
@pytest.mark.parametrize("kind", sorted(HEAD_KINDS))
def test_head_map_crops_the_padded_batch_to_one_sentence(model, pairs, maps, kind):
    src, tgt, _ = pairs[1]                                   # the short sentence: padded in the batch
    w, keys, queries = head_map(maps, src, tgt, kind, layer=1, head=1, index=1)
    expected_keys = {"encoder": src, "decoder_self": ["<bos>", *tgt], "decoder_cross": src}[kind]
    expected_queries = src if kind == "encoder" else [*tgt, "<eos>"]
    assert keys == list(expected_keys) and queries == list(expected_queries)
    full = maps[(kind, 1)][1, 1].numpy()
    assert np.array_equal(w, full[: len(queries), : len(keys)])
    # padding keys get no weight, so the cropped rows still hold all of it
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)
    if kind == "decoder_self":
        assert np.allclose(np.triu(w, 1), 0.0), "decoder self-attention is causal"


def test_head_map_errors_name_what_was_wrong(pairs, maps):
    src, tgt, _ = pairs[0]
    with pytest.raises(ValueError, match=r"kind must be one of .*got 'cross'"):
        head_map(maps, src, tgt, "cross", 0, 0)
    with pytest.raises(ValueError, match=r"layer must be one of \[0, 1\] .*got 2"):
        head_map(maps, src, tgt, "encoder", 2, 0)
    with pytest.raises(ValueError, match=r"head must lie in 0\.\.1 .*got 2"):
        head_map(maps, src, tgt, "encoder", 0, 2)
    with pytest.raises(ValueError, match=r"index must lie in 0\.\.1"):
        head_map(maps, src, tgt, "encoder", 0, 0, index=2)
    with pytest.raises(ValueError, match=r"do not fit the 'decoder_cross' map of shape"):
        head_map(maps, src + ["dog"] * 5, tgt, "decoder_cross", 0, 0, index=0)
    encoder_only = {k: v for k, v in maps.items() if k[0] == "encoder"}
    with pytest.raises(ValueError, match="has no 'decoder_self' entries"):
        head_map(encoder_only, src, tgt, "decoder_self", 0, 0)


# ---------------------------------------------------------------- drawing
def test_draw_head_shows_that_heads_weights_with_token_ticks(pairs, maps):
    src, tgt, _ = pairs[0]
    ax = draw_head(maps, src, tgt, "decoder_cross", layer=1, head=0)
    image = ax.images[0]
    assert np.array_equal(image.get_array(), maps[("decoder_cross", 1)][0, 0, : len(tgt) + 1, : len(src)].numpy())
    assert image.get_clim() == (0.0, 1.0), "weights on a fixed 0-1 scale"
    assert [t.get_text() for t in ax.get_xticklabels()] == list(src)
    assert [t.get_text() for t in ax.get_yticklabels()] == [*tgt, "<eos>"]
    assert "layer 2 of 2, head 1 of 2" in ax.get_title() and "cross-attention" in ax.get_title()
    other = draw_head(maps, src, tgt, "decoder_cross", layer=1, head=1).images[0].get_array()
    assert not np.array_equal(image.get_array(), other), "another head, another map"
    plt.close("all")


def test_draw_layer_heads_draws_every_head_of_the_layer(pairs, maps):
    src, tgt, _ = pairs[0]
    fig = draw_layer_heads(maps, src, tgt, "encoder", layer=0)
    drawn = [ax for ax in fig.axes if ax.images and ax.get_visible()]
    assert len(drawn) == 2
    for h, ax in enumerate(drawn):
        assert np.array_equal(ax.images[0].get_array(), maps[("encoder", 0)][0, h, : len(src), : len(src)].numpy())
        assert ax.get_title() == f"head {h + 1} of 2"
    assert "encoder self-attention, layer 1" in fig._suptitle.get_text()
    plt.close(fig)
    fig = draw_layer_heads(maps, src, tgt, "encoder", layer=0, title="Trained Transformer: encoder")
    assert fig._suptitle.get_text() == "Trained Transformer: encoder"
    plt.close(fig)


def test_readout_names_the_strongest_link():
    w = np.full((3, 4), 0.1)
    w[2, 1] = 0.7
    text = head_readout_html(w, ["a", "b", "c", "d"], ["x", "y", "<eos>"], "decoder_cross", 0, 1, 5, 2, 4)
    assert 'data-head="2"' in text and 'data-layer="1"' in text and 'data-sentence="6"' in text
    assert 'data-kind="decoder_cross"' in text and 'data-strongest="0.7000"' in text
    assert "<b>&lt;eos&gt;</b> → <b>b</b>" in text and "head 2 of 4" in text


# ---------------------------------------------------------------- the widget
def test_head_explorer_controls_drive_the_map_and_the_readout(model, pairs):
    explorer = HeadExplorer(model, [pairs[0], " ".join(pairs[1][0])], kind="decoder_cross")
    assert explorer.n_layers == 2 and explorer.n_heads == 2
    assert "head-explorer" in explorer.widget._dom_classes and "head-pick" in explorer.head._dom_classes
    assert "head-readout" in explorer.readout._dom_classes
    first_readout, first_image = explorer.readout.value, explorer.image.value
    assert first_image[:8] == b"\x89PNG\r\n\x1a\n"

    explorer.head.value = 2
    assert re.search(r'data-head="2"', explorer.readout.value) and explorer.readout.value != first_readout
    assert explorer.image.value != first_image
    src, tgt, _ = pairs[0]
    reference = model.attention_maps(make_batch([pairs[0]], model.src_vocab, model.tgt_vocab))
    np.testing.assert_allclose(explorer.shown()[0], reference[("decoder_cross", 0)][0, 1].numpy(), atol=1e-6)

    explorer.kind.value, explorer.layer.value, explorer.sentence.value = "encoder", 2, 1
    w, keys, queries = explorer.shown()
    short_src = pairs[1][0]
    assert keys == queries == list(short_src) and w.shape == (len(short_src), len(short_src))
    assert 'data-kind="encoder"' in explorer.readout.value and 'data-layer="2"' in explorer.readout.value
    # a plain source sentence is paired with the grammar's translation
    assert explorer.pairs[1][1] == toylang.translate(short_src)[0]
    assert repr(explorer).startswith("HeadExplorer(encoder, layer 2 of 2, head 2 of 2, sentence 2 of 2")   # from 1
    assert [label[:2] for label, _ in explorer.sentence.options] == ["1:", "2:"]


def test_head_explorer_rejects_what_it_cannot_show(model):
    with pytest.raises(ValueError, match=r"unknown source word.*'zebra'"):
        HeadExplorer(model, ["the zebra slept"])
    with pytest.raises(ValueError, match="at least one sentence"):
        HeadExplorer(model, [])
    with pytest.raises(ValueError, match="kind must be one of"):
        HeadExplorer(model, ["the dog slept"], kind="self")


def test_results_from_rows_gives_back_what_budget_rows_stored():
    """A stored run shown beside live ones reads exactly as evaluate_buckets would have returned it."""
    from types import SimpleNamespace

    from helpers.experiments import budget_rows, results_from_rows

    model, log = SimpleNamespace(n_parameters=lambda: 10), SimpleNamespace(cpu_seconds=1.5)
    with_align = {"4-10": {"bleu": 90.0, "exact": 50.0, "n": 100, "align": 80.0},
                  "11-20": {"bleu": 70.5, "exact": 20.0, "n": 100, "align": 60.0}}
    without = {b: {k: v for k, v in r.items() if k != "align"} for b, r in with_align.items()}
    for results in (with_align, without):
        assert results_from_rows(budget_rows("m", 5, model, log, results)) == results
    assert list(results_from_rows(budget_rows("m", 5, model, log, with_align))) == ["4-10", "11-20"]


def test_a_stored_run_with_a_training_row_gives_its_results_and_its_log():
    from helpers.experiments import log_from_rows, results_from_rows

    rows = [{"set": "4-10", "bleu": 99.0, "exact": 90.0, "align": 80.0, "mass": 0.7, "n": 100, "cpu_seconds": 3.0},
            {"set": "training", "losses": [4.0, 2.0, 1.0]}]
    assert results_from_rows(rows) == {"4-10": {"bleu": 99.0, "exact": 90.0, "n": 100, "align": 80.0, "mass": 0.7}}
    log = log_from_rows(rows)
    assert (log.steps, log.losses, log.cpu_seconds) == (3, [4.0, 2.0, 1.0], 3.0)
    with pytest.raises(ValueError, match="no training row"):
        log_from_rows(rows[:1])
