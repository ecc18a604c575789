"""The student release: the course and the student notebooks, without masters, solutions or hidden tests.

`find_leaks` looks for every solution line and hidden-test line of every master (stripped; trivial lines left out:
blank, brackets or punctuation alone, `...`, `pass`, `else:`, `try:`, `finally:`, a bare `return`, the marker
comments, plain import lines, and lines the master itself shows students) in every file of the tree: in text files,
in every string of a notebook (sources, outputs, metadata) and inside zip files."""
import shutil

import nbformat
import pytest
from _classroom import built, run_module

from assignments.build import TRIVIAL, masters, secret_lines
from assignments.release import MARKER, find_leaks, published_lines, text_lines, write_release
from helpers import ROOT


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    dist = tmp_path_factory.mktemp("dist")
    for name in masters():
        shutil.copytree(built(name), dist / name)
    dest = tmp_path_factory.mktemp("release") / "class-repo"
    log = run_module("release", dest, "--dist", dist).stdout
    assert "no master notebook, solution or hidden test" in log
    return dest


def test_trivial_lines_are_only_trivial():
    for line in ["", ")", "]),", "...", "pass", "else:", "return", "# HIDDEN", "import torch", "from math import sqrt",
                 "import torch.nn.functional as F"]:
        assert TRIVIAL.match(line), line
    for line in ["return Q @ K.T", "x = 1", "import os; os.remove('x')", "return weights @ V, weights"]:
        assert not TRIVIAL.match(line), line


@pytest.mark.slow
def test_release_holds_the_course_and_only_student_notebooks(release):
    top = {p.name for p in release.iterdir()}
    assert {"notebooks", "helpers", "data", "README.md", "requirements.txt", "environment.yml", "pyproject.toml",
            "Makefile", "assignments", MARKER, "conftest.py"} <= top   # conftest.py: `pytest --nbval notebooks` as here
    assert not {"tests", ".ci", ".git", "benchmarks"} & top
    assert sorted(p.name for p in (release / "notebooks").glob("*.ipynb")) == \
        sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    for name in masters():
        nb = nbformat.read(release / "assignments" / name / f"{name}.ipynb", as_version=4)
        assert nb.metadata["otter"]["assignment_name"] == name
    assert not list(release.rglob("*.zip")) and not list(release.rglob("__pycache__"))
    assert not [p for p in release.rglob("*") if "autograder" in p.name or "dist" == p.name]


@pytest.mark.slow
def test_release_has_no_solution_or_hidden_test_line(release):
    assert find_leaks(release) == []


@pytest.mark.slow
def test_the_leak_check_finds_a_master_a_solutions_notebook_and_a_zip(release, tmp_path):
    """The check can fail: plant what a careless release would carry and it is found, line by line."""
    name = sorted(masters())[0]
    tree = tmp_path / "tree"
    shutil.copytree(release, tree)
    secrets = secret_lines(masters()[name])
    shutil.copy(masters()[name], tree / "master.ipynb")
    leaks = find_leaks(tree)
    published = published_lines()
    in_master = (secrets["solution"] | secrets["hidden_test"]) & text_lines(masters()[name]) - published
    assert len(in_master) >= 10
    assert {line for f, n, kind, line in leaks if f == "master.ipynb" and n == name} == in_master
    (tree / "master.ipynb").unlink()
    zips = list((built(name) / "autograder").glob("*.zip"))
    shutil.copy(zips[0], tree / "autograder.zip")
    assert {kind for f, n, kind, line in find_leaks(tree) if f == "autograder.zip"} == {"hidden_test"}
    (tree / "autograder.zip").unlink()
    one = sorted(secrets["solution"] - published)[0]
    (tree / "helpers" / "notes.py").write_text(f"    {one}   \n")
    assert [(f, kind) for f, n, kind, line in find_leaks(tree)] == [("helpers/notes.py", "solution")]


def test_release_refuses_the_repository_and_a_foreign_folder(tmp_path):
    with pytest.raises(SystemExit, match="inside the course repository"):
        write_release(ROOT / "release")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "thesis.tex").write_text("mine")
    with pytest.raises(SystemExit, match="not empty"):
        write_release(tmp_path / "other", force=True)
    assert (tmp_path / "other" / "thesis.tex").read_text() == "mine" and not (ROOT / "release").exists()


def _pins(path):
    lines = [ln.split("#")[0].strip() for ln in path.read_text().splitlines()]
    return dict(ln.split("==") for ln in lines if "==" in ln)


def test_binder_pins_agree_with_requirements_and_torch_is_the_cpu_build():
    course, binder = _pins(ROOT / "requirements.txt"), _pins(ROOT / "binder" / "requirements.txt")
    assert binder.pop("torch") == course["torch"] + "+cpu"
    index = "--extra-index-url https://download.pytorch.org/whl/cpu"
    assert index in (ROOT / "binder" / "requirements.txt").read_text()
    assert binder and all(course.get(name) == version for name, version in binder.items()), binder
    assert {"jupyterlab", "ipywidgets", "otter-grader", "matplotlib"} <= set(binder)
    post = ROOT / "binder" / "postBuild"
    assert "pip install --no-deps -e ." in post.read_text() and post.stat().st_mode & 0o111
