"""Keep the README's generated sections up to date: benchmarks, and the tables made from helpers.course."""
from __future__ import annotations

from pathlib import Path

from helpers.base import ROOT

__all__ = ["README", "update_readme_section", "runs_in_zh_paragraph", "course_sections", "read_section",
           "update_course_sections"]

README = ROOT / "README.md"


def update_readme_section(name: str, markdown: str, readme: Path = README) -> None:
    """Replace the text between `<!-- BEGIN name -->` and `<!-- END name -->` in the README."""
    text = readme.read_text()
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in text or end not in text:
        raise ValueError(f"README has no section markers {begin} ... {end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{begin}\n{markdown.strip()}\n{end}{tail}")


def read_section(name: str, readme: Path = README) -> str:
    """The text between `<!-- BEGIN name -->` and `<!-- END name -->` (stripped)."""
    text = readme.read_text()
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in text or end not in text:
        raise ValueError(f"{readme.name} has no section markers {begin} ... {end}")
    return text.split(begin, 1)[1].split(end, 1)[0].strip()


def runs_in_zh_paragraph(lang: str = "en") -> str:
    """The README's (lang "en") or README.zh's ("zh") paragraph naming the chapters that run in Chinese."""
    from helpers import i18n
    from helpers.course import CHAPTERS

    with i18n.language(lang):
        numbers = i18n.and_list([ch.number for ch in CHAPTERS if ch.runs_in_zh]) or ("none" if lang == "en" else "无")
    if lang == "en":
        return (f"Chapters that run in Chinese: {numbers}. Their zh notebooks are executed in Chinese and carry\n"
                "their own outputs (printed sentences, `Markdown(f\"…\")` renderings, plot labels, checker messages); "
                "a chapter with\n`runs_in_zh=False` in `helpers/course.py` would carry the English run's outputs "
                "under Chinese text.")
    return (f"用中文运行的章节：{numbers}。这些章节的中文版笔记本用中文执行，保存的是自己的输出（打印的句子、\n"
            "`Markdown(f\"…\")` 的文字、图表标签、检查器的消息）；`helpers/course.py` 里 `runs_in_zh=False` 的章节，\n"
            "中文文字下保留的是英文版运行的输出。")


def course_sections() -> dict[tuple[Path, str], str]:
    """{(file, section name): Markdown} of every section generated from the course table (helpers.course)."""
    from helpers.course import chapter_table, learner_table

    return {
        (README, "course-chapters"): chapter_table("en", "notebooks/"),
        (ROOT / "README.zh.md", "course-chapters"): chapter_table("zh", "notebooks/zh/"),
        (README, "course-runs-in-zh"): runs_in_zh_paragraph("en"),
        (ROOT / "README.zh.md", "course-runs-in-zh"): runs_in_zh_paragraph("zh"),
        (README, "course-learner-times"): learner_table(),
        (ROOT / "assignments" / "INTEGRATION.md", "course-learner-times"): learner_table(),
    }


def update_course_sections() -> list[str]:
    """Rewrite every section generated from the course table; returns 'file: section' for each."""
    done = []
    for (path, name), markdown in course_sections().items():
        update_readme_section(name, markdown, readme=path)
        done.append(f"{path.relative_to(ROOT)}: {name}")
    return done
