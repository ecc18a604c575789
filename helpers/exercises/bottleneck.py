"""Chapter 01 (the fixed-context bottleneck): the size of the context vector."""
from __future__ import annotations

from helpers.i18n import t

from .core import Example, as_whole_number, checker, feedback, not_answered, register_solution, wrong

__all__ = ["check_context_size"]


def _sizes(size, per_direction, embedding):
    """(encoder output size, one direction's size, embedding size) from numbers or from a model with `.encoder`."""
    encoder = getattr(size, "encoder", size)
    if hasattr(encoder, "output_size"):
        return int(encoder.output_size), int(encoder.hidden), int(encoder.embedding.embedding_dim)
    size = int(size)
    return size, size // 2 if per_direction is None else int(per_direction), embedding


def _context_size_example() -> Example:
    """Exercise 01.1 with hidden 96 and emb 64; the slip adds the embedding to both states (2·96 + 64)."""
    return Example(lambda a: check_context_size(a, 192, per_direction=96, embedding=64), 192, 2 * 96 + 64)


@checker(exercises=("01.1",), example=_context_size_example)
def check_context_size(answer, size, per_direction: int | None = None, embedding: int | None = None,
                       name: str = "context_numbers", exercise: str = "01.1", show_answer: bool = False) -> bool:
    """How many numbers does the decoder receive about the source? `size` is the translator of the exercise (its
    encoder's sizes are read from it, so the cell need not show the answer) or the encoder's output size (both
    directions); `per_direction` and `embedding` name the likely slips."""
    if not_answered(answer, name):
        return False
    got = as_whole_number(answer, name)
    if got is None:
        return False
    size, per_direction, embedding = _sizes(size, per_direction, embedding)
    if got == size:
        return feedback(True, t("ch01.size_ok", size=size))
    slips = {per_direction: t("ch01.one_direction")}
    if embedding is not None:
        slips.update({size + embedding: t("ch01.plus_embedding", emb=embedding),
                      per_direction + embedding: t("ch01.one_direction_plus_embedding", emb=embedding),
                      2 * (per_direction + embedding): t("ch01.plus_embedding_each", emb=embedding,
                                                         extra=2 * (per_direction + embedding) - size),
                      embedding: t("ch01.embedding")})
    slips.update({3 * per_direction: t("ch01.gates"), 6 * per_direction: t("ch01.gates"),
                  2 * size: t("ch01.counted_twice")})
    if got in slips:
        message = slips[got]
    elif got in (1, 2):
        message = t("ch01.vectors")
    elif got > size and got % size == 0:
        message = t("ch01.times_length", n=got // size)
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
