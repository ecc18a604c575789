"""The shared core of the exercise checkers: feedback lines, input coercion, try counting, worked solutions and
the checker registry.

Every checker returns True or False and prints one line; it never raises, whatever a learner passes.
A wrong answer has one path, ``wrong``: it counts a try of the exercise, names the likely slip or gives a hint on
the first try, and shows the expected value only on a second wrong try of the same exercise, or on request
(``show_answer=True``, or ``solution("04.2")`` for the worked solution). An answer that cannot be read as the kind
of thing asked for (text for numbers, a list for a function, None) is not a try: ``unreadable`` says what was
expected and counts nothing. Tries are counted per exercise id in this kernel, so a fresh kernel starts afresh.

``@checker(exercises=..., example=...)`` registers a checker in ``CHECKERS``, the one list of checkers: the
package's table, ``__all__`` and the tests' table of calls all come from it.
"""
from __future__ import annotations

import functools
import math
import numbers
from typing import Callable, NamedTuple

import numpy as np
import torch

from helpers.i18n import and_list, get_lang, ordinal, t

__all__ = [
    "feedback", "not_answered", "describe", "as_array", "as_number", "as_whole_number", "as_tensor", "returned",
    "call_learner", "wrong", "unreadable", "tries", "reset_tries", "Solution", "register_solution", "solution",
    "exercise_ids", "checker", "Example", "CHECKERS",
    "check_close", "check_weights", "tied_top",
]

FALLBACK = t("core.fallback", lang="en")  # tests require that no checker ever falls back to this (in any language)
_TRIES: dict[str, int] = {}
_SOLUTIONS: dict[str, Solution] = {}
CHECKERS: dict[str, Callable[..., bool]] = {}   # name -> checker, in registration order (see `checker`)


# ---------------------------------------------------------------- feedback lines
def feedback(ok: bool, message: str) -> bool:
    """Print a one-line verdict ("Correct: ..." / "Not yet: ...") and return `ok` as a bool."""
    print(t("core.correct" if ok else "core.not_yet") + message)
    return bool(ok)


def unreadable(message: str) -> bool:
    """Say that an answer cannot be read as what the exercise asks for (False); not a try: nothing is counted."""
    return feedback(False, message)


def not_answered(answer, name: str = "answer") -> bool:
    """True (and a friendly line) when the learner has not filled the answer in yet (None or ...)."""
    if answer is None or answer is Ellipsis:
        print(t("core.not_answered", name=name))
        return True
    return False


def describe(x) -> str:
    """A few words saying what `x` is, for messages: "the string '8256'", "a list of 2 items", "a function"."""
    if x is None:
        return "None"
    if isinstance(x, str):
        return t("describe.string", text=x[:30]) if x else t("describe.empty_string")
    if isinstance(x, bool):
        return t("describe.bool", value=x)
    if isinstance(x, torch.Tensor):
        key = "describe.tensor_grad" if x.requires_grad else "describe.tensor"
        return t(key, shape=tuple(x.shape))
    if isinstance(x, np.ndarray):
        return t("describe.array", shape=x.shape)
    if isinstance(x, (list, tuple, set, frozenset, dict)):
        kind = type(x).__name__
        return t("describe.empty", kind=kind) if len(x) == 0 else t("describe.items", kind=kind, n=len(x),
                                                                         s="s" * (len(x) != 1))
    if isinstance(x, numbers.Number):
        return t("describe.number", value=x)
    if callable(x):
        return t("describe.function")
    return t("describe.object", kind=type(x).__name__)


# ---------------------------------------------------------------- input coercion
def _has_text(x) -> bool:
    """True when `x` is, or (in a list/tuple) contains, a string: "8256" is text, not a number."""
    if isinstance(x, (str, bytes)):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_text(v) for v in x)
    return False


def as_array(answer, name: str = "answer", quiet: bool = False) -> np.ndarray | None:
    """The answer as a float NumPy array, or None (with a message unless `quiet`) when it is not numbers."""
    problem = None
    if _has_text(answer):
        problem = (t("core.text_not_numbers", name=name, what=describe(answer)) if isinstance(answer, str)
                   else t("core.contains_text", name=name))
    elif isinstance(answer, (dict, set, frozenset)) or callable(answer) and not isinstance(answer, torch.Tensor):
        problem = t("core.not_numbers", name=name, what=describe(answer))
    else:
        try:
            if isinstance(answer, torch.Tensor):
                arr = answer.detach().cpu().double().numpy()
            else:
                raw = np.asarray(answer)
                if raw.dtype.kind not in "biuf":
                    raise TypeError(raw.dtype)
                arr = raw.astype(float)
            return arr
        except Exception:
            problem = t("core.unreadable_numbers", name=name, what=describe(answer))
    if not quiet:
        unreadable(problem)
    return None


def as_number(answer, name: str = "answer", quiet: bool = False) -> float | None:
    """One finite real number (a Python/NumPy number or a one-element tensor), or None with a message."""
    problem = None
    if isinstance(answer, bool):
        problem = t("core.bool_not_number", name=name, what=describe(answer))
    elif isinstance(answer, str):
        problem = t("core.string_not_number", name=name, what=describe(answer))
    else:
        arr = as_array(answer, name, quiet=True)
        if arr is None or arr.size != 1:
            problem = t("core.not_one_number", name=name, what=describe(answer))
        else:
            value = float(arr.reshape(-1)[0])
            if math.isfinite(value):
                return value
            problem = t("core.not_finite", name=name, value=value)
    if not quiet:
        unreadable(problem)
    return None


def as_whole_number(answer, name: str = "answer", quiet: bool = False) -> int | None:
    """One whole number (5 or 5.0, not 5.9 or "5"), or None with a message."""
    value = as_number(answer, name, quiet)
    if value is None:
        return None
    if not value.is_integer():
        if not quiet:
            unreadable(t("core.not_whole", name=name, value=value))
        return None
    return int(value)


def as_tensor(x) -> torch.Tensor | None:
    """A learner's result as a float64 tensor (detached), or None when it is not numbers."""
    arr = as_array(x, quiet=True)
    return None if arr is None else torch.from_numpy(np.array(arr, dtype=np.float64))


def returned(result) -> str:
    """What a learner's function returned, for a message: "None (did you forget `return`?)" or a description."""
    if result is None:
        return t("core.returned_none")
    return describe(result)


def call_learner(fn, *args, name: str = "your function", passthrough: tuple[type[Exception], ...] = ()):
    """Call a learner's function: (True, result) or (False, a sentence saying it raised what); the exception
    types in `passthrough` propagate, for a checker that names what they mean (IndexError: an axis that is missing)."""
    try:
        return True, fn(*args)
    except passthrough:
        raise
    except Exception as e:
        return False, t("core.raised", name=name, error=type(e).__name__, detail=e)


# ---------------------------------------------------------------- tries, answers, solutions
def tries(exercise: str) -> int:
    """How many wrong tries of `exercise` this kernel has seen."""
    return _TRIES.get(exercise, 0)


def reset_tries(exercise: str | None = None) -> None:
    """Forget the wrong tries of one exercise (or of all): the next wrong answer counts as a first try."""
    if exercise is None:
        _TRIES.clear()
    else:
        _TRIES.pop(exercise, None)


def wrong(exercise: str, message: str, answer: str | None = None, show_answer: bool = False) -> bool:
    """The one path of a wrong answer: count a try of `exercise`, print `message` (the slip or a hint), and add
    the expected answer only on a second try or on request.

    `answer` is the expected value as text; the second try also points to ``solution(exercise)`` when the exercise
    has a worked solution. With neither to show (a generic check outside an exercise), nothing is promised.
    """
    _TRIES[exercise] = _TRIES.get(exercise, 0) + 1
    message = message.rstrip()
    reveal = (t("core.expected", answer=answer) if answer is not None else "") + (
        t("core.worked_solution", exercise=repr(exercise)) if exercise in _SOLUTIONS else "")
    if show_answer or _TRIES[exercise] >= 2:
        message += reveal
    elif reveal:
        message += t("core.try_again")
    return feedback(False, message)


class Solution(NamedTuple):
    """A worked solution: its English title and text, and their Chinese translations (None when missing)."""

    title: str
    text: str
    zh_title: str | None = None
    zh_text: str | None = None

    def in_language(self, lang: str) -> tuple[str, str]:
        """(title, text) in `lang` ("en" or "zh"); the English ones when that translation is missing."""
        if lang == "zh" and self.zh_title is not None and self.zh_text is not None:
            return self.zh_title, self.zh_text
        return self.title, self.text


def register_solution(exercise: str, title: str, text: str, zh_title: str | None = None,
                      zh_text: str | None = None) -> None:
    """Store the worked solution of `exercise` (e.g. "04.2") in English and, optionally, Chinese (same code
    blocks, prose translated); printed on request by ``solution`` in the current language."""
    _SOLUTIONS[exercise] = Solution(title, text.strip("\n"), zh_title,
                                    None if zh_text is None else zh_text.strip("\n"))


def exercise_ids() -> list[str]:
    """The exercise ids that have a worked solution, in chapter order."""
    return sorted(_SOLUTIONS)


def solution(exercise: str) -> None:
    """Print the worked solution of one exercise, e.g. ``solution("04.2")``, in the current language (English when
    its translation is missing); shown only when asked for."""
    if not isinstance(exercise, str) or exercise not in _SOLUTIONS:
        print(t("core.no_solution", exercise=repr(exercise), ids=", ".join(exercise_ids())))
        return
    title, text = _SOLUTIONS[exercise].in_language(get_lang())
    print(t("core.solution_head", exercise=exercise, title=title) + f"\n\n{text}")


class Example(NamedTuple):
    """How to drive a checker in tests: call(answer) -> bool, a right answer, and a readable wrong answer (a
    classic slip); the tests' table of calls is built from these."""

    call: Callable[[object], bool]
    right: object
    wrong: object


def checker(fn: Callable[..., bool] | None = None, *, exercises: tuple[str, ...] = (),
            example: Callable[[], Example] | None = None):
    """Register a public checker in ``CHECKERS`` and make sure it never raises (an internal error becomes a
    feedback line). Use as ``@checker`` or ``@checker(exercises=("04.2",), example=make_example)``.

    exercises: the ids (chapter.exercise) it answers, () for a generic check; example: a function returning the
    checker's `Example` (built only when a test asks for it).
    """
    if fn is None:
        return functools.partial(checker, exercises=exercises, example=example)

    @functools.wraps(fn)
    def safe(*args, **kwargs) -> bool:
        try:
            with np.errstate(all="ignore"):
                return bool(fn(*args, **kwargs))
        except Exception as e:
            return feedback(False, t("core.fallback_detail", fallback=t("core.fallback"), error=type(e).__name__,
                                     detail=e))

    safe.exercises = tuple(exercises)
    safe.example = example
    CHECKERS[fn.__name__] = safe
    return safe


# ---------------------------------------------------------------- generic numeric checks
def _fmt(x: np.ndarray) -> str:
    """Numbers for a message: one value as 0.1234 (or a whole number), several as a rounded list."""
    if x.size == 1:
        v = float(x.reshape(-1)[0])
        return str(int(v)) if v.is_integer() else f"{v:.4g}"
    return str(np.round(x, 4).tolist())


def _matches(got: np.ndarray, value, tol: float) -> bool:
    """Does `got` equal `value` within `tol` absolute or 1% relative (for slips like bytes vs MiB)?"""
    v = np.asarray(value, dtype=float)
    return v.shape == got.shape and bool(np.allclose(got, v, rtol=1e-2, atol=tol))


def _close_example() -> Example:
    """check_close on one number: 0.75 for 0.5 is too high."""
    return Example(lambda a: check_close(a, 0.5), 0.5, 0.75)


def _weights_example() -> Example:
    """check_weights asking for most of the weight on key 1: [0.8, 0.1, 0.1] puts it on key 0."""
    return Example(lambda a: check_weights(a, most_on=1), [0.1, 0.8, 0.1], [0.8, 0.1, 0.1])


@checker(example=_close_example)
def check_close(answer, expected, name: str = "answer", tol: float = 1e-2, exercise: str | None = None,
                slips=None, hint: str | None = None, show_answer: bool = False) -> bool:
    """Compare numbers (a scalar, list or tensor) with the expected ones within `tol`.

    slips: pairs (value, sentence) of likely wrong answers, named when the answer matches one (e.g. bytes vs MiB).
    hint: said on a first wrong try that matches no slip. The expected value shows on a second wrong try.
    """
    if not_answered(answer, name):
        return False
    key = exercise or name
    got, want = as_array(answer, name), as_array(expected, "expected", quiet=True)
    if got is None:
        return False
    if want is None:
        return unreadable(t("core.expected_not_number", name=name))
    if got.shape != want.shape:
        return wrong(key, t("core.wrong_shape", name=name, shape=tuple(got.shape), want=tuple(want.shape)),
                     _fmt(want), show_answer)
    if not np.all(np.isfinite(got)):
        return wrong(key, t("core.nan", name=name), _fmt(want), show_answer)
    if np.all(np.abs(got - want) <= tol):
        return feedback(True, t("core.close_within" if tol else "core.close_exact", name=name, value=_fmt(want),
                                tol=tol))
    for value, sentence in (slips.items() if isinstance(slips, dict) else slips or ()):
        if _matches(got, value, tol):
            return wrong(key, t("core.is_value", name=name, value=_fmt(got), sentence=sentence), _fmt(want),
                         show_answer)
    if hint is None:
        diff = got - want
        i = np.unravel_index(int(np.argmax(np.abs(diff))), diff.shape) if diff.ndim else ()
        where = t("core.at_index", index=tuple(int(k) for k in i)) if diff.ndim else ""
        hint = t("core.too_high" if diff[i] > 0 else "core.too_low", name=name, where=where, value=got[i])
    return wrong(key, hint, _fmt(want), show_answer)


def tied_top(w: np.ndarray, tol: float = 1e-9) -> list[int]:
    """The positions of a 1-D array (n,) that share its largest value (within `tol`): one, or several on a tie."""
    return [int(i) for i in np.flatnonzero(w >= w.max() - tol)]


@checker(example=_weights_example)
def check_weights(weights, expected=None, name: str = "weights", tol: float = 1e-2, most_on: int | None = None,
                  exercise: str | None = None, show_answer: bool = False) -> bool:
    """Check attention weights: numbers in [0, 1] summing to 1 along the last (key) axis; then optionally
    that key `most_on` (0-based) gets more than half of the weight, or that they equal `expected`."""
    if not_answered(weights, name):
        return False
    w = as_array(weights, name)
    if w is None:
        return False
    key = exercise or name
    want = as_array(expected, "expected", quiet=True) if expected is not None else None
    answer = (t("core.most_on_answer", position=most_on) if most_on is not None else
              _fmt(want) if want is not None else None)

    def no(message: str) -> bool:
        return wrong(key, message, answer, show_answer)

    if w.ndim == 0:
        return no(t("core.single_number", name=name))
    if most_on is not None and (w.ndim != 1 or not 0 <= most_on < w.shape[0]):
        return no(t("core.no_such_key", name=name, shape=w.shape, ordinal=ordinal(most_on)))
    if not np.all(np.isfinite(w)):
        return no(t("core.nan", name=name))
    if np.any(w < -1e-9) or np.any(w > 1 + 1e-9):
        return no(t("core.outside_01", name=name))
    sums = w.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=tol):
        return no(t("core.not_sum_1", name=name, sums=_fmt(sums)))
    if most_on is not None:
        wanted = ordinal(most_on)
        if w[most_on] > 0.5:
            return feedback(True, t("core.most_on_ok", share=w[most_on], ordinal=wanted))
        tops = tied_top(w)
        others = [i for i in tops if i != most_on]
        if len(tops) > 1 and most_on in tops:
            message = t("core.most_on_tie", ordinal=wanted, share=w[most_on],
                        others=and_list([t("core.key_place", place=ordinal(i)) for i in others]))
        elif len(tops) > 1:
            message = t("core.most_on_others_tie", places=and_list([t("core.key_place", place=ordinal(i))
                                                                    for i in tops]),
                        share=w[tops[0]], ordinal=wanted, position=most_on)
        elif tops[0] != most_on:
            message = t("core.most_on_other", place=ordinal(tops[0]), top=tops[0], ordinal=wanted,
                        position=most_on)
        else:
            message = t("core.most_on_not_half", ordinal=wanted, share=w[most_on])
        return no(message)
    if expected is None:
        return feedback(True, t("core.distribution_ok", name=name))
    return check_close(w, expected, name=name, tol=tol, exercise=exercise, show_answer=show_answer)
