"""Chapter 03 (Q, K, V by hand): attention weights computed on paper for one query."""
from __future__ import annotations

import math

import numpy as np

from helpers.i18n import t

from .core import Example, as_array, checker, feedback, not_answered, register_solution, wrong
from .weighted_average import attention_weights, weights_problem

__all__ = ["check_hand_weights"]


_K = [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]   # chapter 03's keys K₁, K₂, K₃


def _hand_weights_example() -> Example:
    """Exercise 03.1 (Q = [1, 1], scaled); the slip divides the scores by their sum, leaving out exp."""
    right = attention_weights([1.0, 1.0], np.array(_K), True).tolist()
    return Example(lambda a: check_hand_weights(a, [1.0, 1.0], _K), right, [0.25, 0.5, 0.25])


def _softmax(s: np.ndarray) -> np.ndarray:
    """exp(s) / Σ exp(s) with the maximum shifted out.  (n,) -> (n,)"""
    e = np.exp(s - s.max())
    return e / e.sum()


def _hand_slips(scores: np.ndarray, d: int, scale: bool, temperature: float) -> list[tuple[np.ndarray, str]]:
    """(weights, sentence) for the classic slips of the hand computation, from the raw scores Q·Kᵢ (n,)."""
    r = math.sqrt(d)
    used = scores / (r if scale else 1.0) / temperature          # the scores the softmax should see
    slips = [(scores, t("ch03.raw_scores")), (used, t("ch03.scaled_scores") if scale else t("ch03.raw_scores")),
             (np.exp(used), t("ch03.not_normalised"))]
    if np.all(scores > 0):
        slips.append((scores / scores.sum(), t("ch03.no_exp")))
    if scale:
        slips += [(_softmax(scores / temperature), t("ch03.unscaled", d=d)),
                  (_softmax(scores / d / temperature), t("ch03.divided_by_d", d=d)),
                  (_softmax(scores * r / temperature), t("ch03.multiplied", d=d))]
    else:
        slips.append((_softmax(scores / r / temperature), t("ch03.scaled")))
    return slips


@checker(exercises=("03.1",), example=_hand_weights_example)
def check_hand_weights(weights, query, keys, scale: bool = True, temperature: float = 1.0,
                       name: str = "my_weights", tol: float = 1e-3, exercise: str = "03.1",
                       show_answer: bool = False) -> bool:
    """Check weights (n,) computed by hand for one query (d,) against keys (n, d); names the usual slips.

    tol: the largest error accepted in any weight. 1e-3 accepts the weights rounded to three decimals and rejects
    every slip of `_hand_slips` (the closest, scores divided by their sum, is 0.0035 away in the chapter's exercise).
    """
    if not_answered(weights, name):
        return False
    w, K = as_array(weights, name), as_array(keys, "keys", quiet=True)
    if w is None:
        return False
    right = attention_weights(query, K, scale, temperature)
    answer = str(np.round(right, 4).tolist())
    if w.shape != (K.shape[0],):
        return wrong(exercise, t("ch03.weights_shape", name=name, shape=tuple(w.shape), n=K.shape[0]), answer,
                     show_answer)
    if not np.all(np.isfinite(w)):
        return wrong(exercise, t("core.nan", name=name), answer, show_answer)
    if np.max(np.abs(w - right)) <= tol:
        return feedback(True, t("ch03.ok", answer=answer))
    scores = K @ np.asarray(query, dtype=float)
    distance, message = min(((float(np.max(np.abs(w - v))), m) for v, m in _hand_slips(scores, K.shape[1], scale,
                                                                                 temperature)),
                            key=lambda x: x[0])
    if distance <= 6e-3:   # a slip, possibly rounded to two decimals
        if np.max(np.abs(np.round(right, 2) - w)) <= 6e-3:
            message += t("ch03.or_rounded")
        return wrong(exercise, message, answer, show_answer)
    problem = weights_problem(w, K.shape[0], name)
    if problem:
        return wrong(exercise, problem, answer, show_answer)
    i = int(np.argmax(np.abs(w - right)))
    key = "ch03.too_high" if w[i] > right[i] else "ch03.too_low"
    return wrong(exercise, t(key, n=i + 1, value=w[i]), answer, show_answer)


register_solution("03.1", "weights for Q = [1, 1] by hand", """
Keys K₁ = [1, 0], K₂ = [1, 1], K₃ = [0, 1]; Q = [1, 1].
1. Scores Q·Kᵢ: [1, 2, 1].
2. Scale by 1/√d_k = 1/√2: [0.7071, 1.4142, 0.7071].
3. Softmax: exp of each, divided by their sum:

    import math
    s = [1 / math.sqrt(2), 2 / math.sqrt(2), 1 / math.sqrt(2)]
    e = [math.exp(x) for x in s]
    my_weights = [x / sum(e) for x in e]
""", zh_title="手算 Q = [1, 1] 的权重", zh_text="""
键 K₁ = [1, 0]，K₂ = [1, 1]，K₃ = [0, 1]；Q = [1, 1]。
1. 得分 Q·Kᵢ：[1, 2, 1]。
2. 乘以 1/√d_k = 1/√2 做缩放：[0.7071, 1.4142, 0.7071]。
3. softmax：对每个得分取 exp，再除以它们的和：

    import math
    s = [1 / math.sqrt(2), 2 / math.sqrt(2), 1 / math.sqrt(2)]
    e = [math.exp(x) for x in s]
    my_weights = [x / sum(e) for x in e]
""")
