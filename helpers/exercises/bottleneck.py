"""Chapter 01 (the fixed-context bottleneck): the size of the context vector."""
from __future__ import annotations

from helpers.i18n import t

from .core import as_whole_number, checker, feedback, not_answered, register_solution, wrong

__all__ = ["check_context_size"]


@checker
def check_context_size(answer, size: int, per_direction: int | None = None, embedding: int | None = None,
                       name: str = "context_numbers", exercise: str = "01.1", show_answer: bool = False) -> bool:
    """How many numbers does the decoder receive about the source? `size` is the encoder's output size
    (both directions); `per_direction` and `embedding` name the two likely slips."""
    if not_answered(answer, name):
        return False
    got = as_whole_number(answer, name)
    if got is None:
        return False
    if got == size:
        return feedback(True, t("ch01.size_ok", size=size))
    per_direction = size // 2 if per_direction is None else per_direction
    if got == per_direction:
        message = t("ch01.one_direction")
    elif embedding is not None and got == embedding:
        message = t("ch01.embedding")
    elif got in (1, 2):
        message = t("ch01.vectors")
    elif got > size:
        message = t("ch01.too_big")
    else:
        message = t("ch01.size_hint")
    return wrong(exercise, t("core.is_value", name=name, value=got, sentence=message), str(size), show_answer)


register_solution("01.1", "the size of the bottleneck", """
The decoder gets the encoder's final states: the left-to-right GRU's and the right-to-left GRU's,
concatenated. Each has `hidden` numbers, so the context has 2 × hidden, whatever the sentence's length:

    context_numbers = 2 * 96
    print(other.encoder.output_size)   # the model of the exercise says the same
""", zh_title="瓶颈的大小", zh_text="""
解码器得到的是编码器的最终状态：从左到右的 GRU 的和从右到左的 GRU 的，拼接在一起。
每个都有 `hidden` 个数，所以无论句子多长，上下文向量都有 2 × hidden 个数：

    context_numbers = 2 * 96
    print(other.encoder.output_size)   # the model of the exercise says the same
""")
