"""Chapter 00 (start here): the first exercise, weights that favour one key."""
from __future__ import annotations

from .core import Example, check_weights, checker, register_solution

__all__ = ["check_start_weights"]


def _start_example() -> Example:
    """Exercise 00.1 as the notebook calls it; the classic slip puts the weight on the first key (position 0)."""
    return Example(lambda a: check_start_weights(a), [0.1, 0.8, 0.1], [0.8, 0.1, 0.1])


@checker(exercises=("00.1",), example=_start_example)
def check_start_weights(weights, key_index: int = 1, name: str = "my_weights", exercise: str = "00.1",
                        show_answer: bool = False) -> bool:
    """Exercise 00.1: three weights, a probability distribution, with most (> half) of it on key `key_index`."""
    return check_weights(weights, name=name, most_on=key_index, exercise=exercise, show_answer=show_answer)


register_solution("00.1", "most of the weight on the second key", """
Any three non-negative numbers that add up to 1 and give the second key (position 1) more than half:

    my_weights = [0.1, 0.8, 0.1]
    check_start_weights(my_weights)      # or check_weights(my_weights, most_on=1)
""", zh_title="让大部分权重落在第二个键上", zh_text="""
任意三个和为 1 的非负数都可以，只要第二个键（位置 1）得到超过一半的权重：

    my_weights = [0.1, 0.8, 0.1]
    check_start_weights(my_weights)      # or check_weights(my_weights, most_on=1)
""")
