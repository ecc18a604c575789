"""The learner-facing language: one message catalogue for checker messages, hints and widget labels.

    import helpers
    helpers.setup(seed=0, lang="zh")       # or helpers.i18n.set_lang("zh")
    helpers.i18n.t("core.not_answered", name="my_weights")

Every message has a key and one template per language in ``LANGUAGES`` order (English first, the default).
Templates are ``str.format`` strings; a Chinese template uses a subset of its English template's fields (English
plurals such as ``{s}`` need no counterpart). ``t(key, **fields)`` fills the template of the current language.
Adding a message: add a key to ``MESSAGES`` with both texts; ``tests/test_i18n.py`` checks that every key has every
language, that the fields agree, and that every key used in ``helpers/`` exists and every key is used.
"""
from __future__ import annotations

import string
from contextlib import contextmanager
from typing import Iterator

__all__ = ["LANGUAGES", "MESSAGES", "set_lang", "get_lang", "language", "t", "ordinal", "template_fields"]

LANGUAGES = ("en", "zh")
_STATE = {"lang": "en"}


def set_lang(lang: str) -> None:
    """Make `lang` ("en" or "zh") the language of every later message and widget label in this kernel."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang is {lang!r}; expected one of {', '.join(repr(x) for x in LANGUAGES)}")
    _STATE["lang"] = lang


def get_lang() -> str:
    """The current learner-facing language ("en" unless `set_lang` or `helpers.setup(lang=...)` changed it)."""
    return _STATE["lang"]


@contextmanager
def language(lang: str) -> Iterator[None]:
    """Use `lang` inside a `with` block and restore the previous language afterwards (tests, one-off messages)."""
    previous = get_lang()
    set_lang(lang)
    try:
        yield
    finally:
        set_lang(previous)


def t(key: str, /, lang: str | None = None, **fields) -> str:
    """The message `key` in the current language (or `lang`), its template filled with `fields`."""
    if key not in MESSAGES:
        raise KeyError(f"no message {key!r} in helpers.i18n.MESSAGES")
    lang = lang or get_lang()
    if lang not in LANGUAGES:
        raise ValueError(f"lang is {lang!r}; expected one of {', '.join(repr(x) for x in LANGUAGES)}")
    return MESSAGES[key][LANGUAGES.index(lang)].format(**fields)


def template_fields(template: str) -> set[str]:
    """The names of the fields of a format template: "{n} of {total:.2f}" -> {"n", "total"}."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def ordinal(index: int) -> str:
    """A 0-based position as words in the current language: 0 -> "first" / "第 1 个"."""
    if get_lang() == "zh":
        return f"第 {index + 1} 个"
    return {0: "first", 1: "second", 2: "third", 3: "fourth"}.get(index, f"number {index + 1}")


# ------------------------------------------------------------------------------------------------ the catalogue
# key: (English, Chinese). Keys are grouped by the module that uses them: core.*, describe.*, ch01.* ... ch08.*,
# widgets.*, setup.*.
MESSAGES: dict[str, tuple[str, str]] = {
    # -------------------------------------------------------------- setup and the shared checker core
    "setup.lang": (" | lang {lang}", " | 语言 {lang}"),
    "core.correct": ("Correct: ", "正确："),
    "core.not_yet": ("Not yet: ", "还不对："),
    "core.not_answered": ("Not answered yet: replace the None in `{name}` with your answer, then run this cell again.",
                          "尚未作答：把 `{name}` 中的 None 换成你的答案，然后重新运行这个单元格。"),
    "core.fallback": ("the checker could not read this answer", "检查器无法读取这个答案"),
    "core.fallback_detail": ("{fallback} ({error}: {detail}); check its type and shape.",
                             "{fallback}（{error}: {detail}）；请检查它的类型和形状。"),
    "core.text_not_numbers": ("`{name}` is {what}; expected numbers (write them without quotes).",
                              "`{name}` 是{what}；这里需要数字（不要加引号）。"),
    "core.contains_text": ("`{name}` contains text; expected numbers (write them without quotes).",
                           "`{name}` 里含有文本；这里需要数字（不要加引号）。"),
    "core.not_numbers": ("`{name}` is {what}; expected a number, or a list, array or tensor of numbers.",
                         "`{name}` 是{what}；这里需要一个数字，或由数字组成的列表、数组或张量。"),
    "core.unreadable_numbers": ("`{name}` is {what} that cannot be read as numbers; expected a number, or a "
                                "(rectangular) list, array or tensor of numbers.",
                                "`{name}` 是{what}，无法读成数字；这里需要一个数字，或由数字组成的（规整的）列表、数组或张量。"),
    "core.bool_not_number": ("`{name}` is {what}; expected a number.", "`{name}` 是{what}；这里需要一个数字。"),
    "core.string_not_number": ("`{name}` is {what}, not a number; write the number without quotes.",
                               "`{name}` 是{what}，不是数字；请去掉引号直接写数字。"),
    "core.not_one_number": ("`{name}` is {what}; expected one number.", "`{name}` 是{what}；这里需要恰好一个数字。"),
    "core.not_finite": ("`{name}` is {value}; expected a finite number.", "`{name}` 是 {value}；这里需要一个有限的数。"),
    "core.not_whole": ("`{name}` is {value}; expected a whole number.", "`{name}` 是 {value}；这里需要一个整数。"),
    "core.returned_none": ("None (did you forget `return`?)", "None（是不是忘了写 `return`？）"),
    "core.raised": ("calling `{name}` raised {error}: {detail}", "调用 `{name}` 时抛出了 {error}: {detail}"),
    "core.expected": (" Expected: {answer}.", "正确答案：{answer}。"),
    "core.worked_solution": (" Worked solution: helpers.exercises.solution({exercise}).",
                             "详细解答：helpers.exercises.solution({exercise})。"),
    "core.try_again": (" Try again (a second wrong try shows the answer).", "再试一次（第二次答错时会显示答案）。"),
    "core.no_solution": ("No worked solution for {exercise}; exercise ids are {ids} (chapter.exercise, e.g. '04.2').",
                         "没有 {exercise} 的详细解答；练习编号有 {ids}（章.题，例如 '04.2'）。"),
    "core.solution_head": ("Exercise {exercise}: {title}", "练习 {exercise}：{title}"),
    "core.expected_not_number": ("the expected value for `{name}` is not a number; this is a mistake in the notebook.",
                                 "`{name}` 的期望值不是数字；这是笔记本本身的错误。"),
    "core.wrong_shape": ("`{name}` has shape {shape}; expected shape {want}.", "`{name}` 的形状是 {shape}；应为 {want}。"),
    "core.nan": ("`{name}` contains NaN or infinity.", "`{name}` 里有 NaN 或无穷大。"),
    "core.close_within": ("`{name}` is {value} (within {tol}).", "`{name}` 是 {value}（误差在 {tol} 以内）。"),
    "core.close_exact": ("`{name}` is {value}.", "`{name}` 是 {value}。"),
    "core.is_value": ("`{name}` is {value}: {sentence}", "`{name}` 是 {value}：{sentence}"),
    "core.at_index": (" at index {index}", "在下标 {index} 处"),
    "core.too_high": ("`{name}`{where} is {value:.4g}, too high.", "`{name}`{where}是 {value:.4g}，偏大。"),
    "core.too_low": ("`{name}`{where} is {value:.4g}, too low.", "`{name}`{where}是 {value:.4g}，偏小。"),
    "core.single_number": ("`{name}` is a single number; expected one weight per key.",
                           "`{name}` 只是一个数；这里需要每个键一个权重。"),
    "core.outside_01": ("`{name}` has values outside [0, 1]: weights are probabilities.",
                        "`{name}` 有超出 [0, 1] 的值：注意力权重是概率。"),
    "core.not_sum_1": ("`{name}` do not sum to 1 along the key axis (the sums are {sums}).",
                       "`{name}` 沿键的维度求和不等于 1（和为 {sums}）。"),
    "core.no_such_key": ("`{name}` has shape {shape}; expected a list of weights with a {ordinal} key.",
                         "`{name}` 的形状是 {shape}；这里需要一个权重列表，其中要有{ordinal}键。"),
    "core.most_on_ok": ("a distribution with {share:.2f} of the weight on the {ordinal} key.",
                        "这是一个概率分布，{ordinal}键得到 {share:.2f} 的权重。"),
    "core.most_on_other": ("most of the weight is on the {place} key (position {top} counting from 0); the exercise "
                           "asks for the {ordinal} key (position {position}).",
                           "大部分权重落在{place}键上（从 0 数是位置 {top}）；题目要的是{ordinal}键（位置 {position}）。"),
    "core.most_on_not_half": ("the {ordinal} key has the largest weight ({share:.2f}) but not most of it: give it more "
                              "than half.", "{ordinal}键的权重最大（{share:.2f}），但还不到一半：给它一半以上的权重。"),
    "core.most_on_answer": ("any weights with more than 0.5 at position {position}",
                            "任何在位置 {position} 上大于 0.5 的权重"),
    "core.distribution_ok": ("`{name}` form a probability distribution over the keys.",
                             "`{name}` 构成了键上的一个概率分布。"),
    # -------------------------------------------------------------- describe(): what a learner passed
    "describe.string": ("the string {text!r}", "字符串 {text!r}"),
    "describe.empty_string": ("an empty string", "空字符串"),
    "describe.bool": ("the truth value {value}", "布尔值 {value}"),
    "describe.tensor": ("a tensor of shape {shape}", "形状为 {shape} 的张量"),
    "describe.tensor_grad": ("a tensor of shape {shape} that requires grad", "形状为 {shape}、requires_grad 的张量"),
    "describe.array": ("an array of shape {shape}", "形状为 {shape} 的数组"),
    "describe.empty": ("an empty {kind}", "空的 {kind}"),
    "describe.items": ("a {kind} of {n} item{s}", "含 {n} 个元素的 {kind}"),
    "describe.number": ("the number {value}", "数字 {value}"),
    "describe.function": ("a function", "一个函数"),
    "describe.object": ("a {kind}", "一个 {kind} 对象"),
}
