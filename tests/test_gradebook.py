"""The grading plumbing without running any notebook: student ids, the course gradebook, written scores, feedback
pages, and the grader's reading of what a (possibly tampered) sandbox returns: plain data only."""
import csv

import pytest

from assignments.grade import feedback_html, read_manual, student_id, update_gradebook
from assignments.judge import Foreign, Plan, Raised, decode, failure, judge_results, source_verdicts

QUESTIONS_A = [{"name": "q1", "points": 2.0, "manual": False}, {"name": "q2", "points": 3.0, "manual": False},
               {"name": "q3", "points": 2.0, "manual": True}]
QUESTIONS_B = [{"name": "q1", "points": 4.0, "manual": False}]


def _row(student, q1, q2=None, error=None, hidden_message="secret", public_message="weights do not sum to 1 <b>"):
    questions = {"q1": {"score": q1, "possible": 2.0 if q2 is not None else 4.0, "tests": [
        {"name": "q1 - 1", "hidden": False, "passed": q1 > 0, "message": "" if q1 else public_message},
        {"name": "q1 - 2", "hidden": True, "passed": False, "message": hidden_message}]}}
    if q2 is not None:
        questions["q2"] = {"score": q2, "possible": 3.0, "tests": []}
    return {"student": student, "submission": f"{student}.ipynb", "questions": {} if error else questions,
            "error": error}


@pytest.mark.parametrize("path, expected", [
    ("subs/alice_attention_by_hand (1).ipynb", "alice"),
    ("subs/attention_by_hand-bob.ipynb", "bob"),
    ("subs/carol/attention_by_hand.ipynb", "carol"),
    ("subs/Dan Smith.ipynb", "Dan Smith"),
])
def test_student_ids_from_file_names(path, expected):
    from pathlib import Path

    assert student_id(Path(path), "attention_by_hand") == expected


def test_student_id_pattern_and_its_error():
    from pathlib import Path

    name = Path("smithj_12345_678_attention_by_hand.ipynb")
    assert student_id(name, "attention_by_hand", r"^[a-z]+_(?P<id>\d+)_") == "12345"
    with pytest.raises(ValueError, match="does not match the file name"):
        student_id(name, "attention_by_hand", r"^\d+")


def test_gradebook_keeps_other_assignments_and_replaces_a_regrade(tmp_path):
    book = tmp_path / "gradebook.csv"
    manual = {"alice": {"q3": 1.5}}
    update_gradebook(book, "A", [_row("alice", 2.0, 3.0), _row("bob", 0.0, 1.0)], QUESTIONS_A, manual)
    update_gradebook(book, "B", [_row("bob", 4.0), _row("carol", 0.0, error="not a readable notebook")],
                     QUESTIONS_B, {})
    with open(book, newline="") as f:
        reader = csv.DictReader(f)
        rows = {r["student"]: r for r in reader}
        columns = reader.fieldnames
    assert columns == ["student", "A.q1", "A.q2", "A.q3", "A.total", "A.out_of", "A.error",
                       "B.q1", "B.total", "B.out_of", "B.error"]
    assert rows["alice"]["A.total"] == "6.5" and rows["alice"]["A.q3"] == "1.5" and rows["alice"]["A.out_of"] == "7"
    assert rows["bob"]["A.total"] == "1" and rows["bob"]["A.q3"] == "" and rows["bob"]["B.total"] == "4"
    assert rows["carol"]["B.error"] == "not a readable notebook" and rows["carol"]["B.total"] == ""
    assert rows["alice"]["B.total"] == ""  # alice did not hand in B
    update_gradebook(book, "A", [_row("bob", 2.0, 3.0)], QUESTIONS_A, {})  # a re-grade of A: no stale A scores
    with open(book, newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert rows["alice"]["A.total"] == "" and rows["bob"]["A.total"] == "5" and rows["bob"]["B.total"] == "4"


def test_manual_scores_are_checked(tmp_path):
    good = tmp_path / "manual.csv"
    good.write_text("student,assignment,question,points\nalice,A,q3,2\nbob,B,q9,1\n")
    assert read_manual(good, "A", QUESTIONS_A) == {"alice": {"q3": 2.0}}
    for body, message in [("alice,A,q3,2.5", "worth 2"), ("alice,A,q1,1", "not a written question"),
                          ("alice,A,q3,two", "not a number")]:
        bad = tmp_path / "bad.csv"
        bad.write_text(f"student,assignment,question,points\n{body}\n")
        with pytest.raises(SystemExit, match=message):
            read_manual(bad, "A", QUESTIONS_A)
    (tmp_path / "cols.csv").write_text("name,score\nalice,1\n")
    with pytest.raises(SystemExit, match="needs the columns"):
        read_manual(tmp_path / "cols.csv", "A", QUESTIONS_A)


def test_feedback_shows_public_messages_escaped_and_never_hidden_ones():
    page = feedback_html(_row("bob", 0.0, 1.0, hidden_message="assert got[0, 0, 1] == 0"), "A", QUESTIONS_A,
                         {"q3": 1.0})
    assert "q1: weights do not sum to 1 &lt;b&gt;" in page and "sum to 1 <b>" not in page
    assert "assert got" not in page and "secret" not in page
    assert "hidden test 2</td><td><span class='bad'>failed</span></td><td></td>" in page
    assert "q3 (written, graded by your teacher): 1 / 2" in page and "Total: <b>2 / 7</b>" in page
    error_page = feedback_html(_row("carol", 0.0, error="the grading process ended"), "A", QUESTIONS_A, {})
    assert "could not be graded: the grading process ended" in error_page


def test_feedback_never_shows_the_grading_machines_paths():
    """A submission can read the sandbox's bind mounts (pid 1's bwrap command line) and raise them in a message
    that reaches the feedback (issue 31): the course's folder and Python's are scrubbed from every message."""
    import sys

    from helpers import ROOT

    leak = f"found {ROOT}/assignments and {sys.prefix}/bin/python"
    page = feedback_html(_row("eve", 0.0, 1.0, public_message=leak), "A", QUESTIONS_A, {})
    page += feedback_html(_row("eve", 0.0, error=leak), "A", QUESTIONS_A, {})
    assert str(ROOT) not in page and sys.prefix not in page and "found …/assignments and …/bin/python" in page


def test_results_are_decoded_as_plain_data_only():
    import numpy as np
    import torch

    arrays = {"c0": np.arange(3.0), "c1": np.array([1, 2])}
    assert torch.equal(decode({"a": "c0"}, arrays), torch.arange(3.0, dtype=torch.float64))
    assert isinstance(decode({"a": "missing"}, arrays), Foreign)
    assert isinstance(decode({"type": "Sneaky"}, arrays), Foreign) and isinstance(decode([1], arrays), Foreign)
    assert decode({"v": 2.5}, arrays) == 2.5 and isinstance(decode({"v": {"x": 1}}, arrays), Foreign)
    assert decode({"seq": [{"v": 1}, {"a": "c1"}]}, arrays)[0] == 1
    raised = decode({"raised": "ValueError", "message": "row sums are 1.5"}, arrays)
    assert isinstance(raised, Raised) and failure(raised, "f") == "your code raised ValueError: row sums are 1.5"
    assert failure(Raised("SecretLeak_abc", "data"), "f") == "your code raised an exception"


def test_points_come_from_the_checks_and_the_source_check():
    p = Plan(0)
    c = p.call("f", 1)
    p.check("q1", "one", lambda R: None if R[c] == 2 else "wrong", public=True)
    p.check("q1", "two", lambda R: 1 / 0)  # a check that breaks fails, the grader goes on
    p.check("q2", "three", lambda R: None)
    got = judge_results(p, {c: {"v": 2}}, {}, {"q2": "uses softmax"}, {"q1": 2.0, "q2": 3.0})
    assert got["q1"]["score"] == 1.0 and got["q2"]["score"] == 0.0
    assert got["q2"]["tests"][0]["message"] == "uses softmax"
    nb = {"cells": [{"cell_type": "code", "source": "import torch\nimport helpers.attention as H\n"
                     "def f(x):\n    return g(x)\ndef g(x):\n    return H.softmax(x)\n"
                     "def h(x):\n    return torch.exp(x) / K(x)\nK = torch.softmax\nk = torch.softmax\n"
                     "print(torch.softmax(torch.ones(2), -1))"}]}  # K feeds h; the print compares, feeds nothing
    rules = {"q1": {"defines": ["f"]}, "q2": {"defines": ["h"], "banned": ["softmax"]}, "q3": {"defines": ["k"]}}
    verdicts = source_verdicts(nb, rules, set())
    assert "helpers.attention" in verdicts["q1"] and "softmax" in verdicts["q2"]
    assert "not defined with def" in verdicts["q3"]
    assert source_verdicts({"cells": [{"cell_type": "code", "source": "def h(x):\n    return x"}]}, rules,
                           set())["q2"] is None
    compare = ("import torch\ndef h(x):\n    return torch.exp(x)\n"
               "print(h(torch.ones(2)), torch.softmax(torch.ones(2), -1))")
    assert source_verdicts({"cells": [{"cell_type": "code", "source": compare}]}, rules, set())["q2"] is None


def test_methods_named_like_dynamic_builtins_are_ordinary_code():
    """An honest solution with `translator.eval()` scored 0/8 and one with `re.compile(...)` 0/13: the dynamic-code
    ban matched attribute names. The built-ins themselves still earn nothing."""
    rules = {"q1": {"defines": ["f"]}}
    honest = ("import re\nimport torch\nPATTERN = re.compile(r'\\d+')\n"
              "def f(model, x):\n    model.eval()\n    fast = torch.compile\n    return model(x)\n")
    assert source_verdicts({"cells": [{"cell_type": "code", "source": honest}]}, rules, set())["q1"] is None
    for dynamic in ("eval('1')", "compile('1', 'f', 'eval')", "builtins.getattr(x, 'y')", "getattr(x, 'softmax')"):
        nb = {"cells": [{"cell_type": "code", "source": f"import builtins\ndef f(x):\n    return {dynamic}\n"}]}
        assert source_verdicts(nb, rules, set())["q1"], f"{dynamic} must still earn nothing"


HONEST_SOFTMAX = ("import torch\n"
                  "def stable_softmax(x: torch.Tensor) -> torch.Tensor:\n"
                  "    \"\"\"exp(x - max) / sum: the softmax, written out\"\"\"\n"
                  "    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)\n"
                  "    return e / e.sum(dim=-1, keepdim=True)\n")
HIDDEN_BUILTINS = {  # issue 31's ways to use a forbidden built-in where a plain name check does not look
    "a line magic": ["%time f = torch.softmax", "def stable_softmax(x):\n    return f(x, -1)"],
    "a %%capture cell": ["%%capture\nf = torch.nn.Softmax(dim=-1)", "def stable_softmax(x):\n    return f(x)"],
    "a literal run_cell": ["get_ipython().run_cell('f = torch.special.softmax')",
                           "def stable_softmax(x):\n    return f(x, -1)"],
    "a string built at run time": ["get_ipython().run_cell('f = torch.soft' + 'max')",
                                   "def stable_softmax(x):\n    return f(x, -1)"],
    "torch.ops": ["def stable_softmax(x):\n    return torch.ops.aten._softmax(x, -1, False)"],
    "Categorical": ["from torch.distributions import Categorical\n"
                    "def stable_softmax(x):\n    return Categorical(logits=x).probs"],
    "operator.attrgetter": ["import operator\n"
                            "def stable_softmax(x):\n    return operator.attrgetter('soft' + 'max')(torch)(x, -1)"],
    "Tensor.softmax": ["def stable_softmax(x):\n    return x.softmax(-1)"],
    "log_softmax().exp()": ["def stable_softmax(x):\n    return x.log_softmax(-1).exp()"],
    "pkgutil.resolve_name": ["import pkgutil\n"
                             "def stable_softmax(x):\n    return pkgutil.resolve_name('torch:softmax')(x, -1)"],
    "python in a shell escape": ["!python -c 'import torch'", HONEST_SOFTMAX],
    "%run": ["%run helper.py", HONEST_SOFTMAX],
    "a helper def called at module level": ["R = {}\ndef _fetch():\n    R['f'] = torch.softmax\n_fetch()",
                                            "def stable_softmax(x):\n    return R['f'](x, -1)"],
    "an attribute stored at module level": ["class Box:\n    pass\nBox.f = staticmethod(torch.nn.functional.softmax)",
                                            "def stable_softmax(x):\n    return Box.f(x, dim=-1)"],
}


# A red team's routes after issue 31's first round (each earned 11/13 or 13/13 on attention_by_hand): the name a
# graded function reads is bound to torch's softmax where the first round did not look.
TEMPLATE = "def stable_softmax(x):\n    return NORM(x)"
RED_TEAM = {
    "push": ["get_ipython().push({'stable_softmax': lambda x: torch.softmax(x, dim=-1)})"],
    "__main__": ["import __main__ as M\nM.stable_softmax = lambda x: torch.softmax(x, dim=-1)"],
    "a class body": ["class _S:\n    global NORM\n    NORM = lambda x: torch.softmax(x, dim=-1)", TEMPLATE],
    "a default argument": ["def _u(_=globals().update(NORM=lambda x: torch.softmax(x, dim=-1))):\n    pass",
                           TEMPLATE],
    "a decorator": ["@(lambda f: globals().update(NORM=torch.softmax) or f)\ndef _u():\n    pass", TEMPLATE],
    "operator.setitem": ["import operator\nCFG = {}\noperator.setitem(CFG, 'n', torch.softmax)",
                         "def stable_softmax(x):\n    return CFG['n'](x, -1)"],
    "a helper that fills its parameter": ["CFG = {}\ndef _fill(box):\n    box['n'] = torch.softmax\n_fill(CFG)",
                                          "def stable_softmax(x):\n    return CFG['n'](x, -1)"],
    "%%writefile and import": ["%%writefile mysm.py\nimport torch\nNORM = torch.softmax", "from mysm import NORM",
                               "def stable_softmax(x):\n    return NORM(x, -1)"],
    "open().write and import": ["open('mysm2.py', 'w').write('import torch\\nNORM = torch.softmax')",
                                "from mysm2 import NORM", "def stable_softmax(x):\n    return NORM(x, -1)"],
    "an input transformer": ["get_ipython().input_transformers_cleanup.append(lambda lines: lines)", TEMPLATE],
    "pydoc.locate": ["import pydoc\nNORM = pydoc.locate('torch.nn.functional.' + 'soft' + 'max')", TEMPLATE],
    "string.Formatter": ["import string\nNORM = string.Formatter().get_field('0.soft' + 'max', (torch,), {})[0]",
                         TEMPLATE],
    "logits_to_probs": ["from torch.distributions.utils import logits_to_probs as NORM", TEMPLATE],
    "SoftmaxTransform": ["NORM = torch.distributions.transforms.SoftmaxTransform()", TEMPLATE],
}
HONEST_RED_TEAM = {  # honest notebooks the same red team found graded below full marks
    "a check cell reusing the graded function's local names": [
        "def stable_softmax(x):\n    weights = torch.exp(x - x.amax(-1, keepdim=True))\n"
        "    return weights / weights.sum(-1, keepdim=True)",
        "weights = torch.softmax(torch.randn(3, 5), dim=-1)\nprint(weights)"],
    "a local variable named softmax": [
        "def stable_softmax(x):\n    e = torch.exp(x - x.amax(-1, keepdim=True))\n"
        "    softmax = e / e.sum(-1, keepdim=True)\n    return softmax"],
    "a helper of its own named softmax": [
        "def softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim, keepdim=True))\n"
        "    return e / e.sum(dim, keepdim=True)",
        "def stable_softmax(x):\n    return softmax(x)"],
}


def test_a_function_left_as_the_hand_outs_dots_earns_nothing_whatever_the_results_say():
    """The red team's widest route wrote the result stream itself and left every graded function as `...`: a
    function still blank earns nothing, whatever came back for it."""
    for body in ("...", "pass", '"""doc"""\n    ...', '"""doc"""'):
        assert "still `...`" in _verdict_of([f"def stable_softmax(x):\n    {body}"]), body
    assert _verdict_of(['def stable_softmax(x):\n    """doc"""\n    return x.exp() / x.exp().sum(-1, True)']) is None
    two = {"q4": {"defines": ["causal_mask", "masked_attend"]}}   # one written, one not: the checks decide
    cells = "def causal_mask(n):\n    ...\ndef masked_attend(Q, K, V, mask):\n    return Q, K"
    assert source_verdicts({"cells": [{"cell_type": "code", "source": cells}]}, two, set())["q4"] is None
    blank = "def causal_mask(n):\n    ...\ndef masked_attend(Q, K, V, mask):\n    pass"
    assert "still `...`" in source_verdicts({"cells": [{"cell_type": "code", "source": blank}]}, two, set())["q4"]


@pytest.mark.parametrize("route", sorted(RED_TEAM))
def test_the_red_teams_routes_to_a_builtin_earn_nothing(route):
    assert _verdict_of(["import torch", *RED_TEAM[route]]), f"{route}: a forbidden softmax earned points"


@pytest.mark.parametrize("how", sorted(HONEST_RED_TEAM))
def test_honest_notebooks_the_red_team_found_zeroed_keep_their_points(how):
    assert _verdict_of(["import torch", *HONEST_RED_TEAM[how]]) is None, how


def _verdict_of(cells: list[str]) -> str | None:
    from assignments.judge import SOFTMAX_FAMILY

    nb = {"cells": [{"cell_type": "code", "source": c} for c in cells]}
    return source_verdicts(nb, {"q2": {"defines": ["stable_softmax"], "banned": list(SOFTMAX_FAMILY)}}, set())["q2"]


@pytest.mark.parametrize("how", sorted(HIDDEN_BUILTINS))
def test_a_forbidden_builtin_earns_nothing_however_it_is_reached(how):
    """Literal strings IPython runs as code are read as code; strings built at run time, code run in another
    program and torch's internals earn nothing; the synonyms of softmax are banned with it."""
    assert _verdict_of(["import torch", *HIDDEN_BUILTINS[how]]), f"{how}: a forbidden softmax earned points"


def test_honest_notebooks_with_magics_docstrings_and_hints_keep_their_points():
    extras = ["%matplotlib inline", "%timeit stable_softmax(torch.randn(3, 4))", "%%time\nprint(1)", "!ls",
              "x = torch.randn(2, 3)\nprint(stable_softmax(x))", "import re\nPATTERN = re.compile('a')",
              "import helpers.attention as course\nprint(course.softmax(torch.randn(3)))"]
    assert _verdict_of([HONEST_SOFTMAX, *extras]) is None


def _stream(members: dict[str, bytes], compression=None) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression or zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_forged_result_streams_are_refused_with_bounds_before_parsing():
    """Each of these aborted a whole grading run (RecursionError, MemoryError) or took 4 GB outside the sandbox."""
    import io
    import zipfile

    import numpy as np

    from assignments.sandbox import read_results

    arr = io.BytesIO()
    np.lib.format.write_array(arr, np.arange(3.0), allow_pickle=False)
    good = _stream({"report.json": b'{"c1": {"a": "c1"}}', "c1.npy": arr.getvalue()})
    report, arrays = read_results(good)
    assert report == {"c1": {"a": "c1"}} and arrays["c1"].tolist() == [0.0, 1.0, 2.0]
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (2**45,)})
    forged = {
        "deep JSON": _stream({"report.json": b"[" * 100000}),
        "huge .npy header": _stream({"report.json": b"{}", "c1.npy": header.getvalue()}),
        "compressed whitespace": _stream({"report.json": b" " * 2_000_000 + b"{}"}, zipfile.ZIP_DEFLATED),
        "not a zip": b"PK\x03\x04 nothing",
        "a list, not an object": _stream({"report.json": b"[1]"}),
    }
    for what, raw in forged.items():
        with pytest.raises(ValueError):
            read_results(raw)
        assert what                                     # each refused with a ValueError, which grading reports


def test_a_submission_whose_grading_raises_is_its_own_error_row(monkeypatch, tmp_path):
    from assignments import grade

    def boom(f, g):
        if "bad" in str(f):
            raise RecursionError("forged")
        return {"submission": str(f), "questions": {"q1": {"score": 2, "possible": 2, "tests": []}}, "error": None}

    monkeypatch.setattr(grade, "grade_one", boom)
    monkeypatch.setattr(grade, "find_build", lambda a, d: ("a", tmp_path))
    monkeypatch.setattr(grade, "question_list", lambda p: [])
    monkeypatch.setattr(grade, "grading_limits", lambda p, limits, overridden: limits)
    monkeypatch.setattr(grade, "describe", lambda unsafe: "test")
    monkeypatch.setattr(grade, "Grading", lambda *a: type("G", (), {"close": lambda self: None})())
    for who in ("good", "bad"):
        (tmp_path / f"{who}.ipynb").write_text("{}")
    _, rows, _, _ = grade.grade_all("a", [tmp_path], log=lambda _: None, id_pattern=r"(good|bad)")
    by = {r["student"]: r for r in rows}
    assert by["good"]["error"] is None and by["good"]["questions"]["q1"]["score"] == 2
    assert "RecursionError" in by["bad"]["error"]


MEMORY_PROBE = '''
import io, json, resource, sys, zipfile
import numpy as np
from assignments.sandbox import read_results
def stream(members, compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    return buf.getvalue()
kind, size = sys.argv[1], 90 << 20
if kind == "whitespace":
    raw = stream({"report.json": b" " * size + b"{}"})
elif kind == "compressed":                  # 360 MB of whitespace in a zip of under 1 MB, written in pieces
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf, zf.open("report.json", "w") as f:
        for _ in range(4):
            f.write(b" " * size)
    raw = buf.getvalue()
elif kind == "array":
    a = io.BytesIO()
    np.lib.format.write_array(a, np.zeros(size // 8))
    raw = stream({"report.json": b"{}", "c0.npy": a.getvalue()})
elif kind == "strings":
    raw = stream({"report.json": json.dumps({f"c{i}": {"v": "x" * 1000} for i in range(size // 1010)}).encode()})
else:
    h = io.BytesIO()
    np.lib.format.write_array_header_1_0(h, {"descr": "<f8", "fortran_order": False, "shape": (2**40,)})
    raw = stream({"report.json": b"{}", **{f"c{i}.npy": h.getvalue() for i in range(20000)}})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_results(raw)
except ValueError:
    pass
print(len(raw), (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
'''


@pytest.mark.parametrize("kind", ["whitespace", "compressed", "array", "strings", "headers"])
def test_the_graders_memory_stays_bounded_by_the_stream(kind):
    """Issue 31 item 5: a 2 MB zip of JSON whitespace took the grader to 4.4 GB. Reading any stream of at most the
    sandbox's result limit now costs the grader at most about twice the stream's own size (measured: 1-2x), here
    allowed 3x plus 32 MB; a compressed member is refused before it expands."""
    import subprocess
    import sys

    from helpers import ROOT

    proc = subprocess.run([sys.executable, "-c", MEMORY_PROBE, kind], capture_output=True, text=True, cwd=ROOT,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert proc.returncode == 0, proc.stderr[-1000:]
    size, extra = map(int, proc.stdout.split())
    assert extra <= 3 * size + (32 << 20), f"{kind}: a {size >> 20} MB stream took {extra >> 20} MB more to read"


@pytest.mark.parametrize("body", [
    "return torch.ops.aten._scaled_dot_product_attention_math(Q, K, V)",
    "return torch.nn.functional.scaled_dot_product_attention(Q, K, V), None",
    "return torch.nn.MultiheadAttention(Q.shape[-1], 1)(Q, K, V)",
    "return torch._C._nn.scaled_dot_product_attention(Q, K, V), None",
    "layer = torch.nn.TransformerEncoderLayer(Q.shape[-1], 1)\n    return layer(Q), None",
])
def test_attention_builtins_and_their_synonyms_earn_nothing(body):
    """The issue's `torch.ops.aten._scaled_dot_product_attention_math` scored 11/13; torch's fused attention,
    its modules and its internals are banned wherever a task is to write attention."""
    from assignments.judge import ATTENTION_FAMILY

    nb = {"cells": [{"cell_type": "code", "source": f"import torch\ndef attend(Q, K, V):\n    {body}\n"}]}
    assert source_verdicts(nb, {"q3": {"defines": ["attend"], "banned": list(ATTENTION_FAMILY)}}, set())["q3"]
