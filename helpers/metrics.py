"""Translation metrics on token lists: corpus BLEU-4 (sacreBLEU-compatible, one or several references per
hypothesis), exact match, and two measures of attention against gold alignment sets."""
from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import torch

__all__ = ["corpus_bleu", "exact_match", "alignment_accuracy", "attention_mass_on_gold", "ngram_counts"]


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """Counts of the n-grams (as tuples) of one token list."""
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _reference_sets(hypotheses: Sequence, references: Sequence) -> list[list[list[str]]]:
    """Normalise references to several per hypothesis: each item is one token list or a list of token lists."""
    if len(hypotheses) != len(references):
        raise ValueError(f"got {len(hypotheses)} hypotheses but {len(references)} references; expected one "
                         "reference (a token list) or one list of references per hypothesis")
    out = []
    for k, ref in enumerate(references):
        ref = list(ref)
        if ref and all(isinstance(r, (list, tuple)) for r in ref):
            out.append([list(r) for r in ref])
        elif all(isinstance(t, str) for t in ref):
            out.append([ref])
        else:
            raise ValueError(f"reference {k} mixes tokens and token lists: {ref[:3]!r}...; expected a list of "
                             "strings (one reference) or a list of lists of strings (several)")
    return out


def _closest_length(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to the hypothesis length; the shorter one on a tie (as sacreBLEU)."""
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


def corpus_bleu(hypotheses: Sequence[Sequence[str]], references: Sequence, max_order: int = 4,
                smooth: str = "exp") -> float:
    """Corpus BLEU (0-100) of tokenised hypotheses against one or several tokenised references each.

    references[i] is one token list, or a list of token lists (all valid translations of sentence i).
    Clipped n-gram precisions for n = 1..max_order (a hypothesis n-gram counts up to its largest count in any
    one reference), geometric mean, brevity penalty exp(1 - r/c) when c < r, where r sums, per sentence, the
    reference length closest to the hypothesis length. smooth="exp" (sacreBLEU's default) or "none"; with
    tokens joined by spaces this equals sacrebleu.corpus_bleu(hyps, [refs_1, refs_2, ...], tokenize="none",
    smooth_method=smooth), where refs_k holds every sentence's k-th reference.
    """
    ref_sets = _reference_sets(hypotheses, references)
    if smooth not in ("exp", "none"):
        raise ValueError(f"smooth must be 'exp' or 'none', got {smooth!r}")
    correct, total = [0] * max_order, [0] * max_order
    hyp_len = ref_len = 0
    for hyp, refs in zip(hypotheses, ref_sets, strict=False):
        hyp_len += len(hyp)
        ref_len += _closest_length(len(hyp), [len(r) for r in refs])
        for n in range(1, max_order + 1):
            h = ngram_counts(hyp, n)
            best: Counter = Counter()
            for r in refs:
                best |= ngram_counts(r, n)          # element-wise maximum
            correct[n - 1] += sum(min(c, best[g]) for g, c in h.items())
            total[n - 1] += max(len(hyp) - n + 1, 0)
    if not any(correct):
        return 0.0
    bp = 1.0 if hyp_len >= ref_len else (math.exp(1 - ref_len / hyp_len) if hyp_len > 0 else 0.0)
    log_sum, halvings = 0.0, 1.0
    for n in range(max_order):
        if total[n] == 0:              # no n-grams of this order at all: precision counts as 0 (score ~ 0)
            return 0.0
        if correct[n] == 0:
            if smooth == "none":
                return 0.0
            halvings *= 2.0
            precision = 100.0 / (halvings * total[n])
        else:
            precision = 100.0 * correct[n] / total[n]
        log_sum += math.log(precision)
    # exp(log 100) is 100.00000000000004 in floats: a perfect set scores 100 exactly, as BLEU's range says
    return min(100.0, bp * math.exp(log_sum / max_order))


def exact_match(hypotheses: Sequence[Sequence[str]], references: Sequence) -> float:
    """Percentage (0-100) of hypotheses identical to their reference (to any one of their references)."""
    ref_sets = _reference_sets(hypotheses, references)
    if not ref_sets:
        return 0.0
    return 100.0 * sum(list(h) in refs for h, refs in zip(hypotheses, ref_sets, strict=False)) / len(ref_sets)


def _gold_sets(weights: Sequence, alignments: Sequence) -> list[tuple[torch.Tensor, list[tuple[int, ...]]]]:
    """Pair each (n_target, n_source) weight matrix with its gold sets, checking the shapes."""
    if len(weights) != len(alignments):
        raise ValueError(f"got {len(weights)} weight matrices but {len(alignments)} alignments")
    out = []
    for k, (w, gold) in enumerate(zip(weights, alignments, strict=False)):
        w = torch.as_tensor(w)
        sets = [(int(a),) if isinstance(a, int) else tuple(int(i) for i in a) for a in gold]
        if w.dim() != 2 or w.shape[0] < len(sets):
            raise ValueError(f"sentence {k}: weights of shape {tuple(w.shape)} do not cover {len(sets)} target words; "
                             "expected (n_target, n_source)")
        bad = [i for a in sets for i in a if not 0 <= i < w.shape[1]]
        if bad:
            raise ValueError(f"sentence {k}: gold source position {bad[0]} is outside the {w.shape[1]} source "
                             "positions of its weights")
        out.append((w, sets))
    return out


def alignment_accuracy(weights: Sequence, alignments: Sequence) -> float:
    """Percentage of target words whose most-attended source position is in their gold set.

    weights: one (n_target, n_source) matrix per sentence (rows beyond len(alignment), e.g. <eos>, are ignored);
    alignments: per sentence, one gold set (a tuple of source positions; a bare int means a one-position set)
    per target word. Target words with an empty set (no source word) are not counted.
    """
    hits = count = 0
    for w, sets in _gold_sets(weights, alignments):
        best = w[: len(sets)].argmax(dim=-1).tolist()
        for b, a in zip(best, sets, strict=False):
            if a:
                hits += b in a
                count += 1
    return 100.0 * hits / max(count, 1)


def attention_mass_on_gold(weights: Sequence, alignments: Sequence) -> float:
    """Mean attention weight (0-1) that a target word puts on its gold set, over target words with a non-empty set.

    It credits a row split over two gold positions (a measure word attending to its determiner and its noun),
    which alignment_accuracy cannot see. Arguments as for alignment_accuracy.
    """
    total, count = 0.0, 0
    for w, sets in _gold_sets(weights, alignments):
        for j, a in enumerate(sets):
            if a:
                total += float(w[j, list(a)].sum())
                count += 1
    return total / max(count, 1)
