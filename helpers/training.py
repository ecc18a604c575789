"""Train a translator on a step budget and evaluate it by source-length bucket."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import torch

from helpers import i18n
from helpers.metrics import alignment_accuracy, corpus_bleu, exact_match
from helpers.seq2seq import Seq2Seq, forced_attention, greedy_translate, length_batches, make_batch

__all__ = ["TrainLog", "train", "evaluate", "evaluate_buckets", "gradient_to_first_word", "gradient_by_length",
           "final_states", "linear_probe_accuracy", "probe_nouns", "NOUN_PLACES", "results_table"]


@dataclass
class TrainLog:
    """What a training run did: steps, per-step losses, wall and CPU seconds."""

    steps: int = 0
    losses: list = field(default_factory=list)
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0

    def final_loss(self, last: int = 50) -> float:
        """Mean loss over the last `last` steps."""
        tail = self.losses[-last:]
        return sum(tail) / max(len(tail), 1)


# a model's name for a progress bar, by its config["kind"] (seq2seq.make_model, transformer.make_transformer)
MODEL_NAMES = i18n.Labels({"none": "training.kind_none", "attention": "training.kind_attention",
                           "transformer": "training.kind_transformer"})


def train(model: Seq2Seq, pairs: Sequence, steps: int, batch_size: int = 64, lr: float = 3e-3,
          clip: float = 1.0, seed: int = 0, time_budget: float | None = None, progress: bool = True,
          warmup: int = 50, decay_to: float = 0.1, callback=None, callback_steps: Sequence[int] = (),
          stop_after: int | None = None) -> TrainLog:
    """Adam on teacher-forced cross-entropy for `steps` batches (length-bucketed, shuffled from `seed`).

    time_budget (seconds of wall time) stops early, for interactive use only: results then depend on the
    machine, so notebooks use the step budget. The learning rate warms up for `warmup` steps, then decays
    linearly to lr * decay_to at the last step. Shows a tqdm.auto bar when progress=True.
    callback(step, model) is called (in eval mode, gradients off) after `step` updates for every step in
    callback_steps: 0 is the untrained model, `steps` the trained one. Its time is not counted in the log.
    stop_after (< steps) ends the run early on the same schedule: the model then matches, step for step, another
    model's snapshot at that step of a full run with the same seed.
    """
    from tqdm.auto import tqdm

    if steps <= 0:
        raise ValueError(f"steps must be positive, got {steps}")
    if stop_after is not None and not 0 < stop_after <= steps:
        raise ValueError(f"stop_after must lie in 1..steps={steps}, got {stop_after}")
    last = steps if stop_after is None else stop_after
    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 1.0 - (1.0 - decay_to) * (step - warmup) / max(steps - warmup, 1)

    sched = torch.optim.lr_scheduler.LambdaLR(opt, schedule)
    stream = length_batches([len(p[0]) for p in pairs], batch_size, seed=seed)
    log = TrainLog()
    model.train()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    name = MODEL_NAMES.get(model.config["kind"], model.config["kind"])
    bar = tqdm(total=last, disable=not progress, desc=i18n.t("training.progress", kind=name), leave=False)
    wanted = sorted(set(callback_steps))
    if wanted and (wanted[0] < 0 or wanted[-1] > last or callback is None):
        raise ValueError(f"callback_steps must lie in 0..{last} and need a callback; got {wanted}")
    paused = 0.0

    def call_back(step: int) -> None:
        nonlocal paused
        if step in wanted:
            t0 = time.process_time()
            model.eval()
            with torch.no_grad():
                callback(step, model)
            model.train()
            paused += time.process_time() - t0

    call_back(0)
    for step in range(last):
        batch = make_batch([pairs[i] for i in next(stream)], model.src_vocab, model.tgt_vocab)
        loss = model.loss(batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        sched.step()
        log.losses.append(loss.item())
        log.steps = step + 1
        if step % 20 == 0:
            bar.set_postfix(loss=f"{log.final_loss(20):.3f}")
        bar.update(1)
        if step + 1 < last:
            call_back(step + 1)
        if time_budget is not None and time.perf_counter() - wall0 > time_budget:
            break
    bar.close()
    log.wall_seconds = time.perf_counter() - wall0
    log.cpu_seconds = time.process_time() - cpu0 - paused
    if log.steps == last:
        call_back(last)
    model.eval()
    return log


def evaluate(model: Seq2Seq, pairs: Sequence, batch_size: int = 100) -> dict:
    """BLEU, exact match (both 0-100, against every valid reference) and, for attention models, alignment
    accuracy (0-100) and attention mass on the gold sets (0-1) on `pairs`."""
    from helpers.metrics import attention_mass_on_gold
    from helpers.toylang import max_target_length, references

    def all_references(src, tgt):
        try:
            refs = references(src)
        except ValueError:                  # not a rich-grammar sentence (e.g. the simple grammar's)
            return [list(tgt)]
        return refs if list(tgt) in refs else [list(tgt)]

    max_len = max_target_length(max((len(p[0]) for p in pairs), default=1)) + 1
    hyps, _ = greedy_translate(model, [p[0] for p in pairs], batch_size=batch_size, max_len=max_len)
    refs = [all_references(p[0], p[1]) for p in pairs]
    result = {"bleu": corpus_bleu(hyps, refs), "exact": exact_match(hyps, refs), "n": len(pairs)}
    if model.has_attention:
        weights, gold = forced_attention(model, pairs, batch_size), [p[2] for p in pairs]
        result["align"] = alignment_accuracy(weights, gold)
        result["mass"] = attention_mass_on_gold(weights, gold)
    return result


def evaluate_buckets(model: Seq2Seq, buckets: dict, limit: int | None = None, batch_size: int = 100) -> dict:
    """evaluate() on every bucket: {name: {"bleu", "exact", "n"[, "align"]}}; `limit` sentences per bucket."""
    return {name: evaluate(model, pairs[:limit] if limit else pairs, batch_size) for name, pairs in buckets.items()}


def gradient_to_first_word(model: Seq2Seq, pairs: Sequence, direction: str = "forward",
                           last_words: int | None = None) -> float:
    """Mean norm of d(loss)/d(embedding of the first source word) over `pairs`, one sentence at a time.

    For each (src, tgt, ...) pair: the source embeddings x (1, S, emb) go into the encoder, the loss is the
    summed cross-entropy of the reference translation under teacher forcing, and the gradient is taken at
    x[0, 0] (emb numbers). direction="both": the gradient through the whole encoder (the first word reaches the
    summary along the left-to-right chain and, one step from the end, through the right-to-left reading);
    "forward": only what arrives along the left-to-right chain (the right-to-left input is held fixed).
    last_words=k sums the loss over the last k words of the reference only (the end token left out; all of
    them when the reference is shorter): how much the end of the translation can still teach the first word.
    None: the loss of every word and the end token.
    """
    if direction not in ("forward", "both"):
        raise ValueError(f"direction must be 'forward' or 'both', got {direction!r}")
    if last_words is not None and (isinstance(last_words, bool) or not isinstance(last_words, int)
                                   or last_words < 1):
        raise ValueError(f"last_words must be a positive whole number or None, got {last_words!r}")
    model.eval()
    norms = []
    for p in pairs:
        batch = make_batch([tuple(p)], model.src_vocab, model.tgt_vocab)
        emb = model.encoder.embedding(batch.src).detach()                       # (1, S, emb)
        x_fwd = emb.clone().requires_grad_(True)
        x_bwd = x_fwd if direction == "both" else emb.clone()                   # one tensor: both paths count
        enc = model.encoder.encode_embedded(x_fwd, x_bwd, batch.src_lengths, batch.src_mask)
        logits, _, _ = model.decoder(batch.tgt_in, enc, model.decoder.initial_state(enc))   # (1, T+1, V)
        n_words = len(p[1])
        keep = slice(0, n_words + 1) if last_words is None else slice(max(n_words - last_words, 0), n_words)
        loss = torch.nn.functional.cross_entropy(logits[0, keep], batch.tgt_out[0, keep], reduction="sum")
        (grad,) = torch.autograd.grad(loss, [x_fwd], allow_unused=True)
        norms.append(0.0 if grad is None else float(grad[0, 0].norm()))
    return sum(norms) / max(len(norms), 1)


def gradient_by_length(model: Seq2Seq, lengths: Sequence[int], n: int = 20, seed: int = 0,
                       direction: str = "forward", last_words: int | None = None) -> dict[int, float]:
    """gradient_to_first_word on n generated sentences of each exact length: {length: mean gradient norm}."""
    from helpers.toylang import sample_pairs

    return {L: gradient_to_first_word(model, sample_pairs(n, L, L, seed=seed + L), direction, last_words)
            for L in lengths}


# ---------------------------------------------------------------- the gradient to a target word's aligned source word
__all__ += ["chain_distance", "aligned_gradients", "aligned_gradient_cells"]


def chain_distance(i: int, length: int, bidirectional: bool = True) -> int:
    """Encoder steps from source word i (0-based) of a `length`-word sentence to the nearer final state the
    decoder receives: min(i, length - 1 - i) with two readings (the right-to-left one ends on word 0), length - 1 - i
    with one. Chapter 01's decoder takes the summary at every step, so no decoder steps are added."""
    if not 0 <= i < length:
        raise ValueError(f"source position {i} lies outside a sentence of {length} words")
    return min(i, length - 1 - i) if bidirectional else length - 1 - i


def aligned_gradients(model: Seq2Seq, pairs: Sequence) -> list[dict]:
    """|d loss_j / d x_i| for every target word j and each source word i of its gold set (teacher forcing).

    pairs: (src, tgt, align) with align[j] the gold source positions of target word j (words with none are left
    out). loss_j is the cross-entropy of target word j alone (not the end token); x_i the embedding (emb numbers)
    of source word i, fed to both readings of the encoder (the gradient training gets). One dict per (sentence,
    j, i): sentence (index in pairs), length S, i, j, distance (`chain_distance`), grad = |d loss_j / d x_i|,
    error = |d loss_j / d logits_j| (the error the output step sends back: |softmax - one-hot|), share = grad /
    sum over all source words k of |d loss_j / d x_k|, and loss = loss_j. Each sentence runs as one batch of
    copies, copy r carrying the loss of one target word, so one backward pass gives every j's gradient.
    """
    model.eval()
    two_way = model.encoder.backward_rnn is not None
    rows: list[dict] = []
    for n, p in enumerate(pairs):
        src, align = p[0], p[2]
        targets = [j for j, gold in enumerate(align) if gold]
        if not targets:
            continue
        k = len(targets)
        batch = make_batch([tuple(p)] * k, model.src_vocab, model.tgt_vocab)
        x = model.encoder.embedding(batch.src).detach().requires_grad_(True)          # (k, S, emb)
        enc = model.encoder.encode_embedded(x, x, batch.src_lengths, batch.src_mask)
        logits, _, _ = model.decoder(batch.tgt_in, enc, model.decoder.initial_state(enc))   # (k, T+1, V)
        copy, at = torch.arange(k), torch.tensor(targets)
        out = logits[copy, at]                                                          # (k, V): word j of copy r
        losses = torch.nn.functional.cross_entropy(out, batch.tgt_out[copy, at], reduction="none")   # (k,)
        grad_x, grad_out = torch.autograd.grad(losses.sum(), [x, out])
        norms, errors = grad_x.norm(dim=-1), grad_out.norm(dim=-1)                      # (k, S), (k,)
        totals = norms.sum(dim=1)                                                       # (k,)
        for r, j in enumerate(targets):
            for i in align[j]:
                g = float(norms[r, i])
                rows.append(dict(sentence=n, length=len(src), i=i, j=j,
                                 distance=chain_distance(i, len(src), two_way), grad=g, error=float(errors[r]),
                                 share=g / float(totals[r]), loss=float(losses[r].detach())))
    return rows


def aligned_gradient_cells(model: Seq2Seq, buckets: dict) -> list[dict]:
    """aligned_gradients on every bucket's pairs, pooled per (bucket, distance): one dict each with set (the
    bucket), distance, n (aligned pairs) and the means over them of grad, per_error (grad / error; 0 where the output
    has no error left, so no gradient either), share, loss."""
    cells = []
    for name, pairs in buckets.items():
        groups: dict[int, list[dict]] = {}
        for r in aligned_gradients(model, pairs):
            groups.setdefault(r["distance"], []).append(r)
        for d in sorted(groups):
            rs = groups[d]
            cells.append(dict(set=name, distance=d, n=len(rs),
                              grad=sum(r["grad"] for r in rs) / len(rs),
                              per_error=sum(r["grad"] / r["error"] if r["error"] > 0 else 0.0 for r in rs) / len(rs),
                              share=sum(r["share"] for r in rs) / len(rs),
                              loss=sum(r["loss"] for r in rs) / len(rs)))
    return cells


# ---------------------------------------------------------------- probing the final encoder state
def _noun_targets(src: Sequence[str]) -> dict[str, str]:
    """The first, middle (closest to the sentence centre) and last noun of a source sentence."""
    from helpers.toylang import is_noun

    idx = [i for i, w in enumerate(src) if is_noun(w)]
    middle = min(idx, key=lambda i: (abs(i - (len(src) - 1) / 2), i))
    return {"first": src[idx[0]], "middle": src[middle], "last": src[idx[-1]]}


@torch.no_grad()
def final_states(model: Seq2Seq, sources: Sequence[Sequence[str]], state: str = "forward") -> torch.Tensor:
    """Frozen encoder states after reading each sentence  # (n, H) for "forward"/"backward", (n, 2H) for "both"."""
    model.eval()
    enc = model.encode(make_batch([list(s) for s in sources], model.src_vocab))
    states = {"forward": enc.forward_final, "backward": enc.backward_final, "both": enc.summary}
    if state not in states or states[state] is None:
        raise ValueError("state must be one of 'forward', 'backward' (bidirectional encoders) or 'both'; "
                         f"got {state!r}")
    return states[state]


def linear_probe_accuracy(features: torch.Tensor, labels: Sequence[str], fit_share: float = 0.8,
                          ridge: float = 1.0) -> float:
    """Fit a linear read-out (ridge least squares onto one-hot labels) on the first `fit_share` of the rows;
    return its accuracy (0-100) on the rest.  features (n, d), labels n strings."""
    classes = sorted(set(labels))
    y = torch.tensor([classes.index(c) for c in labels])
    n_fit = int(len(labels) * fit_share)
    X = features.double()
    mu, sd = X[:n_fit].mean(0), X[:n_fit].std(0) + 1e-6
    X = torch.cat([(X - mu) / sd, torch.ones(len(X), 1, dtype=X.dtype)], dim=1)
    Y = torch.nn.functional.one_hot(y[:n_fit], len(classes)).double()
    A = X[:n_fit].T @ X[:n_fit] + ridge * torch.eye(X.shape[1], dtype=X.dtype)
    W = torch.linalg.solve(A, X[:n_fit].T @ Y)
    return 100.0 * float(((X[n_fit:] @ W).argmax(-1) == y[n_fit:]).double().mean())


def probe_nouns(model: Seq2Seq, pairs: Sequence, state: str = "forward",
                which: Sequence[str] = ("first", "last")) -> dict[str, float]:
    """How well a linear probe recovers the first/middle/last noun from the frozen final state: {which: accuracy}."""
    feats = final_states(model, [p[0] for p in pairs], state)
    targets = [_noun_targets(p[0]) for p in pairs]
    return {w: linear_probe_accuracy(feats, [t[w] for t in targets]) for w in which}


# the nouns `probe_nouns` reads, as a reader sees them in the current language: NOUN_PLACES["middle"] -> "middle"
NOUN_PLACES = i18n.Labels({"first": "training.noun_first", "middle": "training.noun_middle",
                           "last": "training.noun_last"})


# ---------------------------------------------------------------- reporting
def results_table(results: dict[str, dict], metrics: Sequence[str] = ("bleu", "exact")) -> dict:
    """{bucket: {"model metric": value}} from {model: {bucket: {metric: value}}}, for helpers.tables.format_table."""
    # the column names in the current language
    names = i18n.Labels({"bleu": "tables.bleu", "exact": "tables.exact", "align": "tables.align"})
    table: dict = {}
    for model, by_bucket in results.items():
        for bucket, res in by_bucket.items():
            for k in metrics:
                if k in res:
                    table.setdefault(bucket, {})[f"{model} {names.get(k, k)}"] = res[k]
    return table


# ---------------------------------------------------------------- chapter 05: alignment while training, by word class
__all__ += ["alignment_scores", "uniform_attention_baseline", "word_class", "word_class_label", "WORD_CLASSES",
            "alignment_by_class", "count_forward_calls"]


def alignment_scores(model: Seq2Seq, pairs: Sequence) -> dict[str, float]:
    """Teacher-forced alignment accuracy (0-100) and attention mass on gold (0-1) on (src, tgt, align) pairs."""
    from helpers.metrics import attention_mass_on_gold

    weights, gold = forced_attention(model, list(pairs)), [p[2] for p in pairs]
    return {"align": alignment_accuracy(weights, gold), "mass": attention_mass_on_gold(weights, gold)}


def uniform_attention_baseline(pairs: Sequence) -> dict[str, float]:
    """What attention spread evenly over the source scores, with no information: {"align": %, "mass": 0-1}.

    Over target words with a non-empty gold set: a uniformly random most-attended position is in the set with
    probability |set| / n_src (align, in %), and uniform weights put that share of the mass on it (mass).
    """
    shares = [len(a) / len(p[0]) for p in pairs for a in p[2] if len(a) > 0]
    if not shares:
        raise ValueError("no target word with a gold source position in these pairs")
    mean = sum(shares) / len(shares)
    return {"align": 100.0 * mean, "mass": mean}


def word_class(src: Sequence[str], alignment: Sequence[Sequence[int]], j: int) -> str:
    """The class of target word j, read off its gold set and the source words it translates.

    "no source" (empty set: de, le), "measure word" (determiner + noun), "phrasal verb" (two verb words),
    "circumposition, 1st half" / "2nd half" (the two target words of one preposition), "clause joiner",
    "relative de" (who/which), else the source word's category: "determiner", "adjective", "noun", "verb".
    """
    from helpers.toylang import CATEGORY

    gold = tuple(alignment[j])
    if not gold:
        return "no source"
    cats = [CATEGORY.get(src[i], "?") for i in gold]
    if len(gold) > 1:
        return "measure word" if "det" in cats else "phrasal verb" if "verb_phrasal" in cats else "two source words"
    cat = cats[0]
    if cat == "prep":
        first = next(k for k, a in enumerate(alignment) if tuple(a) == gold)
        return "circumposition, 1st half" if first == j else "circumposition, 2nd half"
    names = {"det": "determiner", "adj": "adjective", "noun": "noun", "conj": "clause joiner", "rel": "relative de",
             "verb_t": "verb", "verb_i": "verb", "verb_phrasal": "verb"}
    return names.get(cat, cat)


# every class `word_class` returns, with its label in the current language (tables and verdicts of chapter 05)
WORD_CLASSES = i18n.Labels({
    "no source": "training.class_no_source", "measure word": "training.class_measure_word",
    "phrasal verb": "training.class_phrasal_verb", "two source words": "training.class_two_source_words",
    "circumposition, 1st half": "training.class_circumposition_1", "circumposition, 2nd half":
    "training.class_circumposition_2", "clause joiner": "training.class_clause_joiner",
    "relative de": "training.class_relative_de", "determiner": "training.class_determiner",
    "adjective": "training.class_adjective", "noun": "training.class_noun", "verb": "training.class_verb"})


def word_class_label(name: str) -> str:
    """A word class of `word_class` as a reader sees it in the current language (an unknown one unchanged)."""
    return WORD_CLASSES[name] if name in WORD_CLASSES else name


def alignment_by_class(weights: Sequence, pairs: Sequence) -> dict[str, dict[str, float]]:
    """Alignment per target-word class (`word_class`): {class: {"n", "align" (%), "mass" (0-1), "early" (%),
    "misses", "early_misses"}}.

    weights: one (n_tgt, n_src) map per pair (e.g. forced_attention). "early": the share of the class's misses
    whose most-attended position is the one just before its gold set (a systematic one-step-early miss);
    "misses" and "early_misses" are the counts behind it (so a report can say "1 of 212", not "0%").
    Words without a source are left out (they have nothing to be right about).
    """
    if len(weights) != len(pairs):
        raise ValueError(f"got {len(weights)} weight maps for {len(pairs)} pairs; expected one per pair")
    stats: dict[str, list] = {}
    for w, (src, _tgt, align) in zip(weights, pairs, strict=True):
        best = torch.as_tensor(w).argmax(-1).tolist()
        for j, gold in enumerate(align):
            if not gold:
                continue
            s = stats.setdefault(word_class(src, align, j), [0, 0, 0.0, 0])  # n, hits, mass, early misses
            s[0] += 1
            s[1] += best[j] in gold
            s[2] += float(torch.as_tensor(w)[j, list(gold)].sum())
            s[3] += best[j] not in gold and best[j] == min(gold) - 1
    return {c: {"n": n, "align": 100.0 * hits / n, "mass": mass / n,
                "early": 100.0 * early / max(n - hits, 1), "misses": n - hits, "early_misses": early}
            for c, (n, hits, mass, early) in sorted(stats.items())}


def count_forward_calls(module: torch.nn.Module, fn) -> int:
    """How many times `module`'s forward runs while fn() runs (counted with a forward hook, removed afterwards)."""
    calls = []
    handle = module.register_forward_hook(lambda *args: calls.append(1))
    try:
        fn()
    finally:
        handle.remove()
    return len(calls)


# ---------------------------------------------------------------- chapter 06: how peaked the attention is
__all__ += ["attention_statistics"]


@torch.no_grad()
def attention_statistics(model: Seq2Seq, pairs: Sequence, batch_size: int = 100) -> dict[str, float]:
    """Teacher-forced attention on (src, tgt, align) pairs: {"align": % (alignment_accuracy), "max_weight": mean
    largest weight of a row (0-1), "entropy": mean row entropy as a share of log(n_src) (0 = one key, 1 = uniform),
    "score_std": standard deviation of the raw scores over every real (target word, source word) pair}.

    The raw scores are caught on their way into the softmax (a forward hook on the decoder's scorer calls its
    `score`), so they are the scorer's own numbers: unscaled dot products for "dot", divided by √d_k for
    "scaled_dot". Chapter 04: large scores make softmax saturate (max weight near 1, entropy near 0).
    """
    if not model.has_attention:
        raise ValueError("this model has no attention (kind='none'), so it has no attention weights")
    scorer = model.decoder.scorer
    caught: list[torch.Tensor] = []

    def catch(module, args, kwargs, output):
        query, keys = args[0], args[1]
        caught.append(module.score(query, keys) if kwargs.get("prepared") is None
                      else module.score_prepared(query, kwargs["prepared"]))

    was_training = model.training
    model.eval()
    handle = scorer.register_forward_hook(catch, with_kwargs=True)
    weights, scores = [], []
    try:
        for k in range(0, len(pairs), batch_size):
            chunk = pairs[k:k + batch_size]
            caught.clear()
            _, w = model(make_batch([tuple(p) for p in chunk], model.src_vocab, model.tgt_vocab))
            s = torch.cat(caught, dim=1)                                      # (B, T, S), one call or one per step
            for b, p in enumerate(chunk):
                weights.append(w[b, : len(p[1]), : len(p[0])])
                scores.append(s[b, : len(p[1]), : len(p[0])].reshape(-1))
    finally:
        handle.remove()
        model.train(was_training)
    peak = torch.cat([w.max(-1).values for w in weights])
    ent = torch.cat([-(w * torch.log(w.clamp_min(1e-12))).sum(-1) / math.log(max(w.shape[-1], 2)) for w in weights])
    gold = [p[2] for p in pairs]
    return {"align": alignment_accuracy(weights, gold), "max_weight": float(peak.mean()),
            "entropy": float(ent.mean()), "score_std": float(torch.cat(scores).std())}
