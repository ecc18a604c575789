"""Attention masks: padding and causal masks, and a picture of a mask.

Convention (the same as ``helpers.attention`` and torch's boolean ``attn_mask``): True where a key MAY be
attended, False where it is hidden. Masks are built so they broadcast against scores of shape (batch, n_q, n_k).
"""
from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.colors import ListedColormap

from helpers.plotting import check_token_labels, set_token_ticks

__all__ = ["padding_mask", "causal_mask", "plot_mask", "MASK_COLOURS"]

MASK_COLOURS = ("#d9d9d9", "#2c7fb8")  # hidden, visible


def padding_mask(lengths, max_len: int | None = None) -> torch.Tensor:
    """True for real tokens, False for padding.  lengths (batch,) -> mask (batch, 1, max_len)

    The middle axis of size 1 broadcasts over every query of a sentence: padding is hidden from all of them.
    """
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1 or lengths.dtype.is_floating_point or lengths.dtype == torch.bool:
        raise ValueError(
            f"lengths must be a 1-D sequence of integers (one per sentence), got shape {tuple(lengths.shape)} "
            f"and dtype {lengths.dtype}"
        )
    longest = int(lengths.max()) if len(lengths) else 0
    if max_len is None:
        max_len = longest
    if len(lengths) and (int(lengths.min()) < 0 or longest > max_len):
        raise ValueError(
            f"lengths {lengths.tolist()} must lie between 0 and max_len={max_len} (the padded length)"
        )
    positions = torch.arange(max_len)  # (max_len,)
    return (positions.unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(1)  # (batch, 1, max_len)


def causal_mask(n_queries: int, n_keys: int | None = None) -> torch.Tensor:
    """Query i may see keys 0..i (no peeking at later positions).  -> mask (n_queries, n_keys)

    With n_keys > n_queries the queries are the LAST n_queries positions (key j is visible to query i
    when j <= i + n_keys - n_queries), the layout of a decoder that continues a longer prefix.
    """
    n_keys = n_queries if n_keys is None else n_keys
    if n_queries < 1 or n_keys < n_queries:
        raise ValueError(
            f"causal_mask needs 1 <= n_queries <= n_keys; got n_queries={n_queries}, n_keys={n_keys}"
        )
    offset = n_keys - n_queries
    return torch.ones(n_queries, n_keys, dtype=torch.bool).tril(diagonal=offset)


def plot_mask(
    mask,
    keys: Sequence[str] | None = None,
    queries: Sequence[str] | None = None,
    ax=None,
    title: str = "Mask",
    xlabel: str = "keys",
    ylabel: str = "queries",
):
    """Draw a boolean mask as a two-colour grid (blue visible, grey hidden) with token ticks.  mask (n_q, n_k) -> Axes"""
    m = mask.detach().cpu().numpy() if isinstance(mask, torch.Tensor) else np.asarray(mask)
    if m.ndim != 2:
        raise ValueError(f"plot_mask expects a mask of shape (n_queries, n_keys); got shape {tuple(m.shape)}")
    n_q, n_k = m.shape
    check_token_labels(m.shape, keys, queries, what="mask")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(3.2, 1.6 + 0.32 * n_k), max(2.2, 1.2 + 0.3 * n_q)))
    ax.imshow(m.astype(float), vmin=0, vmax=1, cmap=ListedColormap(MASK_COLOURS), aspect="auto",
              interpolation="nearest")
    set_token_ticks(ax, n_q, n_k, keys, queries)
    ax.set_xticks(np.arange(-0.5, n_k), minor=True)
    ax.set_yticks(np.arange(-0.5, n_q), minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel(f"{xlabel}\n(blue: visible, grey: hidden)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax
