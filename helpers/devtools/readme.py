"""Keep the README's generated sections (benchmarks) up to date."""
from __future__ import annotations

from pathlib import Path

from helpers import ROOT

__all__ = ["README", "update_readme_section"]

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
