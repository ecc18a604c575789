"""Every plot of the course: one style, the attention heatmap, masks, curves by length, and one figure-to-PNG.

The interactive explorers (helpers.widgets) draw with these functions; a notebook or a test can call them
directly for a static picture.
"""
from __future__ import annotations

import io
import logging
import math
from typing import Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from PIL import Image as PILImage

from helpers.base import to_numpy
from helpers.i18n import Labels, t

__all__ = [
    "COURSE_STYLE", "ATTENTION_CMAP", "KEY_COLOURS", "MASK_COLOURS", "use_course_style", "check_token_labels",
    "set_token_ticks", "plot_attention", "plot_mask", "draw_lookback", "plot_quality_by_length", "plot_probe",
    "plot_budget_curve", "plot_gradient_by_length", "plot_gradient_curves", "plot_seed_points", "figure_png",
    "draw_decoding_step", "draw_decoding_steps", "legend_below",
]

COURSE_STYLE = {
    "figure.figsize": (6.0, 3.6),
    "figure.dpi": 90,
    "savefig.dpi": 90,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "legend.frameon": False,
    "image.cmap": "viridis",
    "svg.hashsalt": "learning-to-attend",
}
ATTENTION_CMAP = "viridis"
KEY_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink")
MASK_COLOURS = ("#d9d9d9", "#2c7fb8")  # hidden, visible


# Noto Sans CJK SC (SIL OFL 1.1), shipped as a file by the pinned PyPI package mplfonts: Chinese labels need no apt.
CJK_FONT_FILE = "NotoSansCJKsc-Regular.otf"


def cjk_font_path():
    """The Chinese font's file inside the installed mplfonts package (a pathlib.Path)."""
    from pathlib import Path

    import mplfonts

    return Path(mplfonts.__file__).parent / "fonts" / CJK_FONT_FILE


def _not_a_missing_weight(record: logging.LogRecord) -> bool:
    """False for matplotlib's "Failed to find font weight bold" warning (the Chinese font has one weight)."""
    return "Failed to find font weight" not in str(record.msg)


_ONE_WEIGHT = _not_a_missing_weight


def use_course_style(lang: str = "en") -> None:
    """Apply the course's matplotlib style (sizes, fonts, colours) to every later figure.

    lang="zh" also registers the Chinese font and draws every text with it, Latin letters and digits included:
    Noto Sans CJK SC has one weight, and a title whose Latin letters came bold from DejaVu Sans next to regular
    Hanzi would mix two weights in one line (issue 34). So in Chinese every text has that one weight: titles are
    set normal, and a bold request (fontweight="bold") finds the same face. DejaVu Sans stays behind it, glyph by
    glyph, for what the CJK font lacks (subscripts such as K₁, ᵀ). Matplotlib's warning about the missing bold
    would land in the notebook's output, and is muted. English keeps matplotlib's default family and bold titles.
    """
    mpl.rcParams.update(COURSE_STYLE)
    if lang == "zh":
        from matplotlib import font_manager

        log = logging.getLogger("matplotlib.font_manager")
        if _ONE_WEIGHT not in log.filters:
            log.addFilter(_ONE_WEIGHT)
        path = str(cjk_font_path())
        font_manager.fontManager.addfont(path)
        mpl.rcParams["font.family"] = [font_manager.FontProperties(fname=path).get_name(), "DejaVu Sans"]
        mpl.rcParams["axes.titleweight"] = mpl.rcParams["figure.titleweight"] = "normal"   # the face's one weight
    else:
        mpl.rcParams["font.family"] = mpl.rcParamsDefault["font.family"]


def _monospace() -> list[str]:
    """The monospace font family, with the Chinese font (when registered) for the characters it lacks."""
    return ["monospace", *[f for f in mpl.rcParams["font.family"] if f not in ("sans-serif", "DejaVu Sans")]]


def check_token_labels(shape, keys=None, queries=None, what: str = "weights") -> None:
    """Raise a ValueError when the key/query labels do not fit a (n_queries, n_keys) grid."""
    n_q, n_k = shape
    for name, labels, n in (("keys", keys, n_k), ("queries", queries, n_q)):
        if labels is not None and len(labels) != n:
            raise ValueError(f"{len(labels)} {name} labels given for {n} {name} ({what} of shape {tuple(shape)})")


def set_token_ticks(ax, n_q: int, n_k: int, keys=None, queries=None) -> None:
    """Put one tick per key on x (labels rotated) and one per query on y; numbers where no tokens are given."""
    ax.set_xticks(range(n_k))
    ax.set_yticks(range(n_q))
    ax.set_xticklabels(list(keys) if keys is not None else [str(i) for i in range(n_k)], rotation=90)
    ax.set_yticklabels(list(queries) if queries is not None else [str(i) for i in range(n_q)])


def plot_attention(
    weights,
    keys: Sequence[str] | None = None,
    queries: Sequence[str] | None = None,
    ax=None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    annotate: bool | None = None,
    colorbar: bool = True,
):
    """Draw attention weights as a heatmap: keys on x, queries on y, tokens as ticks, colour fixed to 0-1.

    weights: (n_queries, n_keys), a tensor or array. title, xlabel, ylabel: None gives the default in the current
    language ("Attention weights", "keys (attended positions)", "queries"). Returns the matplotlib Axes.
    """
    title = t("plots.attention_title") if title is None else title
    xlabel = t("plots.attention_xlabel") if xlabel is None else xlabel
    ylabel = t("plots.queries") if ylabel is None else ylabel
    w = to_numpy(weights)
    if w.ndim != 2:
        raise ValueError(f"plot_attention expects weights of shape (n_queries, n_keys); got shape {tuple(w.shape)}")
    n_q, n_k = w.shape
    check_token_labels(w.shape, keys, queries, what="weights")
    if ax is None:
        fig_w = min(12.0, 1.6 + 0.32 * n_k + (1.0 if colorbar else 0.0))
        fig_h = min(10.0, 1.2 + 0.3 * n_q)
        _, ax = plt.subplots(figsize=(max(3.2, fig_w), max(2.2, fig_h)))
    im = ax.imshow(w, vmin=0.0, vmax=1.0, cmap=ATTENTION_CMAP, aspect="auto", interpolation="nearest")
    set_token_ticks(ax, n_q, n_k, keys, queries)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if annotate is None:
        annotate = n_q * n_k <= 36
    if annotate:
        for i in range(n_q):
            for j in range(n_k):
                ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center",
                        color="white" if w[i, j] < 0.6 else "black", fontsize=8)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label=t("plots.weight_01"))
    return ax


def plot_mask(
    mask,
    keys: Sequence[str] | None = None,
    queries: Sequence[str] | None = None,
    ax=None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
):
    """Draw a boolean mask as a two-colour grid (blue visible, grey hidden), token ticks.  mask (n_q, n_k) -> Axes"""
    title = t("plots.mask_title") if title is None else title
    xlabel = t("plots.keys") if xlabel is None else xlabel
    ylabel = t("plots.queries") if ylabel is None else ylabel
    m = to_numpy(mask)
    if m.ndim != 2:
        raise ValueError(f"plot_mask expects a mask of shape (n_queries, n_keys); got shape {tuple(m.shape)}")
    n_q, n_k = m.shape
    check_token_labels(m.shape, keys, queries, what="mask")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(3.2, 1.6 + 0.32 * n_k), max(2.2, 1.2 + 0.3 * n_q)))
    ax.imshow((m != 0).astype(float), vmin=0, vmax=1, cmap=ListedColormap(MASK_COLOURS), aspect="auto",
              interpolation="nearest")
    set_token_ticks(ax, n_q, n_k, keys, queries)
    ax.set_xticks(np.arange(-0.5, n_k), minor=True)
    ax.set_yticks(np.arange(-0.5, n_q), minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel(f"{xlabel}\n{t('plots.mask_legend')}")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax


def draw_lookback(weights, sources: Sequence[str], targets: Sequence[str], ax=None,
                  title: str | None = None, row_labels: Sequence[str] | None = None, annotate: bool = False):
    """Draw decoder steps (top row) joined to every source word (bottom row); line width and opacity = weight,
    with a legend of three sample widths (weights 0.1, 0.5 and 1) under the picture, in the lines' colour when
    there is one step (grey for several, whose lines differ in colour).

    weights: (n_targets, n_sources), each row summing to 1. row_labels: (bottom row, top row). title and
    row_labels: None gives the defaults in the current language. annotate: write each weight (two decimals) on
    its line, near the source word. Returns the Axes.
    """
    title = t("plots.lookback_title") if title is None else title
    row_labels = (t("plots.lookback_encoder"), t("plots.lookback_decoder")) if row_labels is None else row_labels
    w = to_numpy(weights)
    if w.shape != (len(targets), len(sources)):
        raise ValueError(f"weights have shape {w.shape}; expected (n_targets, n_sources) = "
                         f"({len(targets)}, {len(sources)})")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.5, 1.1 * max(len(sources), len(targets))), 3.0))
    xs = np.linspace(0, 1, len(sources)) if len(sources) > 1 else np.array([0.5])
    xt = np.linspace(0, 1, len(targets)) if len(targets) > 1 else np.array([0.5])
    for j in range(len(targets)):
        colour = KEY_COLOURS[j % len(KEY_COLOURS)]
        for s in range(len(sources)):
            ax.plot([xt[j], xs[s]], [1, 0], color=colour, lw=_lookback_width(w[j, s]),
                    alpha=0.15 + 0.85 * w[j, s], solid_capstyle="round")
            if annotate:                                  # a quarter of the way up, where the lines are apart
                ax.text(xs[s] + 0.25 * (xt[j] - xs[s]), 0.25, f"{w[j, s]:.2f}", ha="center", va="center",
                        fontsize=8, color=colour, bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})
    for x, tok in zip(xs, sources, strict=False):
        ax.text(x, -0.08, tok, ha="center", va="top", fontsize=10)
    for j, (x, tok) in enumerate(zip(xt, targets, strict=False)):                # one step needs no step number
        label = tok if len(targets) == 1 else t("plots.lookback_step", token=tok, step=j + 1)
        ax.text(x, 1.08, label, ha="center", va="bottom", fontsize=9,
                color=KEY_COLOURS[j % len(KEY_COLOURS)], fontweight="bold")
    ax.set(xlim=(-0.12, 1.12), ylim=(-0.35, 1.45), title=title)
    ax.set_yticks([0, 1], list(row_labels))
    ax.set_xticks([])
    samples = (0.1, 0.5, 1.0)
    swatch = KEY_COLOURS[0] if len(targets) == 1 else "0.35"
    handles = [Line2D([], [], color=swatch, lw=_lookback_width(v), alpha=0.15 + 0.85 * v) for v in samples]
    ax.legend(handles, [f"{v:g}" for v in samples], title=t("plots.lookback_legend"), ncol=3,
              loc="upper center", bbox_to_anchor=(0.5, 0.0), handlelength=2.5, fontsize=9, title_fontsize=9)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    ax.tick_params(left=False)
    return ax


def _lookback_width(weight: float) -> float:
    """The line width (points) draw_lookback gives an attention weight in [0, 1]."""
    return 0.3 + 9 * float(weight)


# the y-axis label of each metric, in the current language
METRIC_LABELS = Labels({"bleu": "plots.metric_bleu", "exact": "plots.metric_exact", "align": "plots.metric_align",
                        "mass": "plots.metric_mass", "retained": "plots.metric_retained"})


def legend_below(ax, **kwargs):
    """A legend under the axes' tick labels and x label, where it covers no line, band or point; returns it.

    Anchored in points below the axes' lowest label, so it stays clear when a layout engine resizes the axes."""
    from matplotlib.transforms import offset_copy

    renderer = ax.figure.canvas.get_renderer()
    gap = ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0        # display pixels
    below = offset_copy(ax.transAxes, fig=ax.figure, y=-(gap * 72 / ax.figure.dpi + 4), units="points")
    kwargs.setdefault("fontsize", 9)
    kwargs.setdefault("ncol", 2 if len(ax.get_legend_handles_labels()[1]) > 3 else 1)
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below, **kwargs)


def plot_quality_by_length(results: dict[str, dict], metric: str = "bleu", ax=None, unseen: str | None = None,
                           title: str | None = None, styles: dict | None = None):
    """Quality (0-100) by source-length bucket, one line per model; the bucket longer than training is shaded.

    results: {model: {bucket: {metric: value, ...}}} as `helpers.training.evaluate_buckets` returns per model;
    when a bucket also has f"{metric}_min" and f"{metric}_max" (several seeds, `helpers.experiments.by_bucket`),
    a band shows the range. unseen: the bucket to shade (None: `helpers.toylang.UNSEEN_BUCKET` when present).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    if unseen is None:
        from helpers import toylang

        unseen = getattr(toylang, "UNSEEN_BUCKET", None)
    buckets = list(dict.fromkeys(b for res in results.values() for b in res))
    nan = {metric: math.nan}
    for name, res in results.items():
        style = dict(marker="o")
        style.update((styles or {}).get(name, {}))
        cells = [res.get(b, nan) for b in buckets]
        (line,) = ax.plot(range(len(buckets)), [c.get(metric, math.nan) for c in cells], label=name, **style)
        if any(f"{metric}_min" in c for c in cells):
            ax.fill_between(range(len(buckets)), [c.get(f"{metric}_min", math.nan) for c in cells],
                            [c.get(f"{metric}_max", math.nan) for c in cells], color=line.get_color(), alpha=0.15)
    ticks = list(buckets)
    if unseen in buckets:
        k = buckets.index(unseen)
        ax.axvspan(k - 0.4, k + 0.4, color="0.9", zorder=0)
        ticks[k] = t("plots.unseen_length", bucket=unseen)
    ax.set_xticks(range(len(buckets)))
    ax.set_xticklabels(ticks)
    ax.set_ylim(0, 105)
    ax.set_xlabel(t("plots.source_length"))
    ax.set_ylabel(METRIC_LABELS.get(metric, metric))
    ax.set_title(title or t("plots.by_length_title", metric=METRIC_LABELS.get(metric, metric)))
    legend_below(ax)
    return ax


def plot_budget_curve(curve: dict[str, list[dict]], ylabel: str, title: str, ax=None, styles: dict | None = None):
    """Quality against training CPU seconds, one line per model with its interval over seeds as error bars.

    curve: {model: [{"cpu", "mean", "low", "high", "steps"}, ...]} as `helpers.experiments.budget_curve` returns;
    each point is labelled with its step count. The x axis is logarithmic (the budgets double).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.8))
    for k, (name, points) in enumerate(curve.items()):
        style = dict(marker="o", capsize=3)
        style.update((styles or {}).get(name, {}))
        x = [p["cpu"] for p in points]
        y = [p["mean"] for p in points]
        err = [[p["mean"] - p["low"] for p in points], [p["high"] - p["mean"] for p in points]]
        bars = ax.errorbar(x, y, yerr=err, label=name, **style)
        for p in points:   # step labels below the point, one row per model so that coinciding points stay legible
            below = p["mean"] > 12                           # near the floor, the label goes above the point
            ax.annotate(f"{p['steps']}", (p["cpu"], p["mean"]), textcoords="offset points",
                        xytext=(4, -11 - 9 * k) if below else (4, 4 + 10 * k),
                        fontsize=7, color=bars[0].get_color())
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))   # 20, not 2 x 10^1
    ax.xaxis.set_minor_formatter(mticker.NullFormatter())
    lowest = min(min(p["cpu"] for p in pts) for pts in curve.values())
    highest = max(max(p["cpu"] for p in pts) for pts in curve.values())
    ax.set_xticks([tick for tick in (5, 10, 20, 40, 80, 160, 320) if lowest / 1.5 <= tick <= 1.5 * highest])
    ax.set_ylim(0, 105)
    ax.set_xlabel(t("plots.budget_xlabel"))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    return ax


def plot_probe(curves: dict[str, dict[str, float]], title: str, chance: float, ax=None, styles: dict | None = None):
    """Probe accuracy by bucket: curves = {line label: {bucket: accuracy}}; a dotted line marks chance (in %).
    styles: {label: plot kwargs} (e.g. a dashed line for an untrained baseline)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    for label, by_bucket in curves.items():
        style = dict(marker="o")
        style.update((styles or {}).get(label, {}))
        ax.plot(list(by_bucket), list(by_bucket.values()), label=label, **style)
    ax.axhline(chance, ls=":", color="0.5", label=t("plots.chance", chance=chance))
    ax.set(title=title, xlabel=t("plots.source_length"), ylabel=t("plots.probe_accuracy"), ylim=(0, 100))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8)
    return ax


def plot_gradient_by_length(curves: dict[str, dict[int, float]], title: str, ax=None,
                            spread: dict[str, dict[int, tuple[float, float]]] | None = None,
                            styles: dict | None = None):
    """Gradient norm reaching the first word against sentence length, log scale: curves = {label: {length: norm}}.

    spread: {label: {length: (low, high)}} draws a band (e.g. the seed-to-seed range); styles: {label: plot kwargs}.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    for label, by_length in curves.items():
        style = dict(marker="o")
        style.update((styles or {}).get(label, {}))
        (line,) = ax.semilogy(list(by_length), list(by_length.values()), label=label, **style)
        band = (spread or {}).get(label)
        if band:
            xs = list(band)
            ax.fill_between(xs, [band[x][0] for x in xs], [band[x][1] for x in xs], color=line.get_color(), alpha=0.15)
    ax.set(title=title, xlabel=t("plots.source_length"), ylabel=t("plots.gradient_ylabel"))
    legend_below(ax)
    return ax


def plot_gradient_curves(curves: dict[str, dict[str, float]], title: str, x: str = "distance", ax=None,
                         spread: dict[str, dict[str, tuple[float, float]]] | None = None, styles: dict | None = None,
                         ylabel: str | None = None):
    """Gradient norms against named groups on a log scale: curves = {label: {group: value}}, the groups in the first
    curve's order on the x-axis; x "distance" (distance bins through the chain) or "length" (length buckets) sets
    the x label. spread {label: {group: (low, high)}} draws a band (an interval over seeds); styles {label: plot
    kwargs}; ylabel None: the gradient to the aligned word per unit of output error, in the current language."""
    labels = {"distance": "plots.chain_distance", "length": "plots.source_length"}
    if x not in labels:
        raise ValueError(f"x must be one of {sorted(labels)}, got {x!r}")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    groups = list(next(iter(curves.values()))) if curves else []
    for label, values in curves.items():
        style = dict(marker="o")
        style.update((styles or {}).get(label, {}))
        xs = [groups.index(g) for g in values]
        (line,) = ax.semilogy(xs, list(values.values()), label=label, **style)
        band = (spread or {}).get(label)
        if band:
            ax.fill_between([groups.index(g) for g in band], [lo for lo, _ in band.values()],
                            [hi for _, hi in band.values()], color=line.get_color(), alpha=0.15)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set(title=title, xlabel=t(labels[x]), ylabel=t("plots.aligned_gradient_ylabel") if ylabel is None else ylabel)
    legend_below(ax)
    return ax


def plot_seed_points(rows: Sequence[dict], set_name: str, value: str = "bleu", ax=None, title: str = "",
                     xlabel: str | None = None, ylabel: str | None = None, level: float | None = None):
    """For each config on one set of a tidy table (helpers.experiments): one dot per seed, and the mean ± 1 std,
    or with `level` (0.95) the mean with its t-interval over seeds (mean ± t · sd / √n).
    xlabel, ylabel: None gives "variant" and "BLEU (0-100)" in the current language."""
    from helpers.experiments import ordered, summarize, t_quantile

    xlabel = t("plots.variant") if xlabel is None else xlabel
    ylabel = METRIC_LABELS["bleu"] if ylabel is None else ylabel
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    sub = [r for r in rows if r["set"] == set_name]
    configs = ordered(r["config"] for r in sub)
    stats = summarize(sub, value, by=("config",))
    seeds = ordered(r["seed"] for r in sub)
    offsets = {s: (i - (len(seeds) - 1) / 2) * 0.08 for i, s in enumerate(seeds)}
    for seed in seeds:
        pts = [(x + offsets[seed], r[value]) for x, c in enumerate(configs) for r in sub
               if r["config"] == c and r["seed"] == seed]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=28, alpha=0.7, label=t("plots.seed", seed=seed))
    means = [stats[(c,)]["mean"] for c in configs]
    if level is None:
        spread, label = [stats[(c,)]["std"] for c in configs], t("plots.mean_std")
    else:
        spread = [t_quantile((1 + level) / 2, stats[(c,)]["n"] - 1) * stats[(c,)]["std"] / stats[(c,)]["n"] ** 0.5
                  for c in configs]
        label = t("plots.mean_t_interval", level=level)
    ax.errorbar(range(len(configs)), means, yerr=spread, fmt="_", color="black", markersize=28, capsize=6,
                elinewidth=1.5, label=label)
    ax.set_xticks(range(len(configs)), configs)
    ax.set(title=title or t("plots.seed_points_title", value=value, set_name=set_name), xlabel=xlabel, ylabel=ylabel)
    ax.set_xlim(-0.5, len(configs) - 0.5)
    ax.legend(fontsize=8, loc="best")
    return ax


def plot_paired_differences(result: dict, ax=None, title: str = "", ylabel: str = ""):
    """One dot per seed for the paired differences of `helpers.experiments.compare_variants`, and their mean
    with its confidence interval; the zero line is the "no difference" the interval is tested against."""
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.8))
    n = len(result["diffs"])
    ax.axhline(0, color="0.5", lw=1)
    ax.scatter(range(n), result["diffs"], color="tab:blue", label=t("plots.one_seed"))
    ax.errorbar([n], [result["diff"]], yerr=[[result["half_width"]], [result["half_width"]]], fmt="o",
                color="black", capsize=6, label=t("plots.mean_interval", level=result["level"]))
    ax.set_xticks(range(n + 1), [str(s) for s in result["seeds"]] + [t("plots.mean")])
    ax.set(title=title or t("plots.paired_title", a=result["a"], b=result["b"]), xlabel=t("plots.seed_axis"),
           ylabel=ylabel or t("plots.paired_ylabel", value=result["value"], set=result["set"]))
    ax.legend(fontsize=8, loc="best")
    return ax


def figure_png(fig: Figure, compress_level: int = 1, close: bool = False) -> bytes:
    """PNG bytes of a figure, fast (Agg draw + light compression, no bbox=tight pass); close=True closes it.

    A figure with a `_blit_view` (an object with `blit`, `background` and the list `dynamic` of its animated
    artists, as the widgets of helpers.widgets set) has only its moving artists redrawn over a cached background.
    """
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    view = getattr(fig, "_blit_view", None)
    if view is not None and view.blit:
        if view.background is None:
            canvas.draw()  # everything that does not move
            view.background = canvas.copy_from_bbox(fig.bbox)
        else:
            canvas.restore_region(view.background)
        for artist in view.dynamic:
            fig.draw_artist(artist)
    else:
        canvas.draw()
    buf = io.BytesIO()
    PILImage.fromarray(np.asarray(canvas.buffer_rgba())).save(buf, format="png", compress_level=compress_level)
    if close:
        plt.close(fig)
    return buf.getvalue()


__all__ += ["figure_alt", "show_alt_text"]


def figure_alt(fig: Figure) -> str:
    """What a figure shows, in words (its alt text and caption on the course website): its suptitle and each
    axes' title, "; "-joined; a figure without titles gives its axes' labels ("x against y"); '' if it has none."""
    def words(text) -> str:
        return " ".join(str(text).split())

    parts = [words(fig._suptitle.get_text())] if getattr(fig, "_suptitle", None) is not None else []
    for ax in fig.axes:
        for loc in ("center", "left", "right"):
            title = words(ax.get_title(loc))
            if title and title not in parts:
                parts.append(title)
    parts = [p for p in parts if p]
    if not parts:
        parts = [t("plots.alt_axes", y=words(ax.get_ylabel()), x=words(ax.get_xlabel())) if ax.get_xlabel()
                 and ax.get_ylabel() else words(ax.get_ylabel() or ax.get_xlabel()) for ax in fig.axes]
        parts = [p for p in dict.fromkeys(parts) if p]
    return "; ".join(parts)


def show_alt_text(shell=None) -> bool:
    """Make each figure IPython displays carry `figure_alt(fig)` in its output's metadata, {"image/png": {"alt":
    ...}}, where the course website reads its alt text and caption (JupyterLab shows the figure as before).

    Wraps the PNG formatter of the running shell (or `shell`); False outside IPython or without one. Idempotent.
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    formatter = getattr(getattr(shell, "display_formatter", None), "formatters", {}).get("image/png")
    if formatter is None:
        return False
    try:
        base = formatter.lookup_by_type(Figure)
    except KeyError:
        return False
    if getattr(base, "course_alt", False):
        return True

    def png_with_alt(fig):
        data = base(fig)
        alt = figure_alt(fig) if data is not None else ""
        if not alt:
            return data
        data, meta = data if isinstance(data, tuple) else (data, {})
        return data, {**meta, "alt": alt}

    png_with_alt.course_alt = True
    formatter.for_type(Figure, png_with_alt)
    return True


def draw_decoding_step(source: Sequence[str], output: Sequence[str], weights, step: int, ax=None,
                       title: str | None = None):
    """One greedy decoding step: the weights over the source words (bars, fixed 0-1 axis), the output so far
    and the word chosen at this step. weights: (n_out, n_src), row t = the step that chose output[t].

    Drawn again on an axes it drew before (same source), it only moves the bars and rewrites the texts, which
    is what keeps a step slider (helpers.widgets.DecodingStepViewer) fast."""
    w = to_numpy(weights)
    if w.shape != (len(output), len(source)):
        raise ValueError(f"weights have shape {w.shape}; "
                         f"expected (n_output, n_source) = ({len(output)}, {len(source)})")
    if not 0 <= step < len(output):
        raise ValueError(f"step must be between 0 and {len(output) - 1} (one per output word); got {step}")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(source) + 1.5), 2.8))
    top = int(np.argmax(w[step]))
    colours = ["tab:orange" if j == top else "tab:blue" for j in range(len(source))]
    drawn = getattr(ax, "_decoding_step", None)
    if drawn is None or drawn["source"] != list(source):
        bars = ax.bar(range(len(source)), w[step], color=colours)
        ax.set_ylim(0, 1)
        ax.set_xticks(range(len(source)), list(source), rotation=90)
        ax.set_ylabel(t("plots.step_weight"))
        ax.set_xlabel(t("plots.step_xlabel"))
        so_far = ax.text(0.0, 1.18, "", transform=ax.transAxes, fontsize=9, family=_monospace(), va="bottom",
                         clip_on=False)
        ax._decoding_step = drawn = {"source": list(source), "bars": bars, "so_far": so_far}
    else:
        for bar, height, colour in zip(drawn["bars"], w[step], colours, strict=True):
            bar.set_height(float(height))
            bar.set_facecolor(colour)
    drawn["title"] = ax.set_title(title or t("plots.step_title", step=step + 1, n=len(output), word=output[step]),
                                  loc="left")
    drawn["so_far"].set_text(t("plots.step_so_far", so_far=" ".join(output[:step]), word=output[step]))
    return ax


def draw_decoding_steps(source: Sequence[str], output: Sequence[str], weights, steps: Sequence[int] | None = None,
                        columns: int = 2):
    """Small multiples of draw_decoding_step (default: four steps spread over the output); returns the figure."""
    if steps is None:
        n = len(output)
        steps = sorted({0, n // 3, (2 * n) // 3, n - 1})
    rows = math.ceil(len(steps) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(max(5.0, 0.45 * len(source) + 1.5) * columns, 3.4 * rows),
                             squeeze=False, layout="constrained")
    for ax, step in zip(axes.ravel(), steps, strict=False):
        draw_decoding_step(source, output, weights, step, ax=ax)
    for ax in axes.ravel()[len(steps):]:
        ax.set_visible(False)
    return fig


# ---------------------------------------------------------------- Transformer heads (chapter 07)
# the three kinds of attention of a Transformer, each with its label in the current language
HEAD_KINDS = Labels({"encoder": "plots.head_encoder", "decoder_self": "plots.head_decoder_self",
                     "decoder_cross": "plots.head_decoder_cross"})


def head_map(maps: dict, src_tokens: Sequence[str], tgt_tokens: Sequence[str], kind: str, layer: int, head: int,
             index: int = 0):
    """One head's weights for one sentence, cropped to its real tokens, with its key and query labels.

    maps: `TransformerTranslator.attention_maps(batch)`, {(kind, layer): (B, n_heads, n_q, n_k)}; src_tokens: the
    source words of sentence `index`; tgt_tokens: its target words (the decoder reads <bos> + words and writes
    words + <eos>). layer and head count from 0. Returns (weights (n_q, n_k) NumPy, key labels, query labels).
    """
    if kind not in HEAD_KINDS:
        raise ValueError(f"kind must be one of {sorted(HEAD_KINDS)}, got {kind!r}")
    layers = sorted(layer_ for kind_, layer_ in maps if kind_ == kind)
    if not layers:
        raise ValueError(f"maps has no {kind!r} entries (keys: {sorted(maps)}); decoder maps need a target")
    if layer not in layers:
        raise ValueError(f"layer must be one of {layers} for kind {kind!r}, got {layer!r}")
    w = to_numpy(maps[(kind, layer)])
    if w.ndim != 4:
        raise ValueError(f"maps[{(kind, layer)!r}] has shape {w.shape}; expected (batch, n_heads, n_q, n_k)")
    batch, n_heads, n_q, n_k = w.shape
    if not 0 <= head < n_heads:
        raise ValueError(f"head must lie in 0..{n_heads - 1} (this layer has {n_heads} heads), got {head!r}")
    if not 0 <= index < batch:
        raise ValueError(f"index must lie in 0..{batch - 1} (sentences in the batch), got {index!r}")
    src, read, wrote = list(src_tokens), ["<bos>", *tgt_tokens], [*tgt_tokens, "<eos>"]
    keys, queries = {"encoder": (src, src), "decoder_self": (read, wrote), "decoder_cross": (src, wrote)}[kind]
    if len(queries) > n_q or len(keys) > n_k:
        raise ValueError(f"{len(queries)} query and {len(keys)} key tokens do not fit the {kind!r} map of shape "
                         f"({n_q}, {n_k}) (n_q, n_k): are these the tokens of sentence {index} of the batch?")
    return w[index, head, : len(queries), : len(keys)], keys, queries


def draw_head(maps: dict, src_tokens: Sequence[str], tgt_tokens: Sequence[str], kind: str, layer: int, head: int,
              ax=None, index: int = 0, colorbar: bool = True, title: str | None = None):
    """Draw one head of one layer of a Transformer for one sentence (heatmap, tokens as ticks, colour 0-1).

    kind: "encoder" (source x source), "decoder_self" (rows: the word each position writes; columns: the words it
    has read, <bos> first) or "decoder_cross" (rows: the word written; columns: source words). layer, head count
    from 0; titles count from 1. See `head_map` for maps and tokens. Returns the Axes.
    """
    w, keys, queries = head_map(maps, src_tokens, tgt_tokens, kind, layer, head, index)
    n_layers = len([1 for kind_, _ in maps if kind_ == kind])
    n_heads = to_numpy(maps[(kind, layer)]).shape[1]
    xlabel = t("plots.head_read_keys") if kind == "decoder_self" else t("plots.head_source_keys")
    ylabel = t("plots.head_source_queries") if kind == "encoder" else t("plots.head_written_queries")
    title = title or t("plots.head_title", kind=HEAD_KINDS[kind], layer=layer + 1, n_layers=n_layers, head=head + 1,
                       n_heads=n_heads)
    return plot_attention(w, keys=keys, queries=queries, ax=ax, title=title, xlabel=xlabel, ylabel=ylabel,
                          annotate=False, colorbar=colorbar)


def draw_layer_heads(maps: dict, src_tokens: Sequence[str], tgt_tokens: Sequence[str], kind: str, layer: int = 0,
                     index: int = 0, columns: int = 4, cell: float = 0.17, title: str | None = None):
    """Small multiples: every head of one layer side by side (draw_head each), one shared 0-1 colour bar.

    cell: inches per token. title: the figure's title (None: the kind of attention and the layer). Returns the figure.
    """
    n_heads = to_numpy(maps[(kind, layer)]).shape[1] if (kind, layer) in maps else 0
    _, keys, queries = head_map(maps, src_tokens, tgt_tokens, kind, layer, 0, index)   # validates the arguments
    columns = max(1, min(columns, n_heads))
    rows = math.ceil(n_heads / columns)
    width, height = 1.4 + cell * len(keys), 1.6 + cell * len(queries)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns + 0.8, height * rows), squeeze=False,
                             layout="constrained")
    for h, ax in enumerate(axes.ravel()):
        if h >= n_heads:
            ax.set_visible(False)
            continue
        draw_head(maps, src_tokens, tgt_tokens, kind, layer, h, ax=ax, index=index, colorbar=False,
                  title=t("plots.head_of", head=h + 1, n_heads=n_heads))
        if h % columns:
            ax.set_ylabel("")
            ax.set_yticklabels([])
    image = axes.ravel()[0].images[0]
    fig.colorbar(image, ax=axes.ravel().tolist(), fraction=0.02, pad=0.01, label=t("plots.weight_01"))
    fig.suptitle(t("plots.every_head", kind=HEAD_KINDS[kind], layer=layer + 1) if title is None else title,
                 fontweight="bold")
    return fig


__all__ += ["HEAD_KINDS", "head_map", "draw_head", "draw_layer_heads"]


# ---------------------------------------------------------------- chapter 05: training dynamics
__all__ += ["plot_loss_curves", "plot_attention_snapshots", "plot_alignment_curve"]


def plot_loss_curves(losses: dict[str, Sequence[float]], ax=None, smooth: int = 20,
                     title: str | None = None):
    """Training loss against the step, one line per model: a moving average over `smooth` steps, log scale.

    losses: {model name: per-step losses} (e.g. helpers.training.TrainLog.losses). title: None gives "Training
    loss" in the current language. Returns the Axes.
    """
    title = t("plots.loss_title") if title is None else title
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    for name, values in losses.items():
        v = np.asarray(values, dtype=float)
        if v.size == 0:
            raise ValueError(f"no losses for {name!r}")
        k = max(1, min(smooth, v.size))
        mean = np.convolve(v, np.ones(k) / k, mode="valid")         # (n_steps - k + 1,)
        ax.semilogy(np.arange(k, v.size + 1), mean, label=name)
    ax.set(title=title, xlabel=t("plots.training_step"), ylabel=t("plots.loss_ylabel", smooth=smooth))
    ax.legend(loc="best")
    return ax


def plot_attention_snapshots(maps: dict, source: Sequence[str], target: Sequence[str], columns: int | None = None,
                             title: str | None = None):
    """Small multiples of plot_attention, one per training step, on one fixed 0-1 colour scale; returns the figure.

    maps: {step: weights (n_target, n_source)}, all of one sentence; source/target: its words (ticks). title: None
    gives the default in the current language.
    """
    title = t("plots.snapshots_title") if title is None else title
    if not maps:
        raise ValueError("no maps to draw: give {step: weights (n_target, n_source)}")
    steps = sorted(maps)
    columns = columns or len(steps)
    rows = math.ceil(len(steps) / columns)
    width = max(2.6, 0.75 + 0.2 * len(source))
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns + 0.8, max(2.4, 1.1 + 0.2 * len(target)) * rows),
                             squeeze=False, sharey=True, layout="constrained")
    for k, (ax, step) in enumerate(zip(axes.ravel(), steps, strict=False)):
        plot_attention(maps[step], keys=source, queries=target, ax=ax, title=t("plots.after_steps", step=step),
                       xlabel=t("plots.source_words"), ylabel=t("plots.target_words") if k % columns == 0 else "",
                       colorbar=False, annotate=False)
    for ax in axes.ravel()[len(steps):]:
        ax.set_visible(False)
    image = axes.ravel()[0].images[0]
    fig.colorbar(image, ax=axes, fraction=0.02, pad=0.01, label=t("plots.weight_01"))
    fig.suptitle(title, fontweight="bold")
    return fig


def plot_alignment_curve(curve: dict, baseline: dict | None = None, ax=None, title: str | None = None):
    """Alignment accuracy (%, left axis) and attention mass on gold (0-1, right axis) against the training step.

    curve: {step: {"align": %, "mass": 0-1}} (helpers.training.alignment_scores at each step); baseline: the same
    two numbers for attention with no information (uniform_attention_baseline), drawn dotted. title: None gives
    the default in the current language. Returns the left Axes.
    """
    title = t("plots.alignment_title") if title is None else title
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    steps = sorted(curve)
    right = ax.twinx()
    right.spines["right"].set_visible(True)
    align = METRIC_LABELS["align"]
    ax.plot(steps, [curve[s]["align"] for s in steps], marker="o", color="tab:blue", label=align)
    right.plot(steps, [curve[s]["mass"] for s in steps], marker="s", color="tab:orange", label=t("plots.mass_on_gold"))
    if baseline is not None:
        ax.axhline(baseline["align"], ls=":", color="0.4", label=t("plots.uniform_baseline"))
    ax.set(title=title, xlabel=t("plots.training_step"), ylabel=align, ylim=(0, 100))
    right.set(ylabel=t("plots.mass_ylabel"), ylim=(0, 1))
    handles = ax.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    ax.legend(handles, [h.get_label() for h in handles], loc="center right", bbox_to_anchor=(1.0, 0.35), fontsize=8)
    return ax


# ---------------------------------------------------------------- chapter 03: the Q/K explorer's figure
__all__ += ["EXPLORER_FIGSIZE", "vector_names", "draw_explorer"]

SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
EXPLORER_FIGSIZE = (8.0, 5.8)


def vector_names(n: int, prefix: str = "K") -> list[str]:
    """['K₁', 'K₂', ...]: subscripted names for n vectors."""
    return [f"{prefix}{str(i + 1).translate(SUBSCRIPTS)}" for i in range(n)]


class _ExplorerView:
    """The artists of one explorer figure, created once and updated in place by `draw_explorer`."""

    def __init__(self, fig: Figure, n: int, values: np.ndarray, limit: float, names: Sequence[str],
                 blit: bool = False):
        self.n, self.limit, self.names, self.blit, self.background = n, limit, list(names), blit, None
        colours = [KEY_COLOURS[i % len(KEY_COLOURS)] for i in range(n)]
        ax_vec, ax_score, ax_w, ax_ctx = fig.subplots(2, 2).ravel()
        self.axes = (ax_vec, ax_score, ax_w, ax_ctx)

        # 1. vectors: Q and the keys as arrows from the origin
        pad = limit * 1.25
        ax_vec.set(xlim=(-pad, pad), ylim=(-pad, pad), aspect="equal", xlabel="x", ylabel="y",
                   title=t("plots.explorer_vectors"))
        ax_vec.axhline(0, color="0.85", lw=0.8, zorder=0)
        ax_vec.axvline(0, color="0.85", lw=0.8, zorder=0)
        self.key_arrows, self.key_labels = [], []
        for i in range(n):
            arrow = ax_vec.annotate("", xy=(1, 0), xytext=(0, 0),
                                    arrowprops=dict(arrowstyle="-|>", color=colours[i], lw=2, mutation_scale=14))
            self.key_arrows.append(arrow)
            self.key_labels.append(ax_vec.text(0, 0, self.names[i], color=colours[i], fontsize=10,
                                               ha="center", va="center", fontweight="bold"))
        self.q_arrow = ax_vec.annotate("", xy=(1, 0), xytext=(0, 0),
                                       arrowprops=dict(arrowstyle="-|>", color="black", lw=3, mutation_scale=18))
        self.q_label = ax_vec.text(0, 0, "Q", fontsize=11, fontweight="bold", ha="center", va="center")

        # 2. raw scores Q·K on a fixed axis (the largest possible |Q·K| for the slider range)
        top = 2 * limit * limit * 1.1
        ax_score.set(ylim=(-top, top), title=t("plots.explorer_scores"), ylabel=t("plots.explorer_score"))
        ax_score.axhline(0, color="0.5", lw=0.8)
        self.score_bars = ax_score.bar(range(n), np.zeros(n), color=colours)
        self.score_texts = [ax_score.text(i, 0, "", ha="center", fontsize=9) for i in range(n)]
        ax_score.set_xticks(range(n), self.names)

        # 3. softmax weights on a FIXED 0-1 axis
        ax_w.set(ylim=(0, 1.12), ylabel=t("plots.weight_01"), title=t("plots.explorer_weights"))
        self.weight_bars = ax_w.bar(range(n), np.zeros(n), color=colours)
        self.weight_texts = [ax_w.text(i, 0, "", ha="center", va="bottom", fontsize=9) for i in range(n)]
        ax_w.set_xticks(range(n), self.names)
        self.softmax_text = ax_w.text(0.5, 0.97, "", transform=ax_w.transAxes, ha="center", va="top", fontsize=9)

        # 4. context = weighted mix of the values: lines from c to each V, thickness = weight
        lo, hi = values.min(0), values.max(0)
        span = np.maximum(hi - lo, 0.2)
        ax_ctx.set(xlim=(lo[0] - 0.25 * span[0], hi[0] + 0.25 * span[0]),
                   ylim=(lo[1] - 0.25 * span[1], hi[1] + 0.25 * span[1]),
                   xlabel=t("plots.explorer_value_dim", n=1), ylabel=t("plots.explorer_value_dim", n=2),
                   title=t("plots.explorer_context"))
        self.mix_lines = LineCollection(np.zeros((n, 2, 2)), colors=colours, alpha=0.6, zorder=1)
        ax_ctx.add_collection(self.mix_lines)
        self.v_points = ax_ctx.scatter(values[:, 0], values[:, 1], s=90, c=colours, marker="s", zorder=2)
        for i, name in enumerate(vector_names(n, "V")):
            ax_ctx.annotate(name, values[i], xytext=(7, 5), textcoords="offset points", color=colours[i],
                            fontweight="bold")
        (self.ctx_point,) = ax_ctx.plot([0], [0], marker="*", ms=16, color="black", zorder=3, ls="none")
        self.ctx_text = ax_ctx.text(0.02, 0.02, "", transform=ax_ctx.transAxes, fontsize=9)
        fig.tight_layout()
        # the artists that move, in drawing order; with blit=True only these are redrawn on each change
        self.dynamic = [*self.key_arrows, *self.key_labels, self.q_arrow, self.q_label, *self.score_bars,
                        *self.score_texts, *self.weight_bars, *self.weight_texts,
                        self.softmax_text, self.mix_lines, self.v_points, self.ctx_point, self.ctx_text]
        for artist in self.dynamic:
            artist.set_animated(blit)

    def update(self, state: dict, selected: int | None) -> None:
        """Move every artist to show `state`; the selected key is drawn thicker."""
        K, q, w = state["keys"], state["query"], state["weights"]
        for i in range(self.n):
            self.key_arrows[i].xy = tuple(K[i])
            self.key_arrows[i].arrow_patch.set_linewidth(4 if i == selected else 2)
            self.key_labels[i].set_position(_label_spot(K[i], self.limit, side=1))
            self.key_labels[i].set_fontsize(12 if i == selected else 10)
        self.q_arrow.xy = tuple(q)
        self.q_label.set_position(_label_spot(q, self.limit, side=-1))
        for i, (bar, text) in enumerate(zip(self.score_bars, self.score_texts, strict=False)):
            s = state["scores"][i]
            bar.set_height(s)
            text.set_text(f"{s:.2f}")
            text.set_position((i, s))
            text.set_va("bottom" if s >= 0 else "top")
        for i, (bar, text) in enumerate(zip(self.weight_bars, self.weight_texts, strict=False)):
            bar.set_height(w[i])
            text.set_text(f"{w[i]:.4f}")
            text.set_position((i, w[i] + 0.01))
        how = f"÷√{len(q)}" if state["scale"] else t("plots.explorer_unscaled")
        self.softmax_text.set_text(t("plots.explorer_softmax", factor=state["factor"], how=how,
                                     temperature=state["temperature"]))
        c = state["context"]
        self.mix_lines.set_segments([[c, v] for v in state["values"]])
        self.mix_lines.set_linewidths(0.5 + 9 * w)
        self.ctx_point.set_data([c[0]], [c[1]])
        self.ctx_text.set_text("c = [" + ", ".join(f"{x:.4f}" for x in c) + "]")


def _label_spot(v: np.ndarray, limit: float, side: int = 1) -> tuple[float, float]:
    """Where to write a vector's name: beyond its tip, nudged to one side (keys left, Q right) to avoid collisions."""
    norm = float(np.hypot(*v))
    if norm < 1e-9:
        return (0.12 * limit, -0.12 * limit * side)
    u = v / norm
    normal = np.array([-u[1], u[0]]) * side
    return tuple(v + 0.1 * limit * u + 0.09 * limit * normal)


def draw_explorer(state: dict, fig: Figure | None = None, selected: int | None = None,
                  limit: float = 2.0, names: Sequence[str] | None = None, blit: bool = False) -> Figure:
    """Draw one explorer state (2-D Q and keys, raw scores, weights on a fixed 0-1 axis, context mix).

    fig=None makes a new pyplot figure (for a static picture: `draw_explorer(state); plt.show()`).
    Passing a figure that this function drew before only moves its artists, which is fast.
    blit=True (the widget's fast path) marks the moving artists as animated: `figure_png` then redraws only
    them over a cached background; a plain `savefig`/`plt.show` of such a figure would leave them out.
    Returns the figure.
    """
    n, d = state["keys"].shape
    if d != 2 or state["values"].shape[1] != 2:
        raise ValueError(f"the explorer draws 2-D vectors; got keys {state['keys'].shape} and values "
                         f"{state['values'].shape}, expected (n_keys, 2) and (n_keys, 2)")
    if fig is None:
        fig = plt.figure(figsize=EXPLORER_FIGSIZE)
    view = getattr(fig, "_blit_view", None)
    if view is None or view.n != n or view.blit != blit:
        fig.clear()
        view = fig._blit_view = _ExplorerView(fig, n, state["values"], limit, names or vector_names(n), blit)
    view.update(state, selected)
    return fig
