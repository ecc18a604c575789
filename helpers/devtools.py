"""Tools for course authors and CI: execute notebooks deterministically, time them, update README sections."""
from __future__ import annotations

import re
import time
from pathlib import Path

import nbformat

from helpers import NOTEBOOKS_DIR, ROOT

README = ROOT / "README.md"


def chapter_notebooks() -> list[Path]:
    """Every course notebook, in chapter order (notebooks/NN_*.ipynb)."""
    return sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))


def _normalise_widget_ids(nb) -> None:
    """Replace random widget model ids in outputs by stable ones, so re-executing changes no committed byte."""
    mapping: dict[str, str] = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view and "model_id" in view:
                mid = view["model_id"]
                mapping.setdefault(mid, f"{len(mapping) + 1:032x}")
                view["model_id"] = mapping[mid]
    nb.metadata.pop("widgets", None)


def _coalesce_streams(nb) -> None:
    """Merge consecutive stdout (or stderr) outputs of a cell: how a kernel chunks its prints depends on timing."""
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                    and merged[-1].get("name") == out.get("name")):
                merged[-1]["text"] += out["text"]
            else:
                merged.append(out)
        if "outputs" in cell:
            cell.outputs = merged


def execute_notebook(path: Path | str, inplace: bool = True, timeout: int = 900,
                     parameters: dict | None = None, kernel_name: str = "python3") -> tuple[float, object]:
    """Run a notebook top to bottom in a fresh kernel (cwd = notebooks/); return (seconds, executed notebook).

    parameters: values that replace the assignments in the cell tagged `parameters` (papermill's convention,
    done in place so the cell count does not change). inplace=True writes the result back to `path`.
    """
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    if parameters:
        _apply_parameters(nb, parameters)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    _normalise_widget_ids(nb)
    _coalesce_streams(nb)
    if inplace:
        nbformat.write(nb, path)
    return seconds, nb


def _apply_parameters(nb, parameters: dict) -> None:
    """Rewrite `NAME = value` lines of the cell tagged `parameters` with new values."""
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise ValueError("this notebook has no cell tagged 'parameters'")
    src = cells[0].source
    for name, value in parameters.items():
        src, n = re.subn(rf"^{re.escape(name)}\s*=.*$", f"{name} = {value!r}", src, flags=re.M)
        if n == 0:
            raise ValueError(f"parameter {name!r} is not assigned in the parameters cell")
    cells[0].source = src


def update_readme_section(name: str, markdown: str, readme: Path = README) -> None:
    """Replace the text between `<!-- BEGIN name -->` and `<!-- END name -->` in the README."""
    text = readme.read_text()
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in text or end not in text:
        raise ValueError(f"README has no section markers {begin} ... {end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{begin}\n{markdown.strip()}\n{end}{tail}")


def markdown_table(header: list[str], rows: list[list]) -> str:
    """A GitHub markdown table from a header and rows of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`python -m helpers.devtools execute [NOTEBOOK ...]`: re-execute notebooks in place, printing seconds."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m helpers.devtools")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("execute", help="re-execute notebooks in place (all chapters when none are named)")
    run.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    paths = args.notebooks or chapter_notebooks()
    for path in paths:
        seconds, _ = execute_notebook(path)
        print(f"{seconds:7.1f} s  {Path(path).name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


SETUP_CELL = """%matplotlib inline
import matplotlib.pyplot as plt
import torch
import helpers
DEVICE = helpers.setup(seed=0)"""
MAX_NOTEBOOK_BYTES = 2_000_000
_MACHINE_PATH = re.compile(r"(/root/|/home/|/tmp/|/private/var/|/Users/|[A-Za-z]:\\\\Users\\\\)")


def notebook_problems(path: Path | str) -> list[str]:
    """Everything wrong with a committed course notebook, as sentences (an empty list means it is clean)."""
    path = Path(path)
    problems: list[str] = []
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        problems.append(f"{path.name} is {path.stat().st_size / 1e6:.1f} MB; notebooks must stay under 2 MB")
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # noqa: BLE001 - any parse/validation failure is the finding
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
            if out.get("output_type") == "stream" and out.get("name") == "stderr" and "Traceback" in out.get("text", ""):
                problems.append(f"{path.name} cell {i}: a traceback in stderr")
            text = out.get("text", "") + str(out.get("data", {}).get("text/plain", "")) + str(out.get("data", {}).get("text/html", ""))
            if _MACHINE_PATH.search(text):
                problems.append(f"{path.name} cell {i}: an output shows a path of the executing machine")
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    first = nb.cells[0] if nb.cells else None
    if first is None or first.cell_type != "markdown" or not first.source.lstrip().startswith("# "):
        problems.append(f"{path.name}: must start with a markdown title cell ('# NN · Title')")
    if not any("**The question:**" in s for s in md[:2]):
        problems.append(f"{path.name}: 'The question' must be stated in the first two markdown cells")
    if not code or code[0].source.strip() != SETUP_CELL:
        problems.append(f"{path.name}: the first code cell must be the course's setup cell, exactly")
    heads = [(i, s) for i, s in enumerate(md) if s.lstrip().startswith("## ")]
    titles = [s.lstrip().splitlines()[0] for _, s in heads]
    if len(titles) < 2 or not titles[-2].startswith("## Chapter map") or not titles[-1].startswith("## Exercises"):
        problems.append(f"{path.name}: must end with '## Chapter map' followed by '## Exercises' (sections: {titles[-3:]})")
    return problems
