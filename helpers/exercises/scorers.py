"""Chapter 06 (scoring functions and dropout): parameter counts from the scorer registry, dropout's row sum."""
from __future__ import annotations

from itertools import combinations

import torch.nn as nn

from .core import as_number, as_whole_number, checker, describe, feedback, not_answered, register_solution, wrong

__all__ = ["check_most_parameters", "check_dropout_row_sum"]


def _build(name: str, d: int) -> nn.Module:
    """The registered scorer `name` with query, key and hidden sizes all d (built by its class's `from_sizes`)."""
    from helpers.attention import SCORERS

    return SCORERS[name].from_sizes(d, d, d)


def _count(module: nn.Module) -> int:
    """Number of trainable numbers in `module`."""
    return sum(p.numel() for p in module.parameters())


@checker
def check_most_parameters(scorer, count, d: int = 64, names=("most_params_scorer", "most_params_count"),
                          exercise: str = "06.1", show_answer: bool = False) -> bool:
    """Which registered scorer has the most parameters when d_q = d_k = h = d, and how many? Every scorer in
    ``helpers.attention.SCORERS`` is built and counted; nothing is hard-coded."""
    from helpers.attention import SCORERS

    if not_answered(scorer, names[0]):
        return False
    if not isinstance(scorer, str) or scorer not in SCORERS:
        return feedback(False, f"`{names[0]}` is {describe(scorer)}; expected one of the names "
                               f"{', '.join(repr(n) for n in SCORERS)}.")
    modules = {n: _build(n, d) for n in SCORERS}
    counts = {n: _count(m) for n, m in modules.items()}
    best = max(counts, key=counts.get)
    if scorer != best:
        why = ("it has no parameters at all: it only multiplies the vectors it is given" if counts[scorer] == 0 else
               "another scorer has more: write each score's formula and count the numbers in its matrices and "
               "vectors")
        return wrong(exercise, f"not {scorer!r}: {why}.", repr(best), show_answer)
    if not_answered(count, names[1]):
        return False
    got = as_whole_number(count, names[1])
    if got is None:
        return False
    right = counts[best]
    if got == right:
        return feedback(True, f"{best!r} has {right} parameters at d = {d}.")
    params = dict(modules[best].named_parameters())
    biases = sum(m.out_features for m in modules[best].modules() if isinstance(m, nn.Linear) and m.bias is None)
    other = [n for n, c in counts.items() if c == got and n != best]
    slip = f"that is the count of {other[0]!r}" if other else None
    for r in range(1, len(params) if slip is None else 0):
        for subset in combinations(params, r):
            if got == sum(params[p].numel() for p in subset):
                missing = [p for p in params if p not in subset]
                slip = (f"that counts only {', '.join(p.removesuffix('.weight') for p in subset)}; the score also "
                        f"uses {', '.join(p.removesuffix('.weight') for p in missing)}")
                break
        if slip:
            break
    if slip is None and biases and got == right + biases:
        slip = "the course's layers have no bias; count only the weights"
    if slip is None:
        slip = "count every matrix and vector of the score's formula at this size"
    return wrong(exercise, f"`{names[1]}` is {got}: {slip}.", str(right), show_answer)


@checker
def check_dropout_row_sum(answer, p: float, name: str = "expected_row_sum", exercise: str = "06.2",
                          show_answer: bool = False) -> bool:
    """The expected sum of one row of attention weights after nn.Dropout(p) in training mode (it is 1)."""
    if not_answered(answer, name):
        return False
    value = as_number(answer, name)
    if value is None:
        return False
    if abs(value - 1.0) <= 1e-2:
        return feedback(True, "on average a row still sums to 1: (1 - p) of the weights survive, each × 1/(1 - p).")
    if abs(value - (1 - p)) <= 1e-2:
        message = (f"{1 - p:.2f} is the share of weights that survive, but nn.Dropout also multiplies each survivor "
                   "by 1/(1 - p).")
    elif abs(value - 1 / (1 - p)) <= 1e-2:
        message = "every survivor is scaled by 1/(1 - p), but on average only (1 - p) of them survive."
    elif abs(value - p) <= 1e-2:
        message = "p is the share of weights dropped, not what the row sums to."
    else:
        message = f"`{name}` is {value:.3f}; think of which share of weights survives and how they are scaled."
    return wrong(exercise, message, "1", show_answer)


register_solution("06.1", "the scorer with the most parameters", """
Count the numbers in each formula at d_q = d_k = h = d:
  additive vᵀ tanh(W_q q + W_k k): W_q (h × d_q), W_k (h × d_k), v (h)  ->  h·(d_q + d_k) + h
  multiplicative qᵀ W k: W (d_q × d_k)                                   ->  d_q·d_k
  dot and scaled dot: no parameters.
The registry agrees:

    from helpers.attention import SCORERS
    from helpers.exercises.scorers import _build
    print({name: sum(p.numel() for p in _build(name, 64).parameters()) for name in SCORERS})
""")
register_solution("06.2", "dropout's row sum", """
In training mode nn.Dropout(p) zeroes each weight with probability p and multiplies the survivors by
1/(1 - p). The expected value of each weight is (1 - p) · w / (1 - p) = w, so a row still sums to 1 on average:

    expected_row_sum = 1.0
""")
