"""Translation metrics on token lists: corpus BLEU-4 (sacreBLEU-compatible), exact match, alignment accuracy."""
from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import torch

__all__ = ["corpus_bleu", "exact_match", "alignment_accuracy", "ngram_counts"]


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """Counts of the n-grams (as tuples) of one token list."""
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def corpus_bleu(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]],
                max_order: int = 4, smooth: str = "exp") -> float:
    """Corpus BLEU (0-100) of tokenised hypotheses against one tokenised reference each.

    Clipped n-gram precisions for n = 1..max_order, geometric mean, brevity penalty exp(1 - r/c) when c < r.
    smooth="exp" (sacreBLEU's default) or "none"; with tokens joined by spaces this equals
    sacrebleu.corpus_bleu(hyps, [refs], tokenize="none", smooth_method=smooth).
    """
    if len(hypotheses) != len(references):
        raise ValueError(f"got {len(hypotheses)} hypotheses but {len(references)} references; expected one reference each")
    if smooth not in ("exp", "none"):
        raise ValueError(f"smooth must be 'exp' or 'none', got {smooth!r}")
    correct, total = [0] * max_order, [0] * max_order
    hyp_len = ref_len = 0
    for hyp, ref in zip(hypotheses, references):
        hyp_len += len(hyp)
        ref_len += len(ref)
        for n in range(1, max_order + 1):
            h, r = ngram_counts(hyp, n), ngram_counts(ref, n)
            correct[n - 1] += sum(min(c, r[g]) for g, c in h.items())
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
    return bp * math.exp(log_sum / max_order)


def exact_match(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Percentage (0-100) of hypotheses identical to their reference."""
    if len(hypotheses) != len(references):
        raise ValueError(f"got {len(hypotheses)} hypotheses but {len(references)} references")
    if not references:
        return 0.0
    return 100.0 * sum(list(h) == list(r) for h, r in zip(hypotheses, references)) / len(references)


def alignment_accuracy(weights: Sequence, alignments: Sequence[Sequence[int]]) -> float:
    """Percentage of target words whose most-attended source word is their gold-aligned one.

    weights: one (n_target, n_source) matrix per sentence (rows beyond len(alignment), e.g. <eos>, are ignored);
    alignments: gold source position of each target word.
    """
    if len(weights) != len(alignments):
        raise ValueError(f"got {len(weights)} weight matrices but {len(alignments)} alignments")
    hits = count = 0
    for w, gold in zip(weights, alignments):
        w = torch.as_tensor(w)
        if w.dim() != 2 or w.shape[0] < len(gold):
            raise ValueError(f"weights of shape {tuple(w.shape)} do not cover {len(gold)} target words; "
                             "expected (n_target, n_source)")
        best = w[: len(gold)].argmax(dim=-1)
        hits += int((best == torch.as_tensor(list(gold))).sum())
        count += len(gold)
    return 100.0 * hits / max(count, 1)
