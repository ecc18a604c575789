"""Notebook mutation testing: run a chapter with a deliberately broken helper patched in, see which assert fails.

The patch is a code cell inserted before the chapter's first cell; it imports the helper's module and replaces
an attribute (``helpers.attention.softmax = broken``). Later ``from helpers.attention import softmax`` lines
bind the broken version, and functions inside the module look it up at call time.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import nbformat

__all__ = ["MutationResult", "run_mutated"]


@dataclass
class MutationResult:
    """Where a mutated notebook stopped: the failing cell's index (None: it ran to the end) and the error."""

    cell: int | None
    ename: str | None
    evalue: str | None
    source: str | None

    @property
    def caught_by_assert(self) -> bool:
        """True when an assert of the chapter (not an import or a crash elsewhere) stopped the run."""
        return self.ename == "AssertionError"


def run_mutated(notebook: Path | str, patch: str, timeout: int = 600, kernel_name: str = "python3") -> MutationResult:
    """Execute `notebook` in a fresh kernel with `patch` run first; report the first cell that raised."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(notebook)
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(patch))
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as err:
        index = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code" and any(
            o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        source = nb.cells[index].source if index is not None else None
        return MutationResult(None if index is None else index - 1, err.ename, err.evalue, source)
    return MutationResult(None, None, None, None)


def mutate_cli(argv: list[str] | None = None) -> int:
    """`python -m helpers.devtools.mutations NOTEBOOK PATCH_FILE`: print where the mutated notebook fails."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m helpers.devtools.mutations")
    parser.add_argument("notebook", type=Path)
    parser.add_argument("patch", type=Path, help="a file with the patch code")
    args = parser.parse_args(argv)
    result = run_mutated(args.notebook, args.patch.read_text())
    if result.cell is None and result.ename is None:
        print("NOT CAUGHT: the notebook ran to the end with the broken helper")
        return 1
    print(f"stopped at cell {result.cell} ({result.ename}: {result.evalue})\n{result.source}")
    return 0 if result.caught_by_assert else 1


if __name__ == "__main__":
    raise SystemExit(mutate_cli())
