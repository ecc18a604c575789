"""Chapter 00 (start here): the first exercise, weights that favour one key."""
from __future__ import annotations

from helpers.i18n import t

from .core import Example, as_array, check_weights, checker, not_answered, register_solution, wrong

__all__ = ["check_start_weights"]


def _start_example() -> Example:
    """Exercise 00.1 as the notebook calls it; the classic slip puts the weight on the first key (position 0)."""
    return Example(lambda a: check_start_weights(a), [0.1, 0.8, 0.1], [0.8, 0.1, 0.1])


@checker(exercises=("00.1",), example=_start_example)
def check_start_weights(weights, key_index: int = 1, name: str = "my_weights", exercise: str = "00.1",
                        show_answer: bool = False, n_keys: int = 3) -> bool:
    """Exercise 00.1: `n_keys` weights (n_keys,), a probability distribution, with most (> half) of it on key
    `key_index`."""
    if not_answered(weights, name):
        return False
    w = as_array(weights, name)
    if w is None:
        return False
    if w.ndim != 0 and w.shape != (n_keys,):
        extra = w.size == n_keys and w.ndim > 1
        return wrong(exercise, t("ch00.extra_axis" if extra else "ch00.n_weights", name=name, shape=tuple(w.shape),
                                 n=n_keys), t("core.most_on_answer", position=key_index), show_answer)
    return check_weights(weights, name=name, most_on=key_index, exercise=exercise, show_answer=show_answer)


register_solution("00.1", "most of the weight on the second key", """
Any three non-negative numbers that add up to 1 and give the second key (position 1) more than half:

    my_weights = [0.1, 0.8, 0.1]
    check_start_weights(my_weights)      # or check_weights(my_weights, most_on=1)
""", zh_title="让大部分权重落在第二个键上", zh_text="""
任意三个和为 1 的非负数都可以，只要第二个键（位置 1）得到超过一半的权重：

    my_weights = [0.1, 0.8, 0.1]
    check_start_weights(my_weights)      # 或者 check_weights(my_weights, most_on=1)
""")
