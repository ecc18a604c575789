"""Chapter 05's small helpers: alignment while training, the no-information baseline, alignment by word class,
counting a module's calls, and the three training-dynamics plots."""
import matplotlib.pyplot as plt
import pytest
import torch

from helpers import toylang
from helpers.metrics import alignment_accuracy, attention_mass_on_gold
from helpers.plotting import plot_alignment_curve, plot_attention_snapshots, plot_loss_curves
from helpers.seq2seq import forced_attention, make_batch, make_model
from helpers.training import (
    alignment_by_class,
    alignment_scores,
    count_forward_calls,
    uniform_attention_baseline,
    word_class,
)

PAIRS = toylang.sample_pairs(6, 5, 14, seed=4)


def tiny(wiring="luong"):
    return make_model("attention", emb=8, hidden=8, attn_hidden=6, wiring=wiring, seed=0)


def test_alignment_scores_agree_with_the_metrics_on_forced_attention():
    model = tiny()
    got = alignment_scores(model, PAIRS)
    weights, gold = forced_attention(model, PAIRS), [p[2] for p in PAIRS]
    assert got["align"] == pytest.approx(alignment_accuracy(weights, gold))
    assert got["mass"] == pytest.approx(attention_mass_on_gold(weights, gold))


def test_uniform_baseline_by_hand_and_against_uniform_weights():
    pairs = [(["a", "b", "c", "d"], ["x", "y", "z"], [(0,), (), (1, 2)])]
    assert uniform_attention_baseline(pairs) == pytest.approx({"align": 37.5, "mass": 0.375})
    uniform = [torch.full((len(p[1]), len(p[0])), 1 / len(p[0])) for p in PAIRS]
    assert uniform_attention_baseline(PAIRS)["mass"] == pytest.approx(
        attention_mass_on_gold(uniform, [p[2] for p in PAIRS]))
    with pytest.raises(ValueError, match="no target word"):
        uniform_attention_baseline([(["a"], ["x"], [()])])


def test_word_classes_of_the_readme_sentence():
    src = "a man who saw the cat looked after a big dog in the house".split()
    tgt, align = toylang.translate(src)
    classes = [word_class(src, align, j) for j in range(len(tgt))]
    assert dict(zip(tgt, classes, strict=True)) == {
        "kanjian": "verb", "le": "no source", "mao": "noun", "de": "no source", "yi": "determiner",
        "ge": "measure word", "nanren": "noun", "zai": "circumposition, 1st half", "fangzi": "noun",
        "li": "circumposition, 2nd half", "zhaogu": "phrasal verb", "zhi": "measure word", "gaoda": "adjective",
        "gou": "noun"}
    assert classes[tgt.index("de")] == "relative de"           # the first de translates "who"
    assert classes[len(tgt) - 2] == "no source"                 # the adjective's de has no source word


def test_alignment_by_class_counts_hits_mass_and_early_misses():
    src = ["the", "dog", "slept", "in", "the", "house"]
    tgt, align = toylang.translate(src)                          # gou zai fangzi li shuijiao le
    assert [tuple(a) for a in align] == [(1,), (3,), (5,), (3,), (2,), ()]
    w = torch.zeros(len(tgt), len(src))
    w[0, 1] = 1.0                 # noun: right
    w[1, 2], w[1, 3] = 0.7, 0.3   # zai: one position early, 0.3 on gold
    w[2, 5] = 1.0                 # noun: right
    w[3, 0] = 1.0                 # li: wrong, not early
    w[4, 2] = 1.0                 # verb: right
    w[5, 2] = 1.0                 # le: no source, not counted
    got = alignment_by_class([w], [(src, tgt, align)])
    assert set(got) == {"noun", "circumposition, 1st half", "circumposition, 2nd half", "verb"}
    assert got["noun"] == {"n": 2, "align": 100.0, "mass": 1.0, "early": 0.0, "misses": 0, "early_misses": 0}
    assert got["circumposition, 1st half"] == pytest.approx({"n": 1, "align": 0.0, "mass": 0.3, "early": 100.0,
                                                             "misses": 1, "early_misses": 1})
    assert (got["circumposition, 2nd half"]["misses"], got["circumposition, 2nd half"]["early_misses"]) == (1, 0)
    assert got["circumposition, 2nd half"]["early"] == 0.0 and got["circumposition, 2nd half"]["align"] == 0.0
    total = sum(c["n"] * c["align"] for c in got.values()) / sum(c["n"] for c in got.values())
    assert total == pytest.approx(alignment_accuracy([w], [align]))
    with pytest.raises(ValueError, match="one per pair"):
        alignment_by_class([w, w], [(src, tgt, align)])


def test_count_forward_calls_per_wiring_and_hook_removed():
    lin = torch.nn.Linear(2, 2)
    assert count_forward_calls(lin, lambda: [lin(torch.zeros(1, 2)) for _ in range(3)]) == 3
    assert not lin._forward_hooks
    batch_pairs = PAIRS[:3]
    for wiring, part in (("luong", "rnn"), ("bahdanau", "cell")):
        model = tiny(wiring)
        batch = make_batch(batch_pairs, model.src_vocab, model.tgt_vocab)
        n = count_forward_calls(getattr(model.decoder, part), lambda m=model, b=batch: m.loss(b))
        assert n == (1 if wiring == "luong" else batch.tgt_in.shape[1])


def test_plot_loss_curves_draws_a_moving_average_per_model():
    ax = plot_loss_curves({"a": [4.0, 2.0, 1.0, 0.5], "b": [3.0] * 4}, smooth=2)
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["a", "b"] and ax.get_yscale() == "log"
    assert list(lines[0].get_ydata()) == [3.0, 1.5, 0.75] and list(lines[0].get_xdata()) == [2, 3, 4]
    with pytest.raises(ValueError, match="no losses"):
        plot_loss_curves({"empty": []})
    plt.close("all")


def test_plot_attention_snapshots_one_panel_per_step_on_a_fixed_scale():
    src, tgt = ["a", "b", "c"], ["x", "y"]
    maps = {150: torch.tensor([[0.1, 0.8, 0.1], [0.5, 0.5, 0.0]]), 0: torch.full((2, 3), 1 / 3)}
    fig = plot_attention_snapshots(maps, src, tgt)
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["after 0 steps", "after 150 steps"]
    assert all(ax.images[0].get_clim() == (0.0, 1.0) for ax in panels)
    assert [t.get_text() for t in panels[0].get_xticklabels()] == src
    assert panels[1].images[0].get_array()[0, 1] == pytest.approx(0.8)
    with pytest.raises(ValueError, match="no maps"):
        plot_attention_snapshots({}, src, tgt)
    plt.close("all")


def test_plot_alignment_curve_plots_both_measures_and_the_baseline():
    curve = {0: {"align": 10.0, "mass": 0.1}, 100: {"align": 80.0, "mass": 0.6}}
    ax = plot_alignment_curve(curve, baseline={"align": 12.0, "mass": 0.12})
    right = [a for a in ax.figure.axes if a is not ax][0]
    assert list(ax.get_lines()[0].get_ydata()) == [10.0, 80.0]
    assert list(right.get_lines()[0].get_ydata()) == [0.1, 0.6]
    assert list(ax.get_lines()[1].get_ydata()) == [12.0, 12.0]
    assert ax.get_ylim() == (0, 100) and right.get_ylim() == (0, 1)
    plt.close("all")


def test_stop_after_matches_the_snapshot_of_a_full_run_at_that_step():
    """train(steps=N, stop_after=k) is the full run's model at step k: same schedule, same batches."""
    from helpers.training import train

    pairs = toylang.sample_pairs(40, 4, 9, seed=5)
    snap = {}
    full = tiny()
    train(full, pairs, steps=6, batch_size=8, warmup=1, progress=False,
          callback=lambda step, m: snap.update({k: v.clone() for k, v in m.state_dict().items()}), callback_steps=[3])
    short = tiny()
    log = train(short, pairs, steps=6, batch_size=8, warmup=1, progress=False, stop_after=3)
    assert log.steps == 3
    for name, value in short.state_dict().items():
        torch.testing.assert_close(value, snap[name], msg=name)
    shorter_schedule = tiny()
    train(shorter_schedule, pairs, steps=3, batch_size=8, warmup=1, progress=False)
    assert any(not torch.equal(v, snap[k]) for k, v in shorter_schedule.state_dict().items()), \
        "a 3-step schedule decays differently from the first 3 steps of a 6-step one"
    with pytest.raises(ValueError, match="stop_after"):
        train(tiny(), pairs, steps=6, stop_after=7, progress=False)
