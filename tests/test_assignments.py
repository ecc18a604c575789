"""Teachers' assignments (assignments/): otter assign builds them, the student version hides the solutions and the
hidden tests, and otter run gives a solution full marks, an untouched student notebook zero, and a notebook with
deliberate mistakes exactly the points of the tests those mistakes do not break."""
import ast
import copy
import importlib.util
import json
import re
import subprocess
import sys
import zipfile

import nbformat
import pytest

from helpers import ROOT

ASSIGNMENTS = ROOT / "assignments"
NAME = "attention_by_hand"
MASTER = ASSIGNMENTS / NAME / f"{NAME}.ipynb"

SLOW = pytest.mark.slow  # the tests that build and grade with otter: about 50 s of CPU together


def _run(*args):
    """Run a script with this Python; fail with its output if it fails."""
    proc = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True)
    assert proc.returncode == 0, f"{args} exited with {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr[-4000:]}"
    return proc.stdout


def _repo_files():
    return set(ASSIGNMENTS.rglob("*"))


def _master_blocks():
    """Parse the master notebook -> {question: {"public": [test names], "hidden": [...]}}, [solution lines]."""
    nb = nbformat.read(MASTER, as_version=4)
    questions, solution_lines, question, block = {}, [], None, None
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw":
            if head.startswith("# BEGIN QUESTION"):
                question = re.search(r"name:\s*(\w+)", cell.source).group(1)
                questions[question] = {"public": [], "hidden": []}
            elif head.startswith("# BEGIN SOLUTION") or head.startswith("# BEGIN TESTS"):
                block = head.split()[2]
            elif head.startswith("# END"):
                block = None
            continue
        if block == "TESTS":
            kind = "hidden" if head.startswith("#") and "hidden" in head.lower() else "public"
            questions[question][kind].append(re.search(r"^def (\w+)\(", cell.source, re.M).group(1))
        elif block == "SOLUTION" and cell.cell_type == "code":
            inside = False
            for line in cell.source.splitlines():
                if line.strip() == "# BEGIN SOLUTION":
                    inside = True
                elif line.strip() == "# END SOLUTION":
                    inside = False
                elif inside or line.rstrip().endswith("# SOLUTION"):
                    solution_lines.append(re.sub(r"\s*# SOLUTION$", "", line).strip())
    return questions, [s for s in solution_lines if s]


QUESTIONS, SOLUTION_LINES = _master_blocks()


def test_master_has_questions_with_public_and_hidden_tests():
    assert 3 <= len(QUESTIONS) <= 5, QUESTIONS
    for name, tests in QUESTIONS.items():
        assert tests["public"], f"{name} has no public test: students would get no feedback"
        assert tests["hidden"], f"{name} has no hidden test"
    assert len(SOLUTION_LINES) >= 8, SOLUTION_LINES


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the assignment into a temp folder (otter assign also grades the solutions: full marks or it fails)."""
    before = _repo_files()
    out = tmp_path_factory.mktemp("dist")
    log = _run(ASSIGNMENTS / "build.py", NAME, "--out", out)
    assert "hand out" in log
    yield out / NAME
    assert _repo_files() == before, f"files left in assignments/: {sorted(map(str, _repo_files() ^ before))}"


@SLOW
def test_student_version_has_no_solutions_and_no_hidden_tests(built):
    student_path = built / "student" / f"{NAME}.ipynb"
    student = nbformat.read(student_path, as_version=4)
    text = student_path.read_text()
    code = [c for c in student.cells if c.cell_type == "code"]
    student_lines = {line.strip() for c in code for line in c.source.splitlines()}
    leaked = [line for line in SOLUTION_LINES if line in student_lines]
    assert not leaked, f"solution lines in the student notebook: {leaked}"
    answers = [c for c in code if "otter_answer_cell" in c.metadata.get("tags", [])]
    assert len(answers) >= len(QUESTIONS) and all("..." in c.source for c in answers)
    for cell in answers:  # every function students write is left as: docstring, then ...
        for fn in [n for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)]:
            body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                                                 and isinstance(n.value.value, str))]
            assert [ast.unparse(n) for n in body] == ["..."], f"{fn.name} is not left as ... for students"
    for name, tests in QUESTIONS.items():
        assert any(c.source.strip() == f'grader.check("{name}")' for c in code), f"no check cell for {name}"
        for test in tests["hidden"]:
            assert test not in text, f"hidden test {test} is in the student notebook"
        for test in tests["public"]:
            assert test in student.metadata["otter"]["tests"][name], f"public test {test} missing for students"
    assert not (built / "student" / "tests").exists()
    assert all(not c.get("outputs") and c.execution_count is None for c in code)
    assert "import otter" in code[0].source and student.metadata["otter"]["assignment_name"] == NAME


@SLOW
def test_autograder_zip_holds_every_test(built):
    zips = list((built / "autograder").glob(f"{NAME}-autograder_*.zip"))
    assert len(zips) == 1
    with zipfile.ZipFile(zips[0]) as zf:
        for name, tests in QUESTIONS.items():
            source = zf.read(f"tests/{name}.py").decode()
            for test in tests["public"] + tests["hidden"]:
                assert f"def {test}(" in source


def _load_script(name):
    """assignments/<name>.py as a module, without writing __pycache__ into the repo."""
    spec = importlib.util.spec_from_file_location(f"assignments_{name}", ASSIGNMENTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = write_bytecode
    return module


@pytest.mark.filterwarnings("ignore:Traits should be given as instances:DeprecationWarning")
def test_grade_sets_a_cell_time_limit_that_otter_picks_up():
    import inspect

    import nbconvert.preprocessors
    from otter.execute import grade_notebook

    grade = _load_script("grade")
    # otter imports the executor inside grade_notebook at every run, which is what lets grade.py swap in a limited one
    assert "from nbconvert.preprocessors import ExecutePreprocessor" in inspect.getsource(grade_notebook)
    original = nbconvert.preprocessors.ExecutePreprocessor
    assert original().timeout is None  # nbconvert's default: no limit
    with grade._cell_time_limit(7):
        limited = nbconvert.preprocessors.ExecutePreprocessor()
        assert limited.timeout == 7 and limited.interrupt_on_timeout
    assert nbconvert.preprocessors.ExecutePreprocessor is original


def _mutate(nb, *replacements):
    """A copy of a notebook with each (old, new) code replacement made exactly once."""
    nb = copy.deepcopy(nb)
    for old, new in replacements:
        hits = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
        assert len(hits) == 1 and hits[0].source.count(old) == 1, f"{old!r} is not in exactly one place"
        hits[0].source = hits[0].source.replace(old, new)
    return nb


# Expected points per question. "mistakes": three independent bugs, each costing exactly what it breaks:
# forgotten 1/√d_k (all of q3), no max subtraction (q2's overflow test and its hidden test; the small rows pass),
# an inverted mask (q4's three attention tests; causal_mask itself is right).
# "wrong_axis": softmax over the first axis, which also breaks everything built on it (q3, q4's attention).
EXPECTED = {
    "solution": {"q1": 2, "q2": 3, "q3": 3, "q4": 4},
    "untouched": {"q1": 0, "q2": 0, "q3": 0, "q4": 0},
    "mistakes": {"q1": 2, "q2": 1, "q3": 0, "q4": 1},
    "wrong_axis": {"q1": 2, "q2": 0, "q3": 0, "q4": 1},
}


@SLOW
def test_grading_gives_exactly_the_points_earned(built, tmp_path):
    solution = nbformat.read(built / "autograder" / f"{NAME}.ipynb", as_version=4)
    subs = tmp_path / "submissions"
    subs.mkdir()
    nbformat.write(solution, subs / "solution.ipynb")
    (subs / "untouched.ipynb").write_text((built / "student" / f"{NAME}.ipynb").read_text())
    nbformat.write(_mutate(solution,
                           ("stable_softmax(attention_scores(Q, K) / math.sqrt(d_k))", "stable_softmax(attention_scores(Q, K))"),
                           ("shifted = x - x.max(dim=-1, keepdim=True).values", "shifted = x"),
                           ('scores.masked_fill(~mask, float("-inf"))', 'scores.masked_fill(mask, float("-inf"))')),
                   subs / "mistakes.ipynb")
    nbformat.write(_mutate(solution, ("x.max(dim=-1, keepdim=True)", "x.max(dim=0, keepdim=True)"),
                           ("e.sum(dim=-1, keepdim=True)", "e.sum(dim=0, keepdim=True)")),
                   subs / "wrong_axis.ipynb")

    report, csv_path = tmp_path / "grades.json", tmp_path / "grades.csv"
    table = _run(ASSIGNMENTS / "grade.py", built, subs, "--json", report, "--csv", csv_path)
    rows = {re.sub(r"\.ipynb$", "", r["submission"].rsplit("/", 1)[-1]): r for r in json.loads(report.read_text())}
    assert set(rows) == set(EXPECTED)
    for name, expected in EXPECTED.items():
        row = rows[name]
        assert row["error"] is None, (name, row["error"])
        assert row["possible"] == {"q1": 2, "q2": 3, "q3": 3, "q4": 4}
        assert row["scores"] == expected, f"{name}: got {row['scores']}, expected {expected}\n{row['feedback']}"
        assert row["total"] == sum(expected.values()) and row["out_of"] == 12
    assert re.search(r"mistakes\.ipynb\s+2/2\s+1/3\s+0/3\s+1/4\s+4/12\s+33", table), table
    assert re.search(r"solution\.ipynb\s+2/2\s+3/3\s+3/3\s+4/4\s+12/12\s+100", table), table
    assert csv_path.read_text().splitlines()[0] == "submission,q1,q2,q3,q4,total,out_of,error"
    # the students' messages say what is wrong, in words
    feedback = rows["mistakes"]["feedback"]
    assert "divide the scores by √d_k" in feedback and "Subtract each row's maximum" in feedback
    assert "True means may attend" in feedback
    assert "sum to 1 along the last (key) axis" in rows["wrong_axis"]["feedback"]
