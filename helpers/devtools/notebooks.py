"""Execute course notebooks deterministically (fresh kernel, no timing metadata, stable widget ids)."""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import nbformat

from helpers.base import NOTEBOOKS_DIR, ROOT

__all__ = ["chapter_notebooks", "python_of", "execute_notebook", "write_kernelspec"]


def chapter_notebooks(directory: Path | None = None, missing: str = "write it, or remove its line") -> list[Path]:
    """Every course notebook in chapter order: directory/<file> (default notebooks/) of each chapter of the course
    table (helpers.course.CHAPTERS). A ValueError names each file where directory and the table disagree: a chapter
    notebook (NN_*.ipynb) the table lacks, or a chapter whose file is missing (`missing`: what to do about it)."""
    from helpers.course import CHAPTERS

    directory = Path(NOTEBOOKS_DIR if directory is None else directory)
    where = directory.relative_to(ROOT) if directory.is_relative_to(ROOT) else directory
    listed = [directory / ch.file for ch in CHAPTERS]
    problems = [f"{where / p.name} is not in the course table: add its Chapter(...) line to helpers/course.py"
                for p in sorted(directory.glob("[0-9][0-9]_*.ipynb")) if p not in listed]
    problems += [f"helpers/course.py lists {p.name}, but {where / p.name} does not exist: {missing}"
                 for p in listed if not p.exists()]
    if problems:
        raise ValueError("the chapter notebooks and the course table disagree:\n" + "\n".join(problems))
    return listed


def python_of(source: str) -> str:
    """A code cell's source as Python: its IPython magics and shell lines (`%`, `!`) blanked, line numbers kept."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def write_kernelspec(directory: Path | str) -> Path:
    """Write DIR/kernel.json: the kernel the notebooks name ("python3"), run by this Python with the pinned
    environment of helpers.pinning, so a kernel JupyterLab starts loads torch on the pinned paths."""
    from helpers import pinning

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "kernel.json"
    spec = json.loads(path.read_text()) if path.exists() else {  # ipykernel's own spec, if it wrote one
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)", "language": "python", "metadata": {"debugger": True}}
    spec["env"] = pinning.pinned_env({})
    path.write_text(json.dumps(spec, indent=1) + "\n")
    return path


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
