"""Notebook hygiene: what every committed course notebook must be (the shared setup cell, the skeleton, no errors)."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

__all__ = ["SETUP_CELL", "MAX_NOTEBOOK_BYTES", "notebook_problems"]

SETUP_CELL = """%matplotlib inline
import matplotlib.pyplot as plt
import torch
import helpers
DEVICE = helpers.setup(seed=0)"""
MAX_NOTEBOOK_BYTES = 2_000_000
_MACHINE_PATH = re.compile(r"(/root/|/home/|/tmp/|/private/var/|/Users/|[A-Za-z]:\\\\Users\\\\)")


def notebook_problems(path: Path | str, setup_cell: str = SETUP_CELL, question: str = "**The question:**",
                      chapter_map: str = "## Chapter map", exercises: str = "## Exercises") -> list[str]:
    """Everything wrong with a committed course notebook, as sentences (an empty list means it is clean).

    setup_cell, question, chapter_map, exercises: the skeleton's markers; another edition passes its own
    (the Chinese edition: ``helpers.devtools.zh.ZH_SKELETON``).
    """
    path = Path(path)
    problems: list[str] = []
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        problems.append(f"{path.name} is {path.stat().st_size / 1e6:.1f} MB; notebooks must stay under 2 MB")
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except Exception as e:
        return problems + [f"{path.name} is not a valid notebook: {type(e).__name__}: {str(e)[:200]}"]
    if nb.metadata.get("kernelspec", {}).get("name") != "python3":
        problems.append(f"{path.name}: kernelspec must be 'python3' (JupyterLab would ask for a kernel)")
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    if counts != list(range(1, len(code) + 1)):
        problems.append(f"{path.name}: code cells were not executed once, in order from 1 (counts {counts[:12]}...)")
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"{path.name} cell {i}: stored error output {out.get('ename')}")
            stderr = out.get("output_type") == "stream" and out.get("name") == "stderr"
            if stderr and "Traceback" in out.get("text", ""):
                problems.append(f"{path.name} cell {i}: a traceback in stderr")
            data = out.get("data", {})
            text = out.get("text", "") + str(data.get("text/plain", "")) + str(data.get("text/html", ""))
            if _MACHINE_PATH.search(text):
                problems.append(f"{path.name} cell {i}: an output shows a path of the executing machine")
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    first = nb.cells[0] if nb.cells else None
    if first is None or first.cell_type != "markdown" or not first.source.lstrip().startswith("# "):
        problems.append(f"{path.name}: must start with a markdown title cell ('# NN · Title')")
    if not any(question in s for s in md[:2]):
        problems.append(f"{path.name}: {question!r} must be stated in the first two markdown cells")
    if not code or code[0].source.strip() != setup_cell:
        problems.append(f"{path.name}: the first code cell must be the course's setup cell, exactly")
    heads = [(i, s) for i, s in enumerate(md) if s.lstrip().startswith("## ")]
    titles = [s.lstrip().splitlines()[0] for _, s in heads]
    if len(titles) < 2 or not titles[-2].startswith(chapter_map) or not titles[-1].startswith(exercises):
        problems.append(f"{path.name}: must end with {chapter_map!r} followed by {exercises!r} "
                        f"(sections: {titles[-3:]})")
    return problems
