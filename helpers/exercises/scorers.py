"""Chapter 06 (scoring functions and dropout): parameter counts from the scorer registry, dropout's row sum."""
from __future__ import annotations

from itertools import combinations

import torch.nn as nn

from helpers.i18n import t

from .core import (
    Example,
    as_number,
    as_whole_number,
    checker,
    describe,
    feedback,
    not_answered,
    register_solution,
    unreadable,
    wrong,
)

__all__ = ["check_most_parameters", "check_dropout_row_sum"]


def _build(name: str, d: int) -> nn.Module:
    """The registered scorer `name` with query, key and hidden sizes all d (built by its class's `from_sizes`)."""
    from helpers.attention import SCORERS

    return SCORERS[name].from_sizes(d, d, d)


def _bias_sizes(module: nn.Module) -> list[int]:
    """The sizes of the biases `module`'s linear layers leave out (the practitioner's layers carry them)."""
    return [m.out_features for m in module.modules() if isinstance(m, nn.Linear) and m.bias is None]


def _most_parameters_example() -> Example:
    """Exercise 06.1 (the second answer; the first is the right scorer); the slip counts W_q and W_k only."""
    return Example(lambda a: check_most_parameters("additive", a, d=64), 64 * 128 + 64, 2 * 64 * 64)


def _dropout_example() -> Example:
    """Exercise 06.2 at p = 0.1; the slip gives the share of weights that survive."""
    return Example(lambda a: check_dropout_row_sum(a, p=0.1), 1.0, 0.9)


@checker(exercises=("06.1",), example=_most_parameters_example)
def check_most_parameters(scorer, count, d: int = 64, names=("most_params_scorer", "most_params_count"),
                          exercise: str = "06.1", show_answer: bool = False) -> bool:
    """Which registered scorer has the most parameters when d_q = d_k = h = d, and how many? Every scorer in
    ``helpers.attention.SCORERS`` is built and counted; nothing is hard-coded."""
    from helpers.attention import SCORERS
    from helpers.cost import count_parameters

    if not_answered(scorer, names[0]):
        return False
    if not isinstance(scorer, str) or scorer not in SCORERS:
        return unreadable(t("ch06.not_a_scorer", name=names[0], what=describe(scorer),
                                 names=", ".join(repr(n) for n in SCORERS)))
    modules = {n: _build(n, d) for n in SCORERS}
    counts = {n: count_parameters(m) for n, m in modules.items()}
    best = max(counts, key=counts.get)
    if scorer != best:
        why = t("ch06.no_parameters") if counts[scorer] == 0 else t("ch06.another_has_more")
        return wrong(exercise, t("ch06.not_this_scorer", scorer=repr(scorer), why=why), repr(best), show_answer)
    if not_answered(count, names[1]):
        return False
    got = as_whole_number(count, names[1])
    if got is None:
        return False
    right = counts[best]
    if got == right:
        return feedback(True, t("ch06.count_ok", scorer=repr(best), count=right, d=d))
    params = dict(modules[best].named_parameters())
    biases = _bias_sizes(modules[best])
    added = {sum(c) for r in range(1, len(biases) + 1) for c in combinations(biases, r)}   # some biases counted
    other = [n for n, c in counts.items() if c == got and n != best]
    slip = t("ch06.count_of_other", scorer=repr(other[0])) if other else None
    if slip is None and got - right in added:
        slip = t("ch06.no_bias", extra=got - right)
    if slip is None:                                   # the right count at another size (the chapter's table has 128, 256)
        size = next((d2 for d2 in (d // 2, 2 * d, 4 * d) if d2 > 0 and count_parameters(_build(best, d2)) == got), None)
        slip = t("ch06.count_at_size", size=size, d=d) if size else None
    for r in range(1, len(params) if slip is None else 0):
        for subset in combinations(params, r):
            if got == sum(params[p].numel() for p in subset):
                missing = [p.removesuffix(".weight") for p in params if p not in subset]
                slip = (t("ch06.v_is_not_a_bias", h=params["v.weight"].numel()) if missing == ["v"] else
                        t("ch06.counts_only", counted=", ".join(p.removesuffix(".weight") for p in subset),
                          missing=", ".join(missing)))
                break
        if slip:
            break
    if slip is None:
        slip = t("ch06.count_everything")
    return wrong(exercise, t("ch06.count_wrong", name=names[1], value=got, slip=slip), str(right), show_answer)


@checker(exercises=("06.2",), example=_dropout_example)
def check_dropout_row_sum(answer, p: float, name: str = "expected_row_sum", exercise: str = "06.2",
                          show_answer: bool = False) -> bool:
    """The expected sum of one row of attention weights after nn.Dropout(p) in training mode (it is 1)."""
    if not_answered(answer, name):
        return False
    value = as_number(answer, name)
    if value is None:
        return False
    if abs(value - 1.0) <= 1e-2:
        return feedback(True, t("ch06.dropout_ok"))
    if abs(value - (1 - p)) <= 1e-2:
        message = t("ch06.survive_share", share=1 - p)
    elif abs(value - 1 / (1 - p)) <= 1e-2:
        message = t("ch06.only_survivors")
    elif abs(value - p) <= 1e-2:
        message = t("ch06.dropped_share")
    else:
        message = t("ch06.dropout_hint", name=name, value=value)
    return wrong(exercise, message, "1", show_answer)


register_solution("06.1", "the scorer with the most parameters", """
Count the numbers in each formula at d_q = d_k = h = d:
  additive vᵀ tanh(W_q q + W_k k): W_q (h × d_q), W_k (h × d_k), v (h)  ->  h·(d_q + d_k) + h
  multiplicative qᵀ W k: W (d_q × d_k)                                   ->  d_q·d_k
  dot and scaled dot: no parameters.
No layer here has a bias (the practitioner's module adds h + 1 of them: h inside the tanh, 1 on v).
The registry agrees (the count of chapter 06's table):

    from helpers.attention import SCORERS
    from helpers.cost import count_parameters
    print({name: count_parameters(cls.from_sizes(64, 64, 64)) for name, cls in SCORERS.items()})
""", zh_title="参数最多的打分函数", zh_text="""
在 d_q = d_k = h = d 时，数一数每个公式里有多少个数：
  加性 vᵀ tanh(W_q q + W_k k)：W_q (h × d_q)，W_k (h × d_k)，v (h)  ->  h·(d_q + d_k) + h
  乘性 qᵀ W k：W (d_q × d_k)                                          ->  d_q·d_k
  点积与缩放点积：没有参数。
这里的层都没有偏置（实践者的模块多了 h + 1 个：tanh 里 h 个，v 上 1 个）。
课程里的打分函数给出同样的数（第 06 章表格里的数法）：

    from helpers.attention import SCORERS
    from helpers.cost import count_parameters
    print({name: count_parameters(cls.from_sizes(64, 64, 64)) for name, cls in SCORERS.items()})
""")
register_solution("06.2", "dropout's row sum", """
In training mode nn.Dropout(p) zeroes each weight with probability p and multiplies the survivors by
1/(1 - p). The expected value of each weight is (1 - p) · w / (1 - p) = w, so a row still sums to 1 on average:

    expected_row_sum = 1.0
""", zh_title="dropout 之后一行的和", zh_text="""
在训练模式下，nn.Dropout(p) 以概率 p 把每个权重置零，并把保留下来的权重乘以 1/(1 - p)。
每个权重的期望值是 (1 - p) · w / (1 - p) = w，所以平均而言一行的和仍然是 1：

    expected_row_sum = 1.0
""")
