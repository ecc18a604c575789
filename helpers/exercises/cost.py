"""Chapter 08 (the cost of attention): the memory of one score matrix and the batch that crosses a memory limit."""
from __future__ import annotations

from helpers.i18n import t

from .core import Example, check_close, checker, register_solution

__all__ = ["check_attention_mib", "check_smallest_batch"]

_MiB, _GiB = 2 ** 20, 2 ** 30


def _mib_example() -> Example:
    """Exercise 08.1 at n = 8192; the slip gives bytes, not MiB."""
    return Example(lambda a: check_attention_mib(a, 8192), 256, 8192 * 8192 * 4)


def _batch_example() -> Example:
    """Exercise 08.2; the slip is the last batch still under the limit."""
    return Example(lambda a: check_smallest_batch(a), 9, 8)


@checker(exercises=("08.1",), example=_mib_example)
def check_attention_mib(answer, n: int = 8192, bytes_per_entry: int = 4, name: str = "my_mib", exercise: str = "08.1",
                        show_answer: bool = False) -> bool:
    """MiB of one n × n attention matrix with `bytes_per_entry` bytes per entry (1 MiB = 2²⁰ bytes)."""
    total = n * n * bytes_per_entry
    slips = [(total, t("ch08.bytes")), (total / 1e6, t("ch08.megabytes")), (total / 2 ** 10, t("ch08.kib")),
             (total / _GiB, t("ch08.gib")), (total * 8 / _MiB, t("ch08.bits")),
             (n * n / _MiB, t("ch08.entries", bytes=bytes_per_entry)),
             (n * n * 8 / _MiB, t("ch08.float64", bytes=bytes_per_entry)),
             (n * bytes_per_entry / _MiB, t("ch08.one_row"))]
    # tol 0.01 MiB: an absolute 0.5 would also match the GiB slip (0.25) for one row's size (0.03), hiding one_row
    return check_close(answer, total / _MiB, name=name, tol=0.01, exercise=exercise, slips=slips,
                       hint=t("ch08.mib_hint"), show_answer=show_answer)


@checker(exercises=("08.2",), example=_batch_example)
def check_smallest_batch(answer, limit_bytes: float = 24 * _GiB, n: int = 4000, heads: int = 8, layers: int = 6,
                         bytes_per_entry: int = 4, name: str = "my_batch", exercise: str = "08.2",
                         show_answer: bool = False) -> bool:
    """The smallest batch whose saved attention matrices (n² per head, layer and sentence) exceed `limit_bytes`."""
    def smallest(per_sample: float, limit: float = limit_bytes) -> int:
        """The smallest whole batch b with b · per_sample > limit."""
        return int(limit // per_sample) + 1

    per = n * n * heads * layers * bytes_per_entry
    right = smallest(per)
    slips = [(right - 1, t("ch08.not_over", batch=right - 1, gib=(right - 1) * per / _GiB)),
             (smallest(per / layers), t("ch08.layers")),
             (smallest(per / heads), t("ch08.heads")),
             (smallest(per / heads / layers), t("ch08.heads_and_layers")),
             (smallest(per / bytes_per_entry), t("ch08.bytes_per_entry", bytes=bytes_per_entry))]
    slips = [(v, s) for k, (v, s) in enumerate(slips) if v != right and all(v != w for w, _ in slips[:k])]
    return check_close(answer, right, name=name, tol=0, exercise=exercise, slips=slips,
                       hint=t("ch08.batch_hint"), show_answer=show_answer)


register_solution("08.1", "one attention matrix in MiB", """
n² entries × 4 bytes, divided by 2²⁰ bytes per MiB:

    my_mib = 8192 * 8192 * 4 / 2**20
""", zh_title="一个注意力矩阵占多少 MiB", zh_text="""
n² 个元素 × 4 字节，再除以每 MiB 的 2²⁰ 字节：

    my_mib = 8192 * 8192 * 4 / 2**20
""")
register_solution("08.2", "the batch that crosses 24 GiB", """
One sentence saves n² entries per head per layer: 4000² × 8 × 6 × 4 bytes. The smallest batch over the limit
is the whole number of sentences that fit, plus one:

    per_sentence = 4000**2 * 8 * 6 * 4
    my_batch = int(24 * 2**30 // per_sentence) + 1
    print(cost.smallest_batch_over(24 * cost.GiB, 4000, 8, 6, 4))   # the helper agrees
""", zh_title="超过 24 GiB 的批大小", zh_text="""
一个句子在每层的每个头上保存 n² 个元素：4000² × 8 × 6 × 4 字节。超过上限的最小批大小
是能放下的完整句子数再加一：

    per_sentence = 4000**2 * 8 * 6 * 4
    my_batch = int(24 * 2**30 // per_sentence) + 1
    print(cost.smallest_batch_over(24 * cost.GiB, 4000, 8, 6, 4))   # the helper agrees
""")
