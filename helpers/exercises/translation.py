"""Chapters 01 and 05 (the toy translation task; attention in the decoder): translations and alignments by hand,
reading an attention map, and the attention part of one decoder step.

Gold alignments come in two formats and both work: one source position per target word (the one-to-one toy
language) or, per target word, a tuple of source positions, possibly empty (the richer grammar). When
``helpers.toylang.references`` exists, a translation is right if it equals any of the valid references.
"""
from __future__ import annotations

import functools
import numbers

import numpy as np
import torch

from helpers.i18n import t

from .core import (
    Example,
    as_tensor,
    as_whole_number,
    call_learner,
    checker,
    describe,
    feedback,
    not_answered,
    register_solution,
    returned,
    unreadable,
    wrong,
)

__all__ = ["check_translation", "check_alignment", "check_most_attended", "check_attention_step",
           "check_decoder_step"]


# ---------------------------------------------------------------- the toy task, in either format
def _source_tokens(source) -> list[str]:
    """A source sentence (a string or a list of words) as a list of words."""
    return source.split() if isinstance(source, str) else [str(w) for w in source]


def _as_set(entry) -> tuple[int, ...]:
    """One gold entry (an int, or a tuple/list/set of ints) as a sorted tuple of source positions."""
    if isinstance(entry, (tuple, list, set, frozenset)):
        return tuple(sorted(int(a) for a in entry))
    return (int(entry),)


def _gold(src: list[str]):
    """(target words, gold alignment sets, valid references) of a source sentence, from helpers.toylang."""
    from helpers import toylang

    tgt, align = toylang.translate(src)
    tgt = list(tgt)
    refs_fn = getattr(toylang, "references", None)
    refs = [list(r) for r in refs_fn(src)] if refs_fn is not None else []
    if tgt not in refs:
        refs.insert(0, tgt)
    return tgt, [_as_set(a) for a in align], refs


def _gold_or_message(source):
    """_gold(source), or (None, a sentence) when the toy language cannot translate the notebook's sentence."""
    try:
        src = _source_tokens(source)
        return (src, *_gold(src)), None
    except Exception as e:
        return None, t("ch05.cannot_translate", source=repr(source), error=e)


def _as_tokens(answer) -> list[str] | None:
    """A translation (a string of words or a list/tuple of word strings) as a list of words, else None."""
    if isinstance(answer, str):
        return answer.split()
    if isinstance(answer, (list, tuple)) and all(isinstance(t, str) for t in answer):
        return [t for w in answer for t in w.split()]
    return None


_END_PUNCTUATION = ".!?;,。！？；，"


def _as_sentence_words(words: list[str]) -> list[str]:
    """The words of a hand translation as the toy language writes them: lower case, no end punctuation (a learner
    who writes "Yi zhi ... le." has the words right; the toy language has no capitals and no full stop)."""
    words = [w.lower() for w in words]
    while words and words[-1].rstrip(_END_PUNCTUATION) != words[-1]:
        words[-1] = words[-1].rstrip(_END_PUNCTUATION)
        if not words[-1]:
            words.pop()
    return words


def _show_positions(sets) -> str:
    """Alignment sets as the learner would type them: 5 for a single position, [0, 2] or [] otherwise."""
    return "[" + ", ".join(str(s[0]) if len(s) == 1 else str(list(s)) for s in sets) + "]"


_ORDER_RULES = {"measure": "ch01.rule_measure", "adj_de": "ch01.rule_adj_de", "le": "ch01.rule_le",   # hint order
                "circumposition": "ch01.rule_circumposition", "place": "ch01.rule_place"}


def _broken_rules(words: list[str]) -> list[str]:
    """The word-order rules of the rich grammar that `words` breaks, as i18n keys, in a fixed order (the measure
    word, the adjective's `de`, `le`, the circumposition, the place phrase before its verb); [] for words it has no
    role for (the simple grammar)."""
    from helpers import toylang

    roles = getattr(toylang, "TARGET_ROLE", {})
    r = [roles.get(w) for w in words]
    at = lambda k: r[k] if 0 <= k < len(r) else None  # noqa: E731
    broken = set()
    for k, role in enumerate(r):
        if role == "measure" and at(k - 1) != "det":
            broken.add("measure")
        if role == "adj" and (words[k + 1:k + 2] != ["de"] or at(k + 2) not in ("adj", "noun")):
            broken.add("adj_de")
        if role == "le" and at(k - 1) != "verb" and at(k + 1) not in (None, "conj"):
            broken.add("le")
        if role == "pre":
            end = next((i for i in range(k + 1, len(r)) if r[i] in ("post", "pre", "verb", "conj")), None)
            if end is None or r[end] != "post" or r[end - 1] != "noun":
                broken.add("circumposition")
        if role == "post" and "pre" not in r[:k]:
            broken.add("circumposition")
        if role == "post" and at(k + 1) != "verb":
            broken.add("place")
        if role == "verb":                      # a place phrase after its verb, in the same clause (a relative
            end = next((i for i in range(k + 1, len(r)) if r[i] in ("conj", "de")), len(r))   # clause ends in de)
            if "pre" in r[k + 1:end]:
                broken.add("place")
    return [key for name, key in _ORDER_RULES.items() if name in broken]


def _order_hint(got: list[str], best: list[str]) -> str:
    """The rule a translation with the right words but the wrong order breaks (and the reference keeps), named; a
    pointer to the rules when no single rule explains it."""
    named = [key for key in _broken_rules(got) if key not in _broken_rules(best)]
    return t(named[0]) if named else t("ch05.order_rules")


_SENTENCE, _ALIGN_SENTENCE = "a small cat slept under the table", "a cat slept in the house"  # 01.2 and 05.1
_MAP = torch.tensor([[0.1, 0.7, 0.2], [0.6, 0.3, 0.1], [0.2, 0.1, 0.7], [0.1, 0.2, 0.7]])  # (n_target, n_source)


def _translation_example() -> Example:
    """Exercise 01.2; the slip keeps the English order (the verb before the place phrase)."""
    target = " ".join(_gold(_SENTENCE.split())[0])
    english_order = "yi zhi xiaoxiao de mao shuijiao le zai zhuozi xia"
    return Example(lambda a: check_translation(a, _SENTENCE), target, english_order)


def _alignment_example() -> Example:
    """Exercise 05.1; the slip counts positions from 1."""
    sets = _gold(_ALIGN_SENTENCE.split())[1]
    typed = lambda shift: [[a + shift for a in s] for s in sets]  # noqa: E731
    return Example(lambda a: check_alignment(a, _ALIGN_SENTENCE), typed(0), typed(1))


def _map_example() -> Example:
    """Exercise 05.2 on a small map; the slip reads the position counting from 1."""
    return Example(lambda a: check_most_attended(a, _MAP, 2), 2, 3)


def _step_example() -> Example:
    """Exercise 05.3 with the course's (B, 1, S) mask; the slip masks (B, S) scores with it, keeping its extra axis."""
    def right(query, states, mask, score_fn):
        return _reference_step(query, states, mask[:, 0], score_fn)

    def extra_axis(query, states, mask, score_fn):
        w = torch.softmax(score_fn(query, states).masked_fill(~mask, float("-inf")), -1)   # (B, B, S)
        return torch.nan_to_num(w).sum(1) @ states[0], torch.nan_to_num(w)

    return Example(lambda a: check_attention_step(a, with_query_axis=True), right, extra_axis)


@checker(exercises=("01.2",), example=_translation_example)
def check_translation(answer, source, name: str = "my_translation", references=None, exercise: str = "01.2",
                      show_answer: bool = False) -> bool:
    """Check a hand translation of a toy-language source sentence (a string or a list of target words).

    references: the valid translations (lists of words); by default ``helpers.toylang.references(source)`` when it
    exists, else ``translate(source)``'s target.
    """
    if not_answered(answer, name):
        return False
    got = _as_tokens(answer)
    if got is None:
        return unreadable(t("ch05.not_words", name=name, what=describe(answer)))
    got = _as_sentence_words(got)
    if references is None:
        found, problem = _gold_or_message(source)
        if problem:
            return unreadable(problem)
        refs = found[3]
    else:
        refs = [_as_tokens(r) or [] for r in references]
    if got in refs:
        return feedback(True, t("ch05.one_of_valid", n=len(refs)) if len(refs) > 1 else t("ch05.valid"))
    answer_text = " | ".join(" ".join(r) for r in refs)
    if not got:
        return wrong(exercise, t("ch05.no_words", name=name), answer_text, show_answer)
    known = {w for r in refs for w in r}
    strangers = [w for w in got if w not in known]
    if strangers:
        return wrong(exercise, t("ch05.stranger", word=strangers[0]), answer_text, show_answer)
    best = max(refs, key=lambda r: sum(min(got.count(w), r.count(w)) for w in set(r)) - abs(len(r) - len(got)))
    if sorted(got) != sorted(best):
        missing = [w for w in dict.fromkeys(best) if got.count(w) < best.count(w)]
        extra = [w for w in dict.fromkeys(got) if got.count(w) > best.count(w)]
        named = ", ".join(repr(w) for w in missing)      # which words, so the learner knows what to look up
        what = (t("ch05.too_often", word=extra[0]) if extra else
                t("ch05.missing", n=len(best) - len(got), words=named) if len(got) < len(best) else
                t("ch05.a_word_missing", n=len(missing), words=named))
        return wrong(exercise, t("ch05.word_count", n=len(got), what=what), answer_text, show_answer)
    j = next(k for k, (a, b) in enumerate(zip(got, best, strict=True)) if a != b)
    return wrong(exercise, t("ch05.order", position=j, word=got[j], rule=_order_hint(got, best)), answer_text,
                 show_answer)


def _positions(answer, name: str):
    """(the learner's alignment as a list of sorted tuples of whole numbers, None) or (None, a sentence saying why it
    cannot be read); positions are not checked against the sentence's length here."""
    if isinstance(answer, (torch.Tensor, np.ndarray)):
        answer = answer.tolist() if answer.ndim == 1 else answer
    if not isinstance(answer, (list, tuple)):
        return None, t("ch05.alignment_type", name=name, what=describe(answer))
    out = []
    for k, entry in enumerate(answer):
        items = list(entry) if isinstance(entry, (list, tuple, set, frozenset)) else [] if entry is None else [entry]
        positions = []
        for a in items:
            ok = isinstance(a, numbers.Integral) and not isinstance(a, bool) or (
                isinstance(a, numbers.Real) and not isinstance(a, bool) and np.isfinite(a) and float(a).is_integer())
            if not ok:
                what = describe(a) if not isinstance(a, numbers.Real) else a
                return None, t("ch05.entry_not_whole", k=k, name=name, what=what)
            positions.append(int(a))
        out.append(tuple(sorted(set(positions))))
    return out, None


@checker(exercises=("05.1",), example=_alignment_example)
def check_alignment(answer, source, name: str = "my_alignment", gold=None, exercise: str = "05.1",
                    show_answer: bool = False) -> bool:
    """Check a hand alignment: for each target word, the 0-based source position it translates, or a list of
    positions ([] for a word with no source). gold: the gold alignment (default: ``toylang.translate``'s)."""
    if not_answered(answer, name):
        return False
    found, problem = _gold_or_message(source)
    if problem and gold is None:
        return unreadable(problem)
    src, tgt = (found[0], found[1]) if found else (_source_tokens(source), None)
    sets = [_as_set(a) for a in gold] if gold is not None else found[2]
    tgt = tgt if tgt is not None and len(tgt) == len(sets) else [t("ch05.word_name", k=k) for k in range(len(sets))]
    answer_text = _show_positions(sets)
    got, problem = _positions(answer, name)
    if problem:    # not a list at all: not a try (core); a list with a malformed entry: a wrong answer, a try
        listed = isinstance(answer, (list, tuple, torch.Tensor, np.ndarray))
        return wrong(exercise, problem, answer_text, show_answer) if listed else unreadable(problem)
    if len(got) != len(sets):
        return wrong(exercise, t("ch05.entries", name=name, n=len(got), words=len(sets), target=" ".join(tgt)),
                     answer_text, show_answer)
    if got == sets:
        one_to_one = all(len(s) == 1 for s in sets)
        return feedback(True, t("ch05.permutation_ok") if one_to_one else t("ch05.sets_ok"))
    shifted = [tuple(a - 1 for a in g) for g in got]
    if shifted == sets:
        return wrong(exercise, t("ch05.one_based"), answer_text, show_answer)
    for k, entry in enumerate(got):
        outside = [a for a in entry if not 0 <= a < len(src)]
        if outside:
            return wrong(exercise, t("ch05.entry_range", k=k, name=name, value=outside[0], last=len(src) - 1),
                         answer_text, show_answer)
    j = next(k for k, (a, b) in enumerate(zip(got, sets, strict=True)) if a != b)
    a, b = set(got[j]), set(sets[j])
    words = lambda s: ", ".join(f"{p} ('{src[p]}')" for p in sorted(s))  # noqa: E731
    if not b:
        message = t("ch05.translates_nothing", j=j, name=name, word=tgt[j])
    elif not a:
        message = t("ch05.translates_something", j=j, name=name, word=tgt[j])
    elif a < b:
        message = t("ch05.depends_on_more", j=j, name=name, word=tgt[j], sources=words(a))
    elif b < a:
        message = t("ch05.not_all_of", j=j, name=name, word=tgt[j], sources=words(a))
    else:
        message = t("ch05.not_source", j=j, name=name, word=tgt[j], sources=words(a - b or a))
    return wrong(exercise, message, answer_text, show_answer)


@checker(exercises=("05.2",), example=_map_example)
def check_most_attended(answer, weights, step: int, name: str = "looked_at", exercise: str = "05.2",
                        show_answer: bool = False) -> bool:
    """Which source position (0-based) gets the most weight at output step `step` (0-based) of `weights`
    (n_target, n_source)? The checker reads the map, so the exercise cell need not compute its own answer."""
    if not_answered(answer, name):
        return False
    got = as_whole_number(answer, name)
    if got is None:
        return False
    w = as_tensor(weights)
    while w is not None and w.dim() > 2 and w.shape[0] == 1:
        w = w[0]
    if w is None or w.dim() != 2 or not 0 <= step < w.shape[0]:
        return unreadable(t("ch05.bad_map"))
    right = int(w[step].argmax())
    if got == right:
        return feedback(True, t("ch05.looks_hardest", word=step + 1, row=step, position=right))
    if got == right + 1:
        message = t("ch05.map_one_based")
    elif not 0 <= got < w.shape[1]:
        message = t("ch05.map_range", last=w.shape[1] - 1)
    elif any(0 <= s < w.shape[0] and int(w[s].argmax()) == got for s in (step - 1, step + 1)):
        message = t("ch05.neighbour", word=step + 1, row=step)
    elif step < w.shape[1] and int(w[:, step].argmax()) == got:
        message = t("ch05.column")
    else:
        message = t("ch05.find_row", row=step)
    return wrong(exercise, t("core.is_value", name=name, value=got, sentence=message), str(right), show_answer)


# ---------------------------------------------------------------- one attention step of a decoder
def _step_inputs(batch: int, lengths, seed: int = 0):
    """A query (B, H), encoder states (B, S, C), a mask (B, S) and a score function with a hidden projection."""
    g = torch.Generator().manual_seed(seed)
    H, C, S = 3, 4, 5
    query = torch.randn(batch, H, generator=g, dtype=torch.float64)
    states = torch.randn(batch, S, C, generator=g, dtype=torch.float64)
    W = torch.randn(H, C, generator=g, dtype=torch.float64)
    mask = torch.arange(S)[None, :] < torch.tensor(lengths)[:, None]  # (B, S) True at real tokens

    def score_fn(q, keys):
        """(B, H), (B, S, C) -> (B, S): qᵀ W k."""
        return torch.einsum("bh,hc,bsc->bs", q, W.to(q.dtype), keys)

    return query, states, mask, score_fn


def _extreme_inputs(seed: int = 2):
    """_step_inputs with every score of sentence 1 raised by 1000 and of sentence 2 lowered by 1000: a softmax
    written by hand without the max shift overflows (exp(1000) = inf) on one and underflows (0/0) on the other."""
    query, states, mask, score_fn = _step_inputs(3, [5, 3, 4], seed=seed)
    offset = torch.tensor([0.0, 1000.0, -1000.0], dtype=torch.float64)[:, None]

    def extreme_score_fn(q, keys):
        """(B, H), (B, S, C) -> (B, S): qᵀ W k, shifted by ±1000 on sentences 1 and 2."""
        return score_fn(q, keys) + offset.to(q.dtype)

    return query, states, mask, extreme_score_fn


def _naive_softmax(scores, shift: str = "none"):
    """exp / sum over the last axis by hand: shift "none" (no max subtracted) or "global" (one max of the whole
    batch).  (B, S) -> (B, S), NaN where 0/0 or inf/inf."""
    finite = scores.masked_fill(torch.isinf(scores), float("-inf"))
    e = torch.exp(scores - (finite.max() if shift == "global" else 0.0))
    return e / e.sum(-1, keepdim=True)


def _reference_step(query, states, mask, score_fn):
    """The course's attention step: masked softmax of the scores, weighted sum of the states; zeros when all padded."""
    from helpers.attention import masked_softmax

    weights = masked_softmax(score_fn(query, states)[:, None, :], mask[:, None, :])[:, 0]  # (B, S)
    return torch.einsum("bs,bsc->bc", weights, states), weights


def _close(a, b, tol: float = 1e-6) -> bool:
    """Same shape and equal within `tol` (NaN equals NaN)."""
    return a is not None and b is not None and a.shape == b.shape and bool(
        torch.allclose(a, b.to(a.dtype), atol=tol, equal_nan=True))


def _unpack_pair(out, names=("context", "weights")):
    """A learner's (context, weights) as two float64 tensors, or (None, None, a sentence)."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        return None, None, t("ch05.not_pair", what=returned(out), first=names[0], second=names[1])
    first, second = (as_tensor(x) for x in out)
    for x, raw, label in ((first, out[0], names[0]), (second, out[1], names[1])):
        if x is None:
            return None, None, t("ch05.pair_part", label=label, what=returned(raw))
    return first, second, None


def _call_step(fn, name, inputs, with_query_axis):
    """Call the learner's step on copies of `inputs`: (context (B, C), weights (B, S), calls, None) or a sentence."""
    query, states, mask, score_fn = inputs
    calls = []

    def counting_score_fn(q, keys):
        calls.append(1)
        return score_fn(q, keys)

    m = mask[:, None, :].clone() if with_query_axis else mask.clone()
    ok, out = call_learner(fn, query.clone(), states.clone(), m, counting_score_fn, name=name)
    if not ok:
        return None, None, calls, out + "."
    ctx, w, problem = _unpack_pair(out)
    if problem:
        return None, None, calls, f"`{name}` {problem}"
    B, S, C = states.shape
    for x, label, want in ((ctx, "context", (B, C)), (w, "weights", (B, S))):   # (B, 1, ...): the query axis left on
        if x.dim() == 3 and x.shape[1] == 1 and tuple(x.shape[::2]) == want:
            return None, None, calls, t("ch05.decoder_axis", what=label, shape=tuple(x.shape),
                                        want=want)
    return ctx, w, calls, None


@checker(exercises=("05.3",), example=_step_example)
def check_attention_step(fn, name: str = "my_attend", with_query_axis: bool = False, exercise: str = "05.3",
                         show_answer: bool = False) -> bool:
    """Check the attention part of one decoder step:
    fn(query (B, H), encoder_states (B, S, C), mask (B, S) bool True = real token, score_fn) -> (context (B, C),
    weights (B, S)), where score_fn(query, encoder_states) -> scores (B, S). with_query_axis: pass the mask as
    (B, 1, S), the course's mask convention. A fully padded sentence must get zero weights and context, not NaN, and
    scores near +1000 or -1000 must not overflow (a softmax by hand needs each sentence's maximum subtracted)."""
    if not_answered(fn, name):
        return False
    if not callable(fn) or isinstance(fn, torch.Tensor):
        return unreadable(t("ch05.step_not_function", name=name, what=describe(fn)))
    inputs = _step_inputs(3, [5, 3, 4])
    query, states, mask, score_fn = inputs
    B, S, C = states.shape
    ctx, w, calls, problem = _call_step(fn, name, inputs, with_query_axis)
    if problem:
        return wrong(exercise, problem, None, show_answer)
    if ctx.shape == (B, S) and w.shape == (B, C):
        return wrong(exercise, t("ch05.swapped"), None, show_answer)
    if w.shape == (B, B, S):
        return wrong(exercise, t("ch05.mask_extra_axis" if with_query_axis else "ch05.query_axis_broadcast", B=B, S=S),
                     None, show_answer)
    if w.shape != (B, S):
        return wrong(exercise, t("ch05.weights_shape", B=B, S=S, shape=tuple(w.shape)), None, show_answer)
    if not calls:
        return wrong(exercise, t("ch05.no_score_fn"), None, show_answer)
    scores = score_fn(query, states)
    hidden = scores.masked_fill(~mask, float("-inf"))
    ref_ctx, ref_w = _reference_step(*inputs)
    if not _close(w, ref_w):
        unmasked = torch.softmax(scores, -1)
        zero_filled = scores.masked_fill(~mask, 0.0)
        wrong_weights = [
            (scores, t("ch05.raw_scores")),
            (zero_filled / zero_filled.sum(-1, keepdim=True), t("ch05.divided_by_sum")),
            (torch.softmax(zero_filled, -1), t("ch05.filled_zero")),
            (torch.log_softmax(hidden, -1), t("ch05.log_softmax")),
            (torch.softmax(hidden / query.shape[-1] ** 0.5, -1), t("ch05.extra_scale")),
            (torch.softmax(hidden / C ** 0.5, -1), t("ch05.extra_scale")),
            (torch.softmax(hidden, 0), t("ch05.batch_axis")),
            (torch.softmax(scores, 0), t("ch05.batch_axis_unmasked")),
            (torch.ones_like(scores), t("ch05.length_one_axis")),
            (unmasked, t("ch05.unmasked")),
            (torch.softmax(scores.masked_fill(mask, float("-inf")), -1), t("ch05.mask_inverted")),
            (unmasked * mask, t("ch05.zeroed_after")),
            (torch.exp(hidden), t("ch05.not_normalised")),
            (torch.exp(scores), t("ch05.neither")),
        ]
        for candidate, message in wrong_weights:            # each slip also with the NaN guard the exercise asks for
            if _close(w, candidate) or _close(w, torch.nan_to_num(candidate)):
                return wrong(exercise, message, None, show_answer)
        if not torch.isfinite(w).all():
            return wrong(exercise, t("ch05.weights_nan"), None, show_answer)
        if not torch.allclose(w.sum(-1), torch.ones(B, dtype=w.dtype), atol=1e-6):
            return wrong(exercise, t("ch05.weights_sum", sums=[round(float(s), 3) for s in w.sum(-1)]), None,
                         show_answer)
        return wrong(exercise, t("ch05.weights_differ"), None, show_answer)
    if ctx.shape == (B,):
        return wrong(exercise, t("ch05.context_per_sentence"), None, show_answer)
    if ctx.shape == (B, S):
        return wrong(exercise, t("ch05.context_per_position"), None, show_answer)
    if ctx.shape == (B, B, C):
        return wrong(exercise, t("ch05.context_broadcast", B=B, C=C), None, show_answer)
    if ctx.shape != (B, C):
        return wrong(exercise, t("ch05.context_shape", shape=tuple(ctx.shape), B=B, C=C), None, show_answer)
    if not _close(ctx, ref_ctx):
        wrong_contexts = [
            (torch.einsum("bs,bsc->bc", torch.exp(hidden), states), t("ch05.context_unnormalised")),
            (torch.einsum("bs,bsc->bc", scores, states), t("ch05.context_raw_scores")),
            (states.sum(1), t("ch05.context_sum")),
            (states.mean(1), t("ch05.context_mean")),
            (torch.einsum("bs,bsc->bc", torch.softmax(scores, -1), states), t("ch05.context_unmasked")),
        ]
        for candidate, message in wrong_contexts:
            if _close(ctx, candidate):
                return wrong(exercise, message, None, show_answer)
        return wrong(exercise, t("ch05.context_wrong"), None, show_answer)
    extreme = _extreme_inputs()
    ctx3, w3, _, problem = _call_step(fn, name, extreme, with_query_axis)
    if problem:
        return wrong(exercise, t("ch05.extreme_problem", problem=problem), None, show_answer)
    ref_ctx3, ref_w3 = _reference_step(*extreme)
    if not (_close(w3, ref_w3) and _close(ctx3, ref_ctx3)):
        raw = extreme[3](extreme[0], extreme[1]).masked_fill(~extreme[2], float("-inf"))
        for candidate, message in ((_naive_softmax(raw), t("ch05.no_max_shift")),
                                   (_naive_softmax(raw, "global"), t("ch05.global_max_shift"))):
            if _close(w3, candidate) or _close(w3, torch.nan_to_num(candidate)):
                return wrong(exercise, message, None, show_answer)
        finite = torch.isfinite(w3).all() and torch.isfinite(ctx3).all()
        return wrong(exercise, t("ch05.extreme_differ" if finite else "ch05.no_max_shift"), None, show_answer)
    empty = _step_inputs(2, [4, 0], seed=1)
    ctx2, w2, _, problem = _call_step(fn, name, empty, with_query_axis)
    if problem:
        return wrong(exercise, t("ch05.all_padding_problem", problem=problem), None, show_answer)
    if w2.shape != (2, S) or ctx2.shape != (2, C):
        return wrong(exercise, t("ch05.all_padding_shapes"), None, show_answer)
    if not (torch.isfinite(w2).all() and torch.isfinite(ctx2).all()):
        return wrong(exercise, t("ch05.all_padding_nan"), None, show_answer)
    if not (_close(w2[1], torch.zeros(S)) and _close(ctx2[1], torch.zeros(C))):
        return wrong(exercise, t("ch05.all_padding_zeros"), None, show_answer)
    return feedback(True, t("ch05.step_ok"))


def _outputs(out) -> list:
    """A step's result as a list of tensors (one tensor, or a tuple/list of them); non-tensors stay as they are."""
    items = list(out) if isinstance(out, (tuple, list)) else [out]
    return [as_tensor(x) if x is not None else None for x in items]


# ---------------------------------------------------------------- a whole decoder step of a chapter-05 translator
def _luong_reference(decoder, y_prev, state, keys, enc):
    """One step of Luong's wiring by the helper's own forward pass over one target position.
    y_prev (B,), state s_{t-1} (B, hidden) -> logits (B, V), weights (B, S), s_t (B, hidden)"""
    logits, weights, new_state = decoder(y_prev[:, None], enc, state[None])
    return logits[:, 0], weights[:, 0], new_state[0]


def _bahdanau_reference(decoder, y_prev, state, keys, enc):
    """One step of Bahdanau's wiring: the helper's `BahdanauDecoder.step`."""
    return decoder.step(y_prev, state, keys, enc)


_READOUT_ORDERS = ("sce", "cse", "esc", "sec", "ces", "ecs")   # [s_t; c_t; e] first: the right one


def _step_variant(decoder, y_prev, state, keys, enc, query="own", masked=True, context="attention",
                  new_state=True, readout="sce", tanh=True, output="logits"):
    """A decoder step with one classic slip, built from the decoder's own parts (either wiring).
    query: "own" (the wiring's), "previous" (s_{t-1}) or "current" (s_t); masked: True, False or "inverted";
    context: "attention" or "summary"; readout: the order of [s_t; c_t; e] in the readout's input (one of
    _READOUT_ORDERS); tanh: the readout's tanh; output: "logits", "probabilities" or "log-probabilities"."""
    e = decoder.embedding(y_prev)
    mask = {True: enc.mask, False: torch.ones_like(enc.mask), "inverted": ~enc.mask}[masked]

    def attend(q):
        c, w = decoder.scorer(q[:, None, :], keys, enc.outputs, mask=mask)
        return (c[:, 0], w[:, 0]) if context == "attention" else (enc.summary, w[:, 0])

    if decoder.wiring == "luong":
        s_t = decoder.rnn(e[:, None], state[None])[0][:, 0]
        c, w = attend(state if query == "previous" else s_t)
    else:
        c, w = attend(state)
        s_t = decoder.cell(torch.cat([e, c], dim=-1), state)
    parts = {"s": s_t, "c": c, "e": e}
    hidden = decoder.pre_output(torch.cat([parts[k] for k in readout], dim=-1))
    logits = decoder.output(torch.tanh(hidden) if tanh else hidden)
    logits = {"logits": logits, "probabilities": torch.softmax(logits, -1),
              "log-probabilities": torch.log_softmax(logits, -1)}[output]
    return logits, w, s_t if new_state else state


def _order_text(order: str) -> str:
    """"cse" -> "[c_t; s_t; e]", as the readout's input is written."""
    return "[" + "; ".join({"s": "s_t", "c": "c_t", "e": "e"}[k] for k in order) + "]"


def _wiring_exercise(model, batch):
    """(reference step, inputs, {sentence: wrong step}, encoder_arg) for the first target step of `batch` through
    `model`'s attention decoder; the learner's step takes (decoder, y_prev, state, keys, enc)."""
    decoder = model.decoder
    enc = model.encode(batch)
    keys = decoder.key_proj(enc.outputs)
    inputs = (decoder, batch.tgt_in[:, 0], decoder.initial_state(enc)[0], keys, enc)
    slip = lambda **kw: lambda *args: _step_variant(*args, **kw)  # noqa: E731
    mistakes = {t("ch05.step_unmasked"): slip(masked=False), t("ch05.step_mask_inverted"): slip(masked="inverted"),
                t("ch05.step_summary"): slip(context="summary"), t("ch05.step_old_state"): slip(new_state=False),
                t("ch05.step_no_tanh"): slip(tanh=False),
                t("ch05.step_probabilities"): slip(output="probabilities"),
                t("ch05.step_log_probabilities"): slip(output="log-probabilities"),
                **{t("ch05.step_readout_order", order=_order_text(o)): slip(readout=o) for o in _READOUT_ORDERS[1:]}}
    if decoder.wiring == "luong":
        mistakes = {t("ch05.luong_previous_query"): slip(query="previous"), **mistakes}
        return _luong_reference, inputs, mistakes, 3
    return _bahdanau_reference, inputs, mistakes, 3


def _decoder_example() -> Example:
    """Exercise 05.4 on an untrained Luong-wired translator; the slip queries with s_{t-1} (Bahdanau's query)."""
    model, batch = _example_model()
    right = _luong_reference
    wrong_step = lambda *args: _step_variant(*args, query="previous")  # noqa: E731
    return Example(lambda a: check_decoder_step(a, model=model, batch=batch), right, wrong_step)


@functools.cache
def _example_model():
    """A small untrained Luong-wired translator and a padded batch of three toy sentences (for tests)."""
    from helpers import toylang
    from helpers.seq2seq import make_batch, make_model

    model = make_model("attention", wiring="luong", emb=8, hidden=8, attn_hidden=8, seed=0).eval()
    pairs = [(s.split(), toylang.translate(s.split())[0]) for s in ("a cat slept", "the dog saw a big cat",
                                                                     "a man slept")]
    return model, make_batch(pairs, model.src_vocab, model.tgt_vocab)


@checker(exercises=("05.4",), example=_decoder_example)
def check_decoder_step(step_fn, reference=None, inputs=None, mistakes=None, encoder_arg: int = 1,
                       name: str = "my_step", exercise: str = "05.4", show_answer: bool = False, *, model=None,
                       batch=None, output_names=None) -> bool:
    """Check a whole decoder step against a reference step (same signature, same outputs).

    Chapter 05: ``check_decoder_step(my_step, model=translator, batch=batch)`` checks
    my_step(decoder, y_prev (B,), state s_{t-1} (B, hidden), keys (B, S, key_size), enc) -> (logits (B, V),
    weights (B, S), s_t (B, hidden)) against the translator's own wiring (Luong's or Bahdanau's) on the first
    target step of `batch`, and names the classic slips (the query of the other wiring, padding not masked or the
    mask inverted, the summary instead of the context, the old state returned, the readout's tanh left out or its
    input in another order, probabilities instead of logits, an extra axis of length 1).
    Otherwise: reference, a step; inputs, the arguments both are called with (a tuple); mistakes, {sentence:
    wrong_step}; encoder_arg, which argument holds the encoder states (if the learner's output ignores them, the
    context does not reach the output); output_names, the outputs' names for messages (default "output 1 of n", ...).
    """
    if not_answered(step_fn, name):
        return False
    if not callable(step_fn) or isinstance(step_fn, torch.Tensor):
        return unreadable(t("ch05.decoder_not_function", name=name, what=describe(step_fn)))
    if model is not None:
        with torch.no_grad():
            reference, inputs, known, encoder_arg = _wiring_exercise(model, batch)
        mistakes = {**known, **(mistakes or {})}
        output_names = output_names or (t("ch05.output_logits"), t("ch05.output_weights"), t("ch05.output_state"))
    args = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    copy = lambda xs: tuple(x.clone() if isinstance(x, torch.Tensor) else x for x in xs)  # noqa: E731
    with torch.no_grad():
        want = _outputs(reference(*copy(args)))
        ok, out = call_learner(step_fn, *copy(args), name=name)
    if not ok:
        return wrong(exercise, out + ".", None, show_answer)
    got = _outputs(out)
    if len(got) != len(want):
        return wrong(exercise, t("ch05.decoder_count", name=name, what=returned(out), n=len(want)), None,
                     show_answer)
    bad = [k for k, (a, b) in enumerate(zip(got, want, strict=True)) if not _close(a, b, 1e-5)]
    if not bad:
        return feedback(True, t("ch05.decoder_ok"))
    for k in bad:                             # right values, an extra (or missing) axis of length 1
        a, b = got[k], want[k]
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape != b.shape:
            names = output_names or [t("ch05.output_k", k=j + 1, n=len(want)) for j in range(len(want))]
            same = a.numel() == b.numel() and _close(a.reshape(b.shape), b, 1e-5)
            return wrong(exercise, t("ch05.decoder_axis" if same else "ch05.decoder_shape", what=names[k],
                                     shape=tuple(a.shape), want=tuple(b.shape)), None, show_answer)
    for sentence, wrong_fn in (mistakes or {}).items():
        with torch.no_grad():
            candidate = _outputs(wrong_fn(*copy(args)))
        if len(candidate) == len(got) and all(_close(a, b, 1e-5) for a, b in zip(got, candidate, strict=True)):
            return wrong(exercise, sentence, None, show_answer)
    if 0 <= encoder_arg < len(args) and isinstance(args[encoder_arg], torch.Tensor):
        moved = list(copy(args))
        moved[encoder_arg] = moved[encoder_arg] + 1.0
        with torch.no_grad():
            ok, out2 = call_learner(step_fn, *moved, name=name)
        if ok and got[0] is not None and _close(_outputs(out2)[0], got[0], 1e-9):
            return wrong(exercise, t("ch05.context_unused"), None, show_answer)
    k, n = bad[0], len(want)                  # counted from 1 in the message, and named when the names are known
    what = (t("ch05.output_named", name=output_names[k], k=k + 1, n=n) if output_names
            else t("ch05.output_k", k=k + 1, n=n))
    wiring = getattr(getattr(model, "decoder", None), "wiring", None)
    order = {"luong": t("ch05.order_luong"), "bahdanau": t("ch05.order_bahdanau")}.get(wiring, "")
    return wrong(exercise, t("ch05.decoder_differs", what=what, order=order), None, show_answer)


register_solution("01.2", "translate by hand", """
Apply the word-order rules of the chapter's first section to each phrase, then look every word up in the
lexicon. The toy language's own translator is the reference:

    from helpers import toylang
    print(" ".join(toylang.translate("a small cat slept under the table".split())[0]))
""", zh_title="手工翻译", zh_text="""
对每个短语应用本章第一节的语序规则，再在词表里查出每个词。
玩具语法自带的翻译器就是参考答案：

    from helpers import toylang
    print(" ".join(toylang.translate("a small cat slept under the table".split())[0]))
""")
register_solution("05.1", "alignment by hand", """
For each target word, the source position(s) it translates (0-based); [] for a word with no source.
The toy language returns the gold alignment with the translation:

    from helpers import toylang
    target, alignment = toylang.translate("a cat slept in the house".split())
    print(list(zip(target, alignment)))
""", zh_title="手工对齐", zh_text="""
对每个目标词，给出它所翻译的源位置（从 0 开始计数）；没有源词的词给 []。
玩具语法在给出译文的同时也给出标准对齐：

    from helpers import toylang
    target, alignment = toylang.translate("a cat slept in the house".split())
    print(list(zip(target, alignment)))
""")
register_solution("05.2", "read the map", """
Row 2 (the third output word, counting from 0) of the map; its darkest cell's column is the answer:

    print(int(ex_weights[2].argmax()))
""", zh_title="读图", zh_text="""
看注意力图的第 2 行（第三个输出词，从 0 开始计数）；这一行里颜色最深的格子所在的列就是答案：

    print(int(ex_weights[2].argmax()))
""")
register_solution("05.3", "the attention part of a decoder step", """
    def my_attend(query, encoder_states, mask, score_fn):
        scores = score_fn(query, encoder_states)                  # (B, S)
        scores = scores.masked_fill(~mask[:, 0], float("-inf"))   # mask (B, 1, S) -> (B, S): padding never wins
        weights = torch.softmax(scores, dim=-1)                   # (B, S), over the source positions
        weights = torch.nan_to_num(weights)                       # an all-padding row: 0/0 -> 0
        context = (weights.unsqueeze(-1) * encoder_states).sum(1) # (B, C)
        return context, weights
""", zh_title="解码器一步中的注意力部分", zh_text="""
    def my_attend(query, encoder_states, mask, score_fn):
        scores = score_fn(query, encoder_states)                  # (B, S)
        scores = scores.masked_fill(~mask[:, 0], float("-inf"))   # 掩码 (B, 1, S) -> (B, S)：填充位置永远选不上
        weights = torch.softmax(scores, dim=-1)                   # (B, S)，在各个源位置上
        weights = torch.nan_to_num(weights)                       # 全是填充的一行：0/0 -> 0
        context = (weights.unsqueeze(-1) * encoder_states).sum(1) # (B, C)
        return context, weights
""")
register_solution("05.4", "one decoder step of Luong's wiring", """
Luong's wiring runs the recurrence first, on the embedding alone, and queries with the new state s_t; the
readout is the same [s_t; c_t; e]. With a Luong-wired translator the GRU is `decoder.rnn` (an nn.GRU over a
sequence, here of length 1):

    def my_step(decoder, y_prev, state, keys, enc):
        e = decoder.embedding(y_prev)                                   # (B, emb)
        s_t = decoder.rnn(e[:, None], state[None])[0][:, 0]             # (B, hidden)  GRU first, no context
        context, weights = decoder.scorer(s_t[:, None], keys, enc.outputs, mask=enc.mask)  # query s_t
        logits = decoder.readout(s_t, context[:, 0], e)                 # (B, V)
        return logits, weights[:, 0], s_t

Which of the Bahdanau model's weight matrices would no longer fit: its cell's input weights, `cell.weight_ih`.
Bahdanau's cell takes [e; c_{t-1}], the embedding and the context, so that matrix has emb + context columns;
Luong's GRU takes the embedding alone. Every other matrix fits: the scorer's W_q takes a decoder state (s_{t-1}
or s_t, the same size), and the readout takes [s; c; e] in both wirings. Print the two to see it:

    print(tuple(demo.decoder.cell.weight_ih.shape), tuple(luong_demo.decoder.rnn.weight_ih_l0.shape))
""", zh_title="Luong 接法的一步解码", zh_text="""
Luong 接法先只用词嵌入跑一步循环网络，再用新状态 s_t 做查询；输出部分同样读 [s_t; c_t; e]。
在 Luong 接法的翻译模型里，GRU 是 `decoder.rnn`（作用在序列上的 nn.GRU，这里序列长度为 1）：

    def my_step(decoder, y_prev, state, keys, enc):
        e = decoder.embedding(y_prev)                                   # (B, emb)
        s_t = decoder.rnn(e[:, None], state[None])[0][:, 0]             # (B, hidden)  先跑 GRU，不接收上下文
        context, weights = decoder.scorer(s_t[:, None], keys, enc.outputs, mask=enc.mask)  # 用 s_t 作查询
        logits = decoder.readout(s_t, context[:, 0], e)                 # (B, V)
        return logits, weights[:, 0], s_t

Bahdanau 模型里放不进这一步的权重矩阵，是它的循环单元的输入权重 `cell.weight_ih`。Bahdanau 接法的单元读入
[e; c_{t-1}]，即词嵌入和上下文向量，所以这个矩阵的列数是词嵌入维度加上下文维度；Luong 接法的 GRU 只读词嵌入。
其余矩阵都放得进：打分函数的 W_q 读的是解码器状态（s_{t-1} 或 s_t，维度相同），两种接法的输出部分读的都是
[s; c; e]。把两个矩阵的形状打印出来就能看到：

    print(tuple(demo.decoder.cell.weight_ih.shape), tuple(luong_demo.decoder.rnn.weight_ih_l0.shape))
""")
