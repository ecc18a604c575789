"""Shared by the classroom tests: one build of each assignment per test session, notebook mutations, grading runs."""
import atexit
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from helpers import ROOT

ASSIGNMENTS = ROOT / "assignments"
_SESSION = Path(tempfile.mkdtemp(prefix="classroom-tests-"))
atexit.register(shutil.rmtree, _SESSION, True)
_BUILT: dict[str, Path] = {}
# CI budget for decoder_attention's training test (assignments/README.md): 20 steps and no BLEU threshold, so the
# test still trains the student's decoder and decodes 8 sentences outside (a crash fails it) within the time
# budget of the test suite.
CI_BUDGET = {"GRADING_A3_STEPS": "20", "GRADING_A3_MIN_BLEU": "0", "GRADING_A3_SENTENCES": "8"}
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", **CI_BUDGET}


def run_module(module: str, *args, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m assignments.<module> args` from the repository root; fail with its output if `check`."""
    proc = subprocess.run([sys.executable, "-m", f"assignments.{module}", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env or ENV)
    if check:
        assert proc.returncode == 0, (f"{module} {args} exited with {proc.returncode}\n"
                                      f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}")
    return proc


def built(name: str) -> Path:
    """The build folder of one assignment. The first call builds every assignment in one process (one import of
    otter). otter's own run of the solutions is skipped (--no-run-tests) to save a kernel start: every grading test
    grades the solutions notebook and asserts full marks instead."""
    if name not in _BUILT:
        from assignments.build import masters

        names = [n for n in masters() if n not in _BUILT]
        log = run_module("build", *names, "--out", _SESSION / "dist", "--no-run-tests").stdout
        assert log.count("hand out") == len(names), log
        _BUILT.update({n: _SESSION / "dist" / n for n in names})
    return _BUILT[name]


def solution(name: str):
    return nbformat.read(built(name) / "autograder" / f"{name}.ipynb", as_version=4)


def student(name: str):
    return nbformat.read(built(name) / "student" / f"{name}.ipynb", as_version=4)


def mutate(nb, *replacements):
    """A copy of a notebook with each (old, new) code replacement made exactly once."""
    nb = copy.deepcopy(nb)
    for old, new in replacements:
        hits = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
        assert len(hits) == 1 and hits[0].source.count(old) == 1, f"{old!r} is not in exactly one place"
        hits[0].source = hits[0].source.replace(old, new)
    return nb


def grade(name: str, subs: Path, out: Path, *args, check: bool = False) -> tuple[dict, dict, str]:
    """Grade a folder -> ({student: row}, the JSON report, the printed table)."""
    report = out / "report.json"
    proc = run_module("grade", built(name), subs, "--json", report, *args, check=check)
    assert report.is_file(), proc.stdout + proc.stderr
    data = json.loads(report.read_text())
    return {r["student"]: r for r in data["rows"]}, data, proc.stdout


def scores(row: dict) -> dict:
    return {q: v["score"] for q, v in row["questions"].items()}
