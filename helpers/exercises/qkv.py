"""Chapter 03 (Q, K, V by hand): attention weights computed on paper for one query."""
from __future__ import annotations

import numpy as np

from helpers.i18n import t

from .core import as_array, checker, feedback, not_answered, register_solution, wrong
from .weighted_average import attention_weights, weights_problem

__all__ = ["check_hand_weights"]


@checker
def check_hand_weights(weights, query, keys, scale: bool = True, temperature: float = 1.0,
                       name: str = "my_weights", tol: float = 1e-2, exercise: str = "03.1",
                       show_answer: bool = False) -> bool:
    """Check weights (n,) computed by hand for one query (d,) against keys (n, d); names the usual slips."""
    if not_answered(weights, name):
        return False
    w, K = as_array(weights, name), as_array(keys, "keys", quiet=True)
    if w is None:
        return False
    if w.shape != (K.shape[0],):
        return feedback(False, t("ch03.weights_shape", name=name, shape=tuple(w.shape), n=K.shape[0]))
    if not np.all(np.isfinite(w)):
        return feedback(False, t("core.nan", name=name))
    right = attention_weights(query, K, scale, temperature)
    answer = str(np.round(right, 4).tolist())
    if np.max(np.abs(w - right)) <= tol:
        return feedback(True, t("ch03.ok", answer=answer))
    scores = K @ np.asarray(query, dtype=float)
    if np.allclose(w, scores, atol=tol) or np.allclose(w, scores / np.sqrt(K.shape[1]), atol=tol):
        return wrong(exercise, t("ch03.raw_scores"), answer, show_answer)
    problem = weights_problem(w, K.shape[0], name)
    if problem:
        return wrong(exercise, problem, answer, show_answer)
    if scale and np.max(np.abs(w - attention_weights(query, K, False, temperature))) <= tol:
        return wrong(exercise, t("ch03.unscaled", d=K.shape[1]), answer, show_answer)
    if not scale and np.max(np.abs(w - attention_weights(query, K, True, temperature))) <= tol:
        return wrong(exercise, t("ch03.scaled"), answer, show_answer)
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
