"""Experiments over configs and seeds: time scorers, train configs, summarise, compare (plots: helpers.plotting);
chapter 07's causal-mask experiment (`causal_mask_demo`) and training-step time by length (`step_time_by_length`).

The experiment functions return a *tidy table*: a list of dicts, one row per (config, seed, evaluation set),
so that any summary (mean over seeds, spread, a pivot by bucket) is one call to `summarize` or `pivot`.
"""
from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import scipy.stats
import torch
import torch.nn.functional as F

from helpers import i18n
from helpers.cost import count_parameters, time_call
from helpers.masks import causal_mask
from helpers.toylang import Vocab, load_split, sample_pairs, target_vocab
from helpers.transformer import TRANSFORMER_TRAINING, TinyDecoder

__all__ = ["time_scorers", "run_experiment", "train_one", "first_crossing", "ordered", "summarize", "pivot",
           "by_bucket", "crossing_stats", "crossing_verdict", "t_cdf", "t_quantile", "t_half_width",
           "paired_interval", "VERDICTS", "VERDICT_LABELS", "verdict_of", "compare_variants", "false_verdict_rate",
           "CausalDemoResult", "causal_mask_demo", "next_word_scores", "next_word_accuracy", "weight_on_next_word",
           "generate",
           "step_time_by_length", "TRANSLATORS", "make_translator", "train_translator", "budget_rows",
           "results_from_rows", "log_from_rows", "budget_curve"]


# ---------------------------------------------------------------- speed
def time_scorers(scorers: dict, batch: int = 64, n_q: int = 20, n_k: int = 40, d_q: int = 128, d_k: int = 128,
                 d_v: int | None = None, repeats: int = 7, number: int = 5, seed: int = 0) -> dict:
    """{name: {"params", "cpu_ms"}} for scorer modules called on random query (batch, n_q, d_q), keys (batch, n_k, d_k).

    cpu_ms is the median CPU time of one forward call (no autograd), in milliseconds.
    """
    gen = torch.Generator().manual_seed(seed)
    query = torch.randn(batch, n_q, d_q, generator=gen)
    keys = torch.randn(batch, n_k, d_k, generator=gen)
    values = torch.randn(batch, n_k, d_v or d_k, generator=gen)
    out = {}
    for name, module in scorers.items():
        module.eval()

        def call(module=module):
            with torch.no_grad():
                return module(query, keys, values)

        seconds = time_call(call, repeats=repeats, warmup=2, number=number)["cpu"]
        out[name] = {"params": count_parameters(module), "cpu_ms": 1e3 * seconds}
    return out


# ---------------------------------------------------------------- training over configs and seeds
def run_experiment(configs: dict, train_pairs: Sequence, eval_sets: dict, steps: int, seeds: Iterable[int] = (0,),
                   batch_size: int = 32, lr: float = 1e-2, progress: bool = True) -> list[dict]:
    """Train every config (make_model keyword arguments) once per seed, evaluate on every set: a tidy table.

    configs: {name: dict(kind=..., scorer=..., ...)}; the seed seeds both the initial weights and the
    batch order (and dropout masks), so two configs with the same seed start from the same place where
    their parameters agree. eval_sets: {name: pairs}. Returns one row per (config, seed, set) with
    bleu, exact, align (None without attention), n, loss_start (mean training loss of the first 20 steps),
    loss_end (last 20) and cpu_seconds (of the training run).
    """
    from tqdm.auto import tqdm

    seeds = list(seeds)
    if not configs or not seeds or not eval_sets:
        raise ValueError("need at least one config, one seed and one evaluation set")
    rows = []
    bar = tqdm(total=len(configs) * len(seeds), disable=not progress, desc=i18n.t("training.runs"))
    for name, kwargs in configs.items():
        for seed in seeds:
            bar.set_postfix_str(f"{name}, seed {seed}")
            rows += train_one(name, kwargs, train_pairs, eval_sets, steps, seed, batch_size=batch_size, lr=lr)
            bar.update(1)
    bar.close()
    return rows


def first_crossing(steps: Sequence[int], values: Sequence[float], threshold: float) -> int | None:
    """The first of `steps` whose value reaches `threshold` (None if none does): when a run crosses a jump."""
    if len(steps) != len(values):
        raise ValueError(f"got {len(steps)} steps and {len(values)} values; expected one value per step")
    return next((int(s) for s, v in zip(steps, values, strict=True) if v >= threshold), None)


def _rank_correlation(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's (rho, p) of x and y; (nan, nan) when either is constant (no ranks to correlate)."""
    if len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan, math.nan
    rho, p = scipy.stats.spearmanr(x, y)
    return float(rho), float(p)


def crossing_stats(crossing: dict, bleu: dict, budget: int, never: int) -> dict:
    """When runs crossed and how they ended: {(config, seed): step | None} and {(config, seed): BLEU} -> a dict.

    Returns rho, p (Spearman, crossing step against BLEU over every run; a run that never crossed counts as step
    `never`), per config {"runs", "crossed", "mean_step" (None if no run crossed), "mean_bleu", "within" (rho over
    that config's runs)}, the configs' BLEU spread over all runs and over the runs that crossed by budget // 2
    ("early"; nan if fewer than two configs have one), how many never crossed, the latest crossing, and the configs
    with the earliest mean crossing and the best mean BLEU.
    """
    if set(crossing) != set(bleu):
        raise ValueError(f"crossing and bleu must have the same (config, seed) keys; got {sorted(crossing)} and "
                         f"{sorted(bleu)}")
    if not crossing:
        raise ValueError("no runs given")
    step_of = {key: never if c is None else c for key, c in crossing.items()}
    keys = list(crossing)
    rho, p = _rank_correlation([step_of[k] for k in keys], [bleu[k] for k in keys])
    configs = {}
    for name in ordered(k[0] for k in keys):
        mine = [k for k in keys if k[0] == name]
        steps = [crossing[k] for k in mine if crossing[k] is not None]
        configs[name] = dict(runs=len(mine), crossed=len(steps), mean_step=statistics.fmean(steps) if steps else None,
                             mean_bleu=statistics.fmean(bleu[k] for k in mine),
                             within=_rank_correlation([step_of[k] for k in mine], [bleu[k] for k in mine])[0])
    half = budget // 2
    early = {}
    for (name, seed), c in crossing.items():
        if c is not None and c <= half:
            early.setdefault(name, []).append(bleu[(name, seed)])
    early_means = [statistics.fmean(v) for v in early.values()]
    all_means = [c["mean_bleu"] for c in configs.values()]
    crossed = [c for c in crossing.values() if c is not None]
    timed = {name: c["mean_step"] for name, c in configs.items() if c["mean_step"] is not None}
    return dict(rho=rho, p=p, runs=len(keys), configs=configs, half=half,
                spread_all=max(all_means) - min(all_means),
                spread_early=max(early_means) - min(early_means) if len(early_means) > 1 else math.nan,
                never=sum(c is None for c in crossing.values()), latest=max(crossed) if crossed else None,
                earliest=min(timed, key=timed.get) if timed else None,
                best=max(configs, key=lambda name: configs[name]["mean_bleu"]))



def crossing_verdict(stats: dict, set_name: str, alpha: float = 0.05) -> str:
    """Markdown: what crossing_stats(...) shows about when runs crossed and where they ended on `set_name`."""
    configs = stats["configs"]
    per_config = i18n.t("ch06.semicolon").join(
        i18n.t("ch06.crossed", name=f"**{variant_name(name)}**", crossed=c["crossed"], runs=c["runs"])
        + (i18n.t("ch06.crossed_at", step=c["mean_step"]) if c["mean_step"] is not None else "")
        for name, c in configs.items())
    within = [c["within"] for c in configs.values() if not math.isnan(c["within"])]
    within_text = i18n.t("ch06.comma").join(
        variant_name(name) + " " + (i18n.t("ch06.not_available") if math.isnan(c["within"]) else f"{c['within']:+.2f}")
        for name, c in configs.items())
    text = i18n.t("ch06.crossing_pooled", per_config=per_config, runs=stats["runs"], set_name=set_name,
                  rho=stats["rho"], p=stats["p"])
    if stats["rho"] < 0 and stats["p"] < alpha:
        text += i18n.t("ch06.crossing_earlier_better")
        if within and max(abs(r) for r in within) < abs(stats["rho"]):
            text += i18n.t("ch06.crossing_within_weaker", within=within_text)
            earliest, best = variant_name(stats["earliest"]), variant_name(stats["best"])
            text += (i18n.t("ch06.crossing_same_best", earliest=earliest) if stats["earliest"] == stats["best"]
                     else i18n.t("ch06.crossing_other_best", earliest=earliest, best=best))
        else:
            text += i18n.t("ch06.crossing_within_stronger", within=within_text)
    else:
        text += i18n.t("ch06.crossing_no_link", within=within_text)
    text += (i18n.t("ch06.crossing_all_crossed", latest=stats["latest"]) if not stats["never"] else
             i18n.t("ch06.crossing_never", never=stats["never"], runs=stats["runs"]))
    if math.isnan(stats["spread_early"]):
        text += i18n.t("ch06.crossing_too_few_early", half=stats["half"])
    else:
        text += (i18n.t("ch06.crossing_spread", half=stats["half"], early=stats["spread_early"],
                   overall=stats["spread_all"])
                 + i18n.t("ch06.crossing_gap_when" if stats["spread_early"] < stats["spread_all"] / 2
                     else "ch06.crossing_gap_not_only"))
    return text


# ---------------------------------------------------------------- chapter 06: the verdicts its cells render
__all__ += ["variant_name", "winner", "retention", "KEEP_VERDICTS", "keeps_verdict", "flatness", "flatness_verdict",
            "ranking_verdict", "early_peaks", "saturation_verdict", "rule_sentence", "dropout_verdict"]

_NAME_KEYS = {"additive": "ch06.name_additive", "multiplicative": "ch06.name_multiplicative", "dot": "ch06.name_dot",
              "scaled_dot": "ch06.name_scaled_dot", "no attention": "ch06.name_no_attention",
              "no dropout": "ch06.name_no_dropout"}
_PLACEMENT_KEYS = {"weights": "ch06.name_weights", "context": "ch06.name_context"}


def variant_name(name: str) -> str:
    """A model's key as prose in the current language: "scaled_dot" -> "scaled dot" / "缩放点积".

    "weights 0.1" -> "weights 0.1" / "权重 dropout（p = 0.1）"; a key without a message (a scorer added later) stays.
    """
    if name in _NAME_KEYS:
        return i18n.t(_NAME_KEYS[name])
    place, _, rate = name.partition(" ")
    if place in _PLACEMENT_KEYS and rate:
        return i18n.t(_PLACEMENT_KEYS[place], p=rate)
    return name


def _names(names: Iterable[str]) -> str:
    """Keys as one list of prose names in the current language: ["dot", "additive"] -> "dot and additive"."""
    return i18n.and_list([variant_name(n) for n in names])


def winner(result: dict) -> str:
    """compare_variants' verdict in words: "context 0.1 wins" / "上下文向量 dropout（p = 0.1）胜出"."""
    if result["verdict"] == VERDICTS[2]:
        return i18n.t("experiments.no_difference")
    return i18n.t("ch06.wins", name=variant_name(result["a"] if result["verdict"] == VERDICTS[0] else result["b"]))


def retention(rows: Sequence[dict], config: str, set_name: str, reference: str, value: str = "bleu",
              level: float = 0.95) -> dict:
    """Per seed, `config`'s `value` on `set_name` / on `reference`, and the t-interval of the mean share: a dict.

    Returns {"shares", "seeds", "mean", "low", "high", "half_width", "n"}; shares are fractions (1.0 = as good).
    """
    def by_seed(set_):
        got = {r["seed"]: float(r[value]) for r in rows if r["config"] == config and r["set"] == set_}
        if not got:
            raise ValueError(f"no rows for config {config!r} on set {set_!r}")
        return got

    on, ref = by_seed(set_name), by_seed(reference)
    if set(on) != set(ref):
        raise ValueError(f"{config!r} was run with other seeds on {set_name!r} than on {reference!r}")
    if min(ref.values()) <= 0:
        raise ValueError(f"{config!r} scores {min(ref.values())} on {reference!r}: no share of it can be taken")
    seeds = sorted(on)
    shares = [on[s] / ref[s] for s in seeds]
    ci = paired_interval(shares, level)
    return dict(shares=shares, seeds=seeds, mean=ci["mean"], low=ci["low"], high=ci["high"],
                half_width=ci["half_width"], n=ci["n"])


#: The verdicts of keeps_verdict.
KEEP_VERDICTS = ("keeps", "loses", "undecided")
_KEEP_KEYS = {"keeps": "ch06.flat_keeps", "loses": "ch06.flat_loses", "undecided": "ch06.flat_undecided"}


def keeps_verdict(share: dict, floor: float) -> str:
    """"keeps" / "loses" when a retention's t-interval lies wholly at or above / below `floor`, else "undecided"."""
    if share["low"] >= floor:
        return KEEP_VERDICTS[0]
    if share["high"] < floor:
        return KEEP_VERDICTS[1]
    return KEEP_VERDICTS[2]


def flatness(rows: Sequence[dict], configs: Sequence[str], sets: Sequence[str], floor: float = 0.85,
             level: float = 0.95) -> dict:
    """How each config's quality holds up with length, as a share of its own on `sets[0]`: {config: dict}.

    Returns {config: {"reference": sets[0], "share": {set: retention}, "verdict": {set: keeps_verdict},
    "first_below": the first set whose mean share is below `floor` (None if none), "lowest": the set of the lowest mean
    share, "fall": {"previous", "set", "mean", "low", "high"}, the neighbouring sets across which the share falls most
    on average (the per-seed change of the share, negative = a fall, with its t-interval), and "other_falls": the
    largest mean fall between any other neighbours (0.0 if none fell)}}, for every set after the first.
    """
    if len(sets) < 2:
        raise ValueError(f"need a reference set and at least one more, got {list(sets)}")
    reference, later = sets[0], list(sets[1:])
    out = {}
    for config in configs:
        share = {s: retention(rows, config, s, reference, level=level) for s in later}
        per_seed = {reference: [1.0] * share[later[0]]["n"], **{s: share[s]["shares"] for s in later}}
        changes = {}
        for prev, s in zip(sets[:-1], sets[1:], strict=True):
            ci = paired_interval([b - a for a, b in zip(per_seed[prev], per_seed[s], strict=True)], level)
            changes[s] = dict(previous=prev, set=s, mean=ci["mean"], low=ci["low"], high=ci["high"])
        steepest = min(changes.values(), key=lambda c: c["mean"])
        others = [-c["mean"] for c in changes.values() if c is not steepest and c["mean"] < 0]
        out[config] = dict(reference=reference, share=share,
                           verdict={s: keeps_verdict(r, floor) for s, r in share.items()},
                           first_below=next((s for s in later if share[s]["mean"] < floor), None),
                           lowest=min(later, key=lambda s: share[s]["mean"]), fall=steepest,
                           other_falls=max(others, default=0.0))
    return out


def flatness_verdict(flat: dict, set_name: str, floor: float, scorers: Sequence[str], unseen: Sequence[str],
                     longest: int, n: int, steps: int, level: float = 0.95) -> str:
    """Markdown: who keeps `floor` of their short-sentence quality on `set_name`, and where each curve stops being flat.

    `flat` is flatness(...); the answer is for all `scorers`; a config's mean share first falls below `floor` inside
    the training lengths or in an `unseen` set (beyond the `longest` training sentence); for a config that never does,
    its steepest fall between neighbouring sets.
    """
    def share(name, set_):
        r = flat[name]["share"][set_]
        return f"**{variant_name(name)}** {r['mean']:.1%} [{r['low']:.1%}, {r['high']:.1%}]"

    groups = {v: [name for name in flat if flat[name]["verdict"][set_name] == v] for v in KEEP_VERDICTS}
    parts = []
    for v in KEEP_VERDICTS:
        if groups[v]:
            items = i18n.t("ch06.comma").join(
                share(name, set_name) + (i18n.t("ch06.seed_range", low=min(flat[name]["share"][set_name]["shares"]),
                                                high=max(flat[name]["share"][set_name]["shares"]))
                                         if v == "undecided" else "") for name in groups[v])
            parts.append(i18n.t(_KEEP_KEYS[v], items=items))
    keepers = [name for name in scorers if flat[name]["verdict"][set_name] == "keeps"]
    text = i18n.t("ch06.flat_head", set_name=set_name, reference=flat[scorers[0]]["reference"], floor=floor,
                  n=n, steps=steps, level=level) + i18n.t("ch06.semicolon").join(parts)
    text += (i18n.t("ch06.flat_every") if len(keepers) == len(scorers) else
             i18n.t("ch06.flat_only", names=_names(keepers)) if keepers else i18n.t("ch06.flat_none"))
    below = {s: [name for name, f in flat.items() if f["first_below"] == s] for s in flat[scorers[0]]["share"]}
    below = {s: names for s, names in below.items() if names}
    places = i18n.t("ch06.semicolon").join(
        i18n.t("ch06.below_at", set_name=s, names=_names(names),
               where=i18n.t("ch06.beyond_training" if s in unseen else "ch06.within_training"))
        for s, names in below.items())
    text += "\n\n" + i18n.t("ch06.where_head", floor=floor, places=places or i18n.t("ch06.below_nowhere"),
                            longest=longest)
    for name, f in flat.items():
        if f["first_below"] is None:
            fall = f["fall"]
            text += i18n.t("ch06.never_below", name=f"**{variant_name(name)}**", lowest=f["share"][f["lowest"]]["mean"],
                           lowest_set=f["lowest"], previous=fall["previous"], set_name=fall["set"],
                           where=i18n.t("ch06.beyond_training" if fall["set"] in unseen else "ch06.within_training"),
                           mean=100 * fall["mean"], low=100 * fall["low"], high=100 * fall["high"],
                           others=100 * f["other_falls"])
    return text


def ranking_verdict(means: dict, pairs: dict, beaten: Sequence[str], same: dict, set_name: str, n: int,
                    level: float = 0.95) -> str:
    """Markdown: the scorers ranked by mean BLEU on `set_name`, every pair's paired difference, the pairs told apart.

    `means` is {name: mean BLEU}, best first; `pairs` {(a, b): compare_variants}; `beaten` the scorers that beat no
    attention; `same` the compare_variants result of two scorers that compute one function here.
    """
    def verdict(a, r):
        return i18n.t("ch06.pair_better", name=variant_name(a)) if r["verdict"] == VERDICTS[0] else i18n.t(
            "ch06.pair_untold")

    rows = "\n".join(f"| {variant_name(a)} − {variant_name(b)} | {r['diff']:+.1f} | [{r['low']:+.1f}, "
                     f"{r['high']:+.1f}] | {verdict(a, r)} |" for (a, b), r in pairs.items())
    told = [f"{variant_name(a)} > {variant_name(b)}" for (a, b), r in pairs.items() if r["verdict"] == VERDICTS[0]]
    untold = [f"{variant_name(a)} ≈ {variant_name(b)}" for (a, b), r in pairs.items() if r["verdict"] != VERDICTS[0]]
    none, comma = i18n.t("ch06.none"), i18n.t("ch06.list_comma")
    return (i18n.t("ch06.ranking_head", set_name=set_name, n=n)
            + " > ".join(f"**{variant_name(name)}** {mean:.1f}" for name, mean in means.items())
            + "\n\n" + i18n.t("ch06.pair_header", level=level) + "\n" + rows + "\n\n"
            + i18n.t("ch06.ranking_beaten", beaten=comma.join(variant_name(b) for b in beaten) or none,
                     k=len(beaten), m=len(means))
            + i18n.t("ch06.ranking_told", told=comma.join(told) or none, untold=comma.join(untold) or none)
            + i18n.t("ch06.same_function", a=variant_name(same["a"]), b=variant_name(same["b"]), diff=same["diff"],
                     low=same["low"], high=same["high"])
            + i18n.t("ch06.same_untold" if same["verdict"] == VERDICTS[2] else "ch06.same_told"))


def early_peaks(curves: dict, names: Sequence[str], seeds: Sequence[int], at: int = 1, peak: float = 0.5) -> dict:
    """What the watched curves {(name, seed): row} show at step 0 and at checkpoint `at`, averaged over `seeds`.

    Returns {"step": the step of checkpoint `at`, "peak": peak, name: {"start": {curve: mean at checkpoint 0},
    "early": {curve: mean at `at`}, "on_wrong": mean max weight − alignment / 100 at `at` (a lower bound on the weight
    on a wrong word), "final_align": [per seed], "first_peaked": [per seed, the first step whose max weight passes
    `peak`, or None]}}.
    """
    out = {"step": curves[(names[0], seeds[0])]["steps"][at], "peak": peak}
    for name in names:
        runs = [curves[(name, s)] for s in seeds]
        keys = [k for k in runs[0] if k.endswith("_curve")]
        start = {k: statistics.fmean(r[k][0] for r in runs) for k in keys}
        early = {k: statistics.fmean(r[k][at] for r in runs) for k in keys}
        out[name] = dict(start=start, early=early, on_wrong=early["max_weight_curve"] - early["align_curve"] / 100,
                         final_align=[r["align_curve"][-1] for r in runs],
                         first_peaked=[next((st for st, w in zip(r["steps"], r["max_weight_curve"], strict=True)
                                             if w > peak), None) for r in runs])
    return out


def saturation_verdict(peaks: dict, names: Sequence[str], uniform: float, root_d: float, unscaled: str = "dot",
                       scaled: str = "scaled_dot", wrong: float = 0.5) -> str:
    """Markdown: what early_peaks(...) shows about the early saturation of `unscaled` against `scaled`.

    The two are one network at step 0 (scores √d_k = `root_d` apart); every scorer's early alignment is set against
    `uniform` attention's; a scorer whose lower bound on the weight on a wrong word passes `wrong` is "saturated".
    """
    u, s = peaks[unscaled], peaks[scaled]
    early_align = {name: peaks[name]["early"]["align_curve"] for name in names}
    below = [name for name in names if early_align[name] < uniform]
    saturated = [name for name in names if peaks[name]["on_wrong"] > wrong]
    comma = i18n.t("ch06.comma")
    text = i18n.t("ch06.sat_start", unscaled=variant_name(unscaled), scaled=variant_name(scaled), root_d=root_d,
                  std0=u["start"]["score_std_curve"], max0=u["start"]["max_weight_curve"],
                  entropy0=u["start"]["entropy_curve"], step=peaks["step"], std=u["early"]["score_std_curve"],
                  std_scaled=s["early"]["score_std_curve"], weight=u["early"]["max_weight_curve"],
                  weight_scaled=s["early"]["max_weight_curve"])
    aligns = comma.join(f"{variant_name(name)} {early_align[name]:.1f}%" for name in names)
    text += (i18n.t("ch06.sat_all_below", uniform=uniform, aligns=aligns) if len(below) == len(names) else
             i18n.t("ch06.sat_some_below", names=_names(below) or i18n.t("ch06.no_scorer"), uniform=uniform,
                    aligns=aligns))
    if max(early_align.values()) < 10:
        text += i18n.t("ch06.sat_all_wrong", share=int(10 * (100 - max(early_align.values()))) / 10,
                       unscaled=variant_name(unscaled))
    text += i18n.t("ch06.sat_apart", names=_names(saturated)) if saturated else i18n.t("ch06.period")
    text += i18n.t("ch06.sat_bound", bounds=comma.join(i18n.t("ch06.at_least", name=variant_name(name),
                                                               value=peaks[name]["on_wrong"]) for name in names),
                   scaled=variant_name(scaled), weight_scaled=s["early"]["max_weight_curve"])
    text += (i18n.t("ch06.sat_peaked", unscaled=variant_name(unscaled), weight=u["early"]["max_weight_curve"])
             if u["on_wrong"] > wrong else i18n.t("ch06.sat_not_peaked", unscaled=variant_name(unscaled)))
    never = i18n.t("ch06.never")
    text += i18n.t("ch06.sat_end", ranges=i18n.t("ch06.semicolon").join(
        f"{variant_name(name)} {min(peaks[name]['final_align']):.0f}-{max(peaks[name]['final_align']):.0f}%"
        for name in names))
    text += i18n.t("ch06.sat_first_peaked", peak=peaks["peak"], steps=i18n.t("ch06.semicolon").join(
        f"{variant_name(name)} [{', '.join(never if x is None else str(x) for x in peaks[name]['first_peaked'])}]"
        for name in names))
    return text


def rule_sentence(result: dict, n: int, steps: int) -> str:
    """The t rule in one sentence, with the half-width of one compare_variants `result` over `n` seeds, `steps`."""
    return i18n.t("ch06.rule_half_width", a=variant_name(result["a"]), b=variant_name(result["b"]),
                  half=result["half_width"], n=n, steps=steps)


def dropout_verdict(results: dict, align: dict, rates: Sequence[str], steps: int, n: int, level: float = 0.95,
                    control: str = "no dropout") -> str:
    """Markdown: what the paired comparisons say about dropout against the control and weights against context.

    `results` is {(a, b): compare_variants} (each variant against `control`, and "weights p" against "context p" for
    each of `rates`); `align` is {variant: validation alignment %}; one budget of `steps` steps and `n` seeds.
    """
    vs_control = {a: r["verdict"] for (a, b), r in results.items() if b == control}
    helps, hurts, neither = ([a for a, v in vs_control.items() if v == verdict] for verdict in VERDICTS)
    placement = {p: results[(f"weights {p}", f"context {p}")] for p in rates}
    none, comma = i18n.t("ch06.none_variant"), i18n.t("ch06.list_comma")
    said = {VERDICTS[0]: "ch06.weights_win", VERDICTS[1]: "ch06.context_wins", VERDICTS[2]: "experiments.no_difference"}
    listed = {key: comma.join(map(variant_name, names)) or none
              for key, names in (("helps", helps), ("hurts", hurts), ("neither", neither))}
    text = i18n.t("ch06.drop_control", steps=steps, n=n, level=level, **listed)
    text += i18n.t("ch06.drop_placement", each=i18n.t("ch06.semicolon").join(
        i18n.t("ch06.drop_at_rate", p=p, said=i18n.t(said[r["verdict"]]), diff=r["diff"], low=r["low"], high=r["high"])
        for p, r in placement.items()))
    if not helps:
        text += i18n.t("ch06.drop_none_helps")
    if all(r["verdict"] == VERDICTS[1] for r in placement.values()):
        text += i18n.t("ch06.drop_tip_contradicted")
    elif all(r["verdict"] == VERDICTS[0] for r in placement.values()):
        text += i18n.t("ch06.drop_tip_supported")
    if any(r["verdict"] == VERDICTS[1] for r in placement.values()):
        others = [name for name in align if name != control]
        text += i18n.t("ch06.drop_mechanism", control=align[control], others=comma.join(
            i18n.t("ch06.percent_for", value=align[name], name=variant_name(name)) for name in others))
    return text + i18n.t("ch06.drop_limits", steps=steps)


def train_one(name: str, kwargs: dict, train_pairs: Sequence, eval_sets: dict, steps: int, seed: int,
              batch_size: int = 32, lr: float = 1e-2, watch: Sequence | None = None, every: int = 20,
              threshold: float = 50.0) -> list[dict]:
    """One run of run_experiment: make_model(**kwargs, seed), train, evaluate on every set: one row per set.

    watch: (src, tgt, align) pairs on which an attention model's `attention_statistics` are measured every
    `every` steps during training (0 and `steps` included); they add one row with set="training": the
    checkpoint `steps`, the series `align_curve`, `max_weight_curve`, `entropy_curve`, `score_std_curve` (one value
    per checkpoint) and `crossing`, the first checkpoint whose alignment reaches `threshold` (%), or None.
    """
    from helpers.seq2seq import make_model
    from helpers.training import attention_statistics, evaluate, train

    model = make_model(**kwargs, seed=seed)
    series: dict[str, list] = {}

    def record(step, model):
        series.setdefault("steps", []).append(step)
        for key, value in attention_statistics(model, watch).items():
            series.setdefault(f"{key}_curve", []).append(value)

    watching = watch is not None and model.has_attention
    log = train(model, train_pairs, steps, batch_size=batch_size, lr=lr, seed=seed, progress=False,
                callback=record if watching else None,
                callback_steps=sorted({*range(0, steps, every), steps}) if watching else ())
    first, last = log.losses[:20], log.losses[-20:]
    common = dict(config=name, seed=seed, loss_start=sum(first) / len(first), loss_end=sum(last) / len(last),
                  cpu_seconds=log.cpu_seconds)
    rows = []
    for set_name, pairs in eval_sets.items():
        result = evaluate(model, pairs)
        rows.append(dict(common, set=set_name, bleu=result["bleu"], exact=result["exact"],
                         align=result.get("align"), n=result["n"]))
    if watching:
        rows.append(dict(common, set="training", **series, threshold=threshold,
                         crossing=first_crossing(series["steps"], series["align_curve"], threshold)))
    return rows


# ---------------------------------------------------------------- summaries
def ordered(values: Iterable) -> list:
    """Unique values in first-seen order."""
    return list(dict.fromkeys(values))


def summarize(rows: Sequence[dict], value: str = "bleu", by: Sequence[str] = ("config", "set")) -> dict:
    """{key tuple: {"mean", "std", "min", "max", "n", "values"}} of `value` grouped by the `by` columns.

    std is the sample standard deviation over the group (0.0 for a group of one). Rows whose `value` is
    None (e.g. align of a model without attention) are left out.
    """
    groups: dict = {}
    for row in rows:
        if row.get(value) is None:
            continue
        groups.setdefault(tuple(row[k] for k in by), []).append(float(row[value]))
    return {key: {"mean": statistics.fmean(v), "std": statistics.stdev(v) if len(v) > 1 else 0.0,
                  "min": min(v), "max": max(v), "n": len(v), "values": v} for key, v in groups.items()}


def pivot(rows: Sequence[dict], value: str = "bleu", index: str = "config", columns: str = "set") -> dict:
    """{index value: {column value: mean of `value`}}, keeping first-seen order (a config by bucket table)."""
    stats = summarize(rows, value, by=(index, columns))
    table: dict = {i: {} for i in ordered(r[index] for r in rows)}
    for (i, c), s in stats.items():
        table[i][c] = s["mean"]
    return table


def by_bucket(rows: Sequence[dict], value: str = "bleu") -> dict:
    """{config: {set: {value: mean, value_min: min, value_max: max}}}: a tidy table in the form
    `helpers.plotting.plot_quality_by_length` draws (a band for the seed-to-seed range)."""
    stats = summarize(rows, value, by=("config", "set"))
    out: dict = {c: {} for c in ordered(r["config"] for r in rows)}
    for (config, set_name), st in stats.items():
        out[config][set_name] = {value: st["mean"], f"{value}_min": st["min"], f"{value}_max": st["max"]}
    return out


# ---------------------------------------------------------------- paired comparisons
def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t distribution with `df` degrees of freedom (scipy.stats.t)."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    return float(scipy.stats.t.cdf(t, df))


def t_quantile(prob: float, df: float) -> float:
    """The t with P(T <= t) = prob for Student's t with `df` degrees of freedom (scipy.stats.t)."""
    if not 0.0 < prob < 1.0:
        raise ValueError(f"prob must lie strictly between 0 and 1, got {prob}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    return float(scipy.stats.t.ppf(prob, df))


def t_half_width(sd, n: int, level: float = 0.95):
    """Half-width of the t-interval of a mean of n values with sample sd `sd` (a number or an array): t · sd / √n."""
    return t_quantile((1.0 + level) / 2.0, n - 1) * sd / math.sqrt(n)


def paired_interval(diffs: Sequence[float], level: float = 0.95) -> dict:
    """Mean of paired differences with its t-interval: {"mean", "low", "high", "half_width", "sd", "n", "level"}.

    The interval is mean ± t_{(1+level)/2, n-1} · sd / sqrt(n), sd the sample standard deviation of the diffs.
    """
    diffs = [float(d) for d in diffs]
    if len(diffs) < 2:
        raise ValueError(f"a paired t-interval needs at least 2 differences (seeds), got {len(diffs)}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    if not all(math.isfinite(d) for d in diffs):
        raise ValueError(f"differences must be finite numbers, got {diffs}")
    n, mean, sd = len(diffs), statistics.fmean(diffs), statistics.stdev(diffs)
    half = t_half_width(sd, n, level)
    return dict(mean=mean, low=mean - half, high=mean + half, half_width=half, sd=sd, n=n, level=level)


#: The verdicts of compare_variants.
VERDICTS = ("a better", "b better", "no difference detectable")
#: The verdicts as a reader sees them in the current language: VERDICT_LABELS["a better"] -> "a better" / "前者更好".
VERDICT_LABELS = i18n.Labels({"a better": "experiments.a_better", "b better": "experiments.b_better",
                              "no difference detectable": "experiments.no_difference"})


def verdict_of(low: float, high: float) -> str:
    """The rule: a side wins only when the interval [low, high] of mean(a - b) excludes zero."""
    if low > 0:
        return VERDICTS[0]
    if high < 0:
        return VERDICTS[1]
    return VERDICTS[2]


def compare_variants(rows: Sequence[dict], a: str, b: str, set_name: str, value: str = "bleu",
                     level: float = 0.95) -> dict:
    """Compare config `a` with config `b` on one set, seed by seed (paired: same seeds, same starts).

    Returns mean_a, mean_b, the per-seed diffs (a - b) and seeds, their mean `diff` with the t-interval
    [low, high] at `level` (half_width, sd of the diffs, n), and `verdict` (one of VERDICTS): "a better" or
    "b better" only when the interval excludes zero, else "no difference detectable". Under no difference the
    rule calls a winner with probability 1 - level (see false_verdict_rate).
    """
    def by_seed(config):
        got = {r["seed"]: float(r[value]) for r in rows if r["config"] == config and r["set"] == set_name}
        if not got:
            raise ValueError(f"no rows for config {config!r} on set {set_name!r}")
        return got

    va, vb = by_seed(a), by_seed(b)
    if set(va) != set(vb):
        raise ValueError(f"configs {a!r} and {b!r} were run with different seeds: {sorted(va)} vs {sorted(vb)}")
    seeds = sorted(va)
    if len(seeds) < 2:
        raise ValueError(f"a paired comparison needs at least 2 seeds; {a!r} and {b!r} have {seeds}")
    diffs = [va[s] - vb[s] for s in seeds]
    ci = paired_interval(diffs, level)
    return dict(a=a, b=b, set=set_name, value=value, mean_a=statistics.fmean(va.values()),
                mean_b=statistics.fmean(vb.values()), diff=ci["mean"], diffs=diffs, seeds=seeds, low=ci["low"],
                high=ci["high"], half_width=ci["half_width"], sd=ci["sd"], n=ci["n"], level=level,
                verdict=verdict_of(ci["low"], ci["high"]))


def intervals_in_words(comparison: dict, labels: dict | None = None) -> tuple[str, str]:
    """(the per-set intervals, the verdicts counted) of {set: compare_variants(...)}, as Markdown phrases:
    ("`4-10` +0.5 [-2.3, +3.2]; ...", "no difference detectable in 4, a better in 1"); `labels` names the verdicts
    (default: VERDICT_LABELS)."""
    labels = VERDICT_LABELS if labels is None else labels
    per = i18n.t("experiments.semicolon").join(
        i18n.t("experiments.interval_of_set", set=v["set"], diff=v["diff"], low=v["low"], high=v["high"])
        for v in comparison.values())
    counted = Counter(v["verdict"] for v in comparison.values())
    tally = i18n.t("experiments.comma").join(i18n.t("experiments.verdict_count", verdict=labels[verdict], k=k)
                                            for verdict, k in counted.items())
    return per, tally


def false_verdict_rate(n_seeds: int, level: float = 0.95, trials: int = 20000, seed: int = 0,
                       diffs: Sequence[float] | None = None) -> float:
    """Share of simulated experiments with NO true difference in which compare_variants' rule calls a winner.

    Each trial draws n_seeds paired differences with mean zero: from a normal distribution (diffs=None; the
    rule is scale-free, so its spread does not matter), or by resampling the given measured diffs after
    shifting them to mean zero (keeps their shape). Returns a share in [0, 1]; about 1 - level for normal diffs.
    """
    if n_seeds < 2 or trials < 1:
        raise ValueError(f"need n_seeds >= 2 and trials >= 1, got n_seeds={n_seeds}, trials={trials}")
    rng = np.random.default_rng(seed)
    if diffs is None:
        draws = rng.standard_normal((trials, n_seeds))
    else:
        centred = np.asarray(diffs, dtype=float) - float(np.mean(diffs))
        if centred.size < 2:
            raise ValueError(f"need at least 2 measured diffs to resample, got {centred.size}")
        draws = rng.choice(centred, size=(trials, n_seeds), replace=True)
    mean, sd = draws.mean(axis=1), draws.std(axis=1, ddof=1)
    half = t_half_width(sd, n_seeds, level)                     # compare_variants' interval (paired_interval's)...
    called = [verdict_of(low, high) != VERDICTS[2]
              for low, high in zip((mean - half).tolist(), (mean + half).tolist(), strict=True)]
    return statistics.fmean(called)                             # ...and its rule, so the rate is the chapters' rule's


# ---------------------------------------------------------------- chapter 07: the causal mask's job
@dataclass
class CausalDemoResult:
    """What causal_mask_demo measured on held-out sentences.

    losses: training loss per step. generation_*: next-word accuracy (%) and cross-entropy when the model sees
    only the past, as when it generates; teacher_forced_*: the same with the whole sentence fed in, as in training.
    samples: three greedy generations. next_word_weight: per head of the last layer, the mean weight a position puts
    on the next position (the word it must predict) when the whole sentence is fed in; uniform_weight: what a
    uniform row would put there (mean of 1 / the keys a row may see).
    """

    causal: bool
    losses: list = field(default_factory=list)
    generation_accuracy: float = 0.0
    generation_loss: float = 0.0
    teacher_forced_accuracy: float = 0.0
    teacher_forced_loss: float = 0.0
    samples: list = field(default_factory=list)
    cpu_seconds: float = 0.0
    next_word_weight: list = field(default_factory=list)
    uniform_weight: float = 0.0


def _lm_tensors(sentences: Sequence[Sequence[str]], vocab: Vocab) -> tuple[torch.Tensor, torch.Tensor]:
    """<bos> + words as input, words + <eos> as targets, padded.  -> (B, n), (B, n)"""
    ids = [vocab.encode(s) for s in sentences]
    n = max(len(s) for s in ids) + 1
    inp = torch.full((len(ids), n), vocab.pad_id, dtype=torch.long)
    out = torch.full((len(ids), n), vocab.pad_id, dtype=torch.long)
    for i, s in enumerate(ids):
        inp[i, : len(s) + 1] = torch.tensor([vocab.bos_id] + s)
        out[i, : len(s) + 1] = torch.tensor(s + [vocab.eos_id])
    return inp, out


@torch.no_grad()
def next_word_scores(model: TinyDecoder, sentences: Sequence[Sequence[str]], see_future: bool = False):
    """(% of next words right by argmax, mean cross-entropy per next word) over `sentences`, <eos> included.

    see_future=False: the prediction for word t is made from an input that stops at word t-1, as in generation.
    see_future=True: one pass over the whole sentence, as in (teacher-forced) training.
    """
    model.eval()
    inp, out = _lm_tensors(sentences, model.vocab)
    real = out != model.vocab.pad_id                                          # (B, n)
    if see_future:
        logits = model(inp)                                                   # (B, n, V)
    else:
        logits = torch.stack([model(inp[:, : t + 1])[:, -1] for t in range(inp.shape[1])], dim=1)  # (B, n, V)
    accuracy = 100.0 * float((logits.argmax(-1) == out)[real].float().mean())
    return accuracy, float(F.cross_entropy(logits[real], out[real]))


@torch.no_grad()
def weight_on_next_word(model: TinyDecoder, sentences: Sequence[Sequence[str]]) -> tuple[list[float], float]:
    """([per head of the last layer: mean weight of position t on key t+1], what a uniform row puts on one key) over
    the real positions t of `sentences` that have a next position, the whole sentence fed in (as in training).
    Key t+1 holds the word position t must predict; under a causal mask its weight is 0."""
    model.eval()
    inp, out = _lm_tensors(sentences, model.vocab)                            # (B, n)
    real = out != model.vocab.pad_id
    x = model.positions(model.embedding(inp) * math.sqrt(model.d))
    mask = causal_mask(inp.shape[1]) if model.causal else None
    for layer in model.layers:
        x, weights = layer(x, mask)                                           # weights (B, h, n, n)
    has_next = real[:, 1:]                                                    # (B, n-1): t+1 is a real position
    on_next = torch.diagonal(weights, offset=1, dim1=-2, dim2=-1)             # (B, h, n-1)
    per_head = [float(on_next[:, h][has_next].mean()) for h in range(weights.shape[1])]
    n = inp.shape[1]
    keys_seen = torch.arange(1, n + 1).float() if model.causal else torch.full((n,), float(n))   # (n,) per row
    uniform = float((1.0 / keys_seen[:-1]).expand_as(has_next)[has_next].mean())
    return per_head, uniform


def next_word_accuracy(model: TinyDecoder, sentences: Sequence[Sequence[str]], see_future: bool = False) -> float:
    """% of next words the model gets right (argmax); see next_word_scores."""
    return next_word_scores(model, sentences, see_future)[0]


@torch.no_grad()
def generate(model: TinyDecoder, n: int = 3, max_len: int = 20) -> list[list[str]]:
    """n greedy generations from <bos> (the first word forced to each of the n most likely first words), at most
    max_len words (and no more than the model's positions allow); each stops at <eos>."""
    model.eval()
    v = model.vocab
    first = model(torch.tensor([[v.bos_id]]))[0, -1]
    first[[v.pad_id, v.bos_id, v.eos_id, v.unk_id]] = float("-inf")
    ids = torch.cat([torch.full((n, 1), v.bos_id), first.topk(n).indices[:, None]], dim=1)  # (n, 2)
    while ids.shape[1] < min(max_len, model.positions.max_len - 1) + 1 and not bool((ids == v.eos_id).any(1).all()):
        ids = torch.cat([ids, model(ids)[:, -1].argmax(-1, keepdim=True)], dim=1)
    return [v.decode(row[1:].tolist()) for row in ids]


def causal_mask_demo(causal: bool, steps: int = 600, batch_size: int = 32, max_words: int = 12, d: int = 32,
                     heads: int = 2, layers: int = 1, lr: float = 1e-2, seed: int = 0, n_eval: int = 200,
                     sentences: Sequence[Sequence[str]] | None = None) -> CausalDemoResult:
    """Train a TinyDecoder on target sentences of the toy data (at most max_words words) with or without the causal
    mask; return its loss curve and its next-word accuracy when it sees only the past vs the whole sentence.

    sentences: the training pool (default: targets of load_split("train")); the last n_eval are held out.
    Without the mask the loss collapses towards zero (each position reads the next word), but with only the
    past visible, as in generation, it fails.
    """
    if sentences is None:
        sentences = [p[1] for p in load_split("train") if len(p[1]) <= max_words]
    sentences = [list(s) for s in sentences]
    if len(sentences) <= n_eval:
        raise ValueError(f"need more than n_eval={n_eval} sentences, got {len(sentences)}")
    held_out, pool = sentences[-n_eval:], sentences[:-n_eval]
    torch.manual_seed(seed)
    vocab = target_vocab()
    model = TinyDecoder(vocab, d=d, heads=heads, layers=layers, causal=causal,
                        max_len=max(len(s) for s in sentences) + 1)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    result = CausalDemoResult(causal=causal)
    cpu0 = time.process_time()
    model.train()
    for _ in range(steps):
        idx = torch.randint(len(pool), (batch_size,), generator=gen).tolist()
        inp, out = _lm_tensors([pool[i] for i in idx], vocab)
        logits = model(inp)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), out.reshape(-1), ignore_index=vocab.pad_id)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        result.losses.append(loss.item())
    result.generation_accuracy, result.generation_loss = next_word_scores(model, held_out, see_future=False)
    result.teacher_forced_accuracy, result.teacher_forced_loss = next_word_scores(model, held_out, see_future=True)
    result.samples = generate(model, n=3, max_len=max_words)
    result.next_word_weight, result.uniform_weight = weight_on_next_word(model, held_out)
    result.cpu_seconds = time.process_time() - cpu0
    return result


# ---------------------------------------------------------------- time per training step
def step_time_by_length(models: dict, lengths: Sequence[int], batch_size: int = 32, repeats: int = 3,
                        seed: int = 0) -> dict[str, dict[int, float]]:
    """CPU milliseconds of one whole training step (loss, backward and Adam's update) per model on generated pairs
    whose source has exactly L words, for each L in `lengths`: {model name: {L: ms}} (median of `repeats`, after
    one warm-up step).

    models: {name: any model with src_vocab, tgt_vocab and loss(batch)} (Seq2Seq or TransformerTranslator). Each is
    timed on a copy, so the models passed in keep their weights. The RNN decoder runs its recurrence position after
    position; the Transformer handles all positions at once.
    """
    import copy

    from helpers.seq2seq import make_batch

    result: dict[str, dict[int, float]] = {name: {} for name in models}
    for L in lengths:
        pairs = sample_pairs(batch_size, L, L, seed=seed + L)
        for name, original in models.items():
            model = copy.deepcopy(original)
            batch = make_batch(pairs, model.src_vocab, model.tgt_vocab)
            opt = torch.optim.Adam(model.parameters(), lr=1e-4)
            model.train()

            def step(model=model, batch=batch, opt=opt):
                opt.zero_grad(set_to_none=True)
                model.loss(batch).backward()
                opt.step()

            result[name][L] = 1000.0 * time_call(step, repeats=repeats, warmup=1)["cpu"]
    return result


# ---------------------------------------------------------------- chapter 01: the bottleneck family (evidence)
__all__ += ["BOTTLENECK_FIELDS", "bottleneck_run", "last_trained", "breaking_set"]

#: The columns of every row bottleneck_run returns (None where a row kind has no value).
BOTTLENECK_FIELDS = ("measure", "set", "lo", "hi", "bleu", "exact", "n", "stage", "direction", "length", "grad",
                     "steps", "params", "context", "loss_start", "loss_end", "cpu_seconds")
_LAST: dict = {}


def bottleneck_run(settings: dict, unit: dict) -> list[dict]:
    """Train settings["configs"][unit["config"]] (make_model keywords, "steps", optional "gradient": False, optional
    "lr" instead of settings["lr"]) from unit["seed"]; a tidy table.

    Rows (columns BOTTLENECK_FIELDS): measure="quality", one per [lo, hi] in settings["sets"] (test sentences of
    those source lengths: bleu, exact, n, with the run's steps, params, context size, loss_start/loss_end and
    cpu_seconds); measure="gradient", one per stage ("init", "trained") x direction x length:
    helpers.training.gradient_by_length with settings["gradient"] ({"lengths", "n", "last_words", "directions"}).
    The trained model stays available to the caller through last_trained().
    """
    from helpers.seq2seq import make_model
    from helpers.toylang import bucket_name, load_test_buckets
    from helpers.training import evaluate, gradient_by_length, train

    config = dict(settings["configs"][unit["config"]])
    steps, seed, grad = config.pop("steps"), int(unit["seed"]), settings["gradient"]
    measure_gradient = config.pop("gradient", True)          # a config may leave the gradient rows out
    lr = config.pop("lr", settings["lr"])                    # a config may keep its own chapter's learning rate
    model = make_model(**config, seed=seed)
    rows: list[dict] = []

    def add(**values) -> None:
        rows.append({k: values.get(k) for k in BOTTLENECK_FIELDS})

    def gradients(stage: str) -> None:
        for direction in grad["directions"] if measure_gradient else ():
            by_length = gradient_by_length(model, grad["lengths"], n=grad["n"], seed=seed, direction=direction,
                                           last_words=grad["last_words"])
            for length, value in by_length.items():
                add(measure="gradient", stage=stage, direction=direction, length=length, grad=value)

    gradients("init")
    log = train(model, load_split("train"), steps, batch_size=settings["batch"], lr=lr, seed=seed,
                progress=False)
    gradients("trained")
    pool = [p for pairs in load_test_buckets().values() for p in pairs]
    first, last = log.losses[:20], log.losses[-20:]
    for lo, hi in settings["sets"]:
        result = evaluate(model, [p for p in pool if lo <= len(p[0]) <= hi])
        add(measure="quality", set=bucket_name(lo, hi), lo=lo, hi=hi, bleu=result["bleu"], exact=result["exact"],
            n=result["n"], steps=log.steps, params=model.n_parameters(), context=model.encoder.output_size,
            loss_start=sum(first) / len(first), loss_end=sum(last) / len(last), cpu_seconds=log.cpu_seconds)
    _LAST.clear()
    _LAST.update(unit=dict(unit), model=model, log=log)
    return rows


def last_trained(unit: dict):
    """(model, TrainLog) of the last bottleneck_run in this process, which must have been `unit`."""
    if _LAST.get("unit") != dict(unit):
        raise LookupError(f"the last bottleneck run here was {_LAST.get('unit')}, not {unit}: run it first "
                          "(evidence.load(...).check_live(unit))")
    return _LAST["model"], _LAST["log"]


def breaking_set(bleu_by_set: dict[str, float], reference: str, share: float = 0.5) -> str | None:
    """The first set (in the dict's order, after `reference`) whose BLEU is below share x BLEU of `reference`;
    None if none is (the model did not break within these sets)."""
    if reference not in bleu_by_set:
        raise KeyError(f"no reference set {reference!r} among {list(bleu_by_set)}")
    limit = share * bleu_by_set[reference]
    return next((s for s, b in bleu_by_set.items() if s != reference and b < limit), None)


def retention_rows(rows: Sequence[dict], reference: str = "4-10") -> list[dict]:
    """Copies of the quality `rows` with "retained": 100 x a run's BLEU on its set / the same run's BLEU on `reference`.

    A run is one (config, seed). It is the share of its own short-sentence quality a model keeps (0-100 when it
    falls with length)."""
    ref = {(r["config"], r["seed"]): float(r["bleu"]) for r in rows if r["set"] == reference}
    if not ref:
        raise ValueError(f"no rows on the reference set {reference!r}")
    if any(v <= 0 for v in ref.values()):
        raise ValueError(f"a run scored {min(ref.values())} BLEU on {reference!r}: its share kept is undefined")
    return [{**r, "retained": 100.0 * float(r["bleu"]) / ref[(r["config"], r["seed"])]}
            for r in rows if (r["config"], r["seed"]) in ref]


def width_comparison(rows: Sequence[dict], wide: str, narrow: str, sets: Sequence[str],
                     reference: str = "4-10") -> dict:
    """{set: {"absolute": compare_variants on BLEU, "relative": on "retained"}} of `wide` minus `narrow`, paired on
    the seeds both configs have: does the wider one score higher, and does it keep more of its own `reference` BLEU?"""
    seeds = ({r["seed"] for r in rows if r["config"] == wide} & {r["seed"] for r in rows if r["config"] == narrow})
    chosen = [r for r in rows if r["config"] in (wide, narrow) and r["seed"] in seeds]
    kept = retention_rows(chosen, reference)
    return {s: {"absolute": compare_variants(chosen, wide, narrow, s),
                "relative": compare_variants(kept, wide, narrow, s, value="retained")} for s in sets}


def width_verdict(comparison: dict, wide: str, narrow: str, reference: str = "4-10") -> str:
    """Markdown: what width_comparison(...) decides: does `wide` help (absolute BLEU), does it postpone (share kept)?"""
    sets = list(comparison)
    tally = {kind: Counter(comparison[s][kind]["verdict"] for s in sets) for kind in ("absolute", "relative")}
    a_better, b_better, undecided = VERDICTS
    first, last = comparison[sets[0]]["absolute"], comparison[sets[-1]]["absolute"]
    text = i18n.t("ch01.width_tally", wide=wide, narrow=narrow, n=first["n"], k=len(sets),
                  first_set=sets[0], last_set=sets[-1], reference=reference,
                  abs_higher=tally["absolute"][a_better], abs_lower=tally["absolute"][b_better],
                  abs_same=tally["absolute"][undecided], first=first["diff"], last=last["diff"],
                  rel_more=tally["relative"][a_better], rel_less=tally["relative"][b_better],
                  rel_same=tally["relative"][undecided])
    helps = tally["absolute"][a_better] > 0 and tally["absolute"][b_better] == 0
    postpones = tally["relative"][a_better] > 0 and tally["relative"][b_better] == 0
    text += i18n.t("ch01.width_helps" if helps else "ch01.width_no_help")
    text += i18n.t("ch01.width_postpones" if postpones else "ch01.width_not_postponed")
    if helps and last["diff"] < first["diff"]:
        text += i18n.t("ch01.width_lead_smaller", first_set=sets[0], last_set=sets[-1])
    return text + i18n.t("ch01.width_interval_scope")


# ---------------------------------------------------------------- chapter 07's three translators by budget
# How chapter 07 builds and trains each translator: one home, read by the chapter and by its evidence recipe.
TRANSLATORS = {
    "no attention": dict(build=dict(kind="none", emb=64, hidden=128), lr=5e-3, warmup=50),
    "RNN + attention": dict(build=dict(kind="attention", emb=64, hidden=128), lr=5e-3, warmup=50),
    "Transformer": dict(build=dict(kind="transformer"), lr=TRANSFORMER_TRAINING["lr"],
                        warmup=TRANSFORMER_TRAINING["warmup"]),
    "Transformer, learned positions": dict(build=dict(kind="transformer", positions="learned"),
                                           lr=TRANSFORMER_TRAINING["lr"], warmup=TRANSFORMER_TRAINING["warmup"]),
}


def make_translator(name: str, seed: int = 0):
    """A fresh translator of chapter 07's table TRANSLATORS (an RNN Seq2Seq or a TransformerTranslator)."""
    from helpers.seq2seq import make_model
    from helpers.transformer import make_transformer

    if name not in TRANSLATORS:
        raise KeyError(f"no translator named {name!r}; TRANSLATORS has {', '.join(TRANSLATORS)}")
    build = dict(TRANSLATORS[name]["build"])
    if build.pop("kind") == "transformer":
        return make_transformer(**build, seed=seed)
    return make_model(TRANSLATORS[name]["build"]["kind"], **build, seed=seed)


def train_translator(name: str, train_pairs: Sequence, steps: int, seed: int = 0, batch_size: int = 32,
                     progress: bool = False):
    """(model, TrainLog): translator `name` of TRANSLATORS trained for `steps` batches with its learning rate."""
    from helpers.training import train

    model = make_translator(name, seed=seed)
    spec = TRANSLATORS[name]
    log = train(model, train_pairs, steps, batch_size=batch_size, lr=spec["lr"], warmup=spec["warmup"], seed=seed,
                progress=progress)
    return model, log


def budget_rows(name: str, steps: int, model, log, results: dict) -> list[dict]:
    """Tidy rows of one trained translator (config: its name, set: the bucket): BLEU, exact, align, CPU, size.

    results: `helpers.training.evaluate_buckets(model, test)`, {bucket: {"bleu", "exact", "n"[, "align"]}}.
    """
    return [dict(config=name, steps=steps, set=bucket, bleu=r["bleu"], exact=r["exact"], align=r.get("align"),
                 n=r["n"], cpu_seconds=log.cpu_seconds, parameters=model.n_parameters())
            for bucket, r in results.items()]


__all__ += ["learned_position_rows", "difference_of_differences", "leave_one_seed_out"]


def learned_position_rows(name: str, seed: int, model, train_pairs: Sequence) -> list[dict]:
    """How far training moved each row of a learned position table: one row per table ("source positions",
    "target positions"); [] for a translator without learned positions.

    change: ||P_trained[p] - P_initial[p]|| for every position p < max_len (the initial table rebuilt from the
    seed); used: how many positions the training pairs fill (longest source; longest target + 1, for <bos>);
    init_norm: the mean norm of an initial row (the scale of `change`); cosine_1, cosine_10: the trained rows'
    mean cosine similarity at distance 1 and 10, among the used positions.
    """
    if TRANSLATORS[name]["build"].get("positions") != "learned":
        return []
    initial = make_translator(name, seed=seed)
    used = {"source positions": max(len(p[0]) for p in train_pairs),
            "target positions": max(len(p[1]) for p in train_pairs) + 1}
    rows = []
    for table, attr in (("source positions", "src_positions"), ("target positions", "tgt_positions")):
        trained, start = getattr(model, attr).table.detach(), getattr(initial, attr).table.detach()   # (max_len, d)
        rows_used = trained[: used[table]]
        unit = rows_used / rows_used.norm(dim=-1, keepdim=True)
        cosine = unit @ unit.T                                                        # (used, used)
        rows.append(dict(config=name, set=table, used=used[table],
                         change=[round(float(c), 6) for c in (trained - start).norm(dim=-1)],
                         init_norm=float(start.norm(dim=-1).mean()),
                         cosine_1=float(torch.diagonal(cosine, 1).mean()),
                         cosine_10=float(torch.diagonal(cosine, 10).mean())))
    return rows


def difference_of_differences(rows: Sequence[dict], a: str, b: str, first: str, second: str, value: str = "bleu",
                              level: float = 0.95) -> dict:
    """Does the gap a - b grow from set `first` to set `second`? Seed by seed, (a - b on second) - (a - b on first),
    with its paired t-interval: {"diff", "diffs", "seeds", "low", "high", "half_width", "n", "level", "verdict",
    "without_one", "fragile"}; verdict "a better" means the gap is larger on `second` (the interval excludes zero),
    as in compare_variants; without_one and fragile as in budget_comparison (empty with fewer than 3 seeds)."""
    on_first = compare_variants(rows, a, b, first, value, level)
    on_second = compare_variants(rows, a, b, second, value, level)
    if on_first["seeds"] != on_second["seeds"]:
        raise ValueError(f"sets {first!r} and {second!r} have different seeds: {on_first['seeds']} vs "
                         f"{on_second['seeds']}")
    diffs = [y - x for x, y in zip(on_first["diffs"], on_second["diffs"], strict=True)]
    ci = paired_interval(diffs, level)
    verdict = verdict_of(ci["low"], ci["high"])
    without = {}
    if len(diffs) >= 3:                      # the verdict with each seed left out, as leave_one_seed_out's
        for k, seed in enumerate(on_first["seeds"]):
            rest = paired_interval(diffs[:k] + diffs[k + 1:], level)
            without[seed] = verdict_of(rest["low"], rest["high"])
    return dict(a=a, b=b, first=first, second=second, value=value, diff=ci["mean"], diffs=diffs,
                seeds=on_first["seeds"], low=ci["low"], high=ci["high"], half_width=ci["half_width"], n=ci["n"],
                level=level, verdict=verdict, without_one=without,
                fragile=[s for s, v in without.items() if v != verdict])


def leave_one_seed_out(rows: Sequence[dict], a: str, b: str, set_name: str, value: str = "bleu",
                       level: float = 0.95) -> dict:
    """compare_variants' verdict without each seed in turn: {seed left out: verdict of the others}. A verdict that
    changes when one seed is left out hangs on that seed."""
    seeds = compare_variants(rows, a, b, set_name, value, level)["seeds"]
    if len(seeds) < 3:
        raise ValueError(f"leaving one seed out needs at least 3 seeds, got {seeds}")
    return {s: compare_variants([r for r in rows if r.get("seed") != s], a, b, set_name, value, level)["verdict"]
            for s in seeds}


def results_from_rows(rows: Sequence[dict]) -> dict:
    """The inverse of budget_rows (and of train_translation's bucket rows): one stored run's rows -> {bucket:
    {"bleu", "exact", "n"[, "align", "mass"]}}, as `helpers.training.evaluate_buckets` returns them (so a chapter
    can show a stored run beside live ones). Rows without a BLEU (a run's training row) are left out."""
    return {r["set"]: {"bleu": r["bleu"], "exact": r["exact"], "n": r["n"],
                       **{k: r[k] for k in ("align", "mass") if r.get(k) is not None}}
            for r in rows if r.get("bleu") is not None}


def log_from_rows(rows: Sequence[dict]):
    """The TrainLog of one stored run whose rows include a training row (its "losses"; attention_vs_none)."""
    from helpers.training import TrainLog

    losses = next((r["losses"] for r in rows if r.get("losses") is not None), None)
    if losses is None:
        raise ValueError("these rows hold no training row with the run's losses")
    return TrainLog(steps=len(losses), losses=list(losses), cpu_seconds=rows[0]["cpu_seconds"])


def budget_curve(rows: Sequence[dict], set_name: str, value: str = "bleu", level: float = 0.95) -> dict:
    """{config: [{"steps", "cpu", "mean", "low", "high", "n"}, ...] by steps}: `value` on one set against training
    CPU seconds (mean over seeds), with a t-interval over seeds (mean ± t · sd / √n; low = high = mean for n = 1)."""
    groups: dict = {}
    for r in rows:
        if r["set"] == set_name and r.get(value) is not None:
            groups.setdefault((r["config"], r["steps"]), []).append(r)
    curve: dict = {c: [] for c in ordered(r["config"] for r in rows)}
    for (config, steps), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        v = [float(r[value]) for r in rs]
        half = 0.0 if len(v) < 2 else t_quantile((1 + level) / 2, len(v) - 1) * statistics.stdev(v) / math.sqrt(len(v))
        mean = statistics.fmean(v)
        curve[config].append(dict(steps=steps, cpu=statistics.fmean(r["cpu_seconds"] for r in rs), mean=mean,
                                  low=mean - half, high=mean + half, n=len(v)))
    return {c: points for c, points in curve.items() if points}


# ---------------------------------------------------------------- chapter 07's verdicts, budget by budget
__all__ += ["budget_comparison", "translators_verdict", "positions_verdict"]


def budget_comparison(rows: Sequence[dict], a: str, b: str, set_name: str, value: str = "bleu",
                      level: float = 0.95) -> dict:
    """compare_variants(a, b) on one budget's rows, with what a reader needs to weigh it: `without_one` (the verdict
    with each seed left out, leave_one_seed_out), `fragile` (the seeds whose leaving out changes the verdict),
    `values_a`, `values_b` (each seed's value), `steps_a`, `steps_b`, `cpu_a`, `cpu_b` (mean CPU seconds)."""
    c = compare_variants(rows, a, b, set_name, value, level)
    without = leave_one_seed_out(rows, a, b, set_name, value, level)

    def of(config, field_):
        return {r["seed"]: r[field_] for r in rows if r["config"] == config and r["set"] == set_name}

    steps = {config: sorted(set(of(config, "steps").values())) for config in (a, b)}
    if any(len(v) != 1 for v in steps.values()):
        raise ValueError(f"one budget per config expected, got steps {steps}")
    return dict(c, without_one=without, fragile=[s for s, v in without.items() if v != c["verdict"]],
                values_a=[float(of(a, value)[s]) for s in c["seeds"]],
                values_b=[float(of(b, value)[s]) for s in c["seeds"]],
                steps_a=steps[a][0], steps_b=steps[b][0],
                cpu_a=statistics.fmean(of(a, "cpu_seconds").values()),
                cpu_b=statistics.fmean(of(b, "cpu_seconds").values()))


def _seed_note(c: dict) -> str:
    """How a decided verdict (budget_comparison or difference_of_differences `c`) stands when one seed is left out,
    as a sentence's tail; "" for an undecided one (it claims nothing)."""
    if c["verdict"] == VERDICTS[2]:
        return ""
    if not c["fragile"]:
        return i18n.t("ch07.holds_without_any_seed")
    other = i18n.t("ch07.flip_undecided" if all(c["without_one"][s] == VERDICTS[2] for s in c["fragile"])
                   else "ch07.flip_reversed")
    seeds = i18n.t("ch07.comma").join(map(str, c["fragile"]))
    signs = {d > 0 for d in c["diffs"] if d != 0}
    return (i18n.t("ch07.hangs_on_one_seed" if len(c["fragile"]) == 1 else "ch07.hangs_on_seeds", seeds=seeds,
                   other=other) + i18n.t("ch07.same_sign" if len(signs) == 1 else "ch07.mixed_sign"))


def translators_verdict(comparisons: Sequence[dict], floor: float, gain: float) -> str:
    """Markdown: chapter 07's Transformer (a) against the RNN with attention (b), one budget_comparison per budget
    in order of steps. At a budget where b is below `floor` on average, or where either model's mean still rises
    by at least `gain` at the next budget (mid-transition), the lead only says who learns sooner; at the last
    budget, whether either would still rise is not measured. Each verdict says whether one seed decides it."""
    names = {"a better": i18n.t("ch07.transformer_ahead"), "b better": i18n.t("ch07.rnn_ahead"),
             "no difference detectable": i18n.t("ch07.no_difference")}
    items = []
    for k, c in enumerate(comparisons):
        text = i18n.t("ch07.budget_item", k=k + 1, steps_a=c["steps_a"], steps_b=c["steps_b"],
                      verdict=names[c["verdict"]], diff=c["diff"], level=c["level"], low=c["low"], high=c["high"])
        text += _seed_note(c)
        mean_b = statistics.fmean(c["values_b"])
        if mean_b < floor:
            text += i18n.t("ch07.below_floor", mean=mean_b, floor=floor)
        elif k + 1 < len(comparisons):
            nxt = comparisons[k + 1]
            rise_a = statistics.fmean(nxt["values_a"]) - statistics.fmean(c["values_a"])
            rise_b = statistics.fmean(nxt["values_b"]) - mean_b
            if max(rise_a, rise_b) >= gain:
                text += i18n.t("ch07.mid_transition", rise_a=rise_a, rise_b=rise_b, low=min(c["values_b"]),
                               high=max(c["values_b"]), gain=gain)
        else:
            text += i18n.t("ch07.last_budget")
        items.append(text + i18n.t("ch07.end"))
    return "\n".join(items)


def positions_verdict(by_budget: Sequence[dict]) -> str:
    """Markdown: sinusoidal (a) against learned positions (b), budget by budget. by_budget: one dict per budget,
    {"steps", "seen": budget_comparison on the longest lengths training saw, "unseen": on the unseen lengths,
    "growth": difference_of_differences from seen to unseen (with "fragile" as budget_comparison's)}. Says, at
    each budget, what is decided and what is not, and then what the budgets decide together."""
    names = {"a better": "ch07.sinusoidal_ahead", "b better": "ch07.learned_ahead",
             "no difference detectable": "ch07.positions_no_difference"}
    growth_names = {"a better": "ch07.growth_larger", "b better": "ch07.growth_smaller",
                    "no difference detectable": "ch07.growth_undecided"}

    def side(c):
        return i18n.t(names[c["verdict"]], diff=c["diff"], level=c["level"], low=c["low"], high=c["high"]) \
            + _seed_note(c)

    items = []
    for b in by_budget:
        g = b["growth"]
        items.append(i18n.t("ch07.positions_item", steps=b["steps"], seen_set=b["seen"]["set"],
                            unseen_set=b["unseen"]["set"], seen=side(b["seen"]), unseen=side(b["unseen"]),
                            growth=i18n.t(growth_names[g["verdict"]], diff=g["diff"], level=g["level"], low=g["low"],
                                          high=g["high"]) + _seed_note(g)))
    def steps_where(test) -> str:
        return i18n.t("ch07.comma").join(str(b["steps"]) for b in by_budget if test(b))

    behind_seen = steps_where(lambda b: b["seen"]["verdict"] == "a better")
    level_seen = steps_where(lambda b: b["seen"]["verdict"] == "no difference detectable")
    grows = steps_where(lambda b: b["growth"]["verdict"] == "a better")
    undecided = steps_where(lambda b: b["growth"]["verdict"] == "no difference detectable")
    summary = []
    if behind_seen:
        summary.append(i18n.t("ch07.summary_behind_seen", steps=behind_seen, seen_set=by_budget[0]["seen"]["set"]))
    if level_seen:
        behind = [b["steps"] for b in by_budget if b["seen"]["verdict"] == "a better"]
        level = [b["steps"] for b in by_budget if b["seen"]["verdict"] == "no difference detectable"]
        closes = bool(behind) and max(behind) < min(level)          # behind at the small budgets, level after them
        summary.append(i18n.t("ch07.summary_seen_closes" if closes else "ch07.summary_level_seen", steps=level_seen,
                              seen_set=by_budget[0]["seen"]["set"]))
    if grows:
        summary.append(i18n.t("ch07.summary_grows", steps=grows, unseen_set=by_budget[0]["unseen"]["set"]))
    if undecided:
        summary.append(i18n.t("ch07.summary_growth_undecided", steps=undecided,
                              unseen_set=by_budget[0]["unseen"]["set"]))
    return "\n".join(items) + "\n\n" + i18n.t("ch07.between_sentences").join(summary) + i18n.t("ch07.end")


# ---------------------------------------------------------------- chapter 05: the two wirings, one run each
__all__ += ["train_translation", "train_wiring"]


def train_translation(wiring: str | None, steps: int, seed: int, buckets: dict, batch_size: int = 32,
                      lr: float = 5e-3, callback=None, callback_steps: Sequence[int] = (),
                      keep: dict | None = None) -> list[dict]:
    """Train chapter 05's translator for `steps` from `seed`: with attention (additive scorer) and `wiring`
    ("luong" | "bahdanau"), or without attention (wiring None, chapter 01's model); evaluate it on every bucket:
    one row per bucket with bleu, exact, align, mass (None without attention), n, steps, loss_end (mean of the last
    50 steps), cpu_seconds of training and ms_per_step (CPU ms per training step, averaged over all `steps`).

    Weights and batch order both come from `seed`, so two models with one seed and one `steps` see the same batches
    in the same order: their ms_per_step is averaged over the same steps. callback/callback_steps go to
    helpers.training.train (they do not change the run); keep (a dict) receives the trained "model" and its "log".
    """
    from helpers.seq2seq import make_model
    from helpers.training import evaluate, train

    model = make_model("none", seed=seed) if wiring is None else make_model("attention", wiring=wiring, seed=seed)
    log = train(model, load_split("train"), steps, batch_size=batch_size, lr=lr, seed=seed, progress=False,
                callback=callback, callback_steps=callback_steps)
    if keep is not None:
        keep.update(model=model, log=log)
    rows = []
    for name, pairs in buckets.items():
        result = evaluate(model, pairs)
        rows.append(dict(set=name, bleu=result["bleu"], exact=result["exact"], align=result.get("align"),
                         mass=result.get("mass"), n=result["n"], steps=log.steps, loss_end=log.final_loss(50),
                         cpu_seconds=log.cpu_seconds, ms_per_step=1000.0 * log.cpu_seconds / log.steps))
    return rows


def train_wiring(wiring: str, steps: int, seed: int, buckets: dict, batch_size: int = 32, lr: float = 5e-3,
                 callback=None, callback_steps: Sequence[int] = (), keep: dict | None = None) -> list[dict]:
    """train_translation with attention and `wiring` ("luong" | "bahdanau"): chapter 05's wiring comparison."""
    if wiring not in ("luong", "bahdanau"):
        raise ValueError(f"wiring must be 'luong' or 'bahdanau', got {wiring!r}")
    return train_translation(wiring, steps, seed, buckets, batch_size, lr, callback, callback_steps, keep)


# ---------------------------------------------------------------- chapters 01 and 05: the gradient to the aligned word
__all__ += ["aligned_gradient_rows", "aligned_gradient_run", "pool_aligned", "compare_ratio", "log_intervals"]


def aligned_gradient_rows(cells: dict[str, list[dict]], log) -> list[dict]:
    """One unit's rows of the `aligned_gradient` recipe: every cell of helpers.training.aligned_gradient_cells of
    each stage in `cells` ({"init": cells, "trained": cells}) with measure="aligned" and its stage, then one row
    measure="training" with the log's steps, loss_end (mean loss of the last 50 steps) and cpu_seconds."""
    rows = [{"measure": "aligned", "stage": stage, **c} for stage, stage_cells in cells.items() for c in stage_cells]
    return rows + [{"measure": "training", "stage": "trained", "steps": log.steps, "loss_end": log.final_loss(50),
                    "cpu_seconds": log.cpu_seconds}]


def aligned_gradient_run(settings: dict, unit: dict) -> list[dict]:
    """Build settings["configs"][unit["config"]] (make_model keywords plus "steps" and "lr") from unit["seed"],
    measure aligned_gradient_cells on the first settings["per_bucket"] test sentences of each bucket, train it
    (batch settings["batch"]) and measure again: aligned_gradient_rows with stages "init" and "trained"."""
    from helpers.seq2seq import make_model
    from helpers.toylang import load_test_buckets
    from helpers.training import aligned_gradient_cells, train

    config = dict(settings["configs"][unit["config"]])
    steps, lr, seed = config.pop("steps"), config.pop("lr"), int(unit["seed"])
    buckets = load_test_buckets(limit=settings["per_bucket"])
    model = make_model(**config, seed=seed)
    init = aligned_gradient_cells(model, buckets)
    log = train(model, load_split("train"), steps, batch_size=settings["batch"], lr=lr, seed=seed, progress=False)
    return aligned_gradient_rows({"init": init, "trained": aligned_gradient_cells(model, buckets)}, log)


def pool_aligned(rows: Sequence[dict], bins: dict[str, tuple[int, int]] | None = None,
                 sets: Sequence[str] | None = None) -> list[dict]:
    """Pool the measure="aligned" cells of an `aligned_gradient` file into a tidy table, one row per config, seed,
    stage and group: {config, seed, stage, set: the group, n, grad, per_error, share, loss}, each value the mean
    over the group's aligned pairs (cells weighted by their n). Groups: the buckets (bins None), or the distance
    bins {label: (lo, hi)} (inclusive) over the cells of the buckets `sets` (None: every bucket)."""
    groups: dict = {}
    for r in rows:
        if r.get("measure") != "aligned" or (sets is not None and r["set"] not in sets):
            continue
        if bins is None:
            label = r["set"]
        else:
            label = next((b for b, (lo, hi) in bins.items() if lo <= r["distance"] <= hi), None)
            if label is None:
                continue
        groups.setdefault((r["config"], r["seed"], r["stage"], label), []).append(r)
    order = list(bins) if bins is not None else ordered(r["set"] for r in rows if r.get("measure") == "aligned")
    out = []
    for (config, seed, stage, label), cells in sorted(groups.items(), key=lambda kv: order.index(kv[0][3])):
        n = sum(c["n"] for c in cells)
        out.append(dict(config=config, seed=seed, stage=stage, set=label, n=n,
                        **{k: sum(c[k] * c["n"] for c in cells) / n for k in ("grad", "per_error", "share", "loss")}))
    return out


def compare_ratio(rows: Sequence[dict], a: str, b: str, set_name: str, value: str, level: float = 0.95) -> dict:
    """compare_variants on log10(value) (values must be positive): gmean_a and gmean_b (geometric means over the
    seeds), their ratio a / b with the t-interval of the paired log-ratios as ratios [ratio_low, ratio_high], and the
    verdict ("a better" = a larger, "b better" = b larger, or "no difference detectable")."""
    bad = [r[value] for r in rows if r.get(value) is not None and not r[value] > 0]
    if bad:
        raise ValueError(f"compare_ratio needs positive values of {value!r}, got {bad[:3]}")
    logged = [{**r, value: math.log10(r[value])} for r in rows if r.get(value) is not None]
    c = compare_variants(logged, a, b, set_name, value, level)
    return {**c, "gmean_a": 10 ** c["mean_a"], "gmean_b": 10 ** c["mean_b"], "ratio": 10 ** c["diff"],
            "ratio_low": 10 ** c["low"], "ratio_high": 10 ** c["high"]}


def log_intervals(rows: Sequence[dict], value: str, by: Sequence[str] = ("config", "stage", "set"),
                  level: float = 0.95) -> dict:
    """{key tuple: {"gmean", "low", "high", "n"}}: per group of `by` (one row per seed), the geometric mean of
    `value` (positive) with the t-interval of the mean of log10(value), turned back to the value's scale."""
    groups: dict = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in by), []).append(math.log10(r[value]))
    out = {}
    for key, logs in groups.items():
        mean = statistics.fmean(logs)
        half = t_half_width(statistics.stdev(logs), len(logs), level) if len(logs) > 1 else 0.0
        out[key] = dict(gmean=10 ** mean, low=10 ** (mean - half), high=10 ** (mean + half), n=len(logs))
    return out
