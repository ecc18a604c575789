"""Plotting for the course: one style, and one attention heatmap used everywhere."""
from __future__ import annotations

from typing import Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch

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


def use_course_style() -> None:
    """Apply the course's matplotlib style (sizes, fonts, colours) to every later figure."""
    mpl.rcParams.update(COURSE_STYLE)


def _to_numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().double().numpy()
    return np.asarray(x, dtype=float)


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
    title: str = "Attention weights",
    xlabel: str = "keys (attended positions)",
    ylabel: str = "queries",
    annotate: bool | None = None,
    colorbar: bool = True,
):
    """Draw attention weights as a heatmap: keys on x, queries on y, tokens as ticks, colour fixed to 0-1.

    weights: (n_queries, n_keys), a tensor or array. Returns the matplotlib Axes.
    """
    w = _to_numpy(weights)
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
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="weight (0-1)")
    return ax
