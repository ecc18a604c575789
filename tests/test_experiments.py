"""helpers.experiments: parameter counts against the formulas, the timer, the tidy table and its summaries."""
import statistics

import pytest
import torch

from helpers.attention import AdditiveAttention, DotProductAttention, MultiplicativeAttention, ScaledDotProductAttention
from helpers.cost import count_parameters, time_call
from helpers.experiments import by_bucket, compare_variants, pivot, run_experiment, summarize, time_scorers
from helpers.plotting import plot_quality_by_length, plot_seed_points
from helpers.tables import format_table
from helpers.toylang import sample_pairs


def test_parameter_counts_follow_the_formulas():
    d_q, d_k, h = 5, 7, 3
    assert count_parameters(AdditiveAttention(d_q, d_k, h)) == h * (d_q + d_k) + h      # W [h x (d_q+d_k)] and v
    assert count_parameters(MultiplicativeAttention(d_q, d_k)) == d_q * d_k              # W [d_q x d_k]
    assert count_parameters(DotProductAttention()) == 0
    assert count_parameters(ScaledDotProductAttention()) == 0


def test_count_parameters_skips_frozen_ones():
    layer = torch.nn.Linear(4, 3)
    layer.bias.requires_grad_(False)
    assert count_parameters(layer) == 12


def test_time_call_calls_warmup_plus_repeats_times_number():
    calls = []
    seconds = time_call(lambda: calls.append(1), repeats=3, number=4, warmup=2)
    assert len(calls) == 2 + 3 * 4
    assert seconds["cpu"] >= 0.0 and seconds["wall"] >= 0.0
    with pytest.raises(ValueError, match="repeats"):
        time_call(lambda: None, repeats=0)


def test_time_scorers_reports_params_and_time_and_keeps_the_size_check():
    scorers = {"additive": AdditiveAttention(6, 6, 4), "dot": DotProductAttention()}
    out = time_scorers(scorers, batch=2, n_q=3, n_k=5, d_q=6, d_k=6, repeats=2, number=1)
    assert out["additive"]["params"] == 4 * 12 + 4 and out["dot"]["params"] == 0
    assert all(v["cpu_ms"] >= 0 for v in out.values())
    with pytest.raises(ValueError, match="same size"):
        time_scorers({"dot": DotProductAttention()}, batch=2, n_q=3, n_k=5, d_q=6, d_k=8, repeats=1, number=1)


TINY = dict(emb=8, hidden=8, attn_hidden=8)


@pytest.fixture(scope="module")
def tiny_rows():
    threads = torch.get_num_threads()
    train_pairs = sample_pairs(40, 4, 8, seed=5)
    sets = {"a": sample_pairs(4, 4, 8, seed=6), "b": sample_pairs(3, 9, 12, seed=7)}
    configs = {"none": dict(kind="none", **TINY), "dot": dict(kind="attention", scorer="dot", **TINY)}
    yield run_experiment(configs, train_pairs, sets, steps=30, seeds=(0, 1), batch_size=8, progress=False), \
        (configs, train_pairs, sets)
    torch.set_num_threads(threads)


def test_run_experiment_returns_one_row_per_config_seed_and_set(tiny_rows):
    rows, _ = tiny_rows
    assert [(r["config"], r["seed"], r["set"]) for r in rows] == [
        (c, s, x) for c in ("none", "dot") for s in (0, 1) for x in ("a", "b")]
    assert [r["n"] for r in rows[:2]] == [4, 3]
    for r in rows:
        assert 0.0 <= r["bleu"] <= 100.0 and 0.0 <= r["exact"] <= 100.0
        # 30 steps: the last 20 beat the first 20
        assert 0 < r["loss_end"] < r["loss_start"] and r["cpu_seconds"] >= 0
        assert (r["align"] is None) == (r["config"] == "none")


def test_run_experiment_is_deterministic(tiny_rows):
    rows, (configs, train_pairs, sets) = tiny_rows
    again = run_experiment(configs, train_pairs, sets, steps=30, seeds=(0, 1), batch_size=8, progress=False)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rs]  # noqa: E731
    assert strip(again) == strip(rows)


def test_run_experiment_rejects_empty_inputs():
    with pytest.raises(ValueError, match="at least one"):
        run_experiment({}, [], {"a": []}, steps=1)


ROWS = [dict(config=c, seed=s, set=x, bleu=v, align=a) for c, s, x, v, a in [
    ("w", 0, "valid", 70.0, 50.0), ("w", 1, "valid", 74.0, 52.0), ("w", 2, "valid", 72.0, 54.0),
    ("c", 0, "valid", 80.0, 60.0), ("c", 1, "valid", 81.0, 61.0), ("c", 2, "valid", 85.0, 62.0),
    ("n", 0, "valid", 79.0, None), ("n", 1, "valid", 86.0, None), ("n", 2, "valid", 71.0, None),
    ("w", 0, "train", 99.0, 90.0)]]


def test_summarize_matches_statistics_and_skips_missing_values():
    s = summarize(ROWS, "bleu")
    assert s[("w", "valid")]["mean"] == pytest.approx(72.0)
    assert s[("w", "valid")]["std"] == pytest.approx(statistics.stdev([70.0, 74.0, 72.0]))
    assert (s[("c", "valid")]["min"], s[("c", "valid")]["max"], s[("c", "valid")]["n"]) == (80.0, 85.0, 3)
    assert s[("w", "train")]["std"] == 0.0
    assert ("n", "valid") not in summarize(ROWS, "align")


def test_pivot_and_format_table():
    table = pivot(ROWS, "bleu")
    assert list(table) == ["w", "c", "n"] and list(table["w"]) == ["valid", "train"]
    assert table["c"]["valid"] == pytest.approx(82.0)
    text = format_table(table, digits=1, index_name="variant").splitlines()
    assert text[0].split() == ["variant", "valid", "train"]
    assert text[1].split() == ["w", "72.0", "99.0"] and text[2].split() == ["c", "82.0", "-"]


def test_compare_variants_verdicts():
    clear = compare_variants(ROWS, "w", "c", "valid")
    assert clear["diffs"] == [-10.0, -7.0, -13.0] and clear["diff"] == pytest.approx(-10.0)
    assert clear["spread"] == pytest.approx(statistics.stdev([80.0, 81.0, 85.0]))
    assert clear["verdict"] == "b better"
    assert compare_variants(ROWS, "c", "w", "valid")["verdict"] == "a better"
    mixed = compare_variants(ROWS, "n", "c", "valid")          # diffs -1, +5, -14: signs disagree
    assert mixed["verdict"] == "no clear difference"
    noisy = [dict(config=c, seed=s, set="valid", bleu=v) for c, vs in (("w", [70, 74, 72]), ("c", [71, 75, 100]))
             for s, v in enumerate(vs)]
    got = compare_variants(noisy, "w", "c", "valid")            # every seed says c, but |diff| 10 < spread 15.7
    assert got["diffs"] == [-1, -1, -28] and got["verdict"] == "no clear difference"
    with pytest.raises(ValueError, match="different seeds"):
        compare_variants(ROWS + [dict(config="c", seed=5, set="train", bleu=1.0)], "w", "c", "train")
    with pytest.raises(ValueError, match="no rows"):
        compare_variants(ROWS, "w", "zzz", "valid")


def test_plots_have_titles_labels_and_one_dot_series_per_seed():
    ax = plot_seed_points(ROWS, "valid", title="dropout")
    assert ax.get_title() == "dropout" and ax.get_xlabel() and ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["w", "c", "n"]
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["seed 0", "seed 1", "seed 2", "mean ± 1 std"]
    ax2 = plot_quality_by_length(by_bucket(ROWS), title="by set")
    assert ax2.get_title() == "by set" and [line.get_label() for line in ax2.get_lines()] == ["w", "c", "n"]
    assert len(ax2.collections) == 3, "one min-max band per config (three seeds each)"
