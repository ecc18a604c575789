"""Attention, written out: masked softmax, scaled dot-product attention and the scoring modules (registered in SCORERS).

Every attention function here returns ``(context, weights)`` so the weights are always there to plot.
Mask convention (the same as ``torch.nn.functional.scaled_dot_product_attention``'s boolean mask):
True (or 1) where a key MAY be attended, False (or 0) where it is hidden.

Fully masked rows: a query whose every key is hidden gets all-zero weights and a zero context vector,
never NaN, and gradients stay finite. (torch 2.13's fused function also returns zeros there; older
releases returned NaN, which is why the course pins its own behaviour and tests it.)
"""
from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers import i18n

__all__ = [
    "softmax",
    "masked_softmax",
    "scaled_dot_product_attention",
    "Scorer",
    "register_scorer",
    "AdditiveAttention",
    "MultiplicativeAttention",
    "DotProductAttention",
    "ScaledDotProductAttention",
    "SCORERS",
    "MultiHeadAttention",
]


def _shape(x: torch.Tensor) -> str:
    return "(" + ", ".join(str(s) for s in x.shape) + ")"


def softmax(scores: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax with the max-subtraction trick: exp(x - max) / sum exp(x - max) along `dim`.

    A slice that is all -inf (every key hidden) gives zeros instead of NaN.
    """
    peak = scores.amax(dim=dim, keepdim=True)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))  # all -inf slice: avoid inf - inf
    e = torch.exp(scores - peak)
    total = e.sum(dim=dim, keepdim=True)
    return e / torch.where(total > 0, total, torch.ones_like(total))


def _as_bool_mask(mask: torch.Tensor | None, scores: torch.Tensor) -> torch.Tensor | None:
    """Check a mask broadcasts to the scores' shape and return it as booleans (True = may attend)."""
    if mask is None:
        return None
    if not isinstance(mask, torch.Tensor):
        mask = torch.as_tensor(mask)
    try:
        torch.broadcast_shapes(mask.shape, scores.shape)
    except RuntimeError:
        raise ValueError(
            f"mask has shape {_shape(mask)} but the scores have shape {_shape(scores)} "
            "(..., n_queries, n_keys); expected a mask that broadcasts to it, "
            "e.g. (batch, 1, n_keys) or (batch, n_queries, n_keys)"
        ) from None
    if mask.dtype != torch.bool:
        mask = mask != 0
    return mask


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last (key) axis, with hidden keys getting weight 0.  # (..., n_q, n_k) -> same

    A row whose every key is hidden gets all-zero weights (documented behaviour, never NaN).
    """
    mask = _as_bool_mask(mask, scores)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return softmax(scores, dim=-1)


def _check_qkv(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> None:
    """Raise a ValueError naming the shapes received and expected when Q, K, V do not fit together."""
    for name, x in (("Q", Q), ("K", K), ("V", V)):
        if not isinstance(x, torch.Tensor):
            raise ValueError(i18n.t("attention.not_tensor", name=name, kind=type(x).__name__))
        if x.dim() < 2:
            raise ValueError(i18n.t("attention.too_few_dims", name=name, shape=_shape(x),
                                    n="n_queries" if name == "Q" else "n_keys"))
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(i18n.t("attention.d_k_mismatch", q=_shape(Q), k=_shape(K), d=Q.shape[-1]))
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(i18n.t("attention.n_keys_mismatch", k=_shape(K), v=_shape(V), n=K.shape[-2]))
    try:
        torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except RuntimeError:
        raise ValueError(i18n.t("attention.batch_mismatch", q=_shape(Q), k=_shape(K), v=_shape(V))) from None


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, dropout_p: float = 0.0):
    """softmax(Q Kᵀ · scale, masked) V, returning (context, weights).

    Q: (..., n_q, d_k)   K: (..., n_k, d_k)   V: (..., n_k, d_v)   mask: broadcastable to (..., n_q, n_k)
    context: (..., n_q, d_v)   weights: (..., n_q, n_k)
    scale=None means 1/sqrt(d_k); dropout_p > 0 drops weights (as torch's function does, always on).
    """
    _check_qkv(Q, K, V)
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])
    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale  # (..., n_q, n_k)
    weights = masked_softmax(scores, mask)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p, training=True)
    return torch.matmul(weights, V), weights


class Scorer(nn.Module):
    """Base of every scorer: check shapes, mask, softmax, dropout on the weights, weighted sum.

    A subclass says what differs about it on the class itself, so code that builds scorers reads the class
    and never a list of names:

    * ``score(query, keys)``: the raw scores;
    * ``needs_equal_sizes``: True when query and key vectors must have the same size (dot products);
    * ``has_parameters``: False for scorers that learn nothing; ``formula`` and
      ``expected_parameters(d_q, d_k, h)``: its parameter count, written out (tests compare it with the module);
    * ``from_sizes(query_size, key_size, hidden_size, dropout)``: how to build it from the sizes a model has
      (the default calls ``cls(dropout=dropout)``; scorers with weights override it).

    Register a new scorer with one line, ``register_scorer("name")(MyScorer)`` or the decorator form.
    """

    needs_equal_sizes = False
    has_parameters = False
    formula = "0"

    def __init__(self, dropout: float = 0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    @classmethod
    def expected_parameters(cls, query_size: int, key_size: int, hidden_size: int) -> int:
        """The parameter count `formula` gives for these sizes (0 for a scorer without parameters)."""
        return 0

    @classmethod
    def from_sizes(cls, query_size: int, key_size: int, hidden_size: int, dropout: float = 0.0) -> "Scorer":
        """Build this scorer for queries of `query_size` and keys of `key_size` (hidden_size: additive layer)."""
        return cls(dropout=dropout)

    def score(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        """Raw scores  # (batch, n_q, d_q), (batch, n_k, d_k) -> (batch, n_q, n_k)"""
        raise NotImplementedError

    def prepare_keys(self, keys: torch.Tensor) -> torch.Tensor:
        """The part of scoring that does not depend on the query, done once per sentence (default: none)."""
        return keys

    def score_prepared(self, query: torch.Tensor, prepared: torch.Tensor) -> torch.Tensor:
        """score(query, keys) from prepared = prepare_keys(keys)  # (b, n_q, d_q), (b, n_k, *) -> (b, n_q, n_k)"""
        return self.score(query, prepared)

    def forward(self, query, keys, values, mask=None, prepared=None):
        """query (batch, n_q, d_q), keys (batch, n_k, d_k), values (batch, n_k, d_v), mask (batch, 1|n_q, n_k).

        Returns context (batch, n_q, d_v) and weights (batch, n_q, n_k). `prepared` (optional) is
        prepare_keys(keys), computed once by a caller that scores the same keys against many queries in turn.
        """
        for name, x in (("query", query), ("keys", keys), ("values", values)):
            if x.dim() != 3:
                raise ValueError(f"{type(self).__name__}: {name} has shape {_shape(x)}; "
                                 "expected 3 dimensions (batch, n, d)")
        if keys.shape[:2] != values.shape[:2]:
            raise ValueError(
                f"{type(self).__name__}: keys have shape {_shape(keys)} and values {_shape(values)}; "
                f"expected values of shape ({keys.shape[0]}, {keys.shape[1]}, d_v)"
            )
        if query.shape[0] != keys.shape[0]:
            raise ValueError(
                f"{type(self).__name__}: query has batch size {query.shape[0]} but keys have {keys.shape[0]} "
                f"(query {_shape(query)}, keys {_shape(keys)})"
            )
        if self.needs_equal_sizes and query.shape[-1] != keys.shape[-1]:
            raise ValueError(i18n.t("ch06.needs_equal_sizes", cls=type(self).__name__, query=_shape(query),
                                    keys=_shape(keys), d=query.shape[-1]))
        scores = self.score(query, keys) if prepared is None else self.score_prepared(query, prepared)  # (b, n_q, n_k)
        weights = self.dropout(masked_softmax(scores, mask))
        return torch.bmm(weights, values), weights


SCORERS: dict[str, type[Scorer]] = {}


def register_scorer(name: str, replace: bool = False, registry: dict | None = None):
    """Class decorator: make a Scorer subclass buildable by name (``SCORERS[name]``, ``make_model(scorer=name)``).

    A name that is taken is refused unless replace=True. registry: another dict to register in (tests).
    """
    registry = SCORERS if registry is None else registry

    def add(cls: type[Scorer]) -> type[Scorer]:
        if not (isinstance(cls, type) and issubclass(cls, Scorer)):
            raise TypeError(f"register_scorer({name!r}) expects a subclass of helpers.attention.Scorer, got {cls!r}")
        if name in registry and not replace:
            raise ValueError(f"a scorer named {name!r} is already registered ({registry[name].__name__}); "
                             "choose another name, or pass replace=True to replace it")
        registry[name] = cls
        cls.name = name
        return cls
    return add


@register_scorer("additive")
class AdditiveAttention(Scorer):
    """Bahdanau's scorer: score = vᵀ tanh(W_q q + W_k k), i.e. vᵀ tanh(W [q; k]) with W = [W_q | W_k]."""

    has_parameters = True
    formula = "h·(d_q + d_k) + h"

    @classmethod
    def from_sizes(cls, query_size, key_size, hidden_size, dropout=0.0):
        """W_q (query_size -> hidden_size), W_k (key_size -> hidden_size), v (hidden_size -> 1)."""
        return cls(query_size, key_size, hidden_size, dropout=dropout)

    @classmethod
    def expected_parameters(cls, query_size, key_size, hidden_size):
        """W = [W_q | W_k] has h·(d_q + d_k) numbers and v has h (no biases)."""
        return hidden_size * (query_size + key_size) + hidden_size

    def __init__(self, query_size: int, key_size: int, hidden_size: int, dropout: float = 0.0):
        super().__init__(dropout)
        self.W_q = nn.Linear(query_size, hidden_size, bias=False)
        self.W_k = nn.Linear(key_size, hidden_size, bias=False)
        self.v = nn.Linear(hidden_size, 1, bias=False)

    def prepare_keys(self, keys):
        """W_k k for every key, which does not depend on the query  # (batch, n_k, d_k) -> (batch, n_k, h)"""
        return self.W_k(keys)

    def score_prepared(self, query, prepared):
        """vᵀ tanh(W_q q + prepared)  # (batch, n_q, d_q), (batch, n_k, h) -> (batch, n_q, n_k)"""
        features = torch.tanh(self.W_q(query).unsqueeze(2) + prepared.unsqueeze(1))  # (b, n_q, n_k, h)
        return self.v(features).squeeze(-1)

    def score(self, query, keys):
        """(batch, n_q, d_q), (batch, n_k, d_k) -> (batch, n_q, n_k)"""
        return self.score_prepared(query, self.prepare_keys(keys))


@register_scorer("multiplicative")
class MultiplicativeAttention(Scorer):
    """Luong's "general" scorer: score = qᵀ W k; query and key sizes may differ."""

    has_parameters = True
    formula = "d_q·d_k"

    @classmethod
    def from_sizes(cls, query_size, key_size, hidden_size, dropout=0.0):
        """W (key_size -> query_size); hidden_size is not used."""
        return cls(query_size, key_size, dropout=dropout)

    @classmethod
    def expected_parameters(cls, query_size, key_size, hidden_size):
        """W has d_q·d_k numbers (no bias)."""
        return query_size * key_size

    def __init__(self, query_size: int, key_size: int, dropout: float = 0.0):
        super().__init__(dropout)
        self.W = nn.Linear(key_size, query_size, bias=False)

    def score(self, query, keys):
        """(batch, n_q, d_q), (batch, n_k, d_k) -> (batch, n_q, n_k)"""
        return torch.bmm(query, self.W(keys).transpose(1, 2))


@register_scorer("dot")
class DotProductAttention(Scorer):
    """score = qᵀ k: no parameters; query and key sizes must match."""

    needs_equal_sizes = True

    def score(self, query, keys):
        """(batch, n_q, d) , (batch, n_k, d) -> (batch, n_q, n_k)"""
        return torch.bmm(query, keys.transpose(1, 2))


@register_scorer("scaled_dot")
class ScaledDotProductAttention(DotProductAttention):
    """score = qᵀ k / sqrt(d_k): the Transformer's scorer; sizes must match."""

    def score(self, query, keys):
        """(batch, n_q, d) , (batch, n_k, d) -> (batch, n_q, n_k)"""
        return super().score(query, keys) / math.sqrt(keys.shape[-1])



class MultiHeadAttention(nn.Module):
    """Multi-head attention: project, split into heads, attend with scaled_dot_product_attention, concatenate, project.

    d_model is split into n_heads heads of d_head = d_model / n_heads features, so the four d_model x d_model
    projections (W_q, W_k, W_v, W_o) hold 4·d² (+ 4·d biases) parameters whatever the number of heads.
    forward(query (B, n_q, d), key (B, n_k, d), value (B, n_k, d), mask) -> (output (B, n_q, d),
    weights (B, n_heads, n_q, n_k)). mask: bool, True = may attend, shaped (B, 1, n_k), (B, n_q, n_k),
    (n_q, n_k) or (B | 1, n_heads | 1, n_q | 1, n_k).
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if not (isinstance(d_model, int) and isinstance(n_heads, int) and d_model > 0 and n_heads > 0):
            raise ValueError(
                f"d_model and n_heads must be positive integers, got d_model={d_model!r}, n_heads={n_heads!r}"
            )
        if d_model % n_heads:
            raise ValueError(
                f"d_model={d_model} is not divisible by n_heads={n_heads}; each head gets d_model / n_heads features, "
                f"so pick n_heads among {[h for h in range(1, d_model + 1) if d_model % h == 0][:8]}..."
            )
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1), got {dropout}")
        self.d_model, self.n_heads, self.d_head, self.dropout = d_model, n_heads, d_model // n_heads, dropout
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """Cut the feature axis into heads.  # (B, n, d_model) -> (B, n_heads, n, d_head)"""
        B, n, _ = x.shape
        return x.view(B, n, self.n_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        """Concatenate the heads again.  # (B, n_heads, n, d_head) -> (B, n, d_model)"""
        B, _, n, _ = x.shape
        return x.transpose(1, 2).reshape(B, n, self.d_model)

    def head_mask(self, mask, batch: int, n_q: int, n_k: int) -> torch.Tensor | None:
        """Add a head axis to a mask.  # (B, 1|n_q, n_k), (n_q, n_k) or 4-D -> broadcastable to (B, h, n_q, n_k)"""
        if mask is None:
            return None
        mask = torch.as_tensor(mask)
        if mask.dtype != torch.bool:
            mask = mask != 0
        expected = (batch, self.n_heads, n_q, n_k)
        shaped = {2: lambda m: m, 3: lambda m: m.unsqueeze(1), 4: lambda m: m}.get(mask.dim(), lambda m: None)(mask)
        ok = shaped is not None and mask.shape[-1] == n_k
        if ok:
            try:
                ok = torch.broadcast_shapes(shaped.shape, expected) == expected
            except RuntimeError:
                ok = False
        if not ok:
            hint = ""
            if mask.dim() == 2 and tuple(mask.shape) == (batch, n_k) and batch != n_q:
                hint = " A padding mask of shape (batch, n_keys) needs a query axis: pass mask[:, None, :]."
            raise ValueError(
                f"MultiHeadAttention: mask has shape {_shape(mask)} but the attention weights have shape "
                f"({batch}, {self.n_heads}, {n_q}, {n_k}) (batch, n_heads, n_queries, n_keys); expected a mask of "
                f"shape ({batch}, 1, {n_k}), ({batch}, {n_q}, {n_k}), ({n_q}, {n_k}) or one that broadcasts to "
                f"the 4-D shape.{hint}"
            )
        return shaped

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask=None):
        """query (B, n_q, d), key and value (B, n_k, d) -> output (B, n_q, d), weights (B, h, n_q, n_k)."""
        for name, x in (("query", query), ("key", key), ("value", value)):
            if not isinstance(x, torch.Tensor) or x.dim() != 3 or x.shape[-1] != self.d_model:
                got = _shape(x) if isinstance(x, torch.Tensor) else type(x).__name__
                raise ValueError(f"MultiHeadAttention: {name} has shape {got}; expected (batch, n, {self.d_model})")
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(
                f"MultiHeadAttention: key has shape {_shape(key)} and value {_shape(value)}; expected value of shape "
                f"({key.shape[0]}, {key.shape[1]}, {self.d_model}) (one value per key)"
            )
        if query.shape[0] != key.shape[0]:
            raise ValueError(
                f"MultiHeadAttention: query has batch size {query.shape[0]} but key has {key.shape[0]} "
                f"(query {_shape(query)}, key {_shape(key)})"
            )
        B, n_q, _ = query.shape
        mask = self.head_mask(mask, B, n_q, key.shape[1])          # broadcastable to (B, h, n_q, n_k)
        Q = self.split_heads(self.W_q(query))                      # (B, h, n_q, d_head)
        K, V = self.keys_values(key, value)                        # (B, h, n_k, d_head) each
        return self._attend_heads(Q, K, V, mask)

    def keys_values(self, key: torch.Tensor, value: torch.Tensor):
        """Project keys and values and split them into heads.  # (B, n_k, d) each -> K, V (B, h, n_k, d_head) each"""
        return self.split_heads(self.W_k(key)), self.split_heads(self.W_v(value))

    def attend(self, query: torch.Tensor, K: torch.Tensor, V: torch.Tensor, mask=None):
        """forward with the keys and values already projected (e.g. kept in a KV cache).

        query (B, n_q, d), K and V (B, h, n_k, d_head) -> output (B, n_q, d), weights (B, h, n_q, n_k).
        """
        B, n_q, _ = query.shape
        mask = self.head_mask(mask, B, n_q, K.shape[2])            # broadcastable to (B, h, n_q, n_k)
        return self._attend_heads(self.split_heads(self.W_q(query)), K, V, mask)

    def _attend_heads(self, Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, mask):
        """Q (B, h, n_q, d_head), K, V (B, h, n_k, d_head) -> output (B, n_q, d), weights (B, h, n_q, n_k)."""
        p = self.dropout if self.training else 0.0
        context, weights = scaled_dot_product_attention(Q, K, V, mask=mask, dropout_p=p)
        # context (B, h, n_q, d_head), weights (B, h, n_q, n_k)
        return self.W_o(self.merge_heads(context)), weights        # (B, n_q, d_model), (B, h, n_q, n_k)
