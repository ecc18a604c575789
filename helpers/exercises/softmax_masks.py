"""Chapter 04 (scaled dot product, softmax, masking): the √d_k scale, a stable softmax and a causal mask."""
from __future__ import annotations

import math

import numpy as np
import torch

from helpers.i18n import t

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
    slips = [([d_k, 1.0], t("ch04.variance_first")), ([d_k, r], t("ch04.variances")), ([r, r], t("ch04.divide_std")),
             ([d_k, d_k], t("ch04.variance_and_divide")), ([1.0, 1 / r], t("ch04.grows")),
             ([1.0, 1.0], t("ch04.grows"))]
    if not_answered(answer, name):
        return False
    got = as_array(answer, name)
    if got is None:
        return False
    if got.shape != (2,):
        shown = got.tolist() if got.size < 5 else t("ch04.longer")
        return feedback(False, t("ch04.two_numbers", name=name, value=shown))
    return check_close(got, [r, 1.0], name=name, tol=0.5, exercise=exercise, slips=slips,
                       hint=t("ch04.std_hint"), show_answer=show_answer)


def _cases():
    """(label, scores) pairs a softmax must handle."""
    return [(t("ch04.case_small"), torch.tensor([2.0, -1.0, 0.5, 3.0])),
            (t("ch04.case_batch"), torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])),
            (t("ch04.case_large"), torch.tensor([1000.0, 999.0, 998.0])),
            (t("ch04.case_negative"), torch.tensor([-1000.0, -1001.0]))]


@checker
def check_stable_softmax(fn, name: str = "my_softmax", exercise: str = "04.2", show_answer: bool = False) -> bool:
    """Check a learner's softmax fn(scores (..., n)) -> weights (..., n): a distribution, exact, overflow-safe."""
    if not_answered(fn, name):
        return False
    if not callable(fn) or isinstance(fn, torch.Tensor):
        return feedback(False, t("ch04.not_function", name=name, kind=type(fn).__name__))
    for label, scores in _cases():
        ok, out = call_learner(fn, scores.clone(), name=name)
        if not ok:
            return wrong(exercise, t("ch04.on_case", label=label, problem=out), None, show_answer)
        got = as_tensor(out)
        if got is None:
            return wrong(exercise, t("ch04.returned", label=label, name=name, what=returned(out)), None, show_answer)
        if got.shape != scores.shape:
            return wrong(exercise, t("ch04.shape", label=label, name=name, shape=tuple(got.shape),
                                     want=tuple(scores.shape)), None, show_answer)
        if not torch.isfinite(got).all():
            return wrong(exercise, t("ch04.overflow", name=name, label=label), None, show_answer)
        if not torch.allclose(got.sum(-1), torch.ones(got.shape[:-1], dtype=got.dtype), atol=1e-5):
            sums = [round(float(s), 4) for s in got.sum(-1).reshape(-1)]
            return wrong(exercise, t("ch04.sums", label=label, sums=sums), None, show_answer)
        if not torch.allclose(got, torch.softmax(scores.double(), -1), atol=1e-5):
            return wrong(exercise, t("ch04.values", label=label), None, show_answer)
    return feedback(True, t("ch04.softmax_ok"))


@checker
def check_causal_mask(mask, n: int, name: str = "my_mask", exercise: str = "07.2", show_answer: bool = False) -> bool:
    """Check a causal mask (n, n): True (may attend) on and below the diagonal, False above it."""
    if not_answered(mask, name):
        return False
    m = as_array(mask, name)
    if m is None:
        return False
    if m.shape != (n, n):
        return feedback(False, t("ch04.mask_shape", name=name, shape=tuple(m.shape), n=n))
    if not np.all((m == 0) | (m == 1)):
        return feedback(False, t("ch04.mask_bool", name=name))
    m = m.astype(bool)
    right = np.tril(np.ones((n, n), dtype=bool))
    if np.array_equal(m, right):
        return feedback(True, t("ch04.mask_ok", n=n))
    answer = "torch.ones(n, n, dtype=torch.bool).tril()"
    if n > 1 and np.array_equal(m, right.T):
        return wrong(exercise, t("ch04.transposed"), answer, show_answer)
    if n > 1 and np.array_equal(m, ~right):
        return wrong(exercise, t("ch04.inverted"), answer, show_answer)
    if n > 1 and np.array_equal(m, np.tril(right, -1)):
        return wrong(exercise, t("ch04.no_diagonal"), answer, show_answer)
    if np.any(np.triu(m, 1)):
        i, j = np.argwhere(np.triu(m, 1))[0]
        return wrong(exercise, t("ch04.sees_later", i=i, j=j), answer, show_answer)
    if not np.all(np.diag(m)):
        return wrong(exercise, t("ch04.some_diagonal"), answer, show_answer)
    i, j = np.argwhere(~m & right)[0]
    return wrong(exercise, t("ch04.misses_earlier", i=i, j=j), answer, show_answer)


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
register_solution("07.2", "a causal mask", """
Rows are queries, columns keys; True means "may attend". Query i may see keys 0..i: on and below the diagonal.

    my_mask = torch.tril(torch.ones(6, 6, dtype=torch.bool))
""", zh_title="因果掩码", zh_text="""
行是查询，列是键；True 表示“可以关注”。查询 i 可以看到键 0..i：对角线及其下方。

    my_mask = torch.tril(torch.ones(6, 6, dtype=torch.bool))
""")
