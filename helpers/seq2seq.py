"""Encoder-decoder translators for the course: a bidirectional GRU encoder and two decoders.

* ``FixedContextDecoder`` (no attention): the encoder's summary vector is all the decoder gets
  (Cho et al. 2014: it is fed in again at every step).
* two attention decoders: at every step the decoder asks a scorer module
  (``forward(query, keys, values, mask) -> (context, weights)``, see helpers.attention) for a context
  vector built from ALL encoder states. They differ in their wiring:

  - ``LuongDecoder`` (Luong et al. 2015): the query is the CURRENT state s_t, computed by the recurrent
    cell first; the context is combined with s_t after the cell. Because the cell never sees the context, in
    training (teacher forcing) one ``nn.GRU`` call runs over all target positions at once.
  - ``BahdanauDecoder`` (Bahdanau et al. 2015): the query is the PREVIOUS state s_{t-1}; the context goes
    into the recurrent cell's input together with the embedding. s_t needs c_t, which needs s_{t-1}, so
    even in training the decoder must loop over the target positions one step at a time (``step``).

  Any scorer works in either wiring; the additive one is "Bahdanau's scorer".

Build one with ``make_model(kind="attention" | "none", scorer=None, wiring="luong" | "bahdanau", ...)``.
Shapes: src (batch, n_src) ids, src_mask (batch, 1, n_src) True at real tokens (``helpers.masks.padding_mask``),
tgt_in (batch, n_tgt) ids. The interactive translation explorer is in ``helpers.widgets``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers.attention import SCORERS, Scorer
from helpers.cost import count_parameters
from helpers.masks import padding_mask
from helpers.toylang import Vocab, max_target_length, source_vocab, target_vocab

__all__ = [
    "Batch", "make_batch", "length_batches", "Encoder", "EncoderOutput", "FixedContextDecoder",
    "LuongDecoder", "BahdanauDecoder", "WIRINGS", "Seq2Seq", "make_model", "greedy_decode", "greedy_translate",
    "forced_attention",
]


# ---------------------------------------------------------------- batching
@dataclass
class Batch:
    """Padded tensors of a list of pairs: src (B, S), src_mask (B, 1, S) True at real tokens, tgt_in/out (B, T+1)."""

    src: torch.Tensor
    src_lengths: torch.Tensor
    src_mask: torch.Tensor
    tgt_in: torch.Tensor | None
    tgt_out: torch.Tensor | None


def _pad(seqs: Sequence[Sequence[int]], pad_id: int) -> torch.Tensor:
    width = max((len(s) for s in seqs), default=0)
    return torch.tensor([list(s) + [pad_id] * (width - len(s)) for s in seqs], dtype=torch.long)


def make_batch(pairs, src_vocab: Vocab, tgt_vocab: Vocab | None = None) -> Batch:
    """Pad a list of (src_tokens, tgt_tokens, ...) pairs; tgt_in = <bos> + tgt, tgt_out = tgt + <eos>.

    pairs may also be plain source token lists (then tgt_in/tgt_out are None).
    """
    srcs = [p[0] if isinstance(p, tuple) else p for p in pairs]
    if any(len(s) == 0 for s in srcs):
        raise ValueError("cannot batch an empty source sentence")
    src = _pad([src_vocab.encode(s) for s in srcs], src_vocab.pad_id)
    lengths = torch.tensor([len(s) for s in srcs], dtype=torch.long)
    mask = padding_mask(lengths, src.shape[1])                  # (B, 1, S)
    tgt_in = tgt_out = None
    if tgt_vocab is not None and all(isinstance(p, tuple) for p in pairs):
        tgts = [tgt_vocab.encode(p[1]) for p in pairs]
        tgt_in = _pad([[tgt_vocab.bos_id] + t for t in tgts], tgt_vocab.pad_id)
        tgt_out = _pad([t + [tgt_vocab.eos_id] for t in tgts], tgt_vocab.pad_id)
    return Batch(src, lengths, mask, tgt_in, tgt_out)


def length_batches(lengths: Sequence[int], batch_size: int, seed: int = 0) -> Iterator[list[int]]:
    """Endless stream of index batches of similar length (less padding); a new shuffle every epoch."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    while True:
        rng.shuffle(order)
        order.sort(key=lambda i: lengths[i])            # stable: equal lengths stay shuffled
        chunks = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
        rng.shuffle(chunks)
        yield from chunks


# ---------------------------------------------------------------- encoder
@dataclass
class EncoderOutput:
    """outputs (B, S, 2H) [forward; backward], summary (B, 2H), forward/backward_final (B, H), mask (B, 1, S)."""

    outputs: torch.Tensor
    summary: torch.Tensor
    forward_final: torch.Tensor
    backward_final: torch.Tensor | None
    mask: torch.Tensor


def _reverse_within_length(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse each sequence's real positions, leaving padding at the end.  # (B, S, d) -> (B, S, d)"""
    S = x.shape[1]
    pos = torch.arange(S)[None, :]
    idx = torch.where(pos < lengths[:, None], lengths[:, None] - 1 - pos, pos)  # (B, S)
    return x.gather(1, idx[:, :, None].expand(-1, -1, x.shape[2]))


class Encoder(nn.Module):
    """Embedding + GRU read left to right, and (bidirectional) a second GRU right to left; states concatenated."""

    def __init__(self, vocab_size: int, emb: int, hidden: int, bidirectional: bool = True):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb, padding_idx=0)
        self.forward_rnn = nn.GRU(emb, hidden, batch_first=True)
        self.backward_rnn = nn.GRU(emb, hidden, batch_first=True) if bidirectional else None
        self.hidden = hidden
        self.output_size = hidden * (2 if bidirectional else 1)

    def forward(self, src: torch.Tensor, lengths: torch.Tensor, src_mask: torch.Tensor) -> EncoderOutput:
        """src (B, S) ids -> EncoderOutput."""
        x = self.embedding(src)
        return self.encode_embedded(x, x, lengths, src_mask)

    def encode_embedded(self, x_fwd, x_bwd, lengths, src_mask) -> EncoderOutput:
        """Encode already-embedded inputs (B, S, emb); two inputs so a probe can follow each direction's gradient."""
        last = (lengths - 1)[:, None, None]
        fwd, _ = self.forward_rnn(x_fwd)                                              # (B, S, H)
        fwd_final = fwd.gather(1, last.expand(-1, 1, fwd.shape[2])).squeeze(1)        # state after the last word
        if self.backward_rnn is None:
            return EncoderOutput(fwd, fwd_final, fwd_final, None, src_mask)
        bwd_rev, _ = self.backward_rnn(_reverse_within_length(x_bwd, lengths))
        bwd_final = bwd_rev.gather(1, last.expand(-1, 1, bwd_rev.shape[2])).squeeze(1)  # state after the first word
        bwd = _reverse_within_length(bwd_rev, lengths)
        outputs = torch.cat([fwd, bwd], dim=-1) * src_mask.transpose(1, 2)           # padding states set to 0
        return EncoderOutput(outputs, torch.cat([fwd_final, bwd_final], dim=-1), fwd_final, bwd_final, src_mask)


# ---------------------------------------------------------------- decoders
class FixedContextDecoder(nn.Module):
    """GRU decoder that sees only the encoder summary c: s_0 = tanh(W c), input [y_{t-1}; c] at every step."""

    has_attention = False

    def __init__(self, vocab_size: int, emb: int, hidden: int, context_size: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb, padding_idx=0)
        self.init = nn.Linear(context_size, hidden)
        self.rnn = nn.GRU(emb + context_size, hidden, batch_first=True)
        self.pre_output = nn.Linear(hidden + context_size + emb, hidden)
        self.output = nn.Linear(hidden, vocab_size)

    def initial_state(self, enc: EncoderOutput) -> torch.Tensor:
        """(1, B, hidden) first decoder state from the summary."""
        return torch.tanh(self.init(enc.summary))[None]

    def forward(self, tgt_in: torch.Tensor, enc: EncoderOutput, state: torch.Tensor):
        """tgt_in (B, T) -> logits (B, T, V), weights None, new state (1, B, hidden)."""
        e = self.embedding(tgt_in)                                            # (B, T, emb)
        c = enc.summary[:, None, :].expand(-1, e.shape[1], -1)                # (B, T, 2H)
        s, state = self.rnn(torch.cat([e, c], dim=-1), state)                  # (B, T, hidden)
        logits = self.output(torch.tanh(self.pre_output(torch.cat([s, c, e], dim=-1))))
        return logits, None, state


class _AttentionDecoder(nn.Module):
    """What both attention wirings share: the embedding, the first state from the summary, the scorer, the
    optional key projection, dropout on the context and the readout [s_t; c_t; e] -> logits. A subclass builds
    its recurrent part in `make_recurrent`, called where the parameters are created in order (that order sets
    the initial weights, and so every committed number)."""

    has_attention = True

    def __init__(self, vocab_size: int, emb: int, hidden: int, context_size: int, scorer: nn.Module,
                 project_keys: bool = False, context_dropout: float = 0.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb, padding_idx=0)
        self.init = nn.Linear(context_size, hidden)
        self.make_recurrent(emb, hidden, context_size)
        self.scorer = scorer
        self.key_proj = nn.Linear(context_size, hidden, bias=False) if project_keys else nn.Identity()
        self.context_dropout = nn.Dropout(context_dropout)
        self.pre_output = nn.Linear(hidden + context_size + emb, hidden)
        self.output = nn.Linear(hidden, vocab_size)

    def make_recurrent(self, emb: int, hidden: int, context_size: int) -> None:
        """Create the recurrent part (the one thing the wirings build differently)."""
        raise NotImplementedError

    def initial_state(self, enc: EncoderOutput) -> torch.Tensor:
        """(1, B, hidden) first decoder state from the summary."""
        return torch.tanh(self.init(enc.summary))[None]

    def readout(self, state: torch.Tensor, context: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        """(..., hidden), (..., 2H), (..., emb) -> logits (..., V)"""
        return self.output(torch.tanh(self.pre_output(torch.cat([state, context, e], dim=-1))))


class LuongDecoder(_AttentionDecoder):
    """Luong's wiring: s_t = GRU(y_{t-1}, s_{t-1}); c_t = attend(query s_t); output from [s_t; c_t; y_{t-1}].

    The wiring is Luong's: the query is the current state s_t (after the GRU step) and the context is combined
    with s_t after the cell. scorer: any helpers.attention.Scorer, or a module with
    forward(query (B, T, hidden), keys (B, S, key_size), values (B, S, 2H), mask (B, 1, S))
    -> (context (B, T, 2H), weights (B, T, S)). key_size is 2H, or `hidden` when project_keys is on
    (needed by dot-product scorers, whose query and key sizes must match).
    context_dropout: dropout on the context vector (the scorer's own `dropout` acts on the weights).
    """

    wiring = "luong"

    def make_recurrent(self, emb: int, hidden: int, context_size: int) -> None:
        """An nn.GRU over the embeddings alone, so it runs over all target positions in one call."""
        self.rnn = nn.GRU(emb, hidden, batch_first=True)

    def forward(self, tgt_in: torch.Tensor, enc: EncoderOutput, state: torch.Tensor):
        """tgt_in (B, T) -> logits (B, T, V), weights (B, T, S), new state (1, B, hidden)."""
        e = self.embedding(tgt_in)
        s, state = self.rnn(e, state)                                                  # (B, T, hidden)
        keys = self.key_proj(enc.outputs)
        context, weights = self.scorer(s, keys, enc.outputs, mask=enc.mask)   # (B, T, 2H), (B, T, S)
        context = self.context_dropout(context)
        return self.readout(s, context, e), weights, state


class BahdanauDecoder(_AttentionDecoder):
    """Bahdanau's wiring: c_t = attend(query s_{t-1}); s_t = GRUCell([y_{t-1}; c_t], s_{t-1}); output from
    [s_t; c_t; y_{t-1}]. Same parts and sizes as LuongDecoder except the cell's input, which also takes c_t.

    `step` is one decoder step (the computation chapter 05 writes out): `update` (attend, recurrent step), then
    `readout`; `forward` loops `update` over the targets.
    """

    wiring = "bahdanau"

    def make_recurrent(self, emb: int, hidden: int, context_size: int) -> None:
        """A GRUCell whose input is [e; c_t], one step at a time."""
        self.cell = nn.GRUCell(emb + context_size, hidden)

    def update(self, y_prev: torch.Tensor, state: torch.Tensor, keys: torch.Tensor, enc: EncoderOutput,
               prepared: torch.Tensor | None = None):
        """A step without its readout: e (B, emb), context c_t (B, 2H), weights (B, S), new state s_t (B, hidden).

        y_prev (B,) ids, state s_{t-1} (B, hidden), keys (B, S, key_size) = key_proj(enc.outputs); prepared =
        scorer.prepare_keys(keys) (optional) saves recomputing the key side of the scores at every step.
        """
        e = self.embedding(y_prev)                                                    # (B, emb)
        extra = {} if prepared is None else {"prepared": prepared}
        context, weights = self.scorer(state[:, None, :], keys, enc.outputs, mask=enc.mask, **extra)  # query s_{t-1}
        context = self.context_dropout(context[:, 0])                                 # (B, 2H)
        state = self.cell(torch.cat([e, context], dim=-1), state)                     # s_t: (B, hidden)
        return e, context, weights[:, 0], state

    def step(self, y_prev: torch.Tensor, state: torch.Tensor, keys: torch.Tensor, enc: EncoderOutput,
             prepared: torch.Tensor | None = None):
        """One step (arguments as `update`): logits (B, V), weights (B, S), new state s_t (B, hidden)."""
        e, context, weights, state = self.update(y_prev, state, keys, enc, prepared)
        return self.readout(state, context, e), weights, state

    def forward(self, tgt_in: torch.Tensor, enc: EncoderOutput, state: torch.Tensor):
        """tgt_in (B, T) -> logits (B, T, V), weights (B, T, S), new state (1, B, hidden).

        Only the recurrence must loop over the T steps; the readout needs no result of a later step, so it runs
        once over all of them, and the key side of the scores (e.g. W_k h_s) is computed once per sentence.
        """
        keys, s = self.key_proj(enc.outputs), state[0]
        prepared = self.scorer.prepare_keys(keys) if isinstance(self.scorer, Scorer) else None
        es, contexts, weights, states = [], [], [], []
        for t in range(tgt_in.shape[1]):
            e, c, w, s = self.update(tgt_in[:, t], s, keys, enc, prepared)
            es.append(e)
            contexts.append(c)
            weights.append(w)
            states.append(s)
        logits = self.readout(torch.stack(states, 1), torch.stack(contexts, 1), torch.stack(es, 1))
        return logits, torch.stack(weights, 1), s[None]


WIRINGS = {"luong": LuongDecoder, "bahdanau": BahdanauDecoder}


# ---------------------------------------------------------------- the model
class Seq2Seq(nn.Module):
    """Encoder + decoder + the two vocabularies (so the model can translate token lists on its own)."""

    def __init__(self, encoder: Encoder, decoder: nn.Module, src_vocab: Vocab, tgt_vocab: Vocab, config: dict):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        self.config = dict(config)

    @property
    def has_attention(self) -> bool:
        """True when the decoder attends over the encoder states (and so returns weights to plot)."""
        return self.decoder.has_attention

    def encode(self, batch: Batch) -> EncoderOutput:
        """Run the encoder on a batch."""
        return self.encoder(batch.src, batch.src_lengths, batch.src_mask)

    def forward(self, batch: Batch):
        """Teacher-forced pass: logits (B, T+1, V) and attention weights (B, T+1, S) or None."""
        enc = self.encode(batch)
        logits, weights, _ = self.decoder(batch.tgt_in, enc, self.decoder.initial_state(enc))
        return logits, weights

    def loss(self, batch: Batch) -> torch.Tensor:
        """Mean cross-entropy per target token (padding ignored)."""
        logits, _ = self(batch)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch.tgt_out.reshape(-1),
                               ignore_index=self.tgt_vocab.pad_id)

    def n_parameters(self) -> int:
        """Number of trainable parameters (helpers.cost.count_parameters of the whole model)."""
        return count_parameters(self)


def make_model(kind: str = "attention", scorer: nn.Module | str | None = None, emb: int = 64, hidden: int = 128,
               attn_hidden: int | None = 64, context_dropout: float = 0.0, attn_dropout: float = 0.0,
               bidirectional: bool = True, project_keys: bool | None = None, seed: int | None = None,
               wiring: str = "luong", decoder_hidden: int | None = None) -> Seq2Seq:
    """Build a translator for the toy languages.

    kind: "attention" or "none" (fixed context). scorer: None (additive, Bahdanau's scorer), a name from
    helpers.attention.SCORERS (built with its class's `from_sizes`), or any module with
    forward(query, keys, values, mask) -> (context, weights); a module gets query size `hidden` and key size
    2*hidden (bidirectional) or `hidden` with project_keys=True. project_keys=None follows the scorer's class
    attribute `needs_equal_sizes` (dot products need queries and keys of one size).
    wiring: "luong" (query s_t, context after the cell) or "bahdanau" (query s_{t-1}, context into the cell).
    attn_hidden: size of the additive scorer's hidden layer (64 keeps training fast on a CPU; None: `hidden`).
    attn_dropout builds a named scorer with dropout on the weights; context_dropout drops context entries.
    seed: seed torch before creating parameters (same seed, same initial weights).
    decoder_hidden (kind="none" only): the decoder GRU's size when it differs from the encoder's `hidden`, so a
    one-way encoder twice as wide can be compared with a two-way one at an equal context size and decoder.
    """
    attn_hidden = hidden if attn_hidden is None else attn_hidden
    if kind not in ("attention", "none"):
        raise ValueError(f"kind must be 'attention' or 'none', got {kind!r}")
    if wiring not in WIRINGS:
        raise ValueError(f"wiring must be one of {sorted(WIRINGS)}, got {wiring!r}")
    if seed is not None:
        torch.manual_seed(seed)
    src_vocab, tgt_vocab = source_vocab(), target_vocab()
    encoder = Encoder(len(src_vocab), emb, hidden, bidirectional=bidirectional)
    ctx = encoder.output_size
    config = dict(kind=kind, emb=emb, hidden=hidden, bidirectional=bidirectional)
    if decoder_hidden is not None and kind != "none":
        raise ValueError("decoder_hidden applies to kind='none' only (an attention decoder's size is `hidden`)")
    if kind == "none":
        if scorer is not None:
            raise ValueError("a model with kind='none' has no attention, so it takes no scorer")
        if decoder_hidden is not None:
            config["decoder_hidden"] = decoder_hidden
        decoder = FixedContextDecoder(len(tgt_vocab), emb, hidden if decoder_hidden is None else decoder_hidden, ctx)
    else:
        name = scorer if isinstance(scorer, str) else ("additive" if scorer is None else type(scorer).__name__)
        if scorer is None or isinstance(scorer, str):
            if name not in SCORERS:
                raise ValueError(f"unknown scorer {name!r}; expected one of {sorted(SCORERS)} or a Scorer module")
            scorer_class: type = SCORERS[name]
        else:
            scorer_class = type(scorer)
        if project_keys is None:
            project_keys = bool(getattr(scorer_class, "needs_equal_sizes", False))
        key_size = hidden if project_keys else ctx
        if not isinstance(scorer, nn.Module):
            scorer = scorer_class.from_sizes(hidden, key_size, attn_hidden, dropout=attn_dropout)
        elif attn_dropout:
            raise ValueError("attn_dropout only applies to a scorer built by name; give your module its own dropout")
        decoder = WIRINGS[wiring](len(tgt_vocab), emb, hidden, ctx, scorer, project_keys=project_keys,
                                  context_dropout=context_dropout)
        config.update(scorer=name, wiring=wiring, attn_hidden=attn_hidden, context_dropout=context_dropout,
                      attn_dropout=attn_dropout, project_keys=project_keys)
    return Seq2Seq(encoder, decoder, src_vocab, tgt_vocab, config)


# ---------------------------------------------------------------- decoding
@torch.no_grad()
def greedy_decode(model: Seq2Seq, batch: Batch, max_len: int | None = None):
    """Greedy decoding of a batch: (token lists, weights) with weights a list of (n_out, n_src) tensors or Nones.

    Each sentence stops at its first <eos> (the <eos> step is not returned); at most max_len words
    (default: `helpers.toylang.max_target_length` of the longest source, + 1 for the <eos>). A model with its
    own `greedy_decode(batch, max_len)` method (the Transformer of helpers.transformer) decodes itself; the
    result has the same form.
    """
    own = getattr(model, "greedy_decode", None)
    if callable(own):
        return own(batch, max_len)
    was_training = model.training
    model.eval()
    try:
        enc = model.encode(batch)
        state = model.decoder.initial_state(enc)
        B = batch.src.shape[0]
        max_len = max_len or max_target_length(int(batch.src_lengths.max())) + 1
        tv = model.tgt_vocab
        y = torch.full((B, 1), tv.bos_id, dtype=torch.long)
        done = torch.zeros(B, dtype=torch.bool)
        out_ids, out_w = [], []
        for _ in range(max_len):
            logits, w, state = model.decoder(y, enc, state)
            y = logits[:, -1].argmax(-1, keepdim=True)          # (B, 1)
            out_ids.append(y[:, 0])
            if w is not None:
                out_w.append(w[:, -1])                           # (B, S)
            done |= y[:, 0] == tv.eos_id
            if bool(done.all()):
                break
        ids = torch.stack(out_ids, 1)                            # (B, T)
        weights = torch.stack(out_w, 1) if out_w else None       # (B, T, S)
        tokens, wlist = [], []
        for b in range(B):
            words = tv.decode(ids[b].tolist())
            tokens.append(words)
            n_src = int(batch.src_lengths[b])
            wlist.append(None if weights is None else weights[b, : len(words), :n_src].clone())
        return tokens, wlist
    finally:
        model.train(was_training)


def greedy_translate(model: Seq2Seq, sources: Sequence[Sequence[str]], batch_size: int = 100,
                     max_len: int | None = None):
    """Translate token lists (batched by length); returns (hypotheses, weights) in the input order."""
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    hyps: list = [None] * len(sources)
    weights: list = [None] * len(sources)
    for k in range(0, len(order), batch_size):
        idx = order[k:k + batch_size]
        batch = make_batch([list(sources[i]) for i in idx], model.src_vocab)
        toks, ws = greedy_decode(model, batch, max_len=max_len)
        for i, t, w in zip(idx, toks, ws, strict=False):
            hyps[i], weights[i] = t, w
    return hyps, weights


@torch.no_grad()
def forced_attention(model: Seq2Seq, pairs, batch_size: int = 100, eos: bool = False) -> list[torch.Tensor]:
    """Attention weights with the reference target fed in (teacher forcing): one (n_tgt, n_src) tensor per pair;
    eos=True keeps the last row too, the one that writes <eos>: (n_tgt + 1, n_src)."""
    if not model.has_attention:
        raise ValueError("this model has no attention (kind='none'), so it has no attention weights")
    was_training = model.training
    model.eval()
    out = []
    try:
        for k in range(0, len(pairs), batch_size):
            chunk = pairs[k:k + batch_size]
            batch = make_batch([tuple(p) for p in chunk], model.src_vocab, model.tgt_vocab)
            _, w = model(batch)
            for b, p in enumerate(chunk):
                out.append(w[b, : len(p[1]) + int(eos), : len(p[0])].clone())
    finally:
        model.train(was_training)
    return out
