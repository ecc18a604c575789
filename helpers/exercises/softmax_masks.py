"""Chapter 04 (scaled dot product, softmax, masking): the √d_k scale, a stable softmax and a causal mask."""
from __future__ import annotations

import math

import numpy as np
import torch

from .core import (
    as_array,
    as_tensor,
    call_learner,
    check_close,
    checker,
    feedback,
    not_answered,
    register_solution,
    returned,
    wrong,
)

__all__ = ["check_std_scaling", "check_stable_softmax", "check_causal_mask"]


@checker
def check_std_scaling(answer, d_k: int = 256, name: str = "my_stds", exercise: str = "04.1",
                      show_answer: bool = False) -> bool:
    """[std of q·k, std of q·k / √d_k] for random unit-variance vectors of size d_k: [√d_k, 1]."""
    r = math.sqrt(d_k)
    slips = [([d_k, 1.0], "the first number is the variance of q·k (d_k); the question asks for the standard "
                          "deviation, its square root."),
             ([d_k, r], "those are variances; the standard deviation is the square root of the variance."),
             ([r, r], "dividing q·k by √d_k divides its standard deviation by √d_k too."),
             ([d_k, d_k], "the first is the variance, and dividing by √d_k divides the standard deviation by √d_k."),
             ([1.0, 1 / r], "q·k sums d_k products of variance 1 each: its variance grows with d_k."),
             ([1.0, 1.0], "q·k sums d_k products of variance 1 each: its variance grows with d_k.")]
    if not_answered(answer, name):
        return False
    got = as_array(answer, name)
    if got is None:
        return False
    if got.shape != (2,):
        return feedback(False, f"`{name}` is {got.tolist() if got.size < 5 else 'longer'}; expected a list of two "
                               "numbers: [std of q·k, std of q·k / √d_k].")
    return check_close(got, [r, 1.0], name=name, tol=0.5, exercise=exercise, slips=slips,
                       hint="the variance of a sum of d_k independent products of variance 1 is d_k; the standard "
                            "deviation is its square root.", show_answer=show_answer)


def _cases():
    """(label, scores) pairs a softmax must handle."""
    return [("small scores", torch.tensor([2.0, -1.0, 0.5, 3.0])),
            ("a batch of rows", torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])),
            ("large scores like [1000, 999, 998]", torch.tensor([1000.0, 999.0, 998.0])),
            ("very negative scores like [-1000, -1001]", torch.tensor([-1000.0, -1001.0]))]


@checker
def check_stable_softmax(fn, name: str = "my_softmax", exercise: str = "04.2", show_answer: bool = False) -> bool:
    """Check a learner's softmax fn(scores (..., n)) -> weights (..., n): a distribution, exact, overflow-safe."""
    if not_answered(fn, name):
        return False
    if not callable(fn) or isinstance(fn, torch.Tensor):
        return feedback(False, f"`{name}` should be a function that takes a tensor of scores; got "
                               f"{type(fn).__name__}.")
    for label, scores in _cases():
        ok, out = call_learner(fn, scores.clone(), name=name)
        if not ok:
            return wrong(exercise, f"on {label}, {out}.", None, show_answer)
        got = as_tensor(out)
        if got is None:
            return wrong(exercise, f"on {label} `{name}` returned {returned(out)}; expected a tensor of weights.",
                         None, show_answer)
        if got.shape != scores.shape:
            return wrong(exercise, f"on {label} `{name}` returned shape {tuple(got.shape)}; expected "
                                   f"{tuple(scores.shape)}.", None, show_answer)
        if not torch.isfinite(got).all():
            return wrong(exercise, f"`{name}` gives NaN or infinity on {label}: subtract each row's maximum before "
                                   "exp.", None, show_answer)
        if not torch.allclose(got.sum(-1), torch.ones(got.shape[:-1], dtype=got.dtype), atol=1e-5):
            return wrong(exercise, f"on {label} the weights do not sum to 1 along the last axis (sums "
                                   f"{[round(float(s), 4) for s in got.sum(-1).reshape(-1)]}).", None, show_answer)
        if not torch.allclose(got, torch.softmax(scores.double(), -1), atol=1e-5):
            return wrong(exercise, f"on {label} the weights differ from softmax's: exp(x - max) / sum(exp(x - max)).",
                         None, show_answer)
    return feedback(True, "a distribution on every row, the right values, and no overflow on large scores.")


@checker
def check_causal_mask(mask, n: int, name: str = "my_mask", exercise: str = "04.3", show_answer: bool = False) -> bool:
    """Check a causal mask (n, n): True (may attend) on and below the diagonal, False above it."""
    if not_answered(mask, name):
        return False
    m = as_array(mask, name)
    if m is None:
        return False
    if m.shape != (n, n):
        return feedback(False, f"`{name}` has shape {tuple(m.shape)}; expected ({n}, {n}): one row per query, "
                               "one column per key.")
    if not np.all((m == 0) | (m == 1)):
        return feedback(False, f"`{name}` should hold only True/False (or 1/0).")
    m = m.astype(bool)
    right = np.tril(np.ones((n, n), dtype=bool))
    if np.array_equal(m, right):
        return feedback(True, f"each of the {n} positions sees itself and everything before it, nothing after.")
    answer = "torch.ones(n, n, dtype=torch.bool).tril()"
    if n > 1 and np.array_equal(m, right.T):
        return wrong(exercise, "the mask is transposed: rows are queries and columns keys, so query i may see "
                               "keys j ≤ i, below the diagonal.", answer, show_answer)
    if n > 1 and np.array_equal(m, ~right):
        return wrong(exercise, "the mask is inverted: True means MAY attend, so the allowed part (on and below the "
                               "diagonal) is True.", answer, show_answer)
    if n > 1 and np.array_equal(m, np.tril(right, -1)):
        return wrong(exercise, "no position can see itself: the diagonal must be True.", answer, show_answer)
    if np.any(np.triu(m, 1)):
        i, j = np.argwhere(np.triu(m, 1))[0]
        return wrong(exercise, f"query {i} may see key {j}, a later position: everything above the diagonal must "
                               "be False.", answer, show_answer)
    if not np.all(np.diag(m)):
        return wrong(exercise, "some position cannot see itself: the diagonal must be True.", answer, show_answer)
    i, j = np.argwhere(~m & right)[0]
    return wrong(exercise, f"query {i} cannot see key {j}, an earlier position: everything below the diagonal must "
                           "be True.", answer, show_answer)


register_solution("04.1", "the standard deviation of q·k, unscaled and scaled", """
q·k = Σᵢ qᵢkᵢ sums d_k independent products, each of mean 0 and variance 1, so Var(q·k) = d_k and its
standard deviation is √d_k. Dividing by √d_k divides the standard deviation by √d_k, giving 1:

    my_stds = [math.sqrt(256), 1.0]
""")
register_solution("04.2", "a softmax that survives large scores", """
exp(1000) overflows to inf, and inf / inf is NaN. Softmax does not change when every score moves by the
same amount, so subtract each row's maximum first: the largest exponent is then exp(0) = 1.

    def my_softmax(scores):
        shifted = scores - scores.amax(dim=-1, keepdim=True)    # (..., n), largest entry 0
        e = torch.exp(shifted)
        return e / e.sum(dim=-1, keepdim=True)
""")
register_solution("04.3", "a causal mask", """
Rows are queries, columns keys; True means "may attend". Query i may see keys 0..i: on and below the diagonal.

    my_mask = torch.tril(torch.ones(6, 6, dtype=torch.bool))
""")
