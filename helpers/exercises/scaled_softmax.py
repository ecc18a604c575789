"""Chapter 04 (scaled dot product and softmax): the spread of q·k before and after the √d_k scale, and a softmax
that survives large scores."""
from __future__ import annotations

import math

import torch

from helpers.i18n import t

from .core import (
    Example,
    as_array,
    as_tensor,
    call_learner,
    check_close,
    checker,
    feedback,
    not_answered,
    register_solution,
    returned,
    unreadable,
    wrong,
)

__all__ = ["check_std_scaling", "check_stable_softmax"]


def _std_example() -> Example:
    """Exercise 04.1 at d_k = 256; the slip gives the variance (256) instead of the standard deviation."""
    return Example(lambda a: check_std_scaling(a, 256), [16, 1], [256, 1])


def _row_max_softmax(x: torch.Tensor) -> torch.Tensor:
    """The reference answer of 04.2: each row's maximum shifted out.  (..., n) -> (..., n)"""
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def _global_max_softmax(x: torch.Tensor) -> torch.Tensor:
    """The classic slip of 04.2: one maximum over the whole tensor shifted out."""
    e = torch.exp(x - x.max())
    return e / e.sum(-1, keepdim=True)


def _softmax_example() -> Example:
    """Exercise 04.2; the slip subtracts the global maximum instead of each row's."""
    return Example(lambda a: check_stable_softmax(a), _row_max_softmax, _global_max_softmax)


@checker(exercises=("04.1",), example=_std_example)
def check_std_scaling(answer, d_k: int = 256, name: str = "my_stds", exercise: str = "04.1",
                      show_answer: bool = False) -> bool:
    """[std of q·k, std of q·k / √d_k] for random unit-variance vectors of size d_k: [√d_k, 1]."""
    r = math.sqrt(d_k)
    slips = [([d_k, 1.0], t("ch04.variance_first")), ([d_k, r], t("ch04.variances", d_k=d_k)),
             ([r, r], t("ch04.divide_std")), ([d_k, d_k], t("ch04.variance_and_divide")),
             ([1.0, 1 / r], t("ch04.grows")), ([1.0, 1.0], t("ch04.grows")), ([1.0, r], t("ch04.swapped_order")),
             ([r, 1 / r], t("ch04.divided_by_dk")), ([r, math.sqrt(r)], t("ch04.variance_by_root"))]
    if not_answered(answer, name):
        return False
    got = as_array(answer, name)
    if got is None:
        return False
    if got.shape != (2,):
        shown = got.tolist() if got.size < 5 else t("ch04.longer")
        return wrong(exercise, t("ch04.two_numbers", name=name, value=shown), str([round(r, 4), 1.0]), show_answer)
    hint = t("ch04.second_hint") if abs(got[0] - r) <= 0.1 else t("ch04.std_hint")   # the first one is right
    return check_close(got, [r, 1.0], name=name, tol=0.1, exercise=exercise, slips=slips, hint=hint,
                       show_answer=show_answer)


def _cases():
    """(label, scores) pairs a softmax must handle; rows hundreds apart catch one global maximum (a row of
    exp(-800) = 0), a (2, 2, 3) tensor catches an axis that is the last one only in 1-D and 2-D (dim=1), and a
    row with a wide spread catches a row's minimum or mean shifted out (exp(1000) = inf)."""
    return [(t("ch04.case_small"), torch.tensor([2.0, -1.0, 0.5, 3.0])),
            (t("ch04.case_batch"), torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])),
            (t("ch04.case_large"), torch.tensor([1000.0, 999.0, 998.0])),
            (t("ch04.case_negative"), torch.tensor([-1000.0, -1001.0])),
            (t("ch04.case_rows_apart"), torch.tensor([[0.0, 1.0, 2.0], [800.0, 801.0, 802.0]])),
            (t("ch04.case_3d"), torch.tensor([[[0.0, 1.0, 2.0], [800.0, 801.0, 802.0]],
                                              [[1600.0, 1601.0, 1602.0], [2400.0, 2401.0, 2402.0]]])),
            (t("ch04.case_wide"), torch.tensor([-1000.0, 0.0, 1000.0]))]


def _low_precision(out) -> str | None:
    """The dtype's name when a learner's result is float16 or bfloat16 (too coarse to compare at 1e-5), else None."""
    dtype = getattr(out, "dtype", None)
    return str(dtype).replace("torch.", "") if str(dtype) in {"torch.float16", "torch.bfloat16", "float16"} else None


def _softmax_slips(scores: torch.Tensor) -> list[tuple[torch.Tensor, str]]:
    """(weights, sentence) for the classic slips of a softmax on `scores` (..., n), in float64."""
    s = scores.double()
    slips = [(_global_max_softmax(s), t("ch04.global_max")), (s / s.sum(-1, keepdim=True), t("ch04.no_exp")),
             (torch.exp(s - s.amax(-1, keepdim=True)), t("ch04.not_divided"))]
    for shift, sentence in ((s.amin(-1, keepdim=True), t("ch04.row_min")),
                            (s.mean(-1, keepdim=True), t("ch04.row_mean"))):
        e = torch.exp(s - shift)
        slips.append((e / e.sum(-1, keepdim=True), sentence))
    if s.dim() >= 2:
        for e in (torch.exp(s - s.amax(-1, keepdim=True)), torch.exp(s - s.max())):   # one sum for the whole tensor
            slips.append((e / e.sum(), t("ch04.whole_sum")))
    for axis in range(s.dim() - 1):                                     # every axis but the last
        slips.append((torch.softmax(s, dim=axis), t("ch04.wrong_axis", dim=axis)))
        e = torch.exp(s - s.amax(axis, keepdim=True))
        key = "ch04.column_max" if axis == s.dim() - 2 else "ch04.axis_max"
        slips.append((e / e.sum(-1, keepdim=True), t(key, dim=axis)))
    return slips


@checker(exercises=("04.2",), example=_softmax_example)
def check_stable_softmax(fn, name: str = "my_softmax", exercise: str = "04.2", show_answer: bool = False) -> bool:
    """Check a learner's softmax fn(scores (..., n)) -> weights (..., n): a distribution, exact, overflow-safe,
    with each row's own maximum shifted out (rows hundreds apart catch one global maximum, a wide row a row's
    minimum or mean) and normalised along the last axis (a (2, 2, 3) tensor catches dim=1; an IndexError, such
    as dim=1 on one row, is named as a missing axis)."""
    if not_answered(fn, name):
        return False
    if not callable(fn) or isinstance(fn, torch.Tensor):
        return unreadable(t("ch04.not_function", name=name, kind=type(fn).__name__))
    answer = t("ch04.softmax_answer", name=name)

    def no(message: str) -> bool:
        return wrong(exercise, message, answer, show_answer)

    for label, scores in _cases():
        try:
            ok, out = call_learner(fn, scores.clone(), name=name, passthrough=(IndexError,))
        except IndexError as e:                                  # dim=1 on one row, x[:, 0] ...: a missing axis
            return no(t("ch04.on_case", label=label, problem=t("ch04.index_error", name=name, detail=e,
                                                               ndim=scores.dim())))
        if not ok and scores.dim() == 2 and "must match the size" in out:   # a row's max or sum lost its axis
            return no(t("ch04.on_case", label=label, problem=t("ch04.keepdim", name=name)))
        if not ok:
            return no(t("ch04.on_case", label=label, problem=out))
        got = as_tensor(out)
        if got is None:
            return no(t("ch04.returned", label=label, name=name, what=returned(out)))
        if got.shape != scores.shape:
            return no(t("ch04.shape", label=label, name=name, shape=tuple(got.shape), want=tuple(scores.shape)))
        right = torch.softmax(scores.double(), -1)
        if torch.allclose(got, right, atol=1e-5):
            continue
        coarse = _low_precision(out)
        if coarse is not None:
            return no(t("ch04.low_precision", label=label, name=name, dtype=coarse))
        for candidate, sentence in _softmax_slips(scores):
            if candidate.shape == got.shape and torch.allclose(got, candidate, atol=1e-5, equal_nan=True):
                return no(t("ch04.on_case", label=label, problem=sentence))
        if not torch.isfinite(got).all():
            return no(t("ch04.overflow", name=name, label=label))
        if not torch.allclose(got.sum(-1), torch.ones(got.shape[:-1], dtype=got.dtype), atol=1e-5):
            sums = [round(float(s), 6) for s in got.sum(-1).reshape(-1)]
            return no(t("ch04.sums", label=label, sums=sums))
        return no(t("ch04.values", label=label))
    return feedback(True, t("ch04.softmax_ok"))


register_solution("04.1", "the standard deviation of q·k, unscaled and scaled", """
q·k = Σᵢ qᵢkᵢ sums d_k independent products, each of mean 0 and variance 1, so Var(q·k) = d_k and its
standard deviation is √d_k. Dividing by √d_k divides the standard deviation by √d_k, giving 1:

    my_stds = [math.sqrt(256), 1.0]
""", zh_title="q·k 缩放前后的标准差", zh_text="""
q·k = Σᵢ qᵢkᵢ 是 d_k 个相互独立的乘积之和，每个乘积的均值为 0、方差为 1，
所以 Var(q·k) = d_k，标准差是 √d_k。除以 √d_k 会把标准差也除以 √d_k，得到 1：

    my_stds = [math.sqrt(256), 1.0]
""")
register_solution("04.2", "a softmax that survives large scores", """
exp(1000) overflows to inf, and inf / inf is NaN. Softmax does not change when every score moves by the
same amount, so subtract each row's maximum first: the largest exponent is then exp(0) = 1.

    def my_softmax(scores):
        shifted = scores - scores.amax(dim=-1, keepdim=True)    # (..., n), largest entry 0
        e = torch.exp(shifted)
        return e / e.sum(dim=-1, keepdim=True)
""", zh_title="经得住大得分的 softmax", zh_text="""
exp(1000) 会溢出成 inf，而 inf / inf 是 NaN。所有得分同时加上（或减去）同一个数时 softmax 不变，
所以先减去每行的最大值：这样最大的指数项就是 exp(0) = 1。

    def my_softmax(scores):
        shifted = scores - scores.amax(dim=-1, keepdim=True)    # (..., n), largest entry 0
        e = torch.exp(shifted)
        return e / e.sum(dim=-1, keepdim=True)
""")
