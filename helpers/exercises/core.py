"""The shared core of the exercise checkers: feedback lines, input coercion, try counting and worked solutions.

Every checker returns True or False and prints one line; it never raises, whatever a learner passes.
A wrong answer first gets the likely slip or a hint; the expected value is shown only on a second wrong try
of the same exercise, or on request (``show_answer=True``, or ``solution("04.2")`` for the worked solution).
Tries are counted per exercise id in this kernel, so a fresh kernel always starts from the first try.
"""
from __future__ import annotations

import functools
import math
import numbers
from typing import Callable

import numpy as np
import torch

__all__ = [
    "feedback", "not_answered", "describe", "as_array", "as_number", "as_whole_number", "as_tensor", "returned",
    "call_learner", "wrong", "tries", "reset_tries", "register_solution", "solution", "exercise_ids", "checker",
    "CHECKERS",
    "check_close", "check_weights",
]

FALLBACK = "the checker could not read this answer"  # tests require that no checker ever falls back to this
_TRIES: dict[str, int] = {}
_SOLUTIONS: dict[str, tuple[str, str]] = {}
CHECKERS: dict[str, Callable[..., bool]] = {}


# ---------------------------------------------------------------- feedback lines
def feedback(ok: bool, message: str) -> bool:
    """Print a one-line verdict ("Correct: ..." / "Not yet: ...") and return `ok` as a bool."""
    print(("Correct: " if ok else "Not yet: ") + message)
    return bool(ok)


def not_answered(answer, name: str = "answer") -> bool:
    """True (and a friendly line) when the learner has not filled the answer in yet (None or ...)."""
    if answer is None or answer is Ellipsis:
        print(f"Not answered yet: replace the None in `{name}` with your answer, then run this cell again.")
        return True
    return False


def describe(x) -> str:
    """A few words saying what `x` is, for messages: "the string '8256'", "a list of 2 items", "a function"."""
    if x is None:
        return "None"
    if isinstance(x, str):
        return f"the string {x[:30]!r}" if x else "an empty string"
    if isinstance(x, bool):
        return f"the truth value {x}"
    if isinstance(x, torch.Tensor):
        grad = " that requires grad" if x.requires_grad else ""
        return f"a tensor of shape {tuple(x.shape)}{grad}"
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}"
    if isinstance(x, (list, tuple, set, frozenset, dict)):
        kind = type(x).__name__
        return f"an empty {kind}" if len(x) == 0 else f"a {kind} of {len(x)} item{'s' * (len(x) != 1)}"
    if isinstance(x, numbers.Number):
        return f"the number {x}"
    if callable(x):
        return "a function"
    return f"a {type(x).__name__}"


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
        problem = (f"`{name}` is {describe(answer)}" if isinstance(answer, str) else f"`{name}` contains text")
        problem += "; expected numbers (write them without quotes)."
    elif isinstance(answer, (dict, set, frozenset)) or callable(answer) and not isinstance(answer, torch.Tensor):
        problem = f"`{name}` is {describe(answer)}; expected a number, or a list, array or tensor of numbers."
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
            problem = (f"`{name}` is {describe(answer)} that cannot be read as numbers; expected a number, "
                       "or a (rectangular) list, array or tensor of numbers.")
    if not quiet:
        feedback(False, problem)
    return None


def as_number(answer, name: str = "answer", quiet: bool = False) -> float | None:
    """One finite real number (a Python/NumPy number or a one-element tensor), or None with a message."""
    problem = None
    if isinstance(answer, bool):
        problem = f"`{name}` is {describe(answer)}; expected a number."
    elif isinstance(answer, str):
        problem = f"`{name}` is {describe(answer)}, not a number; write the number without quotes."
    else:
        arr = as_array(answer, name, quiet=True)
        if arr is None or arr.size != 1:
            problem = f"`{name}` is {describe(answer)}; expected one number."
        else:
            value = float(arr.reshape(-1)[0])
            if math.isfinite(value):
                return value
            problem = f"`{name}` is {value}; expected a finite number."
    if not quiet:
        feedback(False, problem)
    return None


def as_whole_number(answer, name: str = "answer", quiet: bool = False) -> int | None:
    """One whole number (5 or 5.0, not 5.9 or "5"), or None with a message."""
    value = as_number(answer, name, quiet)
    if value is None:
        return None
    if not value.is_integer():
        if not quiet:
            feedback(False, f"`{name}` is {value}; expected a whole number.")
        return None
    return int(value)


def as_tensor(x) -> torch.Tensor | None:
    """A learner's result as a float64 tensor (detached), or None when it is not numbers."""
    arr = as_array(x, quiet=True)
    return None if arr is None else torch.from_numpy(np.array(arr, dtype=np.float64))


def returned(result) -> str:
    """What a learner's function returned, for a message: "None (did you forget `return`?)" or a description."""
    if result is None:
        return "None (did you forget `return`?)"
    return describe(result)


def call_learner(fn, *args, name: str = "your function"):
    """Call a learner's function: (True, result) or (False, a sentence saying it raised what)."""
    try:
        return True, fn(*args)
    except Exception as e:
        return False, f"calling `{name}` raised {type(e).__name__}: {e}"


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
    """Count a wrong try of `exercise` and print `message`; add the expected answer on a second try or on request.

    `answer` is the expected value as text; without one, the second try points to ``solution(exercise)``.
    """
    _TRIES[exercise] = _TRIES.get(exercise, 0) + 1
    message = message.rstrip()
    if show_answer or _TRIES[exercise] >= 2:
        if answer is not None:
            message += f" Expected: {answer}."
        if exercise in _SOLUTIONS:
            message += f" Worked solution: helpers.exercises.solution({exercise!r})."
    else:
        message += " Try again (a second wrong try shows the answer)."
    return feedback(False, message)


def register_solution(exercise: str, title: str, text: str) -> None:
    """Store the worked solution of `exercise` (e.g. "04.2"), printed on request by ``solution``."""
    _SOLUTIONS[exercise] = (title, text.strip("\n"))


def exercise_ids() -> list[str]:
    """The exercise ids that have a worked solution, in chapter order."""
    return sorted(_SOLUTIONS)


def solution(exercise: str) -> None:
    """Print the worked solution of one exercise, e.g. ``solution("04.2")``; shown only when asked for."""
    if not isinstance(exercise, str) or exercise not in _SOLUTIONS:
        print(f"No worked solution for {exercise!r}; exercise ids are {', '.join(exercise_ids())} "
              "(chapter.exercise, e.g. '04.2').")
        return
    title, text = _SOLUTIONS[exercise]
    print(f"Exercise {exercise}: {title}\n\n{text}")


def checker(fn: Callable[..., bool]) -> Callable[..., bool]:
    """Register a public checker and make sure it never raises: an internal error becomes a feedback line."""

    @functools.wraps(fn)
    def safe(*args, **kwargs) -> bool:
        try:
            with np.errstate(all="ignore"):
                return bool(fn(*args, **kwargs))
        except Exception as e:
            return feedback(False, f"{FALLBACK} ({type(e).__name__}: {e}); check its type and shape.")

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


@checker
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
        return feedback(False, f"the expected value for `{name}` is not a number; this is a mistake in the notebook.")
    if got.shape != want.shape:
        return feedback(False, f"`{name}` has shape {tuple(got.shape)}; expected shape {tuple(want.shape)}.")
    if not np.all(np.isfinite(got)):
        return feedback(False, f"`{name}` contains NaN or infinity.")
    if np.all(np.abs(got - want) <= tol):
        return feedback(True, f"`{name}` is {_fmt(want)}" + (f" (within {tol})." if tol else "."))
    for value, sentence in (slips.items() if isinstance(slips, dict) else slips or ()):
        if _matches(got, value, tol):
            return wrong(key, f"`{name}` is {_fmt(got)}: {sentence}", _fmt(want), show_answer)
    if hint is None:
        diff = got - want
        i = np.unravel_index(int(np.argmax(np.abs(diff))), diff.shape) if diff.ndim else ()
        where = f" at index {tuple(int(k) for k in i)}" if diff.ndim else ""
        hint = f"`{name}`{where} is {got[i]:.4g}, too {'high' if diff[i] > 0 else 'low'}."
    return wrong(key, hint, _fmt(want), show_answer)


@checker
def check_weights(weights, expected=None, name: str = "weights", tol: float = 1e-2, most_on: int | None = None,
                  exercise: str | None = None, show_answer: bool = False) -> bool:
    """Check attention weights: numbers in [0, 1] summing to 1 along the last (key) axis; then optionally
    that key `most_on` (0-based) gets more than half of the weight, or that they equal `expected`."""
    if not_answered(weights, name):
        return False
    w = as_array(weights, name)
    if w is None:
        return False
    if w.ndim == 0:
        return feedback(False, f"`{name}` is a single number; expected one weight per key.")
    if not np.all(np.isfinite(w)):
        return feedback(False, f"`{name}` contains NaN or infinity.")
    if np.any(w < -1e-9) or np.any(w > 1 + 1e-9):
        return feedback(False, f"`{name}` has values outside [0, 1]: weights are probabilities.")
    sums = w.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=tol):
        return feedback(False, f"`{name}` do not sum to 1 along the key axis (the sums are {_fmt(sums)}).")
    if most_on is not None:
        key = exercise or name
        ordinal = {0: "first", 1: "second", 2: "third", 3: "fourth"}.get(most_on, f"number {most_on + 1}")
        if w.ndim != 1 or not 0 <= most_on < w.shape[0]:
            return feedback(False, f"`{name}` has shape {w.shape}; expected a list of weights with a {ordinal} key.")
        if w[most_on] > 0.5:
            return feedback(True, f"a distribution with {w[most_on]:.2f} of the weight on the {ordinal} key.")
        top = int(np.argmax(w))
        if top != most_on:
            place = {0: "first", 1: "second", 2: "third", 3: "fourth"}.get(top, f"number {top + 1}")
            message = (f"most of the weight is on the {place} key (position {top} counting from 0); "
                       f"the exercise asks for the {ordinal} key (position {most_on}).")
        else:
            message = (f"the {ordinal} key has the largest weight ({w[most_on]:.2f}) but not most of it: "
                       "give it more than half.")
        return wrong(key, message, f"any weights with more than 0.5 at position {most_on}", show_answer)
    if expected is None:
        return feedback(True, f"`{name}` form a probability distribution over the keys.")
    return check_close(w, expected, name=name, tol=tol, exercise=exercise, show_answer=show_answer)
