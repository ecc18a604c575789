"""Chapters 01 and 05 (the toy translation task; attention in the decoder): translations and alignments by hand,
reading an attention map, and the attention part of one decoder step.

Gold alignments come in two formats and both work: one source position per target word (the one-to-one toy
language) or, per target word, a tuple of source positions, possibly empty (the richer grammar). When
``helpers.toylang.references`` exists, a translation is right if it equals any of the valid references.
"""
from __future__ import annotations

import numbers

import numpy as np
import torch

from helpers.i18n import t

from .core import (
    as_tensor,
    as_whole_number,
    call_learner,
    checker,
    describe,
    feedback,
    not_answered,
    register_solution,
    returned,
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


def _show_positions(sets) -> str:
    """Alignment sets as the learner would type them: 5 for a single position, [0, 2] or [] otherwise."""
    return "[" + ", ".join(str(s[0]) if len(s) == 1 else str(list(s)) for s in sets) + "]"


@checker
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
        return feedback(False, t("ch05.not_words", name=name, what=describe(answer)))
    if references is None:
        found, problem = _gold_or_message(source)
        if problem:
            return feedback(False, problem)
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
        what = (t("ch05.too_often", word=extra[0]) if extra else
                t("ch05.missing", n=len(best) - len(got)) if len(got) < len(best) else
                t("ch05.a_word_missing", n=len(missing)))
        return wrong(exercise, t("ch05.word_count", n=len(got), what=what), answer_text, show_answer)
    j = next(k for k, (a, b) in enumerate(zip(got, best, strict=True)) if a != b)
    return wrong(exercise, t("ch05.order", position=j, word=got[j]), answer_text, show_answer)


def _positions(answer, n_src: int, name: str):
    """The learner's alignment as a list of sorted tuples, or (None, a sentence saying what is wrong)."""
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
            if not 0 <= int(a) < n_src:
                return None, t("ch05.entry_range", k=k, name=name, value=int(a), last=n_src - 1)
            positions.append(int(a))
        out.append(tuple(sorted(set(positions))))
    return out, None


@checker
def check_alignment(answer, source, name: str = "my_alignment", gold=None, exercise: str = "05.1",
                    show_answer: bool = False) -> bool:
    """Check a hand alignment: for each target word, the 0-based source position it translates, or a list of
    positions ([] for a word with no source). gold: the gold alignment (default: ``toylang.translate``'s)."""
    if not_answered(answer, name):
        return False
    found, problem = _gold_or_message(source)
    if problem and gold is None:
        return feedback(False, problem)
    src, tgt = (found[0], found[1]) if found else (_source_tokens(source), None)
    sets = [_as_set(a) for a in gold] if gold is not None else found[2]
    tgt = tgt if tgt is not None and len(tgt) == len(sets) else [t("ch05.word_name", k=k) for k in range(len(sets))]
    got, problem = _positions(answer, len(src), name)
    if problem:
        return feedback(False, problem)
    if len(got) != len(sets):
        return feedback(False, t("ch05.entries", name=name, n=len(got), words=len(sets), target=" ".join(tgt)))
    if got == sets:
        one_to_one = all(len(s) == 1 for s in sets)
        return feedback(True, t("ch05.permutation_ok") if one_to_one else t("ch05.sets_ok"))
    answer_text = _show_positions(sets)
    shifted = [tuple(a - 1 for a in g) for g in got]
    if shifted == sets:
        return wrong(exercise, t("ch05.one_based"), answer_text, show_answer)
    j = next(k for k, (a, b) in enumerate(zip(got, sets, strict=True)) if a != b)
    a, b = set(got[j]), set(sets[j])
    words = lambda s: ", ".join(f"{p} ('{src[p]}')" for p in sorted(s))  # noqa: E731
    if not b:
        message = t("ch05.translates_nothing", j=j, word=tgt[j])
    elif not a:
        message = t("ch05.translates_something", j=j, word=tgt[j])
    elif a < b:
        message = t("ch05.depends_on_more", j=j, word=tgt[j], sources=words(a))
    elif b < a:
        message = t("ch05.not_all_of", j=j, word=tgt[j], sources=words(a))
    else:
        message = t("ch05.not_source", j=j, word=tgt[j], sources=words(a - b or a))
    return wrong(exercise, message, answer_text, show_answer)


@checker
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
        return feedback(False, t("ch05.bad_map"))
    right = int(w[step].argmax())
    if got == right:
        return feedback(True, t("ch05.looks_hardest", step=step, position=right))
    if got == right + 1:
        message = t("ch05.map_one_based")
    elif not 0 <= got < w.shape[1]:
        return feedback(False, t("ch05.map_range", name=name, value=got, last=w.shape[1] - 1))
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
    ctx = ctx[:, 0] if ctx.dim() == 3 and ctx.shape[1] == 1 else ctx
    w = w[:, 0] if w.dim() == 3 and w.shape[1] == 1 else w
    return ctx, w, calls, None


@checker
def check_attention_step(fn, name: str = "my_attend", with_query_axis: bool = False, exercise: str = "05.3",
                         show_answer: bool = False) -> bool:
    """Check the attention part of one decoder step:
    fn(query (B, H), encoder_states (B, S, C), mask (B, S) bool True = real token, score_fn) -> (context (B, C),
    weights (B, S)), where score_fn(query, encoder_states) -> scores (B, S). with_query_axis: pass the mask as
    (B, 1, S), the course's mask convention. A fully padded sentence must get zero weights and context, not NaN."""
    if not_answered(fn, name):
        return False
    if not callable(fn) or isinstance(fn, torch.Tensor):
        return feedback(False, t("ch05.step_not_function", name=name, what=describe(fn)))
    inputs = _step_inputs(3, [5, 3, 4])
    query, states, mask, score_fn = inputs
    B, S, C = states.shape
    ctx, w, calls, problem = _call_step(fn, name, inputs, with_query_axis)
    if problem:
        return wrong(exercise, problem, None, show_answer)
    if ctx.shape == (B, S) and w.shape == (B, C):
        return wrong(exercise, t("ch05.swapped"), None, show_answer)
    if w.shape != (B, S):
        return wrong(exercise, t("ch05.weights_shape", B=B, S=S, shape=tuple(w.shape)), None, show_answer)
    if not calls:
        return wrong(exercise, t("ch05.no_score_fn"), None, show_answer)
    scores = score_fn(query, states)
    hidden = scores.masked_fill(~mask, float("-inf"))
    ref_ctx, ref_w = _reference_step(*inputs)
    if not _close(w, ref_w):
        unmasked = torch.softmax(scores, -1)
        wrong_weights = [
            (scores, t("ch05.raw_scores")),
            (torch.softmax(hidden, 0), t("ch05.batch_axis")),
            (torch.softmax(scores, 0), t("ch05.batch_axis_unmasked")),
            (torch.ones_like(scores), t("ch05.length_one_axis")),
            (unmasked, t("ch05.unmasked")),
            (torch.softmax(scores.masked_fill(mask, float("-inf")), -1), t("ch05.mask_inverted")),
            (unmasked * mask, t("ch05.zeroed_after")),
            (torch.exp(hidden), t("ch05.not_normalised")),
            (torch.exp(scores), t("ch05.neither")),
        ]
        for candidate, message in wrong_weights:
            if _close(w, candidate):
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


@checker
def check_decoder_step(step_fn, reference, inputs, mistakes=None, encoder_arg: int = 1, name: str = "my_step",
                       exercise: str = "05.4", show_answer: bool = False) -> bool:
    """Check a whole decoder step against a `reference` step the caller passes in (same signature, same outputs).

    inputs: the arguments both steps are called with (a tuple). mistakes: {sentence: wrong_step} known wrong
    versions (e.g. the query taken from the wrong state); a learner whose outputs match one gets its sentence.
    encoder_arg: which argument holds the encoder states; if the learner's output ignores them, the context
    does not reach the output.
    """
    if not_answered(step_fn, name):
        return False
    if not callable(step_fn) or isinstance(step_fn, torch.Tensor):
        return feedback(False, t("ch05.decoder_not_function", name=name, what=describe(step_fn)))
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
    for sentence, wrong_fn in (mistakes or {}).items():
        with torch.no_grad():
            candidate = _outputs(wrong_fn(*copy(args)))
        if len(candidate) == len(got) and all(_close(a, b, 1e-5) for a, b in zip(got, candidate, strict=True)):
            return wrong(exercise, sentence, None, show_answer)
    if 0 <= encoder_arg < len(args) and isinstance(args[encoder_arg], torch.Tensor):
        moved = list(copy(args))
        moved[encoder_arg] = moved[encoder_arg] + 1.0
        ok, out2 = call_learner(step_fn, *moved, name=name)
        if ok and got[0] is not None and _close(_outputs(out2)[0], got[0], 1e-9):
            return wrong(exercise, t("ch05.context_unused"), None, show_answer)
    k = bad[0]
    return wrong(exercise, t("ch05.decoder_differs", k=k, n=len(want)), None, show_answer)


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
        scores = scores.masked_fill(~mask[:, 0], float("-inf"))   # mask (B, 1, S) -> (B, S): padding never wins
        weights = torch.softmax(scores, dim=-1)                   # (B, S), over the source positions
        weights = torch.nan_to_num(weights)                       # an all-padding row: 0/0 -> 0
        context = (weights.unsqueeze(-1) * encoder_states).sum(1) # (B, C)
        return context, weights
""")
