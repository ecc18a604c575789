"""Plumbing for chapter 05: count and time scorers, train model configs over seeds, summarise and plot the results.

The experiment functions return a *tidy table*: a list of dicts, one row per (config, seed, evaluation set),
so that any summary (mean over seeds, spread, a pivot by bucket) is one call to `summarize` or `pivot`.
"""
from __future__ import annotations

import math
import statistics
import time
from typing import Callable, Iterable, Sequence

import torch
import torch.nn as nn

__all__ = [
    "count_parameters", "time_call", "time_scorers", "run_experiment", "summarize", "pivot",
    "format_table", "compare_variants", "plot_by_set", "plot_seed_points",
]


# ---------------------------------------------------------------- parameters and speed
def count_parameters(module: nn.Module) -> int:
    """Number of trainable numbers in a module (0 for the dot-product scorers)."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


def time_call(fn: Callable[[], object], repeats: int = 7, number: int = 5, warmup: int = 2) -> float:
    """Median CPU seconds (time.process_time) of one call of fn(), over `repeats` runs of `number` calls each."""
    if repeats < 1 or number < 1:
        raise ValueError(f"repeats and number must be at least 1, got repeats={repeats}, number={number}")
    for _ in range(warmup):
        fn()
    runs = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(number):
            fn()
        runs.append((time.process_time() - start) / number)
    return statistics.median(runs)


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

        out[name] = {"params": count_parameters(module), "cpu_ms": 1e3 * time_call(call, repeats, number)}
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

    from helpers.seq2seq import make_model
    from helpers.training import evaluate, train

    seeds = list(seeds)
    if not configs or not seeds or not eval_sets:
        raise ValueError("need at least one config, one seed and one evaluation set")
    rows = []
    bar = tqdm(total=len(configs) * len(seeds), disable=not progress, desc="training runs")
    for name, kwargs in configs.items():
        for seed in seeds:
            bar.set_postfix_str(f"{name}, seed {seed}")
            model = make_model(**kwargs, seed=seed)
            log = train(model, train_pairs, steps, batch_size=batch_size, lr=lr, seed=seed, progress=False)
            first, last = log.losses[:20], log.losses[-20:]
            for set_name, pairs in eval_sets.items():
                result = evaluate(model, pairs)
                rows.append(dict(config=name, seed=seed, set=set_name, bleu=result["bleu"], exact=result["exact"],
                                 align=result.get("align"), n=result["n"], loss_start=sum(first) / len(first),
                                 loss_end=sum(last) / len(last), cpu_seconds=log.cpu_seconds))
            bar.update(1)
    bar.close()
    return rows


# ---------------------------------------------------------------- summaries
def _ordered(values: Iterable) -> list:
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
    table: dict = {i: {} for i in _ordered(r[index] for r in rows)}
    for (i, c), s in stats.items():
        table[i][c] = s["mean"]
    return table


def format_table(table: dict, digits: int = 1, index_name: str = "") -> str:
    """A fixed-width text table of {row: {column: number}} with numbers rounded to `digits`."""
    columns = _ordered(c for row in table.values() for c in row)
    width = max([len(index_name)] + [len(str(r)) for r in table]) + 2
    cells = [max(len(str(c)), digits + 5) + 2 for c in columns]
    lines = [index_name.ljust(width) + "".join(str(c).rjust(w) for c, w in zip(columns, cells))]
    for name, row in table.items():
        lines.append(str(name).ljust(width) + "".join(
            (f"{row[c]:.{digits}f}" if c in row else "-").rjust(w) for c, w in zip(columns, cells)))
    return "\n".join(lines)


def compare_variants(rows: Sequence[dict], a: str, b: str, set_name: str, value: str = "bleu") -> dict:
    """Compare config `a` with config `b` on one set, seed by seed (paired: same seeds).

    Returns mean_a, mean_b, diff (mean_a - mean_b), per-seed diffs, spread (the larger of the two
    seed-to-seed standard deviations), and `verdict`: "a better", "b better" or "no clear difference".
    A side is "better" only when every seed agrees on the sign AND |diff| exceeds the spread.
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
    diffs = [va[s] - vb[s] for s in seeds]
    std = (lambda v: statistics.stdev(v) if len(v) > 1 else 0.0)
    spread = max(std(list(va.values())), std(list(vb.values())))
    diff = statistics.fmean(diffs)
    same_sign = all(d > 0 for d in diffs) or all(d < 0 for d in diffs)
    if same_sign and abs(diff) > spread:
        verdict = "a better" if diff > 0 else "b better"
    else:
        verdict = "no clear difference"
    return dict(a=a, b=b, set=set_name, mean_a=statistics.fmean(va.values()), mean_b=statistics.fmean(vb.values()),
                diff=diff, diffs=diffs, seeds=seeds, spread=spread, verdict=verdict)


# ---------------------------------------------------------------- plots
def plot_by_set(rows: Sequence[dict], value: str = "bleu", ax=None, title: str = "BLEU by source length",
                xlabel: str = "source length (tokens)", ylabel: str = "BLEU (0-100)", styles: dict | None = None):
    """One line per config across the evaluation sets (mean over seeds, min-max band when there are several)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    stats = summarize(rows, value, by=("config", "set"))
    sets = _ordered(r["set"] for r in rows)
    missing = {"mean": math.nan, "min": math.nan, "max": math.nan, "n": 0}
    for config in _ordered(r["config"] for r in rows):
        s = [stats.get((config, x), missing) for x in sets]
        style = (styles or {}).get(config, {})
        line, = ax.plot(sets, [g["mean"] for g in s], marker="o", label=config, **style)
        if any(g["n"] > 1 for g in s):
            ax.fill_between(sets, [g["min"] for g in s], [g["max"] for g in s], color=line.get_color(), alpha=0.15)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel, ylim=(0, 102))
    ax.legend()
    return ax


def plot_seed_points(rows: Sequence[dict], set_name: str, value: str = "bleu", ax=None, title: str = "",
                     xlabel: str = "variant", ylabel: str = "BLEU (0-100)"):
    """For each config on one set: one dot per seed and the mean with a ±1 std bar."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    sub = [r for r in rows if r["set"] == set_name]
    configs = _ordered(r["config"] for r in sub)
    stats = summarize(sub, value, by=("config",))
    seeds = _ordered(r["seed"] for r in sub)
    offsets = {s: (i - (len(seeds) - 1) / 2) * 0.08 for i, s in enumerate(seeds)}
    for i, seed in enumerate(seeds):
        pts = [(x + offsets[seed], r[value]) for x, c in enumerate(configs) for r in sub
               if r["config"] == c and r["seed"] == seed]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=28, alpha=0.7, label=f"seed {seed}")
    means = [stats[(c,)]["mean"] for c in configs]
    stds = [stats[(c,)]["std"] for c in configs]
    ax.errorbar(range(len(configs)), means, yerr=stds, fmt="_", color="black", markersize=28, capsize=6,
                elinewidth=1.5, label="mean ± 1 std")
    ax.set_xticks(range(len(configs)), configs)
    ax.set(title=title or f"{value} on {set_name}, one dot per seed", xlabel=xlabel, ylabel=ylabel)
    ax.set_xlim(-0.5, len(configs) - 0.5)
    ax.legend(fontsize=8, loc="best")
    return ax
