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
