"""A small Transformer, built from the course's own attention: positions, blocks, a translator, a decoder-only LM.

* ``sinusoidal_positions(n, d)`` and ``LearnedPositions(max_len, d)``: where each token sits in the sentence.
* ``FeedForward``, ``EncoderLayer``, ``DecoderLayer``: pre-norm blocks, x + sublayer(LayerNorm(x)), whose
  attention is ``helpers.attention.MultiHeadAttention``; every layer returns the weights it computed.
* ``LayerCache``: a decoder layer's KV cache for greedy decoding (``DecoderLayer.start_cache``, ``.step``).
* ``TransformerTranslator`` / ``make_transformer(...)``: an encoder-decoder with the interface of
  ``helpers.seq2seq.Seq2Seq``, so ``helpers.training.train`` and ``evaluate`` work unchanged.
* ``TinyDecoder``: a decoder-only language model, with or without the causal mask (chapter 07's experiment
  with it, ``causal_mask_demo``, and the step timing ``step_time_by_length`` live in ``helpers.experiments``).

Mask convention (as everywhere in the course): bool, True = may attend, shaped (batch, 1 or n_q, n_k).
Shapes: B batch, S source length, T target length (with <bos>), d = d_model, h = n_heads, V vocabulary size.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers.attention import MultiHeadAttention
from helpers.masks import causal_mask
from helpers.toylang import Vocab, max_target_length, source_vocab, target_vocab

__all__ = [
    "sinusoidal_positions", "SinusoidalPositions", "LearnedPositions", "FeedForward", "EncoderLayer", "LayerCache",
    "DecoderLayer",
    "TransformerTranslator", "make_transformer", "TRANSFORMER_DEFAULTS", "TRANSFORMER_TRAINING",
    "TinyDecoder",
]

# The named default: one encoder and one decoder layer, d_model 64, 4 heads, no dropout. A choice made while
# building the course, not a measured optimum (chapter 07 says so). Chapter 07 trains it with batches of 32 for
# 800 steps, and its evidence file (translators_by_budget) for 400, 800 and 1,600.
TRANSFORMER_DEFAULTS = dict(d_model=64, n_heads=4, n_layers=1, d_ff=128, dropout=0.0, positions="sinusoidal")
# Arguments for helpers.training.train that go with it: the learning rate and its warm-up (the caller picks the steps).
TRANSFORMER_TRAINING = dict(lr=1e-2, warmup=100)


# ---------------------------------------------------------------- positions
def sinusoidal_positions(n: int, d: int, base: float = 10000.0) -> torch.Tensor:
    """Vaswani et al. (2017): PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(p / base^(2i/d)).  -> (n, d)"""
    if not (isinstance(n, int) and isinstance(d, int)) or n < 0 or d < 1:
        raise ValueError(f"sinusoidal_positions needs integers n >= 0 and d >= 1, got n={n!r}, d={d!r}")
    position = torch.arange(n, dtype=torch.float32)[:, None]                 # (n, 1)
    even = torch.arange(0, d, 2, dtype=torch.float32)                       # (ceil(d/2),) the 2i
    angle = position / base ** (even / d)                                    # (n, ceil(d/2))
    pe = torch.zeros(n, d)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d // 2])
    return pe


def _check_sequence(x: torch.Tensor, d: int, max_len: int | None, who: str, start: int = 0) -> None:
    """Raise a ValueError naming the shape received when x is not (B, n, d) with start + n <= max_len."""
    if x.dim() != 3 or x.shape[-1] != d:
        raise ValueError(f"{who}: input has shape {tuple(x.shape)}; expected (batch, n, {d})")
    if start < 0:
        raise ValueError(f"{who}: start={start} must be >= 0")
    if max_len is not None and start + x.shape[1] > max_len:
        where = f"sequence length {x.shape[1]}" + (f" from position {start}" if start else "")
        raise ValueError(f"{who}: {where} exceeds max_len={max_len}")


class SinusoidalPositions(nn.Module):
    """Add fixed sinusoidal positions (no parameters).  # (B, n, d) -> (B, n, d)"""

    def __init__(self, max_len: int, d: int):
        super().__init__()
        self.max_len, self.d = max_len, d
        self.register_buffer("table", sinusoidal_positions(max_len, d), persistent=False)  # (max_len, d)

    def forward(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """x (B, n, d) holding positions start .. start + n - 1 -> x + PE[start : start + n]"""
        _check_sequence(x, self.d, self.max_len, type(self).__name__, start)
        return x + self.table[start : start + x.shape[1]]


class LearnedPositions(nn.Module):
    """Add a learned vector per position (max_len·d parameters).  # (B, n, d) -> (B, n, d)"""

    def __init__(self, max_len: int, d: int):
        super().__init__()
        self.max_len, self.d = max_len, d
        self.embedding = nn.Embedding(max_len, d)
        nn.init.normal_(self.embedding.weight, std=0.02)

    @property
    def table(self) -> torch.Tensor:
        """The position vectors  # (max_len, d)"""
        return self.embedding.weight

    def forward(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """x (B, n, d) holding positions start .. start + n - 1 -> x + P[start : start + n]"""
        _check_sequence(x, self.d, self.max_len, type(self).__name__, start)
        return x + self.embedding.weight[start : start + x.shape[1]]


POSITIONS = {"sinusoidal": SinusoidalPositions, "learned": LearnedPositions}


def _make_positions(kind: str | None, max_len: int, d: int) -> nn.Module:
    """'sinusoidal', 'learned' or None (no positions: the model is blind to word order)."""
    if kind is None or kind == "none":
        return nn.Identity()
    if kind not in POSITIONS:
        raise ValueError(f"positions must be one of {sorted(POSITIONS)} or None, got {kind!r}")
    return POSITIONS[kind](max_len, d)


# ---------------------------------------------------------------- blocks
class FeedForward(nn.Module):
    """Position-wise feed-forward: Linear(d, d_ff), ReLU, dropout, Linear(d_ff, d).  # (B, n, d) -> (B, n, d)"""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, d) -> (B, n, d), the same small network at every position."""
        return self.linear2(self.dropout(F.relu(self.linear1(x))))


class EncoderLayer(nn.Module):
    """Pre-norm encoder block: x + SelfAttn(LN(x)), then x + FF(LN(x)).  # (B, S, d) -> (B, S, d), (B, h, S, S)"""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.norm2 = nn.LayerNorm(d_model)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        """x (B, S, d), mask (B, 1|S, S) True = may attend -> x (B, S, d), self-attention weights (B, h, S, S)."""
        h = self.norm1(x)
        attended, weights = self.self_attn(h, h, h, mask)
        x = x + self.dropout(attended)
        x = x + self.dropout(self.feed_forward(self.norm2(x)))
        return x, weights


@dataclass
class LayerCache:
    """One decoder layer's KV cache, per head: what step() would otherwise recompute at every new word.

    The self-attention buffers are allocated once, for `capacity` positions (`DecoderLayer.start_cache`), and each
    step writes its one row into them in place, so no step copies the rows written before it.
    key_buffer, value_buffer (B, h, capacity, d_head): self-attention K, V, the first `length` rows written;
    memory_keys, memory_values (B, h, S, d_head): cross-attention K, V of the encoder output, projected once.
    A cache and the cache its `append` returns share the buffers: decode on from the newest one (appending to an
    older one overwrites the row after its length). For decoding under torch.no_grad.
    """

    key_buffer: torch.Tensor
    value_buffer: torch.Tensor
    length: int
    memory_keys: torch.Tensor
    memory_values: torch.Tensor

    @property
    def keys(self) -> torch.Tensor:
        """Self-attention K of the positions written so far, a view of the buffer  # (B, h, length, d_head)"""
        return self.key_buffer[:, :, : self.length]

    @property
    def values(self) -> torch.Tensor:
        """Self-attention V of the positions written so far, a view of the buffer  # (B, h, length, d_head)"""
        return self.value_buffer[:, :, : self.length]

    @property
    def capacity(self) -> int:
        """How many positions the buffers hold."""
        return self.key_buffer.shape[2]

    def append(self, key: torch.Tensor, value: torch.Tensor) -> "LayerCache":
        """Write one position in place: key, value (B, h, 1, d_head) -> the cache with length + 1 (same buffers)."""
        expected = (*self.key_buffer.shape[:2], 1, self.key_buffer.shape[3])
        if tuple(key.shape) != expected or tuple(value.shape) != expected:
            raise ValueError(f"LayerCache.append takes one position: key {tuple(key.shape)}, value "
                             f"{tuple(value.shape)}; expected {expected} each")
        if self.length >= self.capacity:
            raise ValueError(f"the KV cache is full ({self.capacity} positions): start it with a larger capacity")
        self.key_buffer[:, :, self.length] = key[:, :, 0]
        self.value_buffer[:, :, self.length] = value[:, :, 0]
        return LayerCache(self.key_buffer, self.value_buffer, self.length + 1, self.memory_keys, self.memory_values)

    def nbytes(self) -> int:
        """Bytes of what the cache holds: K, V of the positions written so far and of the encoder output."""
        return sum(t.numel() * t.element_size() for t in (self.keys, self.values, self.memory_keys, self.memory_values))

    def reserved_nbytes(self) -> int:
        """Bytes its tensors occupy: the buffers for `capacity` positions and the encoder output's K, V."""
        return sum(t.numel() * t.element_size()
                   for t in (self.key_buffer, self.value_buffer, self.memory_keys, self.memory_values))


class DecoderLayer(nn.Module):
    """Pre-norm decoder block: causal self-attention, cross-attention over the encoder output, feed-forward.

    y (B, T, d), memory (B, S, d) -> y (B, T, d), self weights (B, h, T, T), cross weights (B, h, T, S).
    """

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.norm2 = nn.LayerNorm(d_model)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.norm3 = nn.LayerNorm(d_model)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, y: torch.Tensor, memory: torch.Tensor, self_mask: torch.Tensor | None = None,
                memory_mask: torch.Tensor | None = None):
        """self_mask (T, T) or (B, T, T), e.g. causal_mask(T); memory_mask (B, 1, S) padding of the source."""
        h = self.norm1(y)
        attended, self_weights = self.self_attn(h, h, h, self_mask)                 # (B, T, d), (B, h, T, T)
        y = y + self.dropout(attended)
        h = self.norm2(y)
        attended, cross_weights = self.cross_attn(h, memory, memory, memory_mask)  # (B, T, d), (B, h, T, S)
        y = y + self.dropout(attended)
        y = y + self.dropout(self.feed_forward(self.norm3(y)))
        return y, self_weights, cross_weights

    def start_cache(self, memory: torch.Tensor, capacity: int) -> LayerCache:
        """An empty KV cache for a batch: the memory's cross-attention K, V projected once per sentence.

        memory (B, S, d) -> LayerCache with memory_keys, memory_values (B, h, S, d_head), no position written yet,
        and self-attention buffers (B, h, capacity, d_head) for `capacity` positions.
        """
        if capacity < 1:
            raise ValueError(f"a KV cache needs room for at least one position; got capacity={capacity}")
        memory_keys, memory_values = self.cross_attn.keys_values(memory, memory)   # (B, h, S, d_head) each
        B, h, _, d_head = memory_keys.shape
        return LayerCache(memory_keys.new_zeros(B, h, capacity, d_head), memory_keys.new_zeros(B, h, capacity, d_head),
                          0, memory_keys, memory_values)

    def step(self, y: torch.Tensor, cache: LayerCache, memory_mask: torch.Tensor | None = None):
        """The newest position only (greedy decoding): forward's last row, reading the earlier ones from the cache.

        y (B, 1, d), cache holding t earlier positions -> y (B, 1, d), cache holding t + 1 (the newest position's
        K, V appended), cross weights (B, h, 1, S). No mask: the newest word sees every word so far.
        """
        h = self.norm1(y)
        cache = cache.append(*self.self_attn.keys_values(h, h))          # the newest position's K, V (B, h, 1, d_head),
        #                                                                  written into the cache's buffers in place
        attended, _ = self.self_attn.attend(h, cache.keys, cache.values)  # (B, 1, d), over t + 1 positions
        y = y + self.dropout(attended)
        attended, cross_weights = self.cross_attn.attend(self.norm2(y), cache.memory_keys, cache.memory_values,
                                                         memory_mask)     # (B, 1, d), (B, h, 1, S)
        y = y + self.dropout(attended)
        y = y + self.dropout(self.feed_forward(self.norm3(y)))
        return y, cache, cross_weights


# ---------------------------------------------------------------- the translator
def _source_mask(batch) -> torch.Tensor:
    """The batch's source padding mask as (B, 1, S); accepts (B, S) or (B, 1, S)."""
    m = batch.src_mask
    if m.dim() == 2:
        m = m[:, None, :]
    if m.dim() != 3 or m.shape[1] != 1 or m.shape[0] != batch.src.shape[0] or m.shape[2] != batch.src.shape[1]:
        B, S = batch.src.shape
        got = tuple(batch.src_mask.shape)
        raise ValueError(f"batch.src_mask has shape {got}; expected ({B}, 1, {S}) or ({B}, {S}) "
                         "(True at real tokens)")
    return m.bool()


@dataclass
class _Decoded:
    """What one decoder pass computed: logits (B, T, V) and per-layer weights (B, h, T, T) / (B, h, T, S)."""

    logits: torch.Tensor
    self_weights: list
    cross_weights: list


class TransformerTranslator(nn.Module):
    """Encoder-decoder Transformer with the interface of helpers.seq2seq.Seq2Seq.

    Embeddings are scaled by sqrt(d) and positions added; N encoder and N decoder layers (pre-norm), a final
    LayerNorm on each side, and an output projection to the target vocabulary.
    """

    has_attention = True

    def __init__(self, src_vocab: Vocab, tgt_vocab: Vocab, d_model: int = 64, n_heads: int = 4, n_layers: int = 1,
                 d_ff: int = 128, dropout: float = 0.0, positions: str | None = "sinusoidal", max_len: int = 128,
                 config: dict | None = None):
        super().__init__()
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        self.d_model, self.max_len = d_model, max_len
        self.src_embedding = nn.Embedding(len(src_vocab), d_model, padding_idx=src_vocab.pad_id)
        self.tgt_embedding = nn.Embedding(len(tgt_vocab), d_model, padding_idx=tgt_vocab.pad_id)
        for emb in (self.src_embedding, self.tgt_embedding):      # N(0, 1/d): after * sqrt(d), unit-size entries
            nn.init.normal_(emb.weight, std=d_model ** -0.5)
            with torch.no_grad():
                emb.weight[emb.padding_idx].zero_()
        self.src_positions = _make_positions(positions, max_len, d_model)
        self.tgt_positions = _make_positions(positions, max_len, d_model)
        self.dropout = nn.Dropout(dropout)
        self.encoder_layers = nn.ModuleList(EncoderLayer(d_model, n_heads, d_ff, dropout) for _ in range(n_layers))
        self.encoder_norm = nn.LayerNorm(d_model)
        self.decoder_layers = nn.ModuleList(DecoderLayer(d_model, n_heads, d_ff, dropout) for _ in range(n_layers))
        self.decoder_norm = nn.LayerNorm(d_model)
        self.output = nn.Linear(d_model, len(tgt_vocab))
        self.config = dict(kind="transformer", d_model=d_model, n_heads=n_heads, n_layers=n_layers, d_ff=d_ff,
                           dropout=dropout, positions=positions, max_len=max_len)
        self.config.update(config or {})

    # -- pieces
    def embed(self, ids: torch.Tensor, embedding: nn.Embedding, positions: nn.Module, start: int = 0) -> torch.Tensor:
        """Token ids (B, n) at positions start .. start+n-1 -> dropout(embedding · sqrt(d) + positions)  # (B, n, d)"""
        if start + ids.shape[1] > self.max_len:
            raise ValueError(f"sequence of {start + ids.shape[1]} tokens is longer than max_len={self.max_len}")
        return self.dropout(positions(embedding(ids) * math.sqrt(self.d_model), start))

    def encode_with_weights(self, src: torch.Tensor, src_mask: torch.Tensor):
        """src (B, S) ids, src_mask (B, 1, S) -> memory (B, S, d), per-layer self-attention weights (B, h, S, S)."""
        x = self.embed(src, self.src_embedding, self.src_positions)
        weights = []
        for layer in self.encoder_layers:
            x, w = layer(x, src_mask)
            weights.append(w)
        return self.encoder_norm(x), weights

    def encode(self, batch) -> torch.Tensor:
        """The encoder's output for a Batch  # (B, S, d)"""
        return self.encode_with_weights(batch.src, _source_mask(batch))[0]

    def decode(self, tgt_in: torch.Tensor, memory: torch.Tensor, src_mask: torch.Tensor) -> _Decoded:
        """tgt_in (B, T) ids, memory (B, S, d), src_mask (B, 1, S) -> logits (B, T, V) and per-layer weights.

        Position t sees target tokens 0..t only (causal mask), and every real source token.
        """
        y = self.embed(tgt_in, self.tgt_embedding, self.tgt_positions)
        future_hidden = causal_mask(tgt_in.shape[1])                      # (T, T)
        self_w, cross_w = [], []
        for layer in self.decoder_layers:
            y, sw, cw = layer(y, memory, future_hidden, src_mask)
            self_w.append(sw)
            cross_w.append(cw)
        return _Decoded(self.output(self.decoder_norm(y)), self_w, cross_w)

    # -- the Seq2Seq interface
    def forward(self, batch):
        """Teacher-forced pass: logits (B, T+1, V), last decoder layer's cross-attention, mean over heads (B, T+1, S)"""
        src_mask = _source_mask(batch)
        memory, _ = self.encode_with_weights(batch.src, src_mask)
        out = self.decode(batch.tgt_in, memory, src_mask)
        return out.logits, out.cross_weights[-1].mean(dim=1)

    def loss(self, batch) -> torch.Tensor:
        """Mean cross-entropy per target token (padding ignored)."""
        logits, _ = self(batch)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch.tgt_out.reshape(-1),
                               ignore_index=self.tgt_vocab.pad_id)

    def n_parameters(self) -> int:
        """Number of trainable parameters."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    @torch.no_grad()
    def attention_maps(self, batch) -> dict:
        """Every attention map of a teacher-forced pass (eval mode).

        {("encoder", l): (B, h, S, S), ("decoder_self", l): (B, h, T, T), ("decoder_cross", l): (B, h, T, S)},
        l = 0..n_layers-1; with batch.tgt_in None only the encoder maps.
        """
        was_training = self.training
        self.eval()
        try:
            src_mask = _source_mask(batch)
            memory, enc_w = self.encode_with_weights(batch.src, src_mask)
            maps = {("encoder", i): w for i, w in enumerate(enc_w)}
            if batch.tgt_in is not None:
                out = self.decode(batch.tgt_in, memory, src_mask)
                maps.update({("decoder_self", i): w for i, w in enumerate(out.self_weights)})
                maps.update({("decoder_cross", i): w for i, w in enumerate(out.cross_weights)})
            return maps
        finally:
            self.train(was_training)

    def start_caches(self, memory: torch.Tensor, capacity: int | None = None) -> list[LayerCache]:
        """One empty KV cache per decoder layer for the encoder output memory (B, S, d) (DecoderLayer.start_cache),
        with room for `capacity` target positions (default: max_len, every position the model can embed)."""
        return [layer.start_cache(memory, capacity or self.max_len) for layer in self.decoder_layers]

    def decode_step(self, tgt_in: torch.Tensor, caches: list[LayerCache], src_mask: torch.Tensor):
        """The newest position of tgt_in only, through every decoder layer with its KV cache.

        tgt_in (B, t + 1) ids so far, caches holding t positions each, src_mask (B, 1, S)
        -> logits (B, 1, V), caches holding t + 1 positions, last layer's cross weights (B, h, 1, S).
        Only the newest id is embedded (at position t); the earlier ones are in the caches.
        """
        t = tgt_in.shape[1] - 1
        x = self.embed(tgt_in[:, -1:], self.tgt_embedding, self.tgt_positions, start=t)   # newest word (B, 1, d)
        caches, cross = list(caches), None
        for i, layer in enumerate(self.decoder_layers):
            x, caches[i], cross = layer.step(x, caches[i], src_mask)
        return self.output(self.decoder_norm(x)), caches, cross

    @torch.no_grad()
    def greedy_decode(self, batch, max_len: int | None = None, cache: bool = True):
        """Greedy decoding: (token lists, list of (n_out, n_src) weight tensors), like helpers.seq2seq.greedy_decode.

        Each sentence stops at its first <eos> (the <eos> step is not returned); at most max_len words (default:
        helpers.toylang.max_target_length of the longest source + 1). Weights: last decoder layer's
        cross-attention averaged over heads. cache=True runs only the newest position through the decoder at each
        step, with a KV cache per layer (`decode_step`: the earlier positions' keys and values, and the encoder
        output's, projected once); cache=False re-runs the whole prefix (the plain definition, which the tests
        compare it with).
        """
        was_training = self.training
        self.eval()
        try:
            src_mask = _source_mask(batch)
            memory, _ = self.encode_with_weights(batch.src, src_mask)
            B = batch.src.shape[0]
            tv = self.tgt_vocab
            max_len = max_len or max_target_length(int(batch.src_lengths.max())) + 1
            max_len = min(max_len, self.max_len - 1)
            y = torch.full((B, 1), tv.bos_id, dtype=torch.long)             # (B, 1 + steps so far)
            done = torch.zeros(B, dtype=torch.bool)
            caches, rows = (self.start_caches(memory, capacity=max_len) if cache else None), []
            weights = memory.new_zeros(B, 0, memory.shape[1])                     # (B, steps, S)
            for _ in range(max_len):
                if cache:
                    logits, caches, cross = self.decode_step(y, caches, src_mask)      # (B, 1, V), (B, h, 1, S)
                    rows.append(cross.mean(dim=1))                                     # (B, 1, S)
                else:
                    out = self.decode(y, memory, src_mask)
                    logits, weights = out.logits, out.cross_weights[-1].mean(dim=1)    # (B, steps, V), (B, steps, S)
                nxt = logits[:, -1].argmax(-1, keepdim=True)                           # (B, 1)
                y = torch.cat([y, nxt], dim=1)
                done |= nxt[:, 0] == tv.eos_id
                if bool(done.all()):
                    break
            if rows:
                weights = torch.cat(rows, dim=1)                                       # (B, steps, S)
            tokens, wlist = [], []
            for b in range(B):
                words = tv.decode(y[b, 1:].tolist())
                tokens.append(words)
                wlist.append(weights[b, : len(words), : int(batch.src_lengths[b])].clone())
            return tokens, wlist
        finally:
            self.train(was_training)


def make_transformer(d_model: int = TRANSFORMER_DEFAULTS["d_model"], n_heads: int = TRANSFORMER_DEFAULTS["n_heads"],
                     n_layers: int = TRANSFORMER_DEFAULTS["n_layers"], d_ff: int = TRANSFORMER_DEFAULTS["d_ff"],
                     dropout: float = TRANSFORMER_DEFAULTS["dropout"],
                     positions: str | None = TRANSFORMER_DEFAULTS["positions"], max_len: int = 128,
                     seed: int | None = None) -> TransformerTranslator:
    """A TransformerTranslator for the toy languages (defaults: TRANSFORMER_DEFAULTS); seed fixes initial weights."""
    if seed is not None:
        torch.manual_seed(seed)
    return TransformerTranslator(source_vocab(), target_vocab(), d_model=d_model, n_heads=n_heads, n_layers=n_layers,
                                 d_ff=d_ff, dropout=dropout, positions=positions, max_len=max_len)


# ---------------------------------------------------------------- the causal mask's job
class TinyDecoder(nn.Module):
    """A decoder-only language model: embeddings + positions, self-attention blocks, next-token logits.

    causal=True: position t sees tokens 0..t (causal_mask). causal=False: every position sees the whole
    sequence, including the token it is asked to predict.  ids (B, n) -> logits (B, n, V)
    """

    def __init__(self, vocab: Vocab, d: int = 32, heads: int = 2, layers: int = 1, causal: bool = True,
                 max_len: int = 64, d_ff: int | None = None):
        super().__init__()
        self.vocab, self.causal, self.d = vocab, causal, d
        self.embedding = nn.Embedding(len(vocab), d, padding_idx=vocab.pad_id)
        self.positions = LearnedPositions(max_len, d)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, d_ff or 2 * d) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.output = nn.Linear(d, len(vocab))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (B, n) -> logits (B, n, V); logits[:, t] predict token t+1."""
        x = self.positions(self.embedding(ids) * math.sqrt(self.d))
        mask = causal_mask(ids.shape[1]) if self.causal else None          # (n, n) or everything visible
        for layer in self.layers:
            x, _ = layer(x, mask)
        return self.output(self.norm(x))
