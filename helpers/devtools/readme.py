"""Keep the README's generated sections up to date: benchmarks, and the tables made from helpers.course."""
from __future__ import annotations

from pathlib import Path

from helpers.base import ROOT

__all__ = ["README", "update_readme_section", "course_sections", "read_section", "update_course_sections"]

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


def course_sections() -> dict[tuple[Path, str], str]:
    """{(file, section name): Markdown} of every section generated from the course table (helpers.course)."""
    from helpers.course import chapter_table, learner_table

    return {
        (README, "course-chapters"): chapter_table("en", "notebooks/"),
        (ROOT / "README.zh.md", "course-chapters"): chapter_table("zh", "notebooks/zh/"),
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
