"""Chapters 02 and 03 (attention as a weighted average; Q, K, V): hand-set weights, a query that favours one key."""
from __future__ import annotations

import numpy as np
import torch

from helpers.i18n import and_list, t

from .core import Example, as_array, checker, feedback, not_answered, register_solution, tied_top, wrong

__all__ = ["check_weighted_average", "check_query_favours_key"]


def attention_weights(query, keys, scale: bool, temperature: float = 1.0) -> np.ndarray:
    """softmax(keys · query × factor) for one query, the course's own function.  query (d,), keys (n, d) -> (n,)"""
    from helpers.attention import scaled_dot_product_attention

    q = torch.as_tensor(np.asarray(query, dtype=float))[None, :]
    k = torch.as_tensor(np.asarray(keys, dtype=float))
    factor = (1.0 / np.sqrt(k.shape[-1]) if scale else 1.0) / temperature
    return scaled_dot_product_attention(q, k, k, scale=factor)[1][0].numpy()


def weights_problem(w: np.ndarray, n: int, name: str) -> str | None:
    """Why `w` is not a set of n attention weights (a sentence), or None when it is one."""
    if w.shape != (n,):
        return t("ch02.weights_shape", name=name, shape=tuple(w.shape), n=n)
    if not np.all(np.isfinite(w)):
        return t("core.nan", name=name)
    if np.any(w < -1e-9):
        return t("ch02.negative", name=name, value=w.min())
    if abs(w.sum() - 1.0) > 1e-2:
        return t("ch02.sum", name=name, total=w.sum())
    return None


# chapter 02's five encoder states (the, cat, drank, warm, milk) over five features, for the examples
_H = np.array([[0.1, 0.0, 0.0, 0.3, 0.9], [0.9, 0.0, 0.1, 0.0, 0.1], [0.2, 0.4, 0.9, 0.0, 0.0],
               [0.0, 0.3, 0.0, 0.9, 0.2], [0.1, 0.9, 0.1, 0.1, 0.0]])
_WORDS = ["the", "cat", "drank", "warm", "milk"]


def _average_example() -> Example:
    """Exercise 02.1: halfway between 'cat' and 'milk'; the slip spreads the weight evenly."""
    return Example(lambda a: check_weighted_average(a, _H, (_H[1] + _H[4]) / 2), [0, 0.5, 0, 0, 0.5],
                   [0.2, 0.2, 0.2, 0.2, 0.2])


def _query_example() -> Example:
    """Exercise 02.2: a query that favours 'drank'; the slip points along the feature 'cat' is strongest in."""
    return Example(lambda a: check_query_favours_key(a, _H, 2, key_names=_WORDS), [0, 0, 3, 0, 0], [3, 0, 0, 0, 0])


@checker(exercises=("02.1",), example=_average_example)
def check_weighted_average(weights, states, target, name: str = "my_weights", tol: float = 2e-2,
                           exercise: str = "02.1", show_answer: bool = False) -> bool:
    """Do hand-set weights (n,) turn `states` (n, d) into the `target` average (d,)? Says what is off."""
    if not_answered(weights, name):
        return False
    w, H = as_array(weights, name), as_array(states, "states", quiet=True)
    target_ = as_array(target, "target", quiet=True)
    if w is None:
        return False
    exact, *_ = np.linalg.lstsq(H.T, target_, rcond=None)
    answer = str((np.round(exact, 3) + 0.0).tolist())                  # + 0.0 turns a -0.0 into 0.0
    problem = weights_problem(w, H.shape[0], name)
    if problem:
        return wrong(exercise, problem, answer, show_answer)
    got = w @ H
    if np.max(np.abs(got - target_)) <= tol:
        return feedback(True, t("ch02.average_ok", average=np.round(got, 3).tolist()))
    return wrong(exercise, t("ch02.average_wrong", average=np.round(got, 3).tolist(),
                             target=np.round(target_, 3).tolist()), answer, show_answer)


def points_along(query: np.ndarray, key: np.ndarray) -> bool:
    """Does `query` (d,) already point the way `key` (d,) or the feature it is strongest in points (cosine > 0.99)?"""
    norm = np.linalg.norm(query)
    if norm == 0:
        return False
    feature = np.eye(len(key))[int(np.argmax(key))]
    return any(query @ d / (norm * np.linalg.norm(d)) > 0.99 for d in (key, feature))


def example_query(keys: np.ndarray, key_index: int, threshold: float, scale: bool) -> np.ndarray | None:
    """A query (d,) that gives key `key_index` clearly more than `threshold` of the weight (a quarter of the way
    from it to 1), for the answer of a second try: a whole multiple of the feature that key is strongest in, else
    of the key itself; None when neither works."""
    k, threshold = keys[key_index], threshold + (1 - threshold) / 4
    for direction in (np.eye(keys.shape[1])[int(np.argmax(k))], k):
        for c in range(1, 11):
            if attention_weights(c * direction, keys, scale)[key_index] >= threshold:
                return np.round(c * direction, 2)
    return None


@checker(exercises=("02.2", "03.2"), example=_query_example)
def check_query_favours_key(query, keys, key_index: int, threshold: float = 0.5, scale: bool = False,
                            key_names=None, name: str = "my_query", exercise: str | None = None,
                            show_answer: bool = False) -> bool:
    """Does `query` (d,) give key `key_index` of `keys` (n, d) at least `threshold` of the softmax weight?
    exercise: by default "02.2" for unscaled scores (chapter 02) and "03.2" for scaled ones (chapter 03)."""
    if not_answered(query, name):
        return False
    exercise = exercise or ("03.2" if scale else "02.2")
    q, K = as_array(query, name), as_array(keys, "keys", quiet=True)
    if q is None:
        return False
    names = list(key_names) if key_names is not None else [t("ch02.key_name", n=i + 1) for i in range(K.shape[0])]
    good = example_query(K, key_index, threshold, scale)
    answer = None if good is None else t(
        "ch02.query_answer", name=name, query=[float(x) if x % 1 else int(x) for x in good], key=names[key_index],
        share=attention_weights(good, K, scale)[key_index])
    if q.shape != (K.shape[1],):
        return wrong(exercise, t("ch02.query_shape", name=name, shape=tuple(q.shape), d=K.shape[1]), answer,
                     show_answer)
    if not np.all(np.isfinite(q)):
        return wrong(exercise, t("ch02.query_nan", name=name), answer, show_answer)
    w = attention_weights(q, K, scale)
    if not np.all(np.isfinite(w)):
        return wrong(exercise, t("ch02.overflow", name=name), answer, show_answer)
    if w[key_index] >= threshold:
        return feedback(True, t("ch02.favours_ok", key=names[key_index], share=w[key_index]))
    tops = tied_top(w)
    quoted = [f"'{names[i]}'" for i in tops if i != key_index]
    if len(tops) > 1 and key_index in tops:
        hint = t("ch02.top_tie", key=names[key_index], others=and_list(quoted), share=w[key_index])
    elif len(tops) > 1:
        hint = t("ch02.top_keys_tie", others=and_list(quoted), share=w[tops[0]])
    elif tops[0] != key_index:
        hint = t("ch02.top_key", key=names[tops[0]], share=w[tops[0]])
    else:
        hint = t("ch02.make_longer") if points_along(q, K[key_index]) else t("ch02.point_query")
    return wrong(exercise, t("ch02.favours_wrong", key=names[key_index], share=w[key_index], needed=threshold,
                             hint=hint), answer, show_answer)


register_solution("02.1", "halfway between 'cat' and 'milk'", """
The context is Σ wᵢ·hᵢ. Halfway between h_cat (position 1) and h_milk (position 4) is ½·h_cat + ½·h_milk,
so put half of the weight on each and nothing elsewhere:

    my_weights = [0, 0.5, 0, 0, 0.5]
""", zh_title="“cat” 和 “milk” 的正中间", zh_text="""
上下文向量是 Σ wᵢ·hᵢ。h_cat（位置 1）和 h_milk（位置 4）的正中间是 ½·h_cat + ½·h_milk，
所以给这两个位置各一半的权重，其余位置为 0：

    my_weights = [0, 0.5, 0, 0, 0.5]
""")
register_solution("02.2", "a query that asks for the verb", """
With dot-product scores, a query pointing along the feature that "drank" is strongest in (action) scores
"drank" highest; making the query longer sharpens the softmax, so "drank" gets more than half:

    my_query = [0, 0, 3, 0, 0]     # animal, drink, action, describes, points
""", zh_title="问出动词的查询", zh_text="""
用点积打分时，沿着 “drank” 最强的那个特征（action）的查询给 “drank” 的得分最高；
查询越长，softmax 越尖锐，于是 “drank” 得到超过一半的权重：

    my_query = [0, 0, 3, 0, 0]     # animal, drink, action, describes, points
""")
register_solution("03.2", "make K₂ the clear favourite", """
K₂ = [1, 1]. A query along K₂ scores it highest (q·K₂ = q_x + q_y); longer queries sharpen the softmax.
With scaling on (÷√2), q = [2, 2] gives scores [2, 4, 2] / √2, and K₂ wins clearly (run the checker to see its share):

    my_query = [2.0, 2.0]
""", zh_title="让 K₂ 明显胜出", zh_text="""
K₂ = [1, 1]。沿 K₂ 方向的查询给它的得分最高（q·K₂ = q_x + q_y）；查询越长，softmax 越尖锐。
开启缩放（÷√2）时，q = [2, 2] 的得分是 [2, 4, 2] / √2，K₂ 明显胜出
（运行检查器可以看到它得到的权重）：

    my_query = [2.0, 2.0]
""")
