"""Experiments over configs and seeds: time scorers, train configs, summarise, compare (plots: helpers.plotting).

The experiment functions return a *tidy table*: a list of dicts, one row per (config, seed, evaluation set),
so that any summary (mean over seeds, spread, a pivot by bucket) is one call to `summarize` or `pivot`.
"""
from __future__ import annotations

import statistics
from typing import Iterable, Sequence

import torch

from helpers.cost import count_parameters, time_call

__all__ = ["time_scorers", "run_experiment", "ordered", "summarize", "pivot", "by_bucket", "compare_variants"]


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


def _std(values: list[float]) -> float:
    """Sample standard deviation, 0.0 for fewer than two values."""
    return statistics.stdev(values) if len(values) > 1 else 0.0


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
    spread = max(_std(list(va.values())), _std(list(vb.values())))
    diff = statistics.fmean(diffs)
    same_sign = all(d > 0 for d in diffs) or all(d < 0 for d in diffs)
    if same_sign and abs(diff) > spread:
        verdict = "a better" if diff > 0 else "b better"
    else:
        verdict = "no clear difference"
    return dict(a=a, b=b, set=set_name, mean_a=statistics.fmean(va.values()), mean_b=statistics.fmean(vb.values()),
                diff=diff, diffs=diffs, seeds=seeds, spread=spread, verdict=verdict)
