"""Experiments over configs and seeds: time scorers, train configs, summarise, compare (plots: helpers.plotting);
chapter 07's causal-mask experiment (`causal_mask_demo`) and training-step time by length (`step_time_by_length`).

The experiment functions return a *tidy table*: a list of dicts, one row per (config, seed, evaluation set),
so that any summary (mean over seeds, spread, a pivot by bucket) is one call to `summarize` or `pivot`.
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import scipy.stats
import torch
import torch.nn.functional as F

from helpers import i18n
from helpers.cost import count_parameters, time_call
from helpers.toylang import Vocab, load_split, sample_pairs, target_vocab
from helpers.transformer import TRANSFORMER_TRAINING, TinyDecoder

__all__ = ["time_scorers", "run_experiment", "train_one", "first_crossing", "ordered", "summarize", "pivot",
           "by_bucket", "crossing_stats", "crossing_verdict", "t_cdf", "t_quantile", "t_half_width",
           "paired_interval", "VERDICTS", "VERDICT_LABELS", "verdict_of", "compare_variants", "false_verdict_rate",
           "CausalDemoResult", "causal_mask_demo", "next_word_scores", "next_word_accuracy", "generate",
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
        i18n.t("ch06.crossed", name=name, crossed=c["crossed"], runs=c["runs"])
        + (i18n.t("ch06.crossed_at", step=c["mean_step"]) if c["mean_step"] is not None else "")
        for name, c in configs.items())
    within = [c["within"] for c in configs.values() if not math.isnan(c["within"])]
    within_text = i18n.t("ch06.comma").join(
        f"{name} {i18n.t('ch06.not_available') if math.isnan(c['within']) else format(c['within'], '+.2f')}"
        for name, c in configs.items())
    text = i18n.t("ch06.crossing_pooled", per_config=per_config, runs=stats["runs"], set_name=set_name,
                  rho=stats["rho"], p=stats["p"])
    if stats["rho"] < 0 and stats["p"] < alpha:
        text += i18n.t("ch06.crossing_earlier_better")
        if within and max(abs(r) for r in within) < abs(stats["rho"]):
            text += i18n.t("ch06.crossing_within_weaker", within=within_text)
            text += (i18n.t("ch06.crossing_same_best", earliest=stats["earliest"]) if stats["earliest"] == stats["best"]
                     else i18n.t("ch06.crossing_other_best", earliest=stats["earliest"], best=stats["best"]))
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
    samples: three greedy generations.
    """

    causal: bool
    losses: list = field(default_factory=list)
    generation_accuracy: float = 0.0
    generation_loss: float = 0.0
    teacher_forced_accuracy: float = 0.0
    teacher_forced_loss: float = 0.0
    samples: list = field(default_factory=list)
    cpu_seconds: float = 0.0


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
    result.cpu_seconds = time.process_time() - cpu0
    return result


# ---------------------------------------------------------------- time per training step
def step_time_by_length(models: dict, lengths: Sequence[int], batch_size: int = 32, repeats: int = 3,
                        seed: int = 0) -> dict[str, dict[int, float]]:
    """CPU milliseconds of one training step (loss, backward) per model on generated pairs whose source has exactly
    L words, for each L in `lengths`: {model name: {L: ms}} (median of `repeats`, after one warm-up).

    models: {name: any model with src_vocab, tgt_vocab and loss(batch)} (Seq2Seq or TransformerTranslator).
    The RNN decoder runs its recurrence position after position; the Transformer handles all positions at once.
    """
    from helpers.seq2seq import make_batch

    result: dict[str, dict[int, float]] = {name: {} for name in models}
    for L in lengths:
        pairs = sample_pairs(batch_size, L, L, seed=seed + L)
        for name, model in models.items():
            batch = make_batch(pairs, model.src_vocab, model.tgt_vocab)
            model.train()

            def step(model=model, batch=batch):
                model.zero_grad(set_to_none=True)
                model.loss(batch).backward()

            result[name][L] = 1000.0 * time_call(step, repeats=repeats, warmup=1)["cpu"]
            model.zero_grad(set_to_none=True)
            model.eval()
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
