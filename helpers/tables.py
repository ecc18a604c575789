"""The course's one table formatter: fixed-width text for notebooks, GitHub Markdown for the README."""
from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Sequence

__all__ = ["format_table", "text_width", "ljust"]


def text_width(text: str) -> int:
    """The columns a string takes in a fixed-width font: wide characters (Chinese, full-width punctuation) take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def ljust(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns of a fixed-width font (str.ljust counts characters, not columns)."""
    return text + " " * (width - text_width(text))


def _cell(value, digits: int) -> str:
    """A number rounded to `digits` (integers as they are), anything else as str; None shows as '-'."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def format_table(table: Mapping | Sequence[Sequence], header: Sequence[str] | None = None, digits: int = 1,
                 index_name: str = "", markdown: bool = False) -> str:
    """Format {row name: {column: value}} (columns in first-seen order) or a list of rows with `header`.

    Floats are rounded to `digits`; missing cells show '-'. markdown=True gives a GitHub Markdown table,
    otherwise right-aligned fixed-width text with the first column left-aligned.
    """
    if isinstance(table, Mapping):
        columns = list(dict.fromkeys(c for row in table.values() for c in row))
        header = [index_name] + [str(c) for c in columns]
        rows = [[name] + [row.get(c) for c in columns] for name, row in table.items()]
    else:
        if header is None:
            raise ValueError("a list of rows needs a header (one name per column)")
        rows = [list(r) for r in table]
        bad = [r for r in rows if len(r) != len(header)]
        if bad:
            raise ValueError(f"every row needs {len(header)} cells (the header's length); got a row of {len(bad[0])}")
    cells = [[str(h) for h in header]] + [[_cell(v, digits) for v in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells[1:]])
    widths = [max(text_width(r[i]) for r in cells) for i in range(len(header))]

    def line(row: list[str]) -> str:
        pads = [" " * (w - text_width(c)) for c, w in zip(row, widths, strict=True)]
        return "  ".join(c + pad if i == 0 else pad + c for i, (c, pad) in enumerate(zip(row, pads, strict=True)))

    return "\n".join(line(r).rstrip() for r in cells)
