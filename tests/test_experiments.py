"""helpers.experiments: parameter counts against the formulas, the timer, the tidy table and its summaries."""
import math
import random
import statistics

import matplotlib.pyplot as plt
import pytest
import torch

from helpers.attention import AdditiveAttention, DotProductAttention, MultiplicativeAttention, ScaledDotProductAttention
from helpers.cost import count_parameters, time_call
from helpers.experiments import (
    VERDICTS,
    by_bucket,
    causal_mask_demo,
    compare_variants,
    false_verdict_rate,
    next_word_scores,
    paired_interval,
    pivot,
    run_experiment,
    step_time_by_length,
    summarize,
    t_cdf,
    t_quantile,
    time_scorers,
)
from helpers.plotting import (
    plot_gradient_by_length,
    plot_paired_differences,
    plot_quality_by_length,
    plot_seed_points,
)
from helpers.tables import format_table
from helpers.toylang import sample_pairs
from helpers.transformer import TinyDecoder


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


# Student's t quantiles t_{0.975, df} from a printed table (e.g. NIST/SEMATECH e-Handbook, Table 1.3.6.7.2).
T_TABLE = {1: 12.706, 2: 4.303, 3: 3.182, 7: 2.365, 9: 2.262, 30: 2.042, 100: 1.984}


def test_t_quantile_matches_the_printed_table_and_the_cdf_inverts_it():
    for df, t in T_TABLE.items():
        assert t_quantile(0.975, df) == pytest.approx(t, abs=1e-3), df
        assert t_cdf(t_quantile(0.975, df), df) == pytest.approx(0.975, abs=1e-9)
    assert t_quantile(0.5, 4) == pytest.approx(0.0, abs=1e-6)
    assert t_quantile(0.025, 7) == pytest.approx(-T_TABLE[7], abs=1e-3)
    assert t_cdf(1.0, 1) == pytest.approx(0.75)                  # Cauchy: 1/2 + atan(1)/pi
    with pytest.raises(ValueError, match="between 0 and 1"):
        t_quantile(1.0, 3)


# What the hand-written incomplete beta function that scipy.stats.t replaced returned (its last commit): the
# notebooks print t to 3 decimals and intervals to 1-2, so agreement to 1e-9 keeps every printed value.
OLD_QUANTILES = {(0.975, 2): 4.302652729749525, (0.975, 4): 2.776445105198718, (0.95, 9): 1.8331129326563769,
                 (0.995, 29): 2.7563859036697522}
OLD_CDF = {(2.0, 5): 0.9490302605850708, (-1.5, 3): 0.11529193262241151, (0.7, 19): 0.7537949558875305}


def test_scipy_t_agrees_with_the_hand_written_function_it_replaced():
    for (prob, df), old in OLD_QUANTILES.items():
        assert t_quantile(prob, df) == pytest.approx(old, abs=1e-9), (prob, df)
    for (t, df), old in OLD_CDF.items():
        assert t_cdf(t, df) == pytest.approx(old, abs=1e-9), (t, df)
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_quantile(0.975, 0)


def test_paired_interval_by_hand():
    diffs = [-10.0, -7.0, -13.0]                                 # mean -10, sd 3, n 3
    ci = paired_interval(diffs)
    half = T_TABLE[2] * 3.0 / 3 ** 0.5
    assert ci["mean"] == pytest.approx(-10.0) and ci["sd"] == pytest.approx(3.0)
    assert (ci["low"], ci["high"]) == (pytest.approx(-10 - half, abs=1e-2), pytest.approx(-10 + half, abs=1e-2))
    assert paired_interval(diffs, level=0.99)["half_width"] > ci["half_width"]
    with pytest.raises(ValueError, match="at least 2 differences.*got 1"):
        paired_interval([1.0])


def test_compare_variants_calls_a_winner_only_when_the_interval_excludes_zero():
    clear = compare_variants(ROWS, "w", "c", "valid")
    assert clear["diffs"] == [-10.0, -7.0, -13.0] and clear["diff"] == pytest.approx(-10.0)
    assert clear["high"] < 0 and clear["verdict"] == "b better"        # -10 +- 7.45
    assert compare_variants(ROWS, "c", "w", "valid")["verdict"] == "a better"
    mixed = compare_variants(ROWS, "n", "c", "valid")                  # diffs -1, +5, -14: the interval spans 0
    assert mixed["low"] < 0 < mixed["high"] and mixed["verdict"] == "no difference detectable"
    noisy = [dict(config=c, seed=s, set="valid", bleu=v) for c, vs in (("w", [70, 74, 72]), ("c", [71, 75, 100]))
             for s, v in enumerate(vs)]
    got = compare_variants(noisy, "w", "c", "valid")                   # every seed says c, but one seed says it loudly
    assert got["diffs"] == [-1, -1, -28] and got["verdict"] == "no difference detectable"
    assert set(VERDICTS) == {"a better", "b better", "no difference detectable"}
    with pytest.raises(ValueError, match="different seeds"):
        compare_variants(ROWS + [dict(config="c", seed=5, set="train", bleu=1.0)], "w", "c", "train")
    with pytest.raises(ValueError, match="no rows"):
        compare_variants(ROWS, "w", "zzz", "valid")
    with pytest.raises(ValueError, match="at least 2 seeds"):
        compare_variants(ROWS + [dict(config="c", seed=0, set="train", bleu=1.0)], "w", "c", "train")


def _simulated_rows(n_seeds, shift, rng):
    """Two configs on one set; b = a's seed effect + noise + shift (a paired design)."""
    rows = []
    for s in range(n_seeds):
        base = rng.gauss(70.0, 5.0)                                     # the seed's luck, shared by both
        rows.append(dict(config="a", seed=s, set="valid", bleu=base + rng.gauss(0.0, 2.0)))
        rows.append(dict(config="b", seed=s, set="valid", bleu=base + rng.gauss(0.0, 2.0) + shift))
    return rows


@pytest.mark.parametrize("n_seeds", [3, 8])
def test_the_rule_calls_a_false_winner_about_five_times_in_a_hundred(n_seeds):
    """Simulated experiments with NO true difference, judged by compare_variants itself: about 5% verdicts."""
    rng = random.Random(n_seeds)
    trials = 2000
    wrong = sum(compare_variants(_simulated_rows(n_seeds, 0.0, rng), "a", "b", "valid")["verdict"] != VERDICTS[2]
                for _ in range(trials))
    assert 0.03 <= wrong / trials <= 0.07, wrong / trials              # 5% +- 4 standard errors
    assert 0.04 <= false_verdict_rate(n_seeds, trials=20000) <= 0.06   # the vectorised simulation agrees
    assert false_verdict_rate(n_seeds, level=0.8, trials=20000) == pytest.approx(0.2, abs=0.02)


def test_the_rule_finds_a_real_difference_with_enough_seeds():
    rng = random.Random(1)
    found = [compare_variants(_simulated_rows(8, -4.0, rng), "a", "b", "valid")["verdict"] for _ in range(300)]
    assert found.count("a better") / 300 >= 0.9                         # shift = 1.4 sd of the diffs: found
    assert "b better" not in found


def test_false_verdict_rate_resamples_measured_diffs_and_rejects_bad_input():
    rate = false_verdict_rate(8, diffs=[-5.5, -2.0, -7.0, 3.0, 1.0, 0.5, -1.0, 2.0], trials=5000)
    assert 0.0 < rate < 0.2
    assert false_verdict_rate(8, diffs=[1.0, 1.0, 1.0], trials=100) == 0.0   # no spread, centred at 0: never
    with pytest.raises(ValueError, match="n_seeds >= 2"):
        false_verdict_rate(1)


def test_plots_have_titles_labels_and_one_dot_series_per_seed():
    ax = plot_seed_points(ROWS, "valid", title="dropout")
    assert ax.get_title() == "dropout" and ax.get_xlabel() and ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["w", "c", "n"]
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["seed 0", "seed 1", "seed 2", "mean ± 1 std"]
    ax2 = plot_quality_by_length(by_bucket(ROWS), title="by set")
    assert ax2.get_title() == "by set" and [line.get_label() for line in ax2.get_lines()] == ["w", "c", "n"]
    assert len(ax2.collections) == 3, "one min-max band per config (three seeds each)"


@pytest.mark.parametrize("draw", ["quality", "gradient"])
def test_curve_legends_sit_below_the_axes_labels_and_cover_no_band(draw):
    """The legend of a curve plot with bands goes under the x label: 'best' placed it over the seed bands (05)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    if draw == "quality":
        plot_quality_by_length(by_bucket(ROWS), ax=ax, title="by set")
    else:
        plot_gradient_by_length({"a": {5: 1e-2, 10: 1e-3}, "b": {5: 1e-1, 10: 1e-1}}, "g", ax=ax,
                                spread={"a": {5: (1e-3, 1e-1), 10: (1e-4, 1e-2)}})
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend, labels = ax.get_legend().get_window_extent(renderer), ax.xaxis.label.get_window_extent(renderer)
    assert legend.y1 <= labels.y0 + 1, "the legend overlaps the x label or the axes"
    assert legend.y1 <= ax.get_window_extent(renderer).y0
    plt.close(fig)


def test_paired_differences_plot_shows_each_seed_and_the_interval_of_compare_variants():
    result = compare_variants(ROWS, "w", "c", "valid")
    ax = plot_paired_differences(result)
    assert ax.get_title() == "Paired differences, w - c" and ax.get_xlabel() == "seed" and "valid" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(s) for s in result["seeds"]] + ["mean"]
    dots = ax.collections[0].get_offsets()
    assert [float(y) for _, y in dots] == pytest.approx(result["diffs"]), "one dot per seed at its difference"
    bar = [c for c in ax.collections[1:] if len(c.get_segments())][0].get_segments()[0]
    assert (bar[0][1], bar[1][1]) == pytest.approx((result["low"], result["high"])), "the interval of the mean"
    plt.close("all")

# ---------------------------------------------------------------- chapter 07: the causal mask's job, step timing
def small_transformer():
    from helpers.transformer import make_transformer

    return make_transformer(d_model=16, n_heads=2, n_layers=2, d_ff=32, dropout=0.0, seed=0)


def test_causal_mask_demo_without_mask_reads_the_answer():
    sentences = [p[1] for p in sample_pairs(400, 4, 7, seed=2)]
    kw = dict(steps=200, batch_size=32, d=32, heads=2, sentences=sentences, n_eval=60, lr=1e-2)
    leaky, causal = causal_mask_demo(False, **kw), causal_mask_demo(True, **kw)
    assert sum(leaky.losses[-10:]) / 10 < 0.5 * sum(causal.losses[-10:]) / 10
    assert leaky.teacher_forced_accuracy > leaky.generation_accuracy + 20
    assert leaky.generation_loss > causal.generation_loss + 1
    assert causal.teacher_forced_accuracy == pytest.approx(causal.generation_accuracy)
    assert len(causal.samples) == 3


def test_next_word_scores_sees_only_the_past_when_asked():
    vocab = small_transformer().tgt_vocab
    model = TinyDecoder(vocab, d=16, heads=2, layers=1, causal=False)
    sents = [p[1] for p in sample_pairs(10, 4, 6, seed=3)]
    assert next_word_scores(model, sents, see_future=False) != next_word_scores(model, sents, see_future=True)
    model.causal = True
    a, b = next_word_scores(model, sents, False), next_word_scores(model, sents, True)
    assert a == pytest.approx(b, abs=1e-4)


def test_step_time_by_length_reports_every_model_and_length():
    from helpers.seq2seq import make_model

    models = {"transformer": small_transformer(),
              "rnn": make_model("attention", emb=8, hidden=8, attn_hidden=8, seed=0)}
    times = step_time_by_length(models, [4, 8], batch_size=4, repeats=1)
    assert set(times) == {"transformer", "rnn"} and all(set(t) == {4, 8} for t in times.values())
    assert all(ms > 0 for t in times.values() for ms in t.values())
    assert all(p.grad is None for m in models.values() for p in m.parameters())


def test_breaking_set_is_the_first_set_below_half_of_the_reference():
    from helpers.experiments import breaking_set

    bleu = {"4-10": 60.0, "4-6": 70.0, "7-8": 40.0, "9-10": 29.0, "11-13": 35.0}
    assert breaking_set(bleu, "4-10") == "9-10"               # 29 < 30; a later rise does not undo it
    assert breaking_set(bleu, "4-10", share=0.3) is None      # never below 18
    assert breaking_set({"a": 10.0, "b": 4.9}, "a") == "b"
    with pytest.raises(KeyError):
        breaking_set(bleu, "31-40")


def test_decoder_hidden_gives_a_one_way_encoder_the_two_way_context_and_decoder():
    from helpers.seq2seq import make_model

    one = make_model("none", hidden=64, bidirectional=False, decoder_hidden=32, seed=0)
    two = make_model("none", hidden=32, seed=0)
    assert one.encoder.output_size == two.encoder.output_size == 64
    assert one.decoder.rnn.hidden_size == two.decoder.rnn.hidden_size == 32
    with pytest.raises(ValueError, match="decoder_hidden"):
        make_model("attention", decoder_hidden=32)


# ---------------------------------------------------------------- chapter 06: runs watched during training
def test_first_crossing_is_the_first_step_at_or_over_the_threshold():
    from helpers.experiments import first_crossing

    assert first_crossing([0, 10, 20, 30], [5.0, 49.9, 50.0, 20.0], 50.0) == 20
    assert first_crossing([0, 10], [5.0, 6.0], 50.0) is None
    with pytest.raises(ValueError, match="one value per step"):
        first_crossing([0, 10], [5.0], 50.0)


def _crossings(early_good=True):
    """Two scorers x three seeds: 'fast' crosses early and ends high, 'slow' crosses late (one never) and ends low."""
    crossing = {("fast", 0): 40, ("fast", 1): 60, ("fast", 2): 80,
                ("slow", 0): 160, ("slow", 1): 180, ("slow", 2): None}
    bleu = {("fast", 0): 90.0, ("fast", 1): 80.0, ("fast", 2): 85.0, ("slow", 0): 40.0, ("slow", 1): 30.0,
            ("slow", 2): 20.0}
    if not early_good:
        bleu = {key: 100.0 - value for key, value in bleu.items()}
    return crossing, bleu


def test_crossing_stats_counts_crossings_and_correlates_them_with_the_end():
    from helpers.experiments import crossing_stats

    crossing, bleu = _crossings()
    stats = crossing_stats(crossing, bleu, budget=200, never=220)
    assert stats["runs"] == 6 and stats["never"] == 1 and stats["latest"] == 180 and stats["half"] == 100
    assert stats["configs"]["fast"] == dict(runs=3, crossed=3, mean_step=60, mean_bleu=85.0, within=-0.5)
    assert stats["configs"]["slow"]["crossed"] == 2 and stats["configs"]["slow"]["mean_step"] == 170
    assert stats["configs"]["slow"]["within"] == pytest.approx(-1.0)        # never crossed counts as step 220: last
    assert stats["rho"] == pytest.approx(-0.9429, abs=1e-4) and stats["p"] < 0.05
    assert stats["spread_all"] == pytest.approx(55.0)
    assert math.isnan(stats["spread_early"])                                # only 'fast' crossed by step 100
    assert stats["earliest"] == stats["best"] == "fast"
    with pytest.raises(ValueError, match="same"):
        crossing_stats(crossing, {("fast", 0): 1.0}, budget=200, never=220)


def test_crossing_verdict_says_what_the_stats_show():
    from helpers.experiments import crossing_stats, crossing_verdict

    crossing, bleu = _crossings()
    text = crossing_verdict(crossing_stats(crossing, bleu, 200, 220), "31-40")
    assert "**fast** crossed in 3 of 3 runs, on average at step 60; **slow** crossed in 2 of 3 runs, on average at" \
           " step 170" in text
    assert "**-0.94**" in text and "earlier crossings go with better ends" in text
    assert "as strong or stronger" in text                                 # slow's within-scorer rho is -1.00
    assert "1 of 6 runs never crossed within the budget" in text and "cannot be compared" in text
    flipped = crossing_verdict(crossing_stats(crossing, _crossings(early_good=False)[1], 200, 220), "31-40")
    assert "no clear link" in flipped and "earlier crossings go with better ends" not in flipped
    crossing_all = {**crossing, ("slow", 2): 90, ("slow", 0): 100}           # two configs cross early now, none never
    weak = crossing_verdict(crossing_stats(crossing_all, bleu, 200, 220), "31-40")
    assert "Every run crossed within the budget (the latest at step 180)" in weak
    assert "Among the runs that crossed by step 100" in weak


def test_false_verdict_rate_uses_the_rule_of_compare_variants(monkeypatch):
    import helpers.experiments as E

    assert E.t_half_width(2.0, 4, 0.95) == pytest.approx(E.t_quantile(0.975, 3) * 2.0 / 2.0)
    assert E.paired_interval([1.0, 2.0, 3.0, 6.0])["half_width"] == pytest.approx(
        E.t_half_width(statistics.stdev([1.0, 2.0, 3.0, 6.0]), 4))
    monkeypatch.setattr(E, "verdict_of", lambda low, high: E.VERDICTS[0])   # a rule that always names a winner...
    assert E.false_verdict_rate(8, trials=200) == 1.0                     # ...is what the simulated rate measures


def test_train_one_keeps_run_experiments_rows_and_adds_the_watched_curve(tiny_rows):
    from helpers.experiments import first_crossing, train_one

    rows, (configs, train_pairs, sets) = tiny_rows
    watched = train_one("dot", configs["dot"], train_pairs, sets, 30, seed=1, batch_size=8, watch=sets["a"], every=10,
                        threshold=30.0)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rs]  # noqa: E731
    assert strip(watched[:2]) == strip([r for r in rows if r["config"] == "dot" and r["seed"] == 1])  # same run
    curve = watched[2]
    assert curve["set"] == "training" and curve["steps"] == [0, 10, 20, 30]
    assert all(len(curve[k]) == 4 for k in ("align_curve", "max_weight_curve", "entropy_curve", "score_std_curve"))
    assert curve["crossing"] == first_crossing(curve["steps"], curve["align_curve"], 30.0)
    assert all(0 < w <= 1 for w in curve["max_weight_curve"]) and all(0 <= e <= 1 for e in curve["entropy_curve"])
    none = train_one("none", configs["none"], train_pairs, sets, 30, seed=1, batch_size=8, watch=sets["a"])
    assert [r["set"] for r in none] == ["a", "b"]                  # no attention, nothing to watch


def test_attention_statistics_catch_the_scorers_own_scores():
    from helpers.metrics import alignment_accuracy
    from helpers.seq2seq import forced_attention, make_model
    from helpers.training import attention_statistics

    pairs = sample_pairs(6, 4, 9, seed=3)
    dot = make_model(kind="attention", scorer="dot", **TINY, seed=0)
    scaled = make_model(kind="attention", scorer="scaled_dot", **TINY, seed=0)   # the same weights: no parameters
    a, b = attention_statistics(dot, pairs), attention_statistics(scaled, pairs)
    assert a["score_std"] == pytest.approx(b["score_std"] * TINY["hidden"] ** 0.5, rel=1e-5)   # before the softmax
    assert a["align"] == alignment_accuracy(forced_attention(dot, pairs), [p[2] for p in pairs])
    dot.decoder.scorer.score = lambda q, k: torch.zeros(q.shape[0], q.shape[1], k.shape[1])    # uniform weights
    flat = attention_statistics(dot, pairs)
    rows = [(1.0 / len(p[0]), len(p[1])) for p in pairs]
    assert flat["score_std"] == 0.0 and flat["entropy"] == pytest.approx(1.0)
    assert flat["max_weight"] == pytest.approx(sum(w * n for w, n in rows) / sum(n for _, n in rows))
    with pytest.raises(ValueError, match="no attention"):
        attention_statistics(make_model(kind="none", **TINY, seed=0), pairs)


def test_seed_points_can_show_the_t_interval_of_the_mean():
    ax = plot_seed_points(ROWS, "valid", level=0.95)
    assert ax.get_legend_handles_labels()[1][-1] == "mean, 95% t-interval"
    values = [r["bleu"] for r in ROWS if r["config"] == "w" and r["set"] == "valid"]
    half = t_quantile(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    segments = ax.collections[-1].get_segments()                  # the error bars, one per config
    assert segments[0][1][1] - segments[0][0][1] == pytest.approx(2 * half)


def test_budget_curve_groups_by_config_and_steps_with_a_t_interval():
    from helpers.experiments import budget_curve, t_quantile

    rows = [dict(config=c, steps=s, set=b, seed=seed, bleu=v, cpu_seconds=cpu)
            for c, s, b, seed, v, cpu in [("A", 100, "x", 0, 10.0, 1.0), ("A", 100, "x", 1, 20.0, 3.0),
                                          ("A", 200, "x", 0, 40.0, 4.0), ("A", 200, "x", 1, 40.0, 6.0),
                                          ("B", 50, "x", 0, 70.0, 2.0), ("A", 100, "y", 0, 99.0, 1.0)]]
    curve = budget_curve(rows, "x")
    assert list(curve) == ["A", "B"] and [p["steps"] for p in curve["A"]] == [100, 200]
    first = curve["A"][0]
    assert first["mean"] == 15.0 and first["cpu"] == 2.0 and first["n"] == 2
    half = t_quantile(0.975, 1) * 7.0710678118654755 / 2 ** 0.5
    assert abs(first["high"] - 15.0 - half) < 1e-9 and abs(15.0 - first["low"] - half) < 1e-9
    assert curve["A"][1]["low"] == curve["A"][1]["high"] == 40.0     # no spread, no width
    assert curve["B"][0]["low"] == curve["B"][0]["high"] == 70.0     # one seed: the point itself


def test_plot_budget_curve_labels_its_axes_and_points():
    import matplotlib.pyplot as plt

    from helpers.plotting import plot_budget_curve

    curve = {"A": [dict(steps=100, cpu=2.0, mean=15.0, low=10.0, high=20.0, n=2)]}
    ax = plot_budget_curve(curve, "BLEU on 31-40", "a title")
    assert ax.get_xscale() == "log" and ax.get_title() == "a title" and "CPU seconds" in ax.get_xlabel()
    assert [t.get_text() for t in ax.texts] == ["100"] and ax.get_ylim() == (0, 105)
    plt.close(ax.figure)


def test_make_translator_builds_chapter_07s_models_and_refuses_unknown_names():
    from helpers.experiments import TRANSLATORS, make_translator
    from helpers.seq2seq import make_model
    from helpers.transformer import make_transformer

    assert make_translator("RNN + attention", seed=3).n_parameters() == \
        make_model("attention", emb=64, hidden=128, seed=3).n_parameters()
    assert make_translator("Transformer").config == make_transformer().config
    assert make_translator("Transformer, learned positions").config["positions"] == "learned"
    assert TRANSLATORS["no attention"]["lr"] == 5e-3
    with pytest.raises(KeyError, match="no translator named 'GPT'"):
        make_translator("GPT")


# ---------------------------------------------------------------- chapter 01's widths: helps, or postpones?
def _width_rows(wide_long: dict, wide_short: float = 80.0, narrow_short: float = 40.0, narrow_long: float = 20.0):
    """Quality rows of two configs over 4 seeds: `4-10` and one long set per key of wide_long ({set: BLEU})."""
    rows = []
    for seed, jitter in enumerate((-1.0, 0.5, 1.0, -0.5)):
        for config, short, longs in (("wide", wide_short, wide_long), ("narrow", narrow_short,
                                                                        dict.fromkeys(wide_long, narrow_long))):
            rows.append({"config": config, "seed": seed, "set": "4-10", "bleu": short + jitter})
            rows += [{"config": config, "seed": seed, "set": s, "bleu": b + jitter * (1 + k)}
                     for k, (s, b) in enumerate(longs.items())]
    return rows


def test_retention_rows_divide_by_the_same_runs_reference_and_refuse_a_zero():
    from helpers.experiments import retention_rows

    rows = [{"config": "a", "seed": seed, "set": name, "bleu": bleu}
            for seed, name, bleu in ((0, "4-10", 50.0), (0, "x", 25.0), (1, "4-10", 20.0), (1, "x", 25.0))]
    kept = {(r["seed"], r["set"]): r["retained"] for r in retention_rows(rows)}
    assert kept == {(0, "4-10"): 100.0, (0, "x"): 50.0, (1, "4-10"): 100.0, (1, "x"): 125.0}
    with pytest.raises(ValueError, match="undefined"):
        retention_rows([{**rows[0], "bleu": 0.0}])


def test_a_curve_that_is_only_higher_helps_and_does_not_postpone():
    from helpers.experiments import width_comparison, width_verdict

    # the wide model is twice as good everywhere: higher, but the same share of its own 4-10 kept
    comparison = width_comparison(_width_rows({"11-20": 40.0, "21-30": 40.0}), "wide", "narrow", ["11-20", "21-30"])
    assert {v["absolute"]["verdict"] for v in comparison.values()} == {"a better"}
    assert {v["relative"]["verdict"] for v in comparison.values()} != {"a better"}
    text = width_verdict(comparison, "wide", "narrow")
    assert "**helps**" in text and "does **not postpone**" in text


def test_a_fall_moved_later_postpones():
    from helpers.experiments import width_comparison, width_verdict

    # the wide model keeps 75% of its 4-10 where the narrow one keeps 50%: a later fall
    comparison = width_comparison(_width_rows({"11-20": 60.0, "21-30": 60.0}), "wide", "narrow", ["11-20", "21-30"])
    assert {v["relative"]["verdict"] for v in comparison.values()} == {"a better"}
    assert "**postpones**" in width_verdict(comparison, "wide", "narrow")


def test_intervals_in_words_lists_every_set_and_counts_the_verdicts():
    from helpers.experiments import intervals_in_words

    comparison = {
        "a": {"set": "a", "diff": 1.0, "low": 0.5, "high": 1.5, "verdict": "a better"},
        "b": {"set": "b", "diff": 0.0, "low": -1.0, "high": 1.0, "verdict": "no difference detectable"},
        "c": {"set": "c", "diff": 2.0, "low": 1.0, "high": 3.0, "verdict": "a better"}}
    per, tally = intervals_in_words(comparison, {"a better": "A", "no difference detectable": "tie"})
    assert per == "`a` +1.0 [+0.5, +1.5]; `b` +0.0 [-1.0, +1.0]; `c` +2.0 [+1.0, +3.0]"
    assert tally == "A in 2, tie in 1"


# ---------------------------------------------------------------- chapter 07: verdicts budget by budget (issue 32)
def _two_configs(a_values, b_values, set_name="31-40", steps=(800, 250)):
    return [dict(config=c, seed=s, set=set_name, bleu=v, steps=st, cpu_seconds=10.0 + s)
            for c, vs, st in (("A", a_values, steps[0]), ("B", b_values, steps[1])) for s, v in enumerate(vs)]


def test_leave_one_seed_out_finds_the_seed_a_verdict_hangs_on():
    from helpers.experiments import budget_comparison, leave_one_seed_out

    rows = _two_configs([96.0, 97.2, 94.6, 98.2], [99.4, 98.7, 98.6, 99.0])   # chapter 07's budget 3, rounded
    assert compare_variants(rows, "A", "B", "31-40")["verdict"] == "b better"
    without = leave_one_seed_out(rows, "A", "B", "31-40")
    assert set(without) == {0, 1, 2, 3} and without[2] == "no difference detectable"
    c = budget_comparison(rows, "A", "B", "31-40")
    assert c["fragile"] == [s for s, v in without.items() if v != "b better"] and 2 in c["fragile"]
    assert (c["steps_a"], c["steps_b"]) == (800, 250) and c["values_b"] == [99.4, 98.7, 98.6, 99.0]
    assert c["cpu_a"] == pytest.approx(11.5)
    steady = budget_comparison(_two_configs([60.0, 61.0, 62.0, 63.0], [10.0, 11.0, 12.0, 12.5]), "A", "B", "31-40")
    assert steady["verdict"] == "a better" and steady["fragile"] == []
    with pytest.raises(ValueError, match="at least 3 seeds"):
        leave_one_seed_out(_two_configs([1.0, 2.0], [3.0, 5.0]), "A", "B", "31-40")


def test_difference_of_differences_pairs_the_seeds_and_tests_the_growth():
    from helpers.experiments import difference_of_differences

    seen = _two_configs([75.0, 71.0, 77.0, 74.0], [67.0, 65.0, 73.0, 67.0])
    unseen = _two_configs([58.0, 53.0, 61.0, 57.0], [47.0, 47.0, 51.0, 50.0], set_name="41-50")
    g = difference_of_differences(seen + unseen, "A", "B", "31-40", "41-50")
    assert g["diffs"] == pytest.approx([3.0, 0.0, 6.0, 0.0]) and g["diff"] == pytest.approx(2.25)
    assert g["low"] < 0 < g["high"] and g["verdict"] == "no difference detectable" and g["fragile"] == []
    # a gap that grows by the same amount on every seed is decided, however small the gap on each set is
    grow = _two_configs([50.0, 51.0, 52.0, 53.0], [49.0, 52.0, 50.0, 55.0], set_name="41-50")
    flat = _two_configs([50.0, 51.0, 52.0, 53.0], [51.0, 54.0, 52.0, 57.0])
    g = difference_of_differences(flat + grow, "A", "B", "31-40", "41-50")
    assert g["diffs"] == pytest.approx([2.0, 2.0, 2.0, 2.0]) and g["verdict"] == "a better"
    # ...where the half width of one bucket's own interval would have called the growth "within noise"
    assert compare_variants(flat + grow, "A", "B", "41-50")["half_width"] > g["diff"]


def test_translators_verdict_says_what_each_budget_decides():
    from helpers.experiments import budget_comparison, translators_verdict

    budgets = [budget_comparison(_two_configs(a, b, steps=st), "A", "B", "31-40") for a, b, st in (
        ([52.6, 46.9, 48.9, 52.0], [4.2, 2.0, 2.4, 2.7], (400, 125)),
        ([76.9, 71.3, 77.4, 73.9], [61.0, 52.4, 51.4, 27.4], (800, 250)),
        ([96.0, 97.2, 94.6, 98.2], [99.4, 98.7, 98.6, 99.0], (1600, 500)))]
    text = translators_verdict(budgets, floor=10, gain=10)
    lines = text.split("\n")
    assert len(lines) == 3 and lines[0].startswith("- **Budget 1** (400 against 125 steps): the Transformer is ahead")
    assert "below 10" in lines[0] and "fewer steps" in lines[0]
    assert "is still learning" in lines[1] and "27.4 to 61.0" in lines[1] and "fewer steps" in lines[1]
    assert "the RNN with attention is ahead" in lines[2]
    assert "without any one of seeds 0, 1, 2, 3 the other seeds would leave it undecided" in lines[2]
    assert "every seed's difference has the same sign" in lines[2]
    assert "no larger budget" in lines[2]
    assert "any one seed left out" in lines[0]


def test_positions_verdict_gives_each_budget_and_what_they_decide_together():
    from helpers.experiments import budget_comparison, difference_of_differences, positions_verdict

    seen = _two_configs([75.0, 71.0, 77.0, 74.0], [67.0, 65.0, 73.0, 67.0])
    unseen = _two_configs([58.0, 53.0, 61.0, 57.0], [47.0, 47.0, 51.0, 50.0], set_name="41-50")
    rows = seen + unseen
    b = dict(steps=800, seen=budget_comparison(rows, "A", "B", "31-40"),
             unseen=budget_comparison(rows, "A", "B", "41-50"),
             growth=difference_of_differences(rows, "A", "B", "31-40", "41-50"))
    text = positions_verdict([b])
    assert text.startswith("- **800 steps.** On 31-40 words (lengths training saw), sinusoidal positions are ahead")
    assert "not decided at this budget" in text and "At 800 steps the learned table is behind on 31-40" in text
    assert "whether the never-trained positions add a gap of their own is not decided" in text


def test_learned_position_rows_measure_how_far_each_row_moved():
    from helpers.experiments import learned_position_rows, make_translator

    pairs = [p for p in sample_pairs(64, 4, 6, seed=1)]
    model = make_translator("Transformer, learned positions", seed=0)
    with torch.no_grad():                                   # a stand-in for training: move the rows 0..2 only
        model.src_positions.table[:3] += 0.5
    rows = learned_position_rows("Transformer, learned positions", 0, model, pairs)
    assert [r["set"] for r in rows] == ["source positions", "target positions"]
    src = rows[0]
    assert src["used"] == max(len(p[0]) for p in pairs) and len(src["change"]) == model.src_positions.max_len
    assert all(c > 0 for c in src["change"][:3]) and not any(src["change"][3:])
    assert not any(rows[1]["change"]) and rows[1]["used"] == max(len(p[1]) for p in pairs) + 1
    assert learned_position_rows("Transformer", 0, make_translator("Transformer"), pairs) == []


def test_weight_on_next_word_is_zero_under_the_mask():
    from helpers.experiments import weight_on_next_word

    vocab = small_transformer().tgt_vocab
    sents = [p[1] for p in sample_pairs(10, 4, 6, seed=3)]
    torch.manual_seed(0)
    causal = TinyDecoder(vocab, d=16, heads=2, layers=1, causal=True)
    per_head, uniform = weight_on_next_word(causal, sents)
    assert per_head == [0.0, 0.0] and 0 < uniform < 1
    leaky = TinyDecoder(vocab, d=16, heads=2, layers=1, causal=False)
    per_head, uniform = weight_on_next_word(leaky, sents)
    assert all(w > 0 for w in per_head) and uniform == pytest.approx(1 / (max(len(s) for s in sents) + 1))


def test_step_time_by_length_times_a_copy_and_leaves_the_weights():
    from helpers.seq2seq import make_model

    model = make_model("attention", emb=8, hidden=8, attn_hidden=8, seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    step_time_by_length({"rnn": model}, [4], batch_size=4, repeats=1)
    assert all(torch.equal(a, p) for a, p in zip(before, model.parameters(), strict=True))
