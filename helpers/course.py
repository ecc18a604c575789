"""The course table: every chapter and assignment, once. README tables, chapter 00's contents and the benchmark
targets are generated from it (`python -m helpers.devtools course`) or checked against it (tests/test_course.py).

A new chapter is one `Chapter(...)` line in CHAPTERS; a new assignment one `Assignment(...)` line in ASSIGNMENTS.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from helpers.base import NOTEBOOKS_DIR

__all__ = ["Chapter", "Assignment", "CHAPTERS", "ASSIGNMENTS", "COURSE_TARGET_SECONDS", "chapter",
           "chapter_table", "learner_table", "edition_dir"]


@dataclass(frozen=True)
class Chapter:
    """One notebook: its file in notebooks/, title and question in English and Chinese, time targets."""

    file: str                 # "03_qkv_by_hand.ipynb"; its number is the first two characters
    title: str
    question: str
    title_zh: str
    question_zh: str
    target_seconds: int       # a fresh top-to-bottom run on the reference machine (benchmarks/run_notebooks.py)
    learner_minutes: int      # the author's estimate of a learner's time
    runs_in_zh: bool = False  # its Chinese edition is executed in Chinese (`python -m helpers.devtools.zh execute`)

    @property
    def number(self) -> str:
        """The chapter number, two digits ("03")."""
        return self.file[:2]


@dataclass(frozen=True)
class Assignment:
    """One graded assignment (assignments/<name>/): the chapters it covers and a learner's time, low to high."""

    name: str
    chapters: str             # "01–02"
    learner_minutes: tuple[int, int]


CHAPTERS: tuple[Chapter, ...] = (
    Chapter("00_start_here.ipynb", "Start here",
            "Is my setup working, and how do I use this course?",
            "从这里开始", "我的环境能正常运行吗？这门课该怎么用？", 120, 10, runs_in_zh=True),
    Chapter("01_fixed_context_bottleneck.ipynb", "The fixed-context bottleneck",
            "Why does a fixed-size context vector fail on long sentences?",
            "固定上下文瓶颈", "为什么固定大小的上下文向量在长句子上会失效？", 120, 60, runs_in_zh=True),
    Chapter("02_attention_as_weighted_average.ipynb", "Attention as a weighted average",
            "How can a decoder look back at every input position?",
            "注意力即加权平均", "解码器怎样回头看输入的每一个位置？", 120, 30, runs_in_zh=True),
    Chapter("03_qkv_by_hand.ipynb", "Q, K and V by hand",
            "What exactly do Q, K and V compute? Do it by hand, then with sliders.",
            "手算 Q、K、V", "查询、键、值究竟计算了什么？先手算，再用滑块。", 120, 45, runs_in_zh=True),
    Chapter("04_scaled_dot_product_softmax_masking.ipynb", "Scaled dot product, softmax and masks",
            "Why divide by √d_k, what does softmax do, and how do masks hide positions?",
            "缩放点积、softmax 与掩码", "为什么要除以 √d_k？softmax 做了什么？掩码如何遮住位置？", 60, 60,
            runs_in_zh=True),
    Chapter("05_attention_translation.ipynb", "Attention in translation",
            "Does attention really stop long sentences from collapsing? And how, exactly, is the decoder wired?",
            "翻译中的注意力", "注意力真的能让长句子不再崩溃吗？解码器又究竟是怎样连接的？", 150, 75, runs_in_zh=True),
    Chapter("06_scoring_functions_and_dropout.ipynb", "Scoring functions and dropout",
            "Additive, multiplicative, dot, scaled dot: how do they differ, and where does dropout go?",
            "打分函数与 dropout", "加性、乘性、点积、缩放点积：它们有什么不同？dropout 又该加在哪里？", 180, 60,
            runs_in_zh=True),
    Chapter("07_self_attention_and_transformer.ipynb", "Self-attention and the Transformer",
            "If attention carries the information, do we still need the recurrence?",
            "自注意力与 Transformer", "既然信息是靠注意力传递的，我们还需要循环结构吗？", 150, 75,
            runs_in_zh=True),
    Chapter("08_cost_of_attention.ipynb", "The cost of attention",
            "What does attention cost, and what comes next?",
            "注意力的代价", "注意力的代价是什么？下一步是什么？", 60, 45, runs_in_zh=True),
)

ASSIGNMENTS: tuple[Assignment, ...] = (
    Assignment("bottleneck_and_average", "01–02", (45, 60)),
    Assignment("attention_by_hand", "03–04", (60, 90)),
    Assignment("decoder_attention", "05–06", (60, 90)),
    Assignment("transformer_and_cost", "07–08", (60, 90)),
)

#: Every chapter, one after the other, in a fresh kernel each (issue 12: seven minutes).
COURSE_TARGET_SECONDS = 420


def chapter(number: str) -> Chapter:
    """The chapter whose number is `number` ("03"); a clear error for one the table does not have."""
    for ch in CHAPTERS:
        if ch.number == number:
            return ch
    raise KeyError(f"no chapter {number!r} in helpers.course.CHAPTERS; it has {[c.number for c in CHAPTERS]}")


def edition_dir(lang: str | None = None) -> Path:
    """The folder of one edition's chapters: notebooks/ for "en", notebooks/zh/ for "zh"; lang defaults to the
    current language (the one `helpers.setup(lang=...)` chose, helpers.i18n)."""
    from helpers import i18n

    lang = i18n.get_lang() if lang is None else lang
    if lang not in i18n.LANGUAGES:
        raise ValueError(f"lang must be one of {i18n.LANGUAGES}, got {lang!r}")
    return NOTEBOOKS_DIR if lang == "en" else NOTEBOOKS_DIR / lang


def chapter_table(lang: str = "en", link_prefix: str = "", column: str | None = None) -> str:
    """The Markdown table of chapters (number, linked title, question); links are link_prefix + file.

    column: the title column's heading (default "Notebook", in Chinese "笔记本").
    """
    if lang not in ("en", "zh"):
        raise ValueError(f"lang must be 'en' or 'zh', got {lang!r}")
    column = column or ("Notebook" if lang == "en" else "笔记本")
    rows = [f"| # | {column} | {'The question' if lang == 'en' else '本章问题'} |", "|---|---|---|"]
    for ch in CHAPTERS:
        title, question = (ch.title, ch.question) if lang == "en" else (ch.title_zh, ch.question_zh)
        rows.append(f"| {ch.number} | [{title}]({link_prefix}{ch.file}) | {question} |")
    return "\n".join(rows)


def learner_table() -> str:
    """The Markdown table of a learner's time per chapter and per assignment (the author's estimates)."""
    rows = ["| part | time |", "|---|---|"]
    rows += [f"| {ch.number} {ch.title} | {ch.learner_minutes} min |" for ch in CHAPTERS]
    rows += [f"| assignment {a.name} (chapters {a.chapters}) | {a.learner_minutes[0]}–{a.learner_minutes[1]} min |"
             for a in ASSIGNMENTS]
    return "\n".join(rows)
