"""Attention masks: the one padding-mask builder and the causal mask (pictures: helpers.plotting.plot_mask).

Convention (the same as ``helpers.attention`` and torch's boolean ``attn_mask``): True where a key MAY be
attended, False where it is hidden. Masks are built so they broadcast against scores of shape (batch, n_q, n_k).
"""
from __future__ import annotations

import torch

__all__ = ["padding_mask", "causal_mask"]


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

