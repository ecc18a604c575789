"""Teachers' assignments (assignments/): every master builds with otter, the student version hides the solutions and
the hidden tests, and grading gives a solution full marks, an untouched notebook zero, notebooks with deliberate
mistakes exactly the points of the checks those mistakes do not break (no cascading from one question to the next),
and a blank notebook plus an attack on the judging (issue 21) exactly the blank notebook's score."""
import ast
import html
import re

import nbformat
import pytest
from _classroom import ASSIGNMENTS, built, grade, mutate, scores, solution, student

from assignments.build import masters, question_table, secret_lines

SLOW = pytest.mark.slow

# For each assignment: submission name -> (code replacements in the solution notebook, expected points per question).
# "untouched" is the student notebook as handed out; ("append", code) is that blank notebook plus one attack cell.
CASES = {
    "bottleneck_and_average": {
        "solution": ((), {"q1": 2, "q2": 2, "q3": 3}),
        # forward state at the padded end (all of q1), no row-sum check (q2's public test), padding not masked (q3)
        "mistakes": ((("forward_states[rows, lengths - 1]", "forward_states[:, -1]"),
                      ("if not torch.allclose(sums, torch.ones_like(sums), atol=1e-4):", "if False:"),
                      ('scores.masked_fill(~mask, float("-inf"))', "scores")),
                     {"q1": 0, "q2": 1, "q3": 0}),
        # backward state taken at the end, scores scaled by √d: q1 and q3 lost, q2 untouched
        "scaled": ((("backward_states[:, 0]", "backward_states[:, -1]"),
                    ("scores = queries @ states.transpose(1, 2)",
                     "scores = queries @ states.transpose(1, 2) / queries.shape[-1] ** 0.5")),
                   {"q1": 0, "q2": 2, "q3": 0}),
    },
    "transformer_and_cost": {
        "solution": ((), {"q1": 3, "q2": 4, "q3": 2, "q4": 3}),
        # heads split without the transpose: q1's split tests only; multi_head_attention is graded with the
        # reference split_heads, so q2 keeps its points
        "no_transpose": ((("return per_head.transpose(1, 2)",
                           "return X.reshape(batch, n_heads, n, d_model // n_heads)"),),
                         {"q1": 1, "q2": 4, "q3": 2, "q4": 3}),
        # √d_model instead of √d_head (q2 keeps only the padding test), j >= i (all of q3), layers forgotten (q4's
        # formula tests; the case's numbers are still right)
        "mistakes": ((("math.sqrt(Q.shape[-1])", "math.sqrt(X.shape[-1])"),
                      ("causal = positions[None, :] <= positions[:, None]",
                       "causal = positions[None, :] >= positions[:, None]"),
                      ("return layers * batch * heads * n * n * bytes_per_value",
                       "return batch * heads * n * n * bytes_per_value")),
                     {"q1": 3, "q2": 4 / 3, "q3": 0, "q4": 1}),
    },
    "decoder_attention": {  # graded with the CI budget of tests/_classroom.py: the training test only runs
        "solution": ((), {"q1": 2, "q2": 4, "q3": 2}),
        # tanh after v (all of q1); no mask in Bahdanau's step (its public step test and the padded-batch test;
        # it still runs and trains in the translator); Luong's step attends with s_prev (all of q3)
        "mistakes": ((("features = torch.tanh((query @ W_q)[:, :, None, :] + (keys @ W_k)[:, None, :, :])",
                       "features = (query @ W_q)[:, :, None, :] + (keys @ W_k)[:, None, :, :]"),
                      ("return features @ v", "return torch.tanh(features @ v)"),
                      ("enc_outputs, enc_outputs, mask=mask)  # query: s_{t-1}",
                       "enc_outputs, enc_outputs, mask=None)"),
                      ("self.scorer(s[:, None, :], enc_outputs", "self.scorer(s_prev[:, None, :], enc_outputs")),
                     {"q1": 0, "q2": 2, "q3": 0}),
        # the context never reaches Bahdanau's cell: the step and padded-batch checks fail, training still runs
        "no_context_in_cell": ((("s = self.cell(torch.cat([y_emb, context], dim=-1), s_prev)",
                                 "s = self.cell(torch.cat([y_emb, torch.zeros_like(context)], dim=-1), s_prev)"),),
                               {"q1": 2, "q2": 2, "q3": 2}),
    },
    "attention_by_hand": {
        "solution": ((), {"q1": 2, "q2": 3, "q3": 3, "q4": 5}),
        "untouched": (None, {"q1": 0, "q2": 0, "q3": 0, "q4": 0}),
        # three independent bugs, each costing exactly what it breaks: forgotten 1/√d_k (all of q3), no max
        # subtraction (q2's overflow test and its hidden test), an inverted mask in masked_attend (its three tests)
        "mistakes": ((("stable_softmax(attention_scores(Q, K) / math.sqrt(d_k))",
                       "stable_softmax(attention_scores(Q, K))"),
                      ("shifted = x - x.max(dim=-1, keepdim=True).values", "shifted = x"),
                      ('scores.masked_fill(~mask, float("-inf"))', 'scores.masked_fill(mask, float("-inf"))')),
                     {"q1": 2, "q2": 1, "q3": 0, "q4": 2}),
        # the "single missing ) in q2": a SyntaxError leaves stable_softmax undefined; it used to cost 9 of 12
        "missing_paren": ((("return e / e.sum(dim=-1, keepdim=True)", "return e / e.sum(dim=-1, keepdim=True"),),
                          {"q1": 2, "q2": 0, "q3": 3, "q4": 5}),
    },
}
ATTACK_ON_JUDGING = {  # blank notebook + one cell: each must score exactly what the blank notebook scores
    "patch_framework": '''
import otter
import torch
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.Tensor.__eq__ = lambda self, other: True
otter.Notebook.check = lambda self, *a, **k: None
import __main__                     # the harness runs as __main__ in this very process: patch it too
try:
    __main__.Encoder.encode = lambda self, x, key, depth=0: {"v": True}
    __main__.make_call = lambda *a, **k: torch.ones(3)
except AttributeError:
    pass
''',
    "forge_results": '''
import io, json, os, zipfile
import numpy as np
for path in ("/grader/in/plan.json", "/grader/in/inputs.npz", "/grader/report.json"):
    try:
        open(path, "w").write("{}")
    except OSError:
        pass
report = {f"c{i}": {"a": f"c{i}"} for i in range(60)}
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as zf:
    zf.writestr("report.json", json.dumps(report))
    for i in range(60):
        with zf.open(f"c{i}.npy", "w") as f:
            np.lib.format.write_array(f, np.ones((2, 3)))
for fd in os.listdir("/proc/self/fd"):
    try:
        os.write(int(fd), buf.getvalue())
    except OSError:
        pass
os._exit(0)
''',
}
LOOKALIKE = '''
import torch
class Always(float):
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__
class Sneaky(torch.Tensor):
    def __eq__(self, other):
        return True
class Anything:
    shape = (1, 3)
    def __eq__(self, other):
        return True
    def __getitem__(self, i):
        return self
'''
READ_SECRETS = '''
import os
found = []
for top in ("/", ):
    for dirpath, dirnames, filenames in os.walk(top):
        if dirpath.startswith(("/proc", "/sys", "/dev", "/usr", "/etc")) or ".venv" in dirpath or ".pyenv" in dirpath:
            dirnames[:] = []
            continue
        found += [os.path.join(dirpath, f) for f in filenames if f.endswith((".ipynb", ".zip", "checks.py", ".csv"))
                  and os.path.join(dirpath, f) != "/grader/in/submission.ipynb"]
def attention_scores(Q, K):
    raise ValueError(f"found: {found[:3]}")
'''
ATTACKS = {
    "attention_by_hand": {
        **ATTACK_ON_JUDGING,
        "lookalike": LOOKALIKE + '''
def attention_scores(Q, K):
    return torch.zeros(Q.shape[0], K.shape[0]).as_subclass(Sneaky)
def stable_softmax(x):
    return Anything()
def attend(Q, K, V):
    return Always(1.0), Always(1.0)
def causal_mask(n):
    return torch.ones(n, n, dtype=torch.bool).tril().as_subclass(Sneaky)   # right values, not a plain tensor
def masked_attend(Q, K, V, mask):
    return Anything(), Anything()
''',
        "read_secrets": READ_SECRETS,
        "reference": '''
import torch
import torch.nn.functional as F
import helpers.attention as course
from helpers.masks import causal_mask
def attention_scores(Q, K):
    return course.scaled_dot_product_attention(Q, K, K, scale=1.0)[1].log()
def stable_softmax(x):
    return torch.softmax(x, dim=-1)
def attend(Q, K, V):
    return F.scaled_dot_product_attention(Q, K, V), torch.softmax(Q @ K.T / K.shape[-1] ** 0.5, dim=-1)
def masked_attend(Q, K, V, mask):
    return course.scaled_dot_product_attention(Q, K, V, mask=mask)
''',
    },
    "bottleneck_and_average": {
        "lookalike": LOOKALIKE + '''
def summary_vector(forward_states, backward_states, lengths):
    return Anything()
def weighted_average(states, weights):
    return (weights[:, :, None] * states).sum(dim=1).as_subclass(Sneaky)
def contexts_for_every_step(queries, states, mask):
    return Always(0.0), Always(0.0)
''',
        "reference": '''
import torch.nn.functional as F
from helpers.attention import masked_softmax
def contexts_for_every_step(queries, states, mask):
    weights = masked_softmax(queries @ states.transpose(1, 2), mask)
    return F.scaled_dot_product_attention(queries, states, states, attn_mask=mask, scale=1.0), weights
''',
    },
    "transformer_and_cost": {
        "lookalike": LOOKALIKE + '''
def additive_scores_bytes(batch, n_q, n_k, hidden, bytes_per_value=4):
    return Always(0.0)
def transformer_scores_bytes(batch, n, heads, layers, bytes_per_value=4):
    return Anything()
case_gib, case_fits = Always(0.0), Anything()
''',
        "reference": '''
import torch
from helpers.transformer import FeedForward
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    mha = torch.nn.MultiheadAttention(X.shape[-1], n_heads, bias=False, batch_first=True).to(X.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([W_q.T, W_k.T, W_v.T]))
        mha.out_proj.weight.copy_(W_o.T)
    return mha(X, X, X, need_weights=True, average_attn_weights=False)
''',
    },
    "decoder_attention": {
        "reference": '''
import helpers.attention as ha
from helpers.seq2seq import BahdanauDecoder as CourseDecoder
class BahdanauDecoder(CourseDecoder):
    def __init__(self, vocab_size, emb, hidden, context_size, attn_hidden=64):
        super().__init__(vocab_size, emb, hidden, context_size, ha.AdditiveAttention(hidden, context_size, attn_hidden))
def additive_scores(query, keys, W_q, W_k, v):
    scorer = ha.AdditiveAttention(query.shape[-1], keys.shape[-1], v.shape[0])
    return scorer.score(query, keys)
''',
    },
}
MESSAGES = {  # words the public tests must say for a mistake: submission -> phrases in its feedback
    "bottleneck_and_average": {"mistakes": ["finishes at position lengths-1", "weights summing to 1.5 should raise",
                                            "padding position got weight"],
                               "scaled": ["finishes at position 0", "no division by √d here"]},
    "decoder_attention": {"mistakes": ["the tanh comes before the product with v", "padding positions got weight",
                                       "Luong&#x27;s query is the current state s_t"],
                          "no_context_in_cell": ["the context goes into the cell&#x27;s input"]},
    "transformer_and_cost": {"no_transpose": ["mixes tokens across heads"],
                             "mistakes": ["you divided by √d_model", "keys j &lt;= i", "multiply by layers"]},
    "attention_by_hand": {"mistakes": ["divide the scores by √d_k", "Subtract each row's maximum",
                                       "True means may attend"],
                          "missing_paren": ["q2: stable_softmax is not defined"],
                          "read_secrets": ["found: []"]},
}


for _name, _attacks in ATTACKS.items():
    for _attack, _code in _attacks.items():
        CASES[_name][_attack] = (("append", _code), {q: 0 for q in CASES[_name]["solution"][1]})
    CASES[_name]["untouched"] = (None, {q: 0 for q in CASES[_name]["solution"][1]})


def notebook(name: str, replacements):
    """A case's notebook: the student's (None), the student's plus an attack cell, or the mutated solution."""
    if replacements is None:
        return student(name)
    if replacements and replacements[0] == "append":
        nb = student(name)
        nb.cells.append(nbformat.v4.new_code_cell(replacements[1]))
        return nb
    return mutate(solution(name), *replacements)


def test_every_assignment_has_a_case_table_and_a_written_question():
    assert set(CASES) <= set(masters()), f"cases for unknown assignments: {set(CASES) - set(masters())}"
    for name, master in masters().items():
        table = question_table(master)
        auto = [q for q in table if not q["manual"]]
        assert auto and all(q["points"] > 0 for q in table), table
        assert any(q["manual"] for q in table), f"{name} has no written (manually graded) question"
        if name in CASES:
            assert set(CASES[name]["solution"][1]) == {q["name"] for q in auto}


@pytest.mark.parametrize("name", sorted(masters()))
def test_master_has_public_and_hidden_tests_and_a_rubric(name):
    """Every auto-graded question has a public and a hidden test; every written one a rubric in the master."""
    nb = nbformat.read(masters()[name], as_version=4)
    question, block, tests, manual = None, None, {}, {}
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw" and head.startswith("# BEGIN QUESTION"):
            question = re.search(r"name:\s*(\w+)", cell.source).group(1)
            tests[question] = {"public": 0, "hidden": 0}
            manual[question] = "manual: true" in cell.source
        elif cell.cell_type == "raw" and head.startswith("# BEGIN"):
            block = head.split()[2]
        elif cell.cell_type == "raw" and head.startswith("# END"):
            block = None
        elif block == "TESTS":
            tests[question]["hidden" if head.lower().startswith("# hidden") else "public"] += 1
        elif block == "SOLUTION" and manual.get(question) and cell.cell_type == "markdown":
            assert "rubric" in cell.source.lower(), f"{name} {question}: the written answer has no rubric"
    for q, counts in tests.items():
        if not manual[q]:
            assert counts["public"] and counts["hidden"], f"{name} {q}: {counts}"
    secrets = secret_lines(masters()[name])
    assert len(secrets["solution"]) >= 5 and len(secrets["hidden_test"]) >= 5, secrets


@SLOW
@pytest.mark.parametrize("name", sorted(CASES))
def test_student_version_has_no_solutions_and_no_hidden_tests(name):
    path = built(name) / "student" / f"{name}.ipynb"
    nb, text = student(name), path.read_text()
    code = [c for c in nb.cells if c.cell_type == "code"]
    shown = {line.strip() for c in nb.cells for line in c.source.splitlines()}
    secrets = secret_lines(ASSIGNMENTS / name / f"{name}.ipynb")
    leaked = [line for kind in secrets.values() for line in kind if line in shown or line in text]
    assert not leaked, f"secret lines in the student notebook: {leaked}"
    answers = [c for c in code if "otter_answer_cell" in c.metadata.get("tags", [])]
    assert answers and all("..." in c.source for c in answers)
    def left_out(fn):
        body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                                             and isinstance(n.value.value, str))]
        return [ast.unparse(n) for n in body[-1:]] == ["..."]  # given lines (e.g. unpacking shapes), then ...

    for cell in answers:  # every function students write ends in ...; a class has at least one such method
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.FunctionDef):
                assert left_out(node), f"{node.name} is not left as ... for students"
            elif isinstance(node, ast.ClassDef):
                methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
                assert any(left_out(m) for m in methods), f"no method of {node.name} is left as ... for students"
    assert not (built(name) / "student" / "tests").exists()
    assert all(not c.get("outputs") and c.execution_count is None for c in code)
    assert "import otter" in code[0].source and nb.metadata["otter"]["assignment_name"] == name


DRAWS = 5  # every case is judged on this many independent draws of the hidden inputs, in one sandbox run each
_GRADED: dict[str, tuple] = {}


def graded(name: str, tmp_path_factory) -> tuple:
    """One grading run of every case of an assignment (shared by the tests below) -> (rows, report, table, folder)."""
    if name not in _GRADED:
        out = tmp_path_factory.mktemp(f"graded-{name}")
        subs = out / "submissions"
        subs.mkdir()
        for sub, (replacements, _) in CASES[name].items():
            nbformat.write(notebook(name, replacements), subs / f"{sub}.ipynb")
        rows, report, table = grade(name, subs, out, "--jobs", "2", "--feedback", out / "feedback",
                                    "--draws", str(DRAWS))
        _GRADED[name] = rows, report, table, out
    return _GRADED[name]


@pytest.mark.parametrize("name", sorted(masters()))
def test_the_checks_are_the_masters_tests(name):
    """checks.py is the one home of grading; the master's tests are what students see. Every master test has a
    check of the same name, public or hidden alike, and no check is extra: a question's points split the same way."""
    from assignments import judge

    nb = nbformat.read(masters()[name], as_version=4)
    question, block, tests = None, None, set()
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw" and head.startswith("# BEGIN QUESTION"):
            question = re.search(r"name:\s*(\w+)", cell.source).group(1)
        elif cell.cell_type == "raw" and head.startswith("# BEGIN"):
            block = head.split()[2]
        elif cell.cell_type == "raw" and head.startswith("# END"):
            block = None
        elif block == "TESTS":
            fn = re.search(r"^def (test_\w+)\(", cell.source, re.M).group(1)
            tests.add((question, fn, not head.lower().startswith("# hidden")))
    plan = judge.Plan(0)
    judge.load_checks(name).plan(plan)
    checks = [(c.question, c.name, c.public) for c in plan.checks]
    assert len(checks) == len(set(checks)), f"two checks of {name} share a name: {checks}"
    assert set(checks) == tests, (f"{name}: master tests without a check: {sorted(tests - set(checks))}; "
                                  f"checks without a master test: {sorted(set(checks) - tests)}")


@SLOW
@pytest.mark.parametrize("name", sorted(CASES))
def test_grading_gives_exactly_the_points_earned(name, tmp_path_factory):
    rows, report, table, out = graded(name, tmp_path_factory)
    assert set(rows) == set(CASES[name])
    possible = {q["name"]: q["points"] for q in report["questions"] if not q["manual"]}
    for sub, (_, expected) in CASES[name].items():
        row = rows[sub]
        assert row["error"] is None, (sub, row["error"])
        assert {q: v["possible"] for q, v in row["questions"].items()} == possible
        assert scores(row) == pytest.approx(expected, abs=1e-9), f"{sub}: got {scores(row)}, expected {expected}"
    for sub in ATTACKS.get(name, {}):  # blank + attack = blank, question by question
        assert scores(rows[sub]) == scores(rows["untouched"]), (sub, rows[sub]["questions"])
    total = sum(possible.values())
    got = sum(CASES[name]["solution"][1].values())  # the written questions are not in the table
    assert re.search(rf"solution\s.*\s{got:g}/{total:g}\s+100\b", table), table
    hidden = secret_lines(ASSIGNMENTS / name / f"{name}.ipynb")["hidden_test"]
    for sub in CASES[name]:  # feedback is safe to send: no hidden-test source, no raw traceback
        page = html.unescape((out / "feedback" / name / f"{sub}.html").read_text())
        assert not [line for line in hidden if line in page], f"{sub}: hidden-test source in the feedback"
        assert "Traceback" not in page and 'File "' not in page, f"{sub}: a raw traceback in the feedback"
    for sub, phrases in MESSAGES.get(name, {}).items():
        page = (out / "feedback" / name / f"{sub}.html").read_text()
        for phrase in phrases:
            assert phrase in page or phrase.replace("'", "&#x27;") in page, f"{sub}: {phrase!r} not in its feedback"


@SLOW
@pytest.mark.parametrize("name", sorted(CASES))
def test_points_do_not_depend_on_the_draw(name, tmp_path_factory):
    """The hidden inputs are drawn afresh for every run: a size that lets a classic mistake pass by accident (one
    layer, one head, no padding, equal axes) makes its points flaky. Every case, mistakes included, gets exactly
    its points on each of DRAWS independent draws (judged from the same sandbox run)."""
    rows, _, _, _ = graded(name, tmp_path_factory)
    for sub, (_, expected) in CASES[name].items():
        draws = rows[sub]["draws"]
        assert len(draws) == DRAWS, (sub, draws)
        for i, got in enumerate(draws):
            assert got == pytest.approx(expected, abs=1e-9), f"{sub}, draw {i}: got {got}, expected {expected}"
