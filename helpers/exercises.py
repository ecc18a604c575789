"""Answer checkers for the exercises: they say in words what is wrong, and never raise on a wrong answer.

Each checker returns True when the answer is right and False otherwise, and prints one line of feedback.
An answer left as ``None`` gets a friendly "not answered yet" line, so a notebook with open exercises runs clean.
Autograders (tests, assignments) can use the boolean; learners read the sentence.
"""
from __future__ import annotations

import numpy as np
import torch

__all__ = ["feedback", "not_answered", "as_array", "check_close", "check_weights"]


def feedback(ok: bool, message: str) -> bool:
    """Print a one-line verdict ("Correct: ..." / "Not yet: ...") and return `ok`."""
    print(("Correct: " if ok else "Not yet: ") + message)
    return ok


def not_answered(answer, name: str = "answer") -> bool:
    """True (and a friendly line) when the learner has not filled the answer in yet."""
    if answer is None or answer is Ellipsis:
        print(f"Not answered yet: replace the None in `{name}` with your answer, then run this cell again.")
        return True
    return False


def as_array(answer, name: str = "answer") -> np.ndarray | None:
    """The answer as a float NumPy array, or None (with a message) when it is not numbers."""
    try:
        if isinstance(answer, torch.Tensor):
            return answer.detach().cpu().double().numpy()
        return np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        print(f"Not yet: `{name}` should be a list, array or tensor of numbers; got {type(answer).__name__}.")
        return None


def check_close(answer, expected, name: str = "answer", tol: float = 1e-2) -> bool:
    """Compare numbers (a scalar, list or tensor) with the expected ones within `tol`, saying where they differ."""
    if not_answered(answer, name):
        return False
    got, want = as_array(answer, name), as_array(expected, "expected")
    if got is None:
        return False
    if got.shape != want.shape:
        return feedback(False, f"`{name}` has shape {tuple(got.shape)}; expected shape {tuple(want.shape)}.")
    if not np.all(np.isfinite(got)):
        return feedback(False, f"`{name}` contains NaN or infinity.")
    diff = np.abs(got - want)
    if np.all(diff <= tol):
        return feedback(True, f"`{name}` matches within {tol}.")
    i = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
    where = f" at index {tuple(int(k) for k in i)}" if diff.ndim else ""
    return feedback(False, f"`{name}`{where} is {got[i]:.4f} but should be about {want[i]:.4f}.")


def check_weights(weights, expected=None, name: str = "weights", tol: float = 1e-2) -> bool:
    """Check attention weights: numbers in [0, 1] that sum to 1 along the key axis (last), then (optionally) the values."""
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
        return feedback(False, f"`{name}` do not sum to 1 along the key axis (the sums are {np.round(sums, 4).tolist()}).")
    if expected is None:
        return feedback(True, f"`{name}` form a probability distribution over the keys.")
    return check_close(w, expected, name=name, tol=tol)
