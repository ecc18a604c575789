"""Every committed notebook is valid, executed once in order, free of errors and machine paths, on the skeleton."""
import json
import shutil

import nbformat
import pytest

from helpers import NOTEBOOKS_DIR
from helpers.devtools import chapter_notebooks, notebook_problems

NOTEBOOKS = chapter_notebooks()


def test_there_are_notebooks_and_no_python_files_beside_them():
    assert NOTEBOOKS, "no notebooks found in notebooks/"
    assert NOTEBOOKS[0].name == "00_start_here.ipynb"
    shadowing = sorted(p.name for p in NOTEBOOKS_DIR.glob("*.py"))
    assert not shadowing, f".py files in notebooks/ would shadow the helpers package: {shadowing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_clean(path):
    assert notebook_problems(path) == []


@pytest.fixture
def copy_of_start(tmp_path):
    dst = tmp_path / "00_start_here.ipynb"
    shutil.copy(NOTEBOOKS_DIR / "00_start_here.ipynb", dst)
    return dst


def _edit(path, change):
    nb = nbformat.read(path, as_version=4)
    change(nb)
    nbformat.write(nb, path)


def test_corrupted_json_is_caught(copy_of_start):
    copy_of_start.write_text(copy_of_start.read_text()[:-40])
    assert any("not a valid notebook" in p for p in notebook_problems(copy_of_start))


def test_out_of_order_execution_is_caught(copy_of_start):
    _edit(copy_of_start, lambda nb: [c for c in nb.cells if c.cell_type == "code"][1].update(execution_count=7))
    assert any("executed once, in order" in p for p in notebook_problems(copy_of_start))


def test_stored_error_and_machine_path_are_caught(copy_of_start):
    def spoil(nb):
        cell = [c for c in nb.cells if c.cell_type == "code"][-1]
        cell.outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="x", traceback=[]),
                        nbformat.v4.new_output("stream", name="stdout", text="saved to /root/work/x.png\n")]
    _edit(copy_of_start, spoil)
    found = notebook_problems(copy_of_start)
    assert any("stored error output" in p for p in found)
    assert any("path of the executing machine" in p for p in found)


def test_missing_skeleton_is_caught(copy_of_start):
    def spoil(nb):
        nb.cells = [c for c in nb.cells if "## Exercises" not in c.source]
        nb.cells[0].source = "Start here"
    _edit(copy_of_start, spoil)
    found = notebook_problems(copy_of_start)
    assert any("title cell" in p for p in found)
    assert any("Chapter map" in p for p in found)


def test_oversized_notebook_is_caught(copy_of_start):
    nb = json.loads(copy_of_start.read_text())
    nb["metadata"]["padding"] = "x" * 2_100_000
    copy_of_start.write_text(json.dumps(nb))
    assert any("under 2 MB" in p for p in notebook_problems(copy_of_start))


def test_no_chapter_rebinds_a_name_it_imported_from_helpers():
    """Issue 33: chapter 05 cell 60 assigned `by_bucket`, the helper cell 46 calls, so running cell 46 again after
    it failed. A name imported from helpers stays that helper for the whole chapter."""
    import ast

    from helpers.devtools.notebooks import python_of

    rebound = []
    for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb")):
        imported: dict[str, int] = {}
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type != "code":
                continue
            try:
                tree = ast.parse(python_of(cell.source))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helpers"):
                    imported.update({a.asname or a.name: i for a in node.names})
            rebound += [f"{path.name} cell {i}: {node.id} (imported in cell {imported[node.id]})"
                        for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
                        and imported.get(node.id, i) < i]
    assert not rebound, f"a chapter assigns a name it imported from helpers: {rebound}"
