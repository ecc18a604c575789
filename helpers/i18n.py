"""The learner-facing language: one message catalogue for checker messages, hints and widget labels.

    import helpers
    helpers.setup(seed=0, lang="zh")       # or helpers.i18n.set_lang("zh")
    helpers.i18n.t("core.not_answered", name="my_weights")

Every message has a key, an English template here (``ENGLISH``, the source, as the notebooks are for the chapters)
and a Chinese one in the gettext catalogue ``helpers/locale/zh/messages.po`` (msgctxt = the key, msgid = the English,
msgstr = the Chinese), which Poedit and the other PO tools edit. At import the Chinese is read (Babel) into
``MESSAGES = {key: (English, Chinese)}``, in ``LANGUAGES`` order; a key without a current translation (none, fuzzy,
or made from other English) shows its English. Templates are ``str.format`` strings; a Chinese template uses a
subset of its English template's fields (English plurals such as ``{s}`` need no counterpart). ``t(key, **fields)``
fills the template of the current language. Adding a message: add a key to ``ENGLISH``, run
``python -m helpers.devtools.zh extract`` and write its msgstr in messages.po; ``tests/test_i18n.py`` checks that
every key has every language, that the fields agree, and that every key used in ``helpers/`` exists and is used.
"""
from __future__ import annotations

import string
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from babel.messages.pofile import read_po

__all__ = ["LANGUAGES", "ENGLISH", "MESSAGES", "MESSAGES_PO", "with_chinese", "set_lang", "get_lang", "language", "t",
           "ordinal", "template_fields", "Labels"]

LANGUAGES = ("en", "zh")
MESSAGES_PO = Path(__file__).parent / "locale" / "zh" / "messages.po"   # travels with helpers/ (release, sandbox)
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
    if get_lang() == "zh":   # 第一个 ... 第四个 for "first" ... "fourth", so no number appears that English lacks
        return {0: "第一个", 1: "第二个", 2: "第三个", 3: "第四个"}.get(index, f"第 {index + 1} 个")
    return {0: "first", 1: "second", 2: "third", 3: "fourth"}.get(index, f"number {index + 1}")


class Labels(Mapping):
    """A read-only {name: label} mapping whose labels are catalogue messages in the current language.

    Labels({"bleu": "plots.metric_bleu"})["bleu"] -> "BLEU (0-100)" in English, "BLEU（0-100）" in Chinese.
    """

    def __init__(self, keys: dict[str, str]):
        self._keys = dict(keys)

    def __getitem__(self, name: str) -> str:
        return t(self._keys[name])

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"Labels({dict(self)!r})"


def with_chinese(english: dict[str, str], path: Path = MESSAGES_PO) -> dict[str, tuple[str, str]]:
    """{key: (English, Chinese)}: the msgstr of each current entry of a PO catalogue (msgctxt = the key, msgid =
    the key's English, not fuzzy, not empty), else the English again."""
    chinese = {}
    if path.exists():
        with path.open("rb") as f:
            for m in read_po(f):
                if m.id and m.string and not m.fuzzy and english.get(m.context) == m.id:
                    chinese[m.context] = m.string
    return {key: (text, chinese.get(key, text)) for key, text in english.items()}


# ------------------------------------------------------------------------------------------------ the catalogue
# key: the English template; the Chinese is in helpers/locale/zh/messages.po. Keys are grouped by the module that
# uses them: core.*, describe.*, ch01.* ... ch08.*, widgets.*, plots.*, tables.*, training.*, toylang.*, setup.*.
MESSAGES: dict[str, tuple[str, str]] = {
    # ---------------------------------------------------------------------- setup and the shared checker core
    "setup.lang": (" | lang {code}", " | 语言 {code}"),
    "setup.not_pinned": (
        "Numbers in this run may differ in their last digits from the committed outputs (README, 'Same numbers on "
        "every machine'); every assert still checks the claims.",
        "本次运行的数字可能在末几位与保存的输出不同（见 README“每台机器上数字相同”一节）；所有断言照样检查每个结论。",
    ),
    "core.correct": ("Correct: ", "正确："),
    "core.not_yet": ("Not yet: ", "还不对："),
    "core.not_answered": (
        "Not answered yet: replace the None in `{name}` with your answer, then run this cell again.",
        "尚未作答：把 `{name}` 中的 None 换成你的答案，然后重新运行这个单元格。"),
    "core.fallback": ("the checker could not read this answer", "检查器无法读取这个答案"),
    "core.fallback_detail": (
        "{fallback} ({error}: {detail}); check its type and shape.",
        "{fallback}（{error}: {detail}）；请检查它的类型和形状。"),
    "core.text_not_numbers": (
        "`{name}` is {what}; expected numbers (write them without quotes).",
        "`{name}` 是{what}；这里需要数字（不要加引号）。"),
    "core.contains_text": (
        "`{name}` contains text; expected numbers (write them without quotes).",
        "`{name}` 里含有文本；这里需要数字（不要加引号）。"),
    "core.not_numbers": (
        "`{name}` is {what}; expected a number, or a list, array or tensor of numbers.",
        "`{name}` 是{what}；这里需要一个数字，或由数字组成的列表、数组或张量。"),
    "core.unreadable_numbers": (
        "`{name}` is {what} that cannot be read as numbers; expected a number, or a (rectangular) list, array or "
        "tensor of numbers.",
        "`{name}` 是{what}，无法读成数字；这里需要一个数字，或由数字组成的（规整的）列表、数组或张量。"),
    "core.bool_not_number": ("`{name}` is {what}; expected a number.", "`{name}` 是{what}；这里需要一个数字。"),
    "core.string_not_number": (
        "`{name}` is {what}, not a number; write the number without quotes.",
        "`{name}` 是{what}，不是数字；请去掉引号直接写数字。"),
    "core.not_one_number": ("`{name}` is {what}; expected one number.", "`{name}` 是{what}；这里需要恰好一个数字。"),
    "core.not_finite": (
        "`{name}` is {value}; expected a finite number.",
        "`{name}` 是 {value}；这里需要一个有限的数。"),
    "core.not_whole": ("`{name}` is {value}; expected a whole number.", "`{name}` 是 {value}；这里需要一个整数。"),
    "core.returned_none": ("None (did you forget `return`?)", "None（是不是忘了写 `return`？）"),
    "core.raised": ("calling `{name}` raised {error}: {detail}", "调用 `{name}` 时抛出了 {error}: {detail}"),
    "core.expected": (" Expected: {answer}.", "正确答案：{answer}。"),
    "core.worked_solution": (
        " Worked solution: helpers.exercises.solution({exercise}).",
        "详细解答：helpers.exercises.solution({exercise})。"),
    "core.try_again": (" Try again (a second wrong try shows the answer).", "再试一次（第二次答错时会显示答案）。"),
    "core.no_solution": (
        "No worked solution for {exercise}; exercise ids are {ids} (chapter.exercise, e.g. '04.2').",
        "没有 {exercise} 的详细解答；练习编号有 {ids}（章.题，例如 '04.2'）。"),
    "core.solution_head": ("Exercise {exercise}: {title}", "练习 {exercise}：{title}"),
    "core.expected_not_number": (
        "the expected value for `{name}` is not a number; this is a mistake in the notebook.",
        "`{name}` 的期望值不是数字；这是笔记本本身的错误。"),
    "core.wrong_shape": (
        "`{name}` has shape {shape}; expected shape {want}.",
        "`{name}` 的形状是 {shape}；应为 {want}。"),
    "core.nan": ("`{name}` contains NaN or infinity.", "`{name}` 里有 NaN 或无穷大。"),
    "core.close_within": ("`{name}` is {value} (within {tol}).", "`{name}` 是 {value}（误差在 {tol} 以内）。"),
    "core.close_exact": ("`{name}` is {value}.", "`{name}` 是 {value}。"),
    "core.is_value": ("`{name}` is {value}: {sentence}", "`{name}` 是 {value}：{sentence}"),
    "core.at_index": (" at index {index}", "在下标 {index} 处"),
    "core.too_high": ("`{name}`{where} is {value:.4g}, too high.", "`{name}`{where}是 {value:.4g}，偏大。"),
    "core.too_low": ("`{name}`{where} is {value:.4g}, too low.", "`{name}`{where}是 {value:.4g}，偏小。"),
    "core.single_number": (
        "`{name}` is a single number; expected one weight per key.",
        "`{name}` 只是一个数；这里需要每个键一个权重。"),
    "core.outside_01": (
        "`{name}` has values outside [0, 1]: weights are probabilities.",
        "`{name}` 有超出 [0, 1] 的值：注意力权重是概率。"),
    "core.not_sum_1": (
        "`{name}` do not sum to 1 along the key axis (the sums are {sums}).",
        "`{name}` 沿键的维度求和不等于 1（和为 {sums}）。"),
    "core.no_such_key": (
        "`{name}` has shape {shape}; expected a list of weights with a {ordinal} key.",
        "`{name}` 的形状是 {shape}；这里需要一个权重列表，其中要有{ordinal}键。"),
    "core.most_on_ok": (
        "a distribution with {share:.2f} of the weight on the {ordinal} key.",
        "这是一个概率分布，{ordinal}键得到 {share:.2f} 的权重。"),
    "core.most_on_other": (
        "most of the weight is on the {place} key (position {top} counting from 0); the exercise asks for the "
        "{ordinal} key (position {position}).",
        "大部分权重落在{place}键上（从 0 数是位置 {top}）；题目要的是{ordinal}键（位置 {position}）。"),
    "core.most_on_not_half": (
        "the {ordinal} key has the largest weight ({share:.2f}) but not most of it: give it more than half.",
        "{ordinal}键的权重最大（{share:.2f}），但还不到一半：给它一半以上的权重。"),
    "core.most_on_answer": (
        "any weights with more than 0.5 at position {position}",
        "超过 0.5 的权重放在位置 {position} 上的任何一组权重"),
    "core.distribution_ok": (
        "`{name}` form a probability distribution over the keys.",
        "`{name}` 构成了键上的一个概率分布。"),
    # ---------------------------------------------------------------------- describe(): what a learner passed
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
    # ----------------------------------------------------------------------------- chapter 01: the bottleneck
    "ch01.size_ok": (
        "{size} numbers, whatever the length of the sentence: that is the bottleneck.",
        "{size} 个数，不管句子多长都是这么多：这就是瓶颈。"),
    "ch01.one_direction": (
        "that is one GRU's state; the encoder has two (left-to-right and right-to-left), concatenated.",
        "这只是一个 GRU 的状态；编码器有两个（从左到右和从右到左），二者拼接在一起。"),
    "ch01.embedding": (
        "that is the size of one word's embedding, not of the encoder's final state.",
        "这是一个词的词嵌入的大小，不是编码器最终状态的大小。"),
    "ch01.vectors": (
        "count numbers, not vectors: how long is each GRU's final state?",
        "要数的是数字，不是向量：每个 GRU 的最终状态有多长？"),
    "ch01.too_big": (
        "that is more than the encoder's final states hold: count the numbers in the two GRUs' final states.",
        "这比编码器的最终状态里的数还多：数一数两个 GRU 的最终状态里一共有多少个数。"),
    "ch01.plus_embedding": (
        "that adds a word's embedding ({emb} numbers); the embeddings go into the GRUs, and only the GRUs' final "
        "states reach the decoder.",
        "这把一个词的词嵌入（{emb} 个数）也加进去了；词嵌入是 GRU 的输入，送到解码器的只有 GRU 的最终状态。"),
    "ch01.one_direction_plus_embedding": (
        "that is one GRU's state plus an embedding ({emb}); the decoder gets the final states of both GRUs, "
        "concatenated, and no embedding.",
        "这是一个 GRU 的状态加上一个词嵌入（{emb}）；解码器得到的是两个 GRU 的最终状态拼接在一起，没有词嵌入。"),
    "ch01.gates": (
        "a GRU has gates inside, but its state has `hidden` numbers: count the final states, not the gates.",
        "GRU 内部有几个门，但它的状态只有 `hidden` 个数：要数的是最终状态，不是门。"),
    "ch01.times_length": (
        "that grows with the sentence ({n} × the final states); the decoder gets the final states once, whatever "
        "the length.",
        "这会随句子变长（{n} 倍的最终状态）；不管句子多长，解码器只得到一次最终状态。"),
    "ch01.counted_twice": (
        "that counts the context vector twice: the decoder starts from it and gets it again at every step, but it "
        "is one vector, the two GRUs' final states concatenated (each has `hidden` numbers, not 2 × hidden).",
        "这把上下文向量算了两次：解码器从它出发，每一步又再拿到它，但它始终是同一个向量，也就是两个 GRU 的最终状态"
        "拼接在一起（每个有 `hidden` 个数，不是 2 × hidden）。"),
    "ch01.rule_measure": (
        "a measure word comes right after its determiner (`yi zhi`), before any adjective.",
        "量词紧跟在限定词后面（`yi zhi`），放在形容词前面。"),
    "ch01.rule_adj_de": (
        "an adjective is followed by `de`, and the two stand right before their noun.",
        "形容词后面跟 `de`，二者紧挨着放在名词前面。"),
    "ch01.rule_le": (
        "`le` comes right after its verb (or at the end of its clause), never before it.",
        "`le` 紧跟在动词后面（或放在分句末尾），不会在动词前面。"),
    "ch01.rule_circumposition": (
        "a place preposition becomes two words around its noun phrase: `zai` before it, the second word right after "
        "the noun.",
        "表示地点的介词变成围在名词短语两边的两个词：`zai` 在前，第二个词紧跟在名词后面。"),
    "ch01.rule_place": (
        "a place phrase moves right before its verb: the whole `zai …` phrase, then the verb.",
        "地点短语要移到紧挨着动词的前面：先是整个 `zai …` 短语，然后是动词。"),
    "ch01.size_hint": (
        "look at the encoder: how many GRUs, and how many numbers in each final state?",
        "看看编码器：有几个 GRU，每个最终状态里有多少个数？"),
    # -------------------------------------------------------------------------- chapter 00: start here
    "ch00.n_weights": (
        "`{name}` has shape {shape}; expected {n} weights, one per key.",
        "`{name}` 的形状是 {shape}；这里需要 {n} 个权重，每个键一个。"),
    "ch00.extra_axis": (
        "`{name}` has shape {shape}: an extra axis of length 1. Give a flat list of {n} weights, one per key, "
        "shape ({n},).",
        "`{name}` 的形状是 {shape}：多了一个长度为 1 的维度。请给出一个扁平的列表，{n} 个权重，每个键一个，"
        "形状为 ({n},)。"),
    # -------------------------------------------------------------------------- chapter 02: weighted averages
    "ch02.weights_shape": (
        "`{name}` has shape {shape}; expected one weight per input, shape ({n},).",
        "`{name}` 的形状是 {shape}；这里需要每个输入一个权重，形状为 ({n},)。"),
    "ch02.negative": (
        "`{name}` has a negative weight ({value:.3f}); attention weights are never negative.",
        "`{name}` 有一个负权重（{value:.3f}）；注意力权重不会是负数。"),
    "ch02.sum": (
        "`{name}` sum to {total:.3f}; attention weights must sum to 1.",
        "`{name}` 的和是 {total:.3f}；注意力权重之和必须为 1。"),
    "ch02.average_ok": ("the weighted average is {average}, as wanted.", "加权平均是 {average}，正是目标。"),
    "ch02.average_wrong": (
        "your weights give the average {average}, but the target is {target}: which inputs does the target mix, and "
        "in what shares?",
        "你的权重给出的平均是 {average}，目标却是 {target}：目标混合了哪些输入，各占多少？"),
    "ch02.query_shape": (
        "`{name}` has shape {shape}; expected a vector of shape ({d},).",
        "`{name}` 的形状是 {shape}；这里需要形状为 ({d},) 的向量。"),
    "ch02.query_nan": (
        "`{name}` contains NaN or infinity; use finite numbers (a longer query already sharpens the softmax).",
        "`{name}` 里有 NaN 或无穷大；请用有限的数（查询向量更长就已经能让 softmax 更尖锐）。"),
    "ch02.key_name": ("key {n}", "键 {n}"),
    "ch02.overflow": (
        "`{name}` is so long that the scores overflow; use smaller numbers.",
        "`{name}` 太长，得分溢出了；请用小一些的数。"),
    "ch02.favours_ok": ("'{key}' gets {share:.2f} of the weight.", "'{key}' 得到 {share:.2f} 的权重。"),
    "ch02.point_query": (
        "point the query the way that key points, and make it longer to sharpen the softmax",
        "让查询指向这个键的方向，再把它拉长，让 softmax 更尖锐"),
    "ch02.make_longer": (
        "the query already points the right way; make it longer (multiply it by a number) to sharpen the softmax",
        "查询的方向已经对了；把它拉长（乘上一个数），让 softmax 更尖锐"),
    "ch02.top_key": ("right now '{key}' gets the most ({share:.2f})", "目前得到权重最多的是 '{key}'（{share:.2f}）"),
    "ch02.query_answer": (
        "for example {name} = {query}, which gives '{key}' {share:.2f} of the weight",
        "例如 {name} = {query}，它给 '{key}' {share:.2f} 的权重"),
    "ch02.favours_wrong": (
        "'{key}' gets only {share:.2f} of the weight (needed: {needed:.2f}); {hint}.",
        "'{key}' 只得到 {share:.2f} 的权重（需要 {needed:.2f}）；{hint}。"),
    # ---------------------------------------------------------------------------- chapter 03: Q, K, V by hand
    "ch03.weights_shape": (
        "`{name}` has shape {shape}; expected one weight per key, shape ({n},).",
        "`{name}` 的形状是 {shape}；这里需要每个键一个权重，形状为 ({n},)。"),
    "ch03.ok": ("{answer}, matching the explorer's weights.", "{answer}，与探索器给出的权重一致。"),
    "ch03.raw_scores": (
        "these are the raw scores Q·K; turn them into weights with softmax.",
        "这些是原始得分 Q·K；用 softmax 把它们变成注意力权重。"),
    "ch03.scaled_scores": (
        "these are the scaled scores, before the softmax; turn them into weights with softmax.",
        "这些是缩放后的得分，还没有经过 softmax；用 softmax 把它们变成注意力权重。"),
    "ch03.unscaled": (
        "these are the weights WITHOUT the scale; divide the scores by √d_k = √{d} first.",
        "这些是没有缩放的权重；先把得分除以 √d_k = √{d}。"),
    "ch03.scaled": (
        "these are the scaled weights; this exercise asks for the unscaled ones.",
        "这些是缩放后的权重；这道题要的是不缩放的权重。"),
    "ch03.not_normalised": (
        "these are exp of the scores, not yet divided by their sum: weights must sum to 1.",
        "这些是得分取 exp 之后的值，还没有除以它们的和：权重之和必须为 1。"),
    "ch03.no_exp": (
        "these are the scores divided by their sum: softmax takes exp of each score first, then divides by the "
        "sum of the exps.",
        "这是把得分直接除以它们的和：softmax 要先对每个得分取 exp，再除以这些 exp 的和。"),
    "ch03.or_rounded": (
        " (Or the right weights rounded to two decimals: give three.)",
        "（也可能是正确权重四舍五入到两位小数：请保留三位。）"),
    "ch03.divided_by_d": (
        "these divide the scores by d_k = {d}; the scale is √d_k = √{d}.",
        "这是把得分除以 d_k = {d}；缩放因子是 √d_k = √{d}。"),
    "ch03.multiplied": (
        "these multiply the scores by √d_k; divide by √d_k = √{d} instead.",
        "这是把得分乘以 √d_k；应该除以 √d_k = √{d}。"),
    "ch03.too_high": (
        "the weight of key {n} is {value:.4f}, too high: scores Q·Kᵢ, divide by √d_k, then exp(sᵢ) / Σ exp(sⱼ).",
        "键 {n} 的权重是 {value:.4f}，偏大：先算得分 Q·Kᵢ，除以 √d_k，再算 exp(sᵢ) / Σ exp(sⱼ)。"),
    "ch03.too_low": (
        "the weight of key {n} is {value:.4f}, too low: scores Q·Kᵢ, divide by √d_k, then exp(sᵢ) / Σ exp(sⱼ).",
        "键 {n} 的权重是 {value:.4f}，偏小：先算得分 Q·Kᵢ，除以 √d_k，再算 exp(sᵢ) / Σ exp(sⱼ)。"),
    # ------------------------------------------------------------------------ chapter 04: scaling, softmax
    "ch04.variance_first": (
        "the first number is the variance of q·k (d_k); the question asks for the standard deviation, its square "
        "root.",
        "第一个数是 q·k 的方差（d_k）；题目问的是标准差，也就是它的平方根。"),
    "ch04.variances": (
        "those are variances; the standard deviation is the square root of the variance.",
        "这些是方差；标准差是方差的平方根。"),
    "ch04.divide_std": (
        "dividing q·k by √d_k divides its standard deviation by √d_k too.",
        "把 q·k 除以 √d_k，它的标准差也会除以 √d_k。"),
    "ch04.variance_and_divide": (
        "the first is the variance, and dividing by √d_k divides the standard deviation by √d_k.",
        "第一个是方差；而且除以 √d_k 会让标准差也除以 √d_k。"),
    "ch04.grows": (
        "q·k sums d_k products of variance 1 each: its variance grows with d_k.",
        "q·k 是 d_k 个方差为 1 的乘积之和：它的方差随 d_k 增长。"),
    "ch04.swapped_order": (
        "the two numbers are in the wrong order: first the standard deviation of q·k, then that of q·k / √d_k.",
        "两个数的顺序反了：先写 q·k 的标准差，再写 q·k / √d_k 的标准差。"),
    "ch04.divided_by_dk": (
        "the first number is right; the second divides q·k by d_k instead of √d_k: dividing by √d_k divides the "
        "standard deviation by √d_k.",
        "第一个数是对的；第二个数把 q·k 除以了 d_k，而不是 √d_k：除以 √d_k 会让标准差也除以 √d_k。"),
    "ch04.longer": ("longer", "更长的数组"),
    "ch04.two_numbers": (
        "`{name}` is {value}; expected a list of two numbers: [std of q·k, std of q·k / √d_k].",
        "`{name}` 是 {value}；这里需要两个数的列表：[q·k 的标准差, q·k / √d_k 的标准差]。"),
    "ch04.std_hint": (
        "the variance of a sum of d_k independent products of variance 1 is d_k; the standard deviation is its "
        "square root.",
        "d_k 个相互独立、方差为 1 的乘积之和，方差是 d_k；标准差是它的平方根。"),
    "ch04.second_hint": (
        "the first number is right; for the second, dividing q·k by √d_k divides its standard deviation by √d_k.",
        "第一个数是对的；至于第二个数：把 q·k 除以 √d_k，它的标准差也会除以 √d_k。"),
    "ch04.case_small": ("small scores", "较小的得分"),
    "ch04.case_batch": ("a batch of rows", "一批多行得分"),
    "ch04.case_large": ("large scores like [1000, 999, 998]", "像 [1000, 999, 998] 这样很大的得分"),
    "ch04.case_negative": ("very negative scores like [-1000, -1001]", "像 [-1000, -1001] 这样很负的得分"),
    "ch04.case_rows_apart": (
        "two rows hundreds apart, [[0, 1, 2], [800, 801, 802]]",
        "相差几百的两行 [[0, 1, 2], [800, 801, 802]]"),
    "ch04.case_wide": ("a row with a wide spread, [-1000, 0, 1000]", "一行跨度很大的得分 [-1000, 0, 1000]"),
    "ch04.row_min": (
        "each row's minimum is subtracted: the largest score then becomes exp(2000) = inf, and inf/inf is NaN; "
        "subtract each row's maximum instead, so the largest exponent is exp(0) = 1",
        "减去的是每一行的最小值：最大的得分就变成 exp(2000) = inf，而 inf/inf 是 NaN；"
        "应该减去每一行的最大值，这样最大的指数项是 exp(0) = 1"),
    "ch04.row_mean": (
        "each row's mean is subtracted: a score far above the mean still gives exp(1000) = inf, and inf/inf is NaN; "
        "subtract each row's maximum instead, so the largest exponent is exp(0) = 1",
        "减去的是每一行的平均值：比平均值高很多的得分仍然得到 exp(1000) = inf，而 inf/inf 是 NaN；"
        "应该减去每一行的最大值，这样最大的指数项是 exp(0) = 1"),
    "ch04.low_precision": (
        "on {label} `{name}` returns {dtype}, which keeps only 2 or 3 significant digits, too coarse for weights "
        "checked to 1e-5; compute in the scores' own dtype (float32).",
        "在{label}上，`{name}` 返回的是 {dtype}，它只有 2 到 3 位有效数字，太粗了，这里要精确到 1e-5；"
        "请用得分本身的 dtype（float32）来算。"),
    "ch04.global_max": (
        "one maximum of the whole tensor is subtracted: the first row becomes exp(-800) = 0 everywhere, and 0/0 is "
        "NaN; subtract each row's own maximum, x.amax(dim=-1, keepdim=True)",
        "减去的是整个张量的一个最大值：第一行全变成 exp(-800) = 0，而 0/0 是 NaN；"
        "应该减去每一行自己的最大值 x.amax(dim=-1, keepdim=True)"),
    "ch04.column_max": (
        "each column's maximum is subtracted (dim=0); the shift must be the same along a row: each row's maximum, "
        "dim=-1",
        "减去的是每一列的最大值（dim=0）；同一行里必须减去同一个数：每一行的最大值，dim=-1"),
    "ch04.no_exp": (
        "the scores are divided by their sum, with no exp: softmax takes exp of each score first",
        "这是把得分直接除以它们的和，没有取 exp：softmax 要先对每个得分取 exp"),
    "ch04.not_divided": (
        "these are exp(x - max) not yet divided by their sum along the row",
        "这是 exp(x - max)，还没有沿着这一行除以它们的和"),
    "ch04.not_function": (
        "`{name}` should be a function that takes a tensor of scores; got {kind}.",
        "`{name}` 应该是一个接收得分张量的函数；收到的是 {kind}。"),
    "ch04.on_case": ("on {label}, {problem}.", "在{label}上，{problem}。"),
    "ch04.keepdim": (
        "`{name}` raised a RuntimeError: the sizes do not match. Take each row's max and sum with keepdim=True, so "
        "each row's max broadcasts against its row: x.amax(dim=-1, keepdim=True)",
        "`{name}` 抛出了 RuntimeError：形状对不上。取每一行的最大值和总和时加上 keepdim=True，"
        "这样每一行的最大值才能和这一行广播对齐：x.amax(dim=-1, keepdim=True)"),
    "ch04.softmax_answer": (
        "for example {name} = lambda x: torch.exp(x - x.amax(dim=-1, keepdim=True)) / torch.exp(x - x.amax(dim=-1, "
        "keepdim=True)).sum(dim=-1, keepdim=True)",
        "例如 {name} = lambda x: torch.exp(x - x.amax(dim=-1, keepdim=True)) / torch.exp(x - x.amax(dim=-1, "
        "keepdim=True)).sum(dim=-1, keepdim=True)"),
    "ch04.returned": (
        "on {label} `{name}` returned {what}; expected a tensor of weights.",
        "在{label}上，`{name}` 返回了{what}；这里需要一个权重张量。"),
    "ch04.shape": (
        "on {label} `{name}` returned shape {shape}; expected {want}.",
        "在{label}上，`{name}` 返回的形状是 {shape}；应为 {want}。"),
    "ch04.overflow": (
        "`{name}` gives NaN or infinity on {label}: subtract each row's maximum before exp.",
        "`{name}` 在{label}上得到 NaN 或无穷大：先在每一行减去该行的最大值，再取 exp。"),
    "ch04.sums": (
        "on {label} the weights do not sum to 1 along the last axis (sums {sums}).",
        "在{label}上，权重沿最后一维求和不等于 1（和为 {sums}）。"),
    "ch04.values": (
        "on {label} the weights differ from softmax's: exp(x - max) / sum(exp(x - max)).",
        "在{label}上，权重与 softmax 的结果不同：应为 exp(x - max) / sum(exp(x - max))。"),
    "ch04.softmax_ok": (
        "a distribution on every row, the right values, and no overflow on large scores.",
        "每一行都是概率分布，数值正确，大得分也不会溢出。"),
    # ------------------------------------------------------------------------ chapter 06: scorers and dropout
    "ch06.not_a_scorer": (
        "`{name}` is {what}; expected one of the names {names}.",
        "`{name}` 是{what}；这里需要以下名字之一：{names}。"),
    "ch06.no_parameters": (
        "it has no parameters at all: it only multiplies the vectors it is given",
        "它根本没有参数：它只是把给它的向量相乘"),
    "ch06.another_has_more": (
        "another scorer has more: write each score's formula and count the numbers in its matrices and vectors",
        "另一个打分函数的参数更多：写出每个打分公式，数一数其中矩阵和向量里有多少个数"),
    "ch06.not_this_scorer": ("not {scorer}: {why}.", "不是 {scorer}：{why}。"),
    "ch06.count_ok": ("{scorer} has {count} parameters at d = {d}.", "d = {d} 时，{scorer} 有 {count} 个参数。"),
    "ch06.count_of_other": ("that is the count of {scorer}", "这是 {scorer} 的参数量"),
    "ch06.count_at_size": (
        "that is the count at d = {size}; here d_q = d_k = h = {d}",
        "这是 d = {size} 时的参数量；这里 d_q = d_k = h = {d}"),
    "ch06.counts_only": (
        "that counts only {counted}; the score also uses {missing}",
        "这只数了 {counted}；打分还用到了 {missing}"),
    "ch06.no_bias": (
        "that is {extra} more than the weights: the course's layers have no bias (count_parameters counts none); "
        "count only the weights",
        "比权重多了 {extra} 个：本课程的这些层没有偏置（count_parameters 一个也不数）；只数权重"),
    "ch06.v_is_not_a_bias": (
        "that leaves out v: the + h in h·(d_q + d_k) + h is v's {h} numbers, not a bias",
        "这漏掉了 v：h·(d_q + d_k) + h 里的 + h 是 v 的 {h} 个数，不是偏置"),
    "ch06.count_everything": (
        "count every matrix and vector of the score's formula at this size",
        "在这个尺寸下，把打分公式里每个矩阵和向量都数进去"),
    "ch06.count_wrong": ("`{name}` is {value}: {slip}.", "`{name}` 是 {value}：{slip}。"),
    "ch06.dropout_ok": (
        "on average a row still sums to 1: (1 - p) of the weights survive, each × 1/(1 - p).",
        "平均而言一行之和仍是 1：有 (1 - p) 的权重保留下来，每个再乘以 1/(1 - p)。"),
    "ch06.survive_share": (
        "{share:.2f} is the share of weights that survive, but nn.Dropout also multiplies each survivor by 1/(1 - p).",
        "{share:.2f} 是保留下来的权重所占的比例，但 nn.Dropout 还会把每个保留的权重乘以 1/(1 - p)。"),
    "ch06.only_survivors": (
        "every survivor is scaled by 1/(1 - p), but on average only (1 - p) of them survive.",
        "每个保留的权重都乘以 1/(1 - p)，但平均只有 (1 - p) 的权重能保留下来。"),
    "ch06.dropped_share": (
        "p is the share of weights dropped, not what the row sums to.",
        "p 是被丢弃的权重所占的比例，不是这一行的和。"),
    "ch06.dropout_hint": (
        "`{name}` is {value:.3f}; think of which share of weights survives and how they are scaled.",
        "`{name}` 是 {value:.3f}；想一想有多大比例的权重会保留下来，以及它们如何被缩放。"),
    # ---------------------------------------------------------------------- chapter 08: the cost of attention
    "ch08.bytes": ("that is bytes; divide by 2²⁰ for MiB.", "这是字节数；除以 2²⁰ 才是 MiB。"),
    "ch08.megabytes": (
        "that is megabytes (10⁶ bytes); a MiB is 2²⁰ bytes.",
        "这是 MB（10⁶ 字节）；1 MiB 是 2²⁰ 字节。"),
    "ch08.kib": ("that is KiB; divide by 2¹⁰ once more for MiB.", "这是 KiB；再除以一次 2¹⁰ 才是 MiB。"),
    "ch08.gib": ("that is GiB; multiply by 2¹⁰ for MiB.", "这是 GiB；乘以 2¹⁰ 才是 MiB。"),
    "ch08.bits": ("that counts bits; a float32 is 4 bytes.", "这是按比特数的；一个 float32 占 4 个字节。"),
    "ch08.entries": (
        "that is the number of entries in Mi; each takes {bytes} bytes.",
        "这是以 Mi 为单位的元素个数；每个元素占 {bytes} 个字节。"),
    "ch08.float64": (
        "that is float64 (8 bytes); the matrix is float32, {bytes} bytes an entry.",
        "这是按 float64（8 字节）算的；这个矩阵是 float32，每个元素 {bytes} 个字节。"),
    "ch08.one_row": ("that is one row; the matrix has n rows.", "这只是一行；矩阵有 n 行。"),
    "ch08.mib_hint": (
        "entries × bytes per entry, then bytes → MiB.",
        "元素个数 × 每个元素的字节数，再把字节换算成 MiB。"),
    "ch08.not_over": (
        "at batch {batch} the matrices take {gib:.1f} GiB, still not over the limit (did you round down, or use GB = "
        "10⁹ bytes?).",
        "批大小为 {batch} 时这些矩阵占 {gib:.1f} GiB，还没有超过上限（是不是向下取整了，或者用了 GB = 10⁹ 字节？）。"),
    "ch08.layers": (
        "every layer keeps its own attention matrices: multiply by the layers too.",
        "每一层都保存自己的注意力矩阵：还要乘以层数。"),
    "ch08.heads": (
        "every head keeps its own attention matrix: multiply by the heads too.",
        "每个头都保存自己的注意力矩阵：还要乘以头数。"),
    "ch08.heads_and_layers": ("count every head of every layer.", "把每一层的每一个头都算进去。"),
    "ch08.bytes_per_entry": ("each entry takes {bytes} bytes.", "每个元素占 {bytes} 个字节。"),
    "ch08.batch_hint": (
        "bytes per sentence = n² × heads × layers × bytes per entry; how many sentences go over the limit?",
        "每个句子的字节数 = n² × 头数 × 层数 × 每个元素的字节数；多少个句子会超过上限？"),
    # ---------------------------------------------- chapters 01 and 05: translation, alignment, decoder steps
    "ch05.cannot_translate": (
        "the toy language cannot translate the exercise's sentence {source} ({error}); the notebook needs a sentence "
        "of the current grammar.",
        "玩具语言无法翻译这道题的句子 {source}（{error}）；笔记本需要一个符合当前语法的句子。"),
    "ch05.not_words": (
        "`{name}` is {what}; expected a string of target words, e.g. \"word word word\", or a list of words.",
        "`{name}` 是{what}；这里需要一串目标语言的词，例如 \"word word word\"，或一个词的列表。"),
    "ch05.valid": ("a valid translation.", "这是一个正确的译文。"),
    "ch05.one_of_valid": (
        "a valid translation (one of {n} valid translations).",
        "这是一个正确的译文（共有 {n} 种正确译法）。"),
    "ch05.no_words": ("`{name}` has no words.", "`{name}` 里没有词。"),
    "ch05.stranger": (
        "'{word}' is in no valid translation of this sentence; look each source word up in the lexicon (some have no "
        "counterpart at all).",
        "'{word}' 不出现在这个句子的任何正确译文里；请在词表里逐个查源语言的词（有些词根本没有对应的词）。"),
    "ch05.too_often": ("'{word}' appears more often than the translation needs", "'{word}' 出现的次数比译文需要的多"),
    "ch05.missing": ("{n} word(s) are missing: {words}", "少了 {n} 个词：{words}"),
    "ch05.a_word_missing": ("{words} is missing ({n} differ)", "缺了 {words}（有 {n} 个不同）"),
    "ch05.word_count": ("you have {n} words and {what}.", "你写了 {n} 个词，{what}。"),
    "ch05.order": (
        "the words are right but the order is not, from target position {position} (0-based, '{word}') on: {rule}",
        "词都对了，但从目标位置 {position}（从 0 数，'{word}'）开始顺序不对：{rule}"),
    "ch05.order_rules": ("re-read the word-order rules.", "请重读语序规则。"),
    "ch05.alignment_type": (
        "`{name}` is {what}; expected a list with one entry per target word: a source position (a whole number), or "
        "a list of them ([] for none).",
        "`{name}` 是{what}；这里需要一个列表，每个目标词一项：一个源位置（整数），或由源位置组成的列表（没有就写 []）"
        "。"),
    "ch05.entry_not_whole": (
        "entry {k} of `{name}` is {what}; source positions are whole numbers (0-based).",
        "`{name}` 的第 {k} 项是 {what}；源位置是整数（从 0 开始）。"),
    "ch05.entry_range": (
        "entry {k} of `{name}` is {value}; source positions run from 0 to {last}.",
        "`{name}` 的第 {k} 项是 {value}；源位置的范围是 0 到 {last}。"),
    "ch05.word_name": ("word {k}", "词 {k}"),
    "ch05.entries": (
        "`{name}` has {n} entries but the translation has {words} words ({target}); give one entry per target word.",
        "`{name}` 有 {n} 项，但译文有 {words} 个词（{target}）；请每个目标词给一项。"),
    "ch05.permutation_ok": (
        "this is the permutation the attention map should trace out.",
        "这正是注意力图应当描出的那个排列。"),
    "ch05.sets_ok": (
        "every target word with its source words, gaps included: the map an ideal decoder traces.",
        "每个目标词都对上了它的源词，空缺也对：这就是理想的解码器会描出的对齐图。"),
    "ch05.one_based": (
        "every position is one too high: positions count from 0, the first source word is 0.",
        "每个位置都多了 1：位置从 0 开始数，第一个源词是 0。"),
    "ch05.translates_nothing": (
        "entry {j} of `{name}` (target word '{word}') translates no source word: give [] for it.",
        "`{name}` 的第 {j} 项（目标词 '{word}'）不翻译任何源词：这一项写 []。"),
    "ch05.translates_something": (
        "entry {j} of `{name}` (target word '{word}') does translate something in the source.",
        "`{name}` 的第 {j} 项（目标词 '{word}'）确实翻译了源句中的某个词。"),
    "ch05.depends_on_more": (
        "entry {j} of `{name}` (target word '{word}') depends on more source words than {sources}.",
        "`{name}` 的第 {j} 项（目标词 '{word}'）依赖的源词不止 {sources}。"),
    "ch05.not_all_of": (
        "entry {j} of `{name}` (target word '{word}') does not translate all of {sources}.",
        "`{name}` 的第 {j} 项（目标词 '{word}'）并不翻译 {sources} 全部。"),
    "ch05.not_source": (
        "entry {j} of `{name}` (target word '{word}') does not translate source word {sources}.",
        "`{name}` 的第 {j} 项（目标词 '{word}'）不翻译源词 {sources}。"),
    "ch05.bad_map": (
        "the attention map given to the checker is not (n_target, n_source); this is a mistake in the notebook.",
        "传给检查器的注意力图不是 (n_target, n_source) 形状；这是笔记本本身的错误。"),
    "ch05.looks_hardest": (
        "at output step {step} the decoder looks hardest at source position {position}.",
        "在输出第 {step} 步，解码器最关注源位置 {position}。"),
    "ch05.map_one_based": (
        "that is the 1-based position; count the x-axis labels from 0.",
        "这是从 1 数的位置；请从 0 开始数 x 轴的标签。"),
    "ch05.map_range": ("source positions run from 0 to {last}.", "源位置的范围是 0 到 {last}。"),
    "ch05.neighbour": (
        "that is where the decoder looks at a neighbouring output word; output word {word} is row {row} counting "
        "from 0.",
        "这是解码器在相邻输出词上关注的位置；第 {word} 个输出词是从 0 数的第 {row} 行。"),
    "ch05.column": (
        "you read a column; each output word is a row of the map (y-axis), each source position a column.",
        "你读的是一列；每个输出词是图中的一行（y 轴），每个源位置是一列。"),
    "ch05.find_row": (
        "find row {row} (0-based) of the map and its darkest cell.",
        "找到图中第 {row} 行（从 0 数），再找这一行颜色最深的格子。"),
    "ch05.not_pair": (
        "returned {what}; expected a pair ({first}, {second}).",
        "返回了{what}；这里需要一对值 ({first}, {second})。"),
    "ch05.pair_part": (
        "returned a pair whose {label} is {what}; expected a tensor.",
        "返回的一对值中 {label} 是{what}；这里需要一个张量。"),
    "ch05.step_not_function": (
        "`{name}` should be a function (query, encoder_states, mask, score_fn); got {what}.",
        "`{name}` 应该是一个函数 (query, encoder_states, mask, score_fn)；收到的是{what}。"),
    "ch05.swapped": (
        "context and weights are swapped: return (context, weights).",
        "上下文向量和权重的位置颠倒了：应返回 (context, weights)。"),
    "ch05.mask_extra_axis": (
        "the weights have shape ({B}, {B}, {S}): the mask is (B, 1, S), with an axis for the query, and masking "
        "scores (B, S) with it broadcasts to (B, B, S). Drop that axis first: mask[:, 0] is (B, S).",
        "权重的形状是 ({B}, {B}, {S})：掩码是 (B, 1, S)，带着一个查询维度，用它去屏蔽 (B, S) 的得分会广播成 "
        "(B, B, S)。先去掉这个维度：mask[:, 0] 的形状是 (B, S)。"),
    "ch05.query_axis_broadcast": (
        "the weights have shape ({B}, {B}, {S}): an axis of length 1 was added to the mask or the scores, and "
        "(B, 1, S) against (B, S) broadcasts to (B, B, S). Keep both (B, S).",
        "权重的形状是 ({B}, {B}, {S})：掩码或得分多加了一个长度为 1 的维度，(B, 1, S) 和 (B, S) 一起会广播成 "
        "(B, B, S)。两者都保持 (B, S)。"),
    "ch05.weights_shape": (
        "for {B} sentences of {S} source positions the weights have shape {shape}; expected (B, S) = ({B}, {S}).",
        "对 {B} 个各有 {S} 个源位置的句子，权重的形状是 {shape}；应为 (B, S) = ({B}, {S})。"),
    "ch05.no_score_fn": (
        "`score_fn` was never called: get the scores from score_fn(query, encoder_states).",
        "从没调用 `score_fn`：得分要由 score_fn(query, encoder_states) 计算。"),
    "ch05.raw_scores": (
        "these are the raw scores; turn them into weights with a (masked) softmax over the source positions.",
        "这些是原始得分；要在源位置上做（带掩码的）softmax，把它们变成权重。"),
    "ch05.batch_axis": (
        "the softmax ran over the batch axis (dim 0); each sentence's weights must sum to 1 over its source "
        "positions (dim -1).",
        "softmax 作用在了批维度（dim 0）上；每个句子的权重应在它的源位置上（dim -1）求和为 1。"),
    "ch05.batch_axis_unmasked": (
        "the softmax ran over the batch axis (dim 0) and the padding is not masked.",
        "softmax 作用在了批维度（dim 0）上，而且填充位置没有被掩码遮住。"),
    "ch05.length_one_axis": (
        "every weight is 1: the softmax ran over an axis of length 1 (a feature axis?); normalise over the source "
        "positions (dim -1).",
        "每个权重都是 1：softmax 作用在了长度为 1 的维度上（特征维度？）；应在源位置上（dim -1）归一化。"),
    "ch05.unmasked": (
        "the padding is not masked: padded positions get weight. Set their scores to -inf (masked_fill(~mask, "
        "float('-inf'))) before the softmax.",
        "填充位置没有被掩码遮住：它们也分到了权重。在 softmax 之前把它们的得分设为 -inf（masked_fill(~mask, "
        "float('-inf'))）。"),
    "ch05.mask_inverted": (
        "the mask is used the wrong way round: True means a real token that may be attended.",
        "掩码用反了：True 表示可以被关注的真实词元。"),
    "ch05.zeroed_after": (
        "the padded weights were zeroed after the softmax, so the rest no longer sum to 1: mask the scores before "
        "the softmax.",
        "填充位置的权重是在 softmax 之后才置零的，所以其余权重之和不再是 1：应在 softmax 之前对得分做掩码。"),
    "ch05.not_normalised": (
        "the weights are not normalised: divide exp(scores) by their sum over the source positions (that is the "
        "softmax).",
        "权重没有归一化：把 exp(得分) 除以它们在源位置上的和（这就是 softmax）。"),
    "ch05.neither": (
        "the weights are neither normalised nor masked: use a masked softmax.",
        "权重既没有归一化，也没有做掩码：请用带掩码的 softmax。"),
    "ch05.divided_by_sum": (
        "the scores are divided by their sum, with no exp: a softmax takes exp of each (masked) score first, then "
        "divides by the sum.",
        "这是把得分直接除以它们的和，没有取 exp：softmax 要先对每个（掩码后的）得分取 exp，再除以总和。"),
    "ch05.filled_zero": (
        "the padded scores were set to 0, not -inf: exp(0) = 1, so padding still gets weight. Fill them with "
        "float('-inf') (masked_fill(~mask, float('-inf'))), so that exp gives exactly 0.",
        "填充位置的得分被设成了 0，而不是 -inf：exp(0) = 1，填充位置照样分到权重。要填 float('-inf')"
        "（masked_fill(~mask, float('-inf'))），这样 exp 之后正好是 0。"),
    "ch05.log_softmax": (
        "these are log-weights (log_softmax): they are negative and do not sum to 1. Use torch.softmax, the weights "
        "themselves.",
        "这是对数权重（log_softmax）：它们是负数，和也不是 1。请用 torch.softmax，得到权重本身。"),
    "ch05.extra_scale": (
        "the scores were divided by a square root before the softmax: score_fn already returns the scores, and any "
        "scale belongs inside the score function, not in the attention step.",
        "softmax 之前得分又除以了一个平方根：score_fn 返回的已经是得分，缩放属于得分函数内部，不属于注意力这一步。"),
    "ch05.no_max_shift": (
        "on scores near +1000 and -1000 the weights are NaN: exp(1000) overflows to inf and inf/inf is NaN, and "
        "exp(-1000) underflows to 0 and 0/0 is NaN. The max shift is missing: subtract each sentence's maximum "
        "score before exp, as in chapter 04 (torch.softmax(scores, dim=-1) does it for you).",
        "得分接近 +1000 和 -1000 时权重变成了 NaN：exp(1000) 溢出成 inf，inf/inf 是 NaN；exp(-1000) 下溢成 0，"
        "0/0 也是 NaN。缺了减去最大值这一步：取 exp 之前，先减去每个句子自己的最大得分，和第 04 章一样"
        "（torch.softmax(scores, dim=-1) 会替你做）。"),
    "ch05.global_max_shift": (
        "on sentences whose scores lie a thousand apart the weights are NaN: one maximum of the whole batch was "
        "subtracted (scores.max()), so a sentence far below it gets exp(-2000) = 0 everywhere, and 0/0 is NaN. "
        "Subtract each sentence's own maximum: scores.amax(dim=-1, keepdim=True).",
        "各句得分相差上千时权重变成了 NaN：减去的是整批的一个最大值（scores.max()），远低于它的句子处处是 "
        "exp(-2000) = 0，而 0/0 是 NaN。应该减去每个句子自己的最大值：scores.amax(dim=-1, keepdim=True)。"),
    "ch05.extreme_problem": (
        "on scores near +1000 and -1000, {problem}",
        "得分接近 +1000 和 -1000 时，{problem}"),
    "ch05.extreme_differ": (
        "on scores near +1000 and -1000 the weights or the context differ from the masked softmax's: a softmax does "
        "not change when a sentence's scores all move by the same amount, so neither may yours.",
        "得分接近 +1000 和 -1000 时，权重或上下文向量与带掩码的 softmax 不同：一个句子的得分整体平移同一个数时 "
        "softmax 不变，你的结果也不该变。"),
    "ch05.context_broadcast": (
        "the context has shape ({B}, {B}, {C}): weights (B, S) @ encoder_states (B, S, C) multiplies every sentence's "
        "weights with every sentence's states. Give the weights an axis first: (weights.unsqueeze(1) @ "
        "encoder_states)[:, 0], or torch.bmm.",
        "上下文向量的形状是 ({B}, {B}, {C})：weights (B, S) @ encoder_states (B, S, C) 把每个句子的权重和每个句子的"
        "状态都乘了一遍。先给权重加一个维度：(weights.unsqueeze(1) @ encoder_states)[:, 0]，或者用 torch.bmm。"),
    "ch05.weights_nan": (
        "the weights contain NaN or infinity on sentences that have real tokens.",
        "在含有真实词元的句子上，权重出现了 NaN 或无穷大。"),
    "ch05.weights_sum": (
        "each sentence's weights must sum to 1 over its source positions; yours sum to {sums}.",
        "每个句子的权重在源位置上之和必须为 1；你的和是 {sums}。"),
    "ch05.weights_differ": (
        "the weights differ from softmax(score_fn(query, encoder_states)) with the padding masked.",
        "权重与遮住填充位置后的 softmax(score_fn(query, encoder_states)) 不同。"),
    "ch05.context_per_sentence": (
        "the context is one number per sentence, as if the weights multiplied the scores; the context is Σₛ weights "
        "· encoder_states, shape (B, C).",
        "上下文向量变成了每个句子一个数，好像权重乘的是得分；上下文向量应是 Σₛ weights · encoder_states，形状 (B, "
        "C)。"),
    "ch05.context_per_position": (
        "the context has one number per source position, like the weights; the context is Σₛ weights · "
        "encoder_states, shape (B, C).",
        "上下文向量像权重一样每个源位置一个数；上下文向量应是 Σₛ weights · encoder_states，形状 (B, C)。"),
    "ch05.context_shape": (
        "the context has shape {shape}; expected (B, C) = ({B}, {C}): one weighted average of the encoder states per "
        "sentence.",
        "上下文向量的形状是 {shape}；应为 (B, C) = ({B}, {C})：每个句子一个编码器状态的加权平均。"),
    "ch05.context_unnormalised": (
        "the context is not a weighted average: its weights were not normalised (divide by their sum).",
        "上下文向量不是加权平均：它用的权重没有归一化（要除以它们的和）。"),
    "ch05.context_raw_scores": (
        "the context weights the states by the raw scores; use the softmax weights.",
        "上下文向量用原始得分给状态加权；应该用 softmax 之后的权重。"),
    "ch05.context_sum": (
        "the context is the plain sum of the states: it ignores the weights.",
        "上下文向量只是状态的直接求和：它忽略了权重。"),
    "ch05.context_mean": (
        "the context is the plain mean of the states: it ignores the weights and the mask.",
        "上下文向量只是状态的简单平均：它忽略了权重和掩码。"),
    "ch05.context_unmasked": (
        "the weights are right but the context was computed with unmasked weights.",
        "权重是对的，但上下文向量是用没有掩码的权重算出来的。"),
    "ch05.context_wrong": (
        "the weights are right but the context is not Σₛ weights[b, s] · encoder_states[b, s] (shape (B, C)).",
        "权重是对的，但上下文向量不是 Σₛ weights[b, s] · encoder_states[b, s]（形状 (B, C)）。"),
    "ch05.all_padding_problem": (
        "with a sentence that is all padding, {problem}",
        "遇到一个全是填充的句子时，{problem}"),
    "ch05.all_padding_shapes": (
        "with a sentence that is all padding the shapes change; they must not.",
        "遇到一个全是填充的句子时形状变了；形状不应改变。"),
    "ch05.all_padding_nan": (
        "a sentence whose every position is padding gets NaN: every score is -inf and softmax computes 0/0. Give "
        "such a row zero weights (helpers.attention.masked_softmax does).",
        "一个所有位置都是填充的句子得到了 NaN：每个得分都是 -inf，softmax 算的是 0/0。给这样的行全零的权重（"
        "helpers.attention.masked_softmax 就是这么做的）。"),
    "ch05.all_padding_zeros": (
        "a sentence that is all padding has nothing to attend to: its weights and context should be all zeros, not a "
        "spread over padding.",
        "全是填充的句子没有可以关注的东西：它的权重和上下文向量应全为零，而不是分散在填充位置上。"),
    "ch05.step_ok": (
        "masked softmax over the source positions, a weighted average of the encoder states, and no NaN on an "
        "all-padding sentence.",
        "在源位置上做带掩码的 softmax，对编码器状态做加权平均，全是填充的句子也不出 NaN。"),
    "ch05.decoder_not_function": (
        "`{name}` should be a decoder step function; got {what}.",
        "`{name}` 应该是一个解码器单步函数；收到的是{what}。"),
    "ch05.decoder_count": (
        "`{name}` returned {what}; the step returns {n} value(s).",
        "`{name}` 返回了{what}；这一步应返回 {n} 个值。"),
    "ch05.decoder_ok": (
        "your step gives the same outputs as the reference step.",
        "你的单步与参考实现给出相同的输出。"),
    "ch05.context_unused": (
        "the output does not change when the encoder states do: the context vector never reaches the output.",
        "编码器状态变了，输出却不变：上下文向量根本没有传到输出。"),
    "ch05.decoder_differs": (
        "output {k} of {n} differs from the reference step: compare each line with the step on the page{order}.",
        "{n} 个输出中的第 {k} 个与参考实现不同：逐行对照书页上的那一步{order}。"),
    "ch05.order_luong": (
        " (Luong's wiring: embedding, recurrent update, query with the new state, scores, masked softmax, context, "
        "readout)",
        "（Luong 接法：词嵌入、循环更新、用新状态做查询、得分、带掩码的 softmax、上下文向量、输出）"),
    "ch05.order_bahdanau": (
        " (Bahdanau's wiring: embedding, query with the previous state, scores, masked softmax, context, recurrent "
        "update, readout)",
        "（Bahdanau 接法：词嵌入、用上一个状态做查询、得分、带掩码的 softmax、上下文向量、循环更新、输出）"),
    "ch05.luong_previous_query": (
        "the query is the previous state s_{{t-1}} (Bahdanau's wiring); Luong's wiring runs the GRU first and "
        "queries with the new state s_t.",
        "查询用的是上一个状态 s_{{t-1}}（这是 Bahdanau 接法）；Luong 接法先跑 GRU，再用新状态 s_t 做查询。"),
    "ch05.step_unmasked": (
        "padding gets weight: pass the mask (enc.mask) to the softmax, so that padded positions get 0.",
        "填充位置得到了权重：把掩码（enc.mask）交给 softmax，让填充位置的权重为 0。"),
    "ch05.step_summary": (
        "the context is the encoder's summary (chapter 01's fixed vector), not the weighted average of the encoder "
        "states.",
        "上下文向量用的是编码器的摘要（第 01 章那个固定向量），而不是编码器状态的加权平均。"),
    "ch05.step_old_state": (
        "the step returns the old state s_{{t-1}}; return the new state s_t, the next step's input.",
        "这一步返回的是旧状态 s_{{t-1}}；应返回新状态 s_t，它是下一步的输入。"),
    "ch05.step_mask_inverted": (
        "the mask is used the wrong way round: enc.mask is True at real words, so padding gets the weight and the "
        "real words get none. Pass enc.mask as it is.",
        "掩码用反了：enc.mask 在真实词上为 True，这样权重都给了填充位置，真实词一点也没有。直接传入 enc.mask。"),
    "ch05.step_no_tanh": (
        "the readout leaves out its tanh: the logits are decoder.output(tanh(decoder.pre_output([s_t; c_t; e]))) "
        "(decoder.readout does it).",
        "输出部分漏了 tanh：logits 是 decoder.output(tanh(decoder.pre_output([s_t; c_t; e])))"
        "（decoder.readout 就是这样算的）。"),
    "ch05.step_probabilities": (
        "these are probabilities (the softmax of the logits): the step returns the logits, the scores before the "
        "softmax; the loss and greedy decoding take them from there.",
        "这是概率（logits 的 softmax）：这一步应返回 logits，也就是 softmax 之前的得分；损失和贪心解码再从它出发。"),
    "ch05.step_log_probabilities": (
        "these are log-probabilities (log_softmax of the logits): return the logits themselves.",
        "这是对数概率（logits 的 log_softmax）：请直接返回 logits。"),
    "ch05.step_readout_order": (
        "the readout's input is {order}; the readout was trained on [s_t; c_t; e], in that order (torch.cat([s_t, "
        "context, e], dim=-1)).",
        "输出部分的输入是 {order}；它是按 [s_t; c_t; e] 这个顺序训练的（torch.cat([s_t, context, e], dim=-1)）。"),
    "ch05.output_k": ("output {k}", "第 {k} 个输出"),
    "ch05.decoder_axis": (
        "{what} has shape {shape}; expected {want}: the values are right, but an axis of length 1 is extra or "
        "missing. Index it away (x[:, 0] drops the query axis of the scorer's (B, 1, S) weights, x[0] the layer "
        "axis of an nn.GRU state) or add it (x[:, None]).",
        "{what} 的形状是 {shape}；应为 {want}：数值是对的，但多了或少了一个长度为 1 的维度。用索引去掉它"
        "（x[:, 0] 去掉评分器 (B, 1, S) 权重里的查询维度，x[0] 去掉 nn.GRU 状态的层维度），或者加上它（x[:, None]）。"),
    "ch05.decoder_shape": (
        "{what} has shape {shape}; expected {want}.",
        "{what} 的形状是 {shape}；应为 {want}。"),
    "ch07.divided_by_d": (
        "the scores are divided by d = 4; the scale is √d = 2.",
        "得分除以的是 d = 4；缩放因子是 √d = 2。"),
    "ch07.softmax_columns": (
        "the softmax runs down the columns (dim=0): each query's row of weights must sum to 1, so use dim=-1. "
        "(Dividing by the row sums without keepdim=True does the same: they broadcast along the wrong axis.)",
        "softmax 是沿列（dim=0）做的：每个查询那一行的权重之和要为 1，所以用 dim=-1。"
        "（除以每行之和时没写 keepdim=True 也会这样：这些和沿错误的维度广播了。）"),
    "ch07.max_wrong_axis": (
        "the maximum was subtracted along the wrong axis (dim=0, one per column): subtract each row's own maximum, "
        "scores.amax(-1, keepdim=True).",
        "减去的最大值沿错了维度（dim=0，每列一个）：应当减去每一行自己的最大值，scores.amax(-1, keepdim=True)。"),
    "ch07.context_transposed": (
        "the weights are right, but the context uses them transposed (weights.T @ X): row i of the context is "
        "Σⱼ weights[i, j] · X[j], that is weights @ X.",
        "权重是对的，但上下文用的是转置后的权重（weights.T @ X）：上下文的第 i 行是 Σⱼ weights[i, j] · X[j]，"
        "也就是 weights @ X。"),
    "ch07.mask_shape": (
        "`{name}` has shape {shape}; expected ({n}, {n}): one row per query, one column per key.",
        "`{name}` 的形状是 {shape}；应为 ({n}, {n})：每个查询一行，每个键一列。"),
    "ch07.mask_extra_axis": (
        "`{name}` has shape {shape}: an extra axis of length 1. The mask of this exercise is ({n}, {n}), one row per "
        "query and one column per key; drop the extra axis (the batch axis is added where a batch is masked).",
        "`{name}` 的形状是 {shape}：多了一个长度为 1 的维度。这道题的掩码是 ({n}, {n})，每个查询一行、每个键一列；"
        "去掉多出来的维度（批次维度要到给一批数据做掩码时再加）。"),
    "ch07.mask_additive": (
        "`{name}` is an additive float mask (0 where allowed, -inf where hidden, as torch's attn_mask); the course's "
        "masks are bool, True = may attend.",
        "`{name}` 是加性的浮点掩码（允许处为 0，屏蔽处为 -inf，像 torch 的 attn_mask）；课程里的掩码是布尔型，"
        "True 表示可以关注。"),
    "ch07.mask_bool": ("`{name}` should hold only True/False.", "`{name}` 只能包含 True/False。"),
    "ch07.mask_not_bool": (
        "`{name}` is a float/int mask of 1s and 0s: use dtype=torch.bool (the course's `attention` flips a mask "
        "with `~mask`, which needs bool).",
        "`{name}` 是由 1 和 0 组成的浮点/整数掩码：请用 dtype=torch.bool（课程的 `attention` 用 `~mask` 把掩码取反，"
        "这要求布尔型）。"),
    "ch07.mask_ok": (
        "each of the {n} positions sees itself and everything before it, nothing after.",
        "{n} 个位置中的每一个都能看到自己和之前的所有位置，看不到之后的位置。"),
    "ch07.mask_transposed": (
        "the mask is transposed: rows are queries and columns keys, so query i may see keys j ≤ i, below the "
        "diagonal.",
        "掩码转置了：行是查询、列是键，所以查询 i 可以看到 j ≤ i 的键，即对角线以下。"),
    "ch07.mask_inverted": (
        "the mask is inverted: True means MAY attend, so the allowed part (on and below the diagonal) is True.",
        "掩码取反了：True 表示“可以关注”，所以允许的部分（对角线及其以下）应为 True。"),
    "ch07.mask_no_diagonal": (
        "no position can see itself: the diagonal must be True.",
        "没有一个位置能看到自己：对角线必须为 True。"),
    "ch07.mask_sees_later": (
        "query {i} may see key {j}, a later position: everything above the diagonal must be False.",
        "查询 {i} 能看到键 {j}，这是一个更靠后的位置：对角线以上必须全为 False。"),
    "ch07.mask_some_diagonal": (
        "some position cannot see itself: the diagonal must be True.",
        "有的位置看不到自己：对角线必须为 True。"),
    "ch07.mask_misses_earlier": (
        "query {i} cannot see key {j}, an earlier position: everything below the diagonal must be True.",
        "查询 {i} 看不到键 {j}，这是一个更靠前的位置：对角线以下必须全为 True。"),
    "ch07.not_function": (
        "`{name}` should be a function of X; got {what}.",
        "`{name}` 应该是一个以 X 为参数的函数；收到的是{what}。"),
    "ch07.not_pair": (
        "`{name}` returned {what}; it should return (context, weights).",
        "`{name}` 返回了{what}；它应返回 (context, weights)。"),
    "ch07.weights_none": (
        "`{name}` returned weights that are {what}; expected an (n, n) tensor.",
        "`{name}` 返回的权重是{what}；这里需要一个 (n, n) 的张量。"),
    "ch07.weights_shape": (
        "for X of shape (6, 4) the weights have shape {shape}; expected (6, 6): every word of the sequence against "
        "every word.",
        "X 的形状为 (6, 4) 时，权重的形状是 {shape}；应为 (6, 6)：序列中每个词对每个词。"),
    "ch07.weights_nan": ("the weights contain NaN, infinity or negative numbers.", "权重里有 NaN、无穷大或负数。"),
    "ch07.weights_sum": (
        "the weights do not sum to 1 along the key axis (each row is one query's distribution).",
        "权重沿键的维度求和不等于 1（每一行是一个查询的分布）。"),
    "ch07.not_scaled": (
        "the weights are not scaled: divide the scores X Xᵀ by √d first.",
        "权重没有缩放：先把得分 X Xᵀ 除以 √d。"),
    "ch07.weights_differ": (
        "the weights differ from softmax(X Xᵀ / √d) along each row. Check the three steps: the scores are X @ X.T "
        "(n, n), with Q = K = X and no other projection; divide them by √d, d = X.shape[-1]; softmax along the last "
        "axis.",
        "权重与逐行计算的 softmax(X Xᵀ / √d) 不同。逐步检查：得分是 X @ X.T，形状 (n, n)，Q = K = X，没有别的投影；"
        "把得分除以 √d，d = X.shape[-1]；沿最后一个维度做 softmax。"),
    "ch07.divided_by_n": (
        "you divided the scores by √n, the square root of the number of words; the scale is √d, d = X.shape[-1] "
        "(the features of one word).",
        "你把得分除以了 √n，也就是词数的平方根；缩放用的是 √d，d = X.shape[-1]（一个词的特征数）。"),
    "ch07.multiplied_by_root_d": (
        "you multiplied the scores by √d; divide them by √d instead.",
        "你把得分乘以了 √d；应该除以 √d。"),
    "ch07.context_is_x": (
        "the weights are right but the context is X itself: each output should be the weighted average of the "
        "rows of X, weights @ X.",
        "权重是对的，但上下文就是 X 本身：每个输出应是 X 各行的加权平均，即 weights @ X。"),
    "ch07.context_wrong": (
        "the weights are right but the context is not weights @ X (shape (n, d)): multiply the (n, n) weights by the "
        "(n, d) values X, in that order.",
        "权重是对的，但上下文向量不是 weights @ X（形状 (n, d)）：用 (n, n) 的权重乘以 (n, d) 的值 X，顺序不能反。"),
    "ch07.self_attention_ok": (
        "every position attends to every position of the same sequence, Q = K = V = X.",
        "每个位置都关注同一序列中的所有位置，Q = K = V = X。"),
    "ch07.no_exp": (
        "the weights are the scores divided by their sum, with no exp: softmax takes exp of every score first, so "
        "every weight is positive and the rows sum to 1 whatever the scores' signs.",
        "这些权重是得分直接除以它们的和，没有取 exp：softmax 先对每个得分取 exp，"
        "所以不论得分正负，每个权重都是正的，每行之和为 1。"),
    "ch07.shuffle_type": (
        "`{name}` is {what}; answer with a sentence: \"shuffled the same way\" or \"changed\".",
        "`{name}` 是{what}；请用一句话回答：\"shuffled the same way\"（同样地被打乱）或 \"changed\"（改变了）。"),
    "ch07.shuffle_unclear": (
        "`{name}` is {answer}; answer \"shuffled the same way\" or \"changed\".",
        "`{name}` 是 {answer}；请回答 \"shuffled the same way\"（同样地被打乱）或 \"changed\"（改变了）。"),
    "ch07.shuffle_ok_positions": (
        "changed: the positional encodings are added to the words, so a word in a new place is a different vector.",
        "changed：位置编码加在词上，所以换了位置的词就是另一个向量。"),
    "ch07.shuffle_ok_set": (
        "shuffled the same way: each output depends only on its own input and the set of all inputs.",
        "shuffled the same way：每个输出只取决于它自己的输入和全部输入构成的集合。"),
    "ch07.shuffle_hint_positions": (
        "the positional encodings tie each vector to its place: after the shuffle, a word carries a different "
        "position. What does that do to its scores?",
        "位置编码把每个向量和它的位置绑在一起：打乱之后，一个词带上了不同的位置。这对它的得分有什么影响？"),
    "ch07.shuffle_not_invariant": (
        "\"unchanged\" would mean every output stays where it was. Does it? Each word's output moves with its word, so "
        "the outputs come out in the new order (equivariant, not invariant). Which is it, then: \"shuffled the same "
        "way\" or \"changed\"?",
        "“不变”意味着每个输出都留在原处。真是这样吗？每个词的输出跟着这个词一起移动，所以输出按新的顺序出来（等变，而不是不变）。"
        "那么答案是 \"shuffled the same way\" 还是 \"changed\"？"),
    "ch07.shuffle_hint_set": (
        "without positions, does any score qᵢ·kⱼ depend on where word j stands? Follow one word through the shuffle.",
        "没有位置信息时，有哪个得分 qᵢ·kⱼ 取决于词 j 站在哪里吗？跟着一个词走一遍打乱的过程。"),
    "ch07.heads_ok": (
        "{count} parameters: the {h} heads split d_model = {d} into {h} slices of {slice}, they do not multiply the "
        "projections.",
        "{count} 个参数：{h} 个头把 d_model = {d} 切成 {h} 份，每份 {slice}，头数不会让投影的参数成倍增加。"),
    "ch07.heads_share": (
        "the heads share d_model: each head projects to d_model / n_heads numbers, so the heads do not multiply the "
        "parameter count.",
        "各个头共享 d_model：每个头投影到 d_model / n_heads 个数，所以头数不会让参数量成倍增加。"),
    "ch07.heads_do_not_multiply": (
        "the heads do not multiply the count (each projects to d_model / n_heads numbers).",
        "头数不会让参数量成倍增加（每个头投影到 d_model / n_heads 个数）。"),
    "ch07.no_output_projection": (
        "that is Q, K and V; the output projection W_O counts too.",
        "这只是 Q、K 和 V；输出投影 W_O 也要算进去。"),
    "ch07.one_head": (
        "that is one head's slice; the heads together span d_model.",
        "这只是一个头的那一份；所有头合起来才是 d_model。"),
    "ch07.biases": (
        "the four projections also have a bias each (d_model numbers).",
        "四个投影各自还有一个偏置（d_model 个数）。"),
    "ch07.no_biases": ("these projections have no bias; count only the weights.", "这些投影没有偏置；只数权重。"),
    "ch07.count_hint_bias": (
        "count the four projections W_Q, W_K, W_V, W_O and their biases.",
        "数一数四个投影 W_Q、W_K、W_V、W_O 以及它们的偏置。"),
    "ch07.count_hint": ("count the four projections W_Q, W_K, W_V, W_O.", "数一数四个投影 W_Q、W_K、W_V、W_O。"),
    # ------------------------------------------------------------------ plots: default labels (helpers.plotting)
    "plots.attention_title": ("Attention weights", "注意力权重"),
    "plots.attention_xlabel": ("keys (attended positions)", "键（被关注的位置）"),
    "plots.queries": ("queries", "查询"),
    "plots.keys": ("keys", "键"),
    "plots.weight_01": ("weight (0-1)", "权重（0-1）"),
    "plots.mask_title": ("Mask", "掩码"),
    "plots.mask_legend": ("(blue: visible, grey: hidden)", "（蓝：可见，灰：遮住）"),
    "plots.lookback_title": ("The decoder looks back at every input word", "解码器回头看每一个输入词"),
    "plots.lookback_encoder": ("encoder\n(input words)", "编码器\n（输入词）"),
    "plots.lookback_decoder": ("decoder\n(output steps)", "解码器\n（输出步）"),
    "plots.lookback_step": ("{token}\n(step {step})", "{token}\n（第 {step} 步）"),
    "plots.lookback_legend": ("line width = attention weight", "线宽 = 注意力权重"),
    "plots.explorer_vectors": ("Q and the keys", "Q 与各个键"),
    "plots.explorer_scores": ("raw scores Q·K", "原始得分 Q·K"),
    "plots.explorer_score": ("score", "得分"),
    "plots.explorer_weights": ("softmax weights", "softmax 权重"),
    "plots.explorer_value_dim": ("value dimension {n}", "值的第 {n} 维"),
    "plots.explorer_context": ("context = Σ weight·V", "上下文 = Σ 权重·V"),
    "plots.explorer_unscaled": ("no √d_k", "不除以 √d_k"),
    "plots.explorer_softmax": (
        "softmax(score × {factor:.3f}): {how}, T = {temperature:.2f}",
        "softmax(得分 × {factor:.3f})：{how}，T = {temperature:.2f}"),
    "plots.metric_bleu": ("BLEU (0-100)", "BLEU（0-100）"),
    "plots.metric_exact": ("exact match (%)", "完全匹配（%）"),
    "plots.metric_align": ("alignment accuracy (%)", "对齐准确率（%）"),
    "plots.metric_mass": ("attention mass on the gold words (%)", "落在标准对齐词上的注意力（%）"),
    "plots.unseen_length": ("{bucket}\n(unseen length)", "{bucket}\n（训练中没见过的长度）"),
    "plots.source_length": ("source sentence length (words)", "源句长度（词数）"),
    "plots.by_length_title": ("{metric} by sentence length", "{metric}随句长的变化"),
    "plots.budget_xlabel": (
        "training CPU seconds (one thread; numbers: steps)", "训练用的 CPU 秒数（单线程；点旁的数字是步数）"),
    "plots.chance": ("chance ({chance:.0f}%)", "随机猜测（{chance:.0f}%）"),
    "plots.probe_accuracy": ("probe accuracy (%)", "探针准确率（%）"),
    "plots.gradient_ylabel": ("|d loss / d first word| (log scale)", "|d 损失 / d 第一个词|（对数刻度）"),
    "plots.seed": ("seed {seed}", "种子 {seed}"),
    "plots.mean_std": ("mean ± 1 std", "均值 ± 1 个标准差"),
    "plots.mean_t_interval": ("mean, {level:.0%} t-interval", "均值，{level:.0%} t 区间"),
    "plots.seed_points_title": ("{value} on {set_name}, one dot per seed", "{set_name} 上的 {value}，每个种子一个点"),
    "plots.variant": ("variant", "变体"),
    "plots.one_seed": ("one seed", "一个种子"),
    "plots.mean_interval": ("mean, {level:.0%} interval", "均值，{level:.0%} 区间"),
    "plots.mean": ("mean", "均值"),
    "plots.paired_title": ("Paired differences, {a} - {b}", "成对差值，{a} - {b}"),
    "plots.seed_axis": ("seed", "种子"),
    "plots.paired_ylabel": ("{value} difference on {set}", "{set} 上 {value} 的差值"),
    "plots.step_weight": ("attention weight (0-1)", "注意力权重（0-1）"),
    "plots.step_xlabel": ("source words (orange: most attended)", "源词（橙色：最受关注）"),
    "plots.step_title": ("step {step} of {n}: chose '{word}'", "第 {step} 步（共 {n} 步）：选了 '{word}'"),
    "plots.step_so_far": ("output so far: {so_far} [{word}]", "目前的输出：{so_far} [{word}]"),
    "plots.head_encoder": ("encoder self-attention", "编码器自注意力"),
    "plots.head_decoder_self": ("decoder self-attention", "解码器自注意力"),
    "plots.head_decoder_cross": ("cross-attention (decoder → encoder)", "交叉注意力（解码器 → 编码器）"),
    "plots.head_source_keys": ("source words (keys)", "源词（键）"),
    "plots.head_read_keys": ("target words read so far (keys)", "已读入的目标词（键）"),
    "plots.head_source_queries": ("source words (queries)", "源词（查询）"),
    "plots.head_written_queries": ("word being written (queries)", "正在写的词（查询）"),
    "plots.head_title": (
        "{kind}\nlayer {layer} of {n_layers}, head {head} of {n_heads}",
        "{kind}\n第 {layer} 层（共 {n_layers} 层），第 {head} 个头（共 {n_heads} 个）"),
    "plots.head_of": ("head {head} of {n_heads}", "第 {head} 个头（共 {n_heads} 个）"),
    "plots.every_head": ("{kind}, layer {layer}: every head", "{kind}，第 {layer} 层：所有的头"),
    "plots.loss_title": ("Training loss", "训练损失"),
    "plots.training_step": ("training step (batches)", "训练步（批次）"),
    "plots.loss_ylabel": ("cross-entropy (mean of {smooth} steps, log)", "交叉熵（{smooth} 步的均值，对数刻度）"),
    "plots.snapshots_title": ("The attention map of one sentence during training", "训练过程中一个句子的注意力图"),
    "plots.after_steps": ("after {step} steps", "训练 {step} 步后"),
    "plots.source_words": ("source words", "源词"),
    "plots.target_words": ("target words", "目标词"),
    "plots.alignment_title": ("Alignment emerges during training", "对齐在训练中逐渐出现"),
    "plots.mass_on_gold": ("mass on gold (0-1)", "标准对齐词上的注意力（0-1）"),
    "plots.uniform_baseline": ("no-information baseline (uniform attention)", "无信息基线（均匀注意力）"),
    "plots.mass_ylabel": ("attention mass on gold (0-1)", "落在标准对齐词上的注意力（0-1）"),
    "plots.translating_title": ("Attention while translating {n} words", "翻译这 {n} 个词时的注意力"),
    "plots.translation_rows": ("translation (one row per output word)", "译文（每个输出词一行）"),
    # ------------------------------------------------------------------ chapters 06 and 08: the story renderers
    "ch06.needs_equal_sizes": (
        "{cls} needs query and key vectors of the same size: query has shape {query}, keys {keys}; expected keys of "
        "shape (batch, n_k, {d}). Use MultiplicativeAttention or AdditiveAttention when the sizes differ.",
        "{cls} 要求查询向量和键向量一样长：查询的形状是 {query}，键是 {keys}；键的形状应为 (batch, n_k, {d})。"
        "长度不同时请用 MultiplicativeAttention 或 AdditiveAttention。"),
    "ch06.crossed": (
        "**{name}** crossed in {crossed} of {runs} runs", "**{name}** 有 {crossed} 次运行越过（共 {runs} 次）"),
    "ch06.crossed_at": (", on average at step {step:.0f}", "，平均在第 {step:.0f} 步"),
    "ch06.not_available": ("n/a", "无"),
    "ch06.semicolon": ("; ", "；"),
    "ch06.comma": (", ", "，"),
    "ch06.crossing_pooled": (
        "{per_config}. Across all {runs} runs the rank correlation between the crossing step and the final BLEU on "
        "{set_name} words is **{rho:+.2f}** (p = {p:.2g}): ",
        "{per_config}。全部 {runs} 次运行里，越过的步数和 {set_name} 个词的句子上最终 BLEU 的秩相关是 "
        "**{rho:+.2f}**（p = {p:.2g}）："),
    "ch06.crossing_earlier_better": (
        "pooled over the scorers, earlier crossings go with better ends. ",
        "把各打分函数合起来看，越过得越早，结果越好。"),
    "ch06.crossing_within_weaker": (
        "Within one scorer the link is weaker (rank correlations {within}), so the pooled figure mostly says which "
        "scorer a run used",
        "同一个打分函数内部，这种联系要弱一些（秩相关 {within}），所以合起来的数字主要说的是一次运行用了哪个打分函数"),
    "ch06.crossing_same_best": (
        " ({earliest} crosses earliest on average and ends best). ", "（{earliest} 平均越过得最早，结果也最好）。"),
    "ch06.crossing_other_best": (
        " ({earliest} crosses earliest on average, {best} ends best). ",
        "（{earliest} 平均越过得最早，{best} 结果最好）。"),
    "ch06.crossing_within_stronger": (
        "Within one scorer the link is as strong or stronger (rank correlations {within}). ",
        "同一个打分函数内部，这种联系一样强，甚至更强（秩相关 {within}）。"),
    "ch06.crossing_no_link": (
        "no clear link between when a run crosses and where it ends (within each scorer: {within}). ",
        "一次运行什么时候越过，和它最后落在哪里，看不出明确的联系（各打分函数内部：{within}）。"),
    "ch06.crossing_all_crossed": (
        "Every run crossed within the budget (the latest at step {latest}), so no final score belongs to a run that "
        "had not yet crossed. ",
        "每次运行都在预算之内越过了（最晚在第 {latest} 步），所以每个最终结果都来自已经越过的运行。"),
    "ch06.crossing_never": (
        "{never} of {runs} runs never crossed within the budget. ",
        "{never} 次运行（共 {runs} 次）在预算之内一直没有越过。"),
    "ch06.crossing_too_few_early": (
        "Fewer than two scorers have a run that crossed by step {half} (the first half of the budget), so their "
        "means among early runs cannot be compared.",
        "到第 {half} 步（预算的前一半）为止有运行越过的打分函数不到两个，所以没法比较它们在早越过的运行里的均值。"),
    "ch06.crossing_spread": (
        "Among the runs that crossed by step {half} (the first half of the budget), the scorers' means span "
        "{early:.1f} BLEU, against {overall:.1f} over all runs: ",
        "只看到第 {half} 步（预算的前一半）就越过的运行，各打分函数的均值相差 {early:.1f} BLEU，"
        "全部运行则相差 {overall:.1f}："),
    "ch06.crossing_gap_when": (
        "the gap narrows among early crossers, as it would if it went with *when* the runs crossed; but those runs "
        "still crossed at different steps, so this subset cannot separate the scorer from when its runs crossed.",
        "只看早越过的运行，差距变小了，这和差距跟运行*什么时候*越过有关相符；但这些运行越过的步数仍各不相同，"
        "所以这个子集分不开打分函数本身和它的运行什么时候越过。"),
    "ch06.crossing_gap_not_only": (
        "the gap stays about as wide among early crossers, but those runs still crossed at different steps (one "
        "scorer may cross before any other), so this subset cannot separate the scorer from when its runs crossed.",
        "只看早越过的运行，差距仍然差不多大；但这些运行越过的步数仍各不相同（某个打分函数可能比其他所有的都早），"
        "所以这个子集分不开打分函数本身和它的运行什么时候越过。"),
    "ch08.seed_module": (
        "Measured, not argued: trained as a decoder uses it, seed 003's module keeps {seed_big:.0f} float32 numbers "
        "per (query, key) pair at h = {big} and the course's scorer {ours_big:.0f}, {ratio_big:.1f} times fewer "
        "({ratio_small:.1f} at h = {small}). The seed's `Linear` keeps its input, the repeated decoder state "
        "concatenated with the encoder output (2h numbers per pair), and its tanh its output (h more): "
        "3h = {three_h} at h = {big}. The course's scorer projects the state and the encoder outputs first and adds "
        "them, so only the tanh's output (h) grows with n_q × n_k. Extrapolated by the fitted curves, translating a "
        "{n_doc:,}-word document (n_q = n_k) needs {seed_doc} in training with the seed's module at h = {big} (over "
        "{limit} from n = {seed_over:,} on) and {seed_doc_small} at h = {small}; the course's scorer needs "
        "{ours_doc} at h = {big} (over {limit} from n = {ours_over:,} on). A {n_summary}-word summary of the same "
        "document needs {summary} with the seed's module at h = {big}. ",
        "这是测出来的，不是推出来的：按解码器的用法训练，种子章节 003 的模块每一对（查询，键）保留 {seed_big:.0f} 个 "
        "float32 数（h = {big}），课程的打分函数只保留 {ours_big:.0f} 个，前者是后者的 {ratio_big:.1f} 倍"
        "（{ratio_small:.1f} 倍，h = {small} 时）。种子的 `Linear` 要留着它的输入，也就是重复的解码器状态和编码器输出"
        "拼在一起（每对 2h 个数），tanh 还要留着它的输出（再加 h 个）：3h = {three_h}（h = {big}）。课程的打分函数先把"
        "状态和编码器输出分别投影，再相加，所以随 n_q × n_k 增长的只有 tanh 的输出（h）。按拟合的曲线外推，翻译一篇 "
        "{n_doc:,} 词的文档（n_q = n_k），训练时种子的模块需要 {seed_doc}（h = {big}；超过 {limit}，从 "
        "n = {seed_over:,} 起）和 {seed_doc_small}（h = {small}）；课程的打分函数需要 {ours_doc}（h = {big}；超过 "
        "{limit}，从 n = {ours_over:,} 起）。同一篇文档写一份 {n_summary} 词的摘要，种子的模块需要 {summary}"
        "（h = {big}）。"),
    "ch08.seed_module_over": (
        "So the practitioner's 24 GB is what their own module costs when it is trained on one {n_doc:,}-word "
        "document, batch {batch}, at h = {big}, if the decoder writes about as many words as it reads",
        "所以实践者说的 24 GB，正是他们自己的模块在一篇 {n_doc:,} 词的文档上训练的开销（batch {batch}，h = {big}），"
        "前提是解码器写出的词和读入的差不多一样多"),
    "ch08.seed_module_ours_under": (
        "; the course's scorer stays under {limit} there.", "；在这里，课程的打分函数仍在 {limit} 以下。"),
    "ch08.seed_module_ours_over": ("; the course's scorer passes {limit} too.", "；课程的打分函数也超过了 {limit}。"),
    "ch08.seed_module_under": (
        "So at these sizes even the seed's module stays under {limit} for one {n_doc:,}-word document, batch "
        "{batch}: the practitioner's 24 GB needs a larger batch, hidden size or document.",
        "所以在这些尺寸下，就连种子的模块也在 {limit} 以下（一篇 {n_doc:,} 词的文档，batch {batch}）："
        "实践者的 24 GB 需要更大的 batch、隐藏尺寸或文档。"),
    # ------------------------------------------------------------------ tables, progress bars, the vocabulary hint
    "tables.bleu": ("bleu", "BLEU"),
    "tables.exact": ("exact", "完全匹配"),
    "training.progress": ("training ({kind})", "训练（{kind}）"),
    "training.runs": ("training runs", "各次训练"),
    "training.not_compared": (
        "{recipe}: {unit} is not among the {n} stored runs, so this live run was not compared with a stored one "
        "(the stored runs are {seeds} by seed)",
        "{recipe}：{unit} 不在存档的 {n} 次运行之中，所以这次现场训练没有和存档比较（存档的运行按种子是 {seeds}）"),
    "toylang.det": ("determiners", "限定词"),
    "toylang.adj": ("adjectives", "形容词"),
    "toylang.noun": ("nouns", "名词"),
    "toylang.prep": ("prepositions", "介词"),
    "toylang.verb_t": ("verbs with an object", "带宾语的动词"),
    "toylang.verb_i": ("verbs without one", "不带宾语的动词"),
    "toylang.verb_phrasal": ("phrasal verbs", "短语动词"),
    "toylang.rel": ("relative words", "关系词"),
    "toylang.conj": ("joining words", "连词"),
    "toylang.hint_part": ("{label}: {words}", "{label}：{words}"),
    "toylang.hint_sep": ("; ", "；"),
    # --------------------------------------------------------------------------- widgets: labels and readouts
    "widgets.qk_readout": (
        "weights: {parts}<br>context: [{context}]",
        "注意力权重：{parts}<br>上下文向量：[{context}]"),
    "widgets.move_key": ("move key", "移动键"),
    "widgets.slider_check": (
        "SliderCheck(a slider x = {value} and its square: {square})",
        "SliderCheck（滑块 x = {value}，它的平方：{square}）"),
    "widgets.divide_scores": ("divide scores by √d_k", "得分除以 √d_k"),
    "widgets.temperature": ("temperature", "温度"),
    "widgets.query": ("Query", "查询"),
    "widgets.keys": ("Keys", "键"),
    "widgets.type_a_sentence": (
        "Type a sentence in the source language, e.g. 'the old dog sees a red car'.",
        "请输入一个源语言的句子，例如 'the old dog sees a red car'。"),
    "widgets.unknown_words": (
        "Unknown word(s): {words}. The toy source language has only {n} words ({hint}). Try another word.",
        "未知的词：{words}。这个玩具源语言只有 {n} 个词（{hint}）。换一个词试试。"),
    "widgets.no_reference": (
        "(no reference: the grammar cannot parse this sentence, {error})",
        "（没有参考译文：语法无法解析这个句子，{error}）"),
    "widgets.matches": ("(matches a reference)", "（与一个参考译文一致）"),
    "widgets.reference": ("(reference: {reference})", "（参考译文：{reference}）"),
    "widgets.empty": ("(empty)", "（空）"),
    "widgets.no_attention": (
        "  [this model has no attention, so there is no map to draw]",
        "  [这个模型没有注意力机制，所以没有注意力图可画]"),
    "widgets.test_sentence": ("test sentence", "测试句子"),
    "widgets.type_placeholder": ("...or type a source sentence and press Enter", "……或者输入一个源语言句子并按回车"),
    "widgets.your_sentence": ("your sentence", "你的句子"),
    "widgets.cannot_step": ("cannot step through this sentence: {message}", "无法逐步查看这个句子：{message}"),
    "widgets.step": ("step", "步"),
    "widgets.step_readout": (
        "step {step} of {n}: output so far <b>{so_far}</b>; most attended source word: <b>{top}</b>",
        "第 {step} 步（共 {n} 步）：目前的输出 <b>{so_far}</b>；最受关注的源词：<b>{top}</b>"),
    "widgets.step_repr": ("step {step} of {n}: {word!r}", "第 {step} 步（共 {n} 步）：{word!r}"),
    "widgets.head_readout": (
        "{kind} · layer {layer} of {n_layers} · head {head} of {n_heads} · sentence {sentence}: strongest link "
        "<b>{query}</b> → <b>{key}</b> ({weight:.4f})",
        "{kind} · 第 {layer} 层（共 {n_layers} 层）· 第 {head} 个头（共 {n_heads} 个）· 句子 {sentence}："
        "权重最大的一对 <b>{query}</b> → <b>{key}</b>（{weight:.4f}）"),
    "widgets.head_attention": ("attention", "注意力"),
    "widgets.head_layer": ("layer", "层"),
    "widgets.head_head": ("head", "头"),
    "widgets.head_sentence": ("sentence", "句子"),
    "widgets.head_repr": (
        "{kind}, layer {layer} of {n_layers}, head {head} of {n_heads}, sentence {sentence} of {n}",
        "{kind}，第 {layer} 层（共 {n_layers} 层），第 {head} 个头（共 {n_heads} 个），句子 {sentence}（共 {n} 句）"),
    # --------------------------------------------------------------------------- the course website (make site)
    "widgets.site_run_title": ("Run this chapter:", "运行本章："),
    "widgets.site_run_local": ("or on your computer:", "或在自己的电脑上："),
    "widgets.site_weights": ("weights", "注意力权重"),
    "widgets.site_context": ("context", "上下文向量"),
    "widgets.site_widget_note": (
        "An interactive explorer: it moves when the chapter runs in JupyterLab (links at the top of the page).",
        "这是一个交互式探索器：在 JupyterLab 中运行本章时才能操作（链接在页面顶部）。"),
    "widgets.site_live_note": (
        "This explorer runs in your browser: the same arithmetic as helpers.widgets.explorer_state.",
        "这个探索器直接在网页里运行：计算与 helpers.widgets.explorer_state 相同。"),
    "widgets.site_chapters": ("Chapters", "章节"),
    "widgets.site_companion": ("Companion pages", "配套资料"),
    # chapter 07
    "tables.align": ("align", "对齐准确率"),
    # --------------------------------------------------------------------------- chapter 05
    "widgets.explorer_repr": ("{n} test sentences; showing: {showing}", "{n} 个测试句子；正在显示：{showing}"),
    "training.class_no_source": ("no source", "无源词"),
    "training.class_measure_word": ("measure word", "量词"),
    "training.class_phrasal_verb": ("phrasal verb", "短语动词"),
    "training.class_two_source_words": ("two source words", "两个源词"),
    "training.class_circumposition_1": ("circumposition, 1st half", "框式介词第 1 个词"),
    "training.class_circumposition_2": ("circumposition, 2nd half", "框式介词第 2 个词"),
    "training.class_clause_joiner": ("clause joiner", "连词"),
    "training.class_relative_de": ("relative de", "关系从句的 de"),
    "training.class_determiner": ("determiner", "限定词"),
    "training.class_adjective": ("adjective", "形容词"),
    "training.class_noun": ("noun", "名词"),
    "training.class_verb": ("verb", "动词"),
}

# {key: (English, Chinese)}, the Chinese read from helpers/locale/zh/messages.po
MESSAGES: dict[str, tuple[str, str]] = with_chinese(ENGLISH)
