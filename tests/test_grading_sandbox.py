"""Untrusted student code (issue 21). The sandbox computes, the grader judges: a blank submission plus any attack
scores what the blank one scores, is contained, and leaves the other students' grades and the gradebook alone.

One grading run of attention_by_hand grades the honest solution, the blank notebook and a blank notebook with the
containment attacks (a loop, 40 GB, a fork bomb, a gigabyte of output, writes outside its folder and into the
gradebook, a connection to a listener on the host's 127.0.0.1, a process left running). The attacks on the
judging itself (patched frameworks, forged results, look-alike objects, reading secrets, calling the course's
reference code) are graded in tests/test_assignments.py, in the same run as each assignment's other cases."""
import ast
import csv
import html
import os
import socket
import threading
from pathlib import Path

import nbformat
import pytest
from _classroom import grade, scores, solution, student

from assignments import sandbox
from helpers import ROOT

NAME = "attention_by_hand"
FULL = {"q1": 2, "q2": 3, "q3": 3, "q4": 5}
BLANK = {"q1": 0, "q2": 0, "q3": 0, "q4": 0}
MARK = "sleep 987654"

CONTAINMENT = '''
import os, socket, sys
escaped = []


def attention_scores(Q, K):                  # defined first: the cell may hit its time limit while printing
    raise ValueError(f"escaped: {{escaped}}")


try:                                        # 40 GB in one go (the limit is 6 GB of address space)
    hog = bytearray(40 * 2**30)
    escaped.append("memory")
except MemoryError:
    pass
hog = None
target = {target!r}
for attempt, action in [("write", lambda: open(os.path.join(target, "teacher.txt"), "w").write("changed")),
                        ("create", lambda: open(os.path.join(target, "new.txt"), "w").write("new")),
                        ("delete", lambda: os.remove(os.path.join(target, "keep.txt"))),
                        ("gradebook", lambda: open({gradebook!r}, "a").write("victim,0\\n")),
                        ("other submission", lambda: open({victim!r}, "w").write("{{}}")),
                        ("read other submission", lambda: open({victim!r}).read()),
                        ("read masters", lambda: os.listdir({masters!r}))]:
    try:
        action()
        escaped.append(attempt)
    except OSError:
        pass
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
    escaped.append("socket")
except OSError:
    pass
os.posix_spawn("/bin/sh", ["sh", "-c", "{mark}"], dict(os.environ), setsid=True)   # left running afterwards
kids = 0
for _ in range(2000):                        # a fork bomb, stopped by the process limit
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        import time
        time.sleep(30)
        os._exit(0)
    kids += 1
if kids >= 2000:
    escaped.append("processes")
for _ in range(1024):                        # a gigabyte of output
    sys.stdout.write("x" * 2**20)
'''


@pytest.fixture
def listener():
    """A TCP server on the host's 127.0.0.1 that counts connections."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.5)
    accepted, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                accepted.append(conn)
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(timeout=2)
    server.close()


def _running(mark: str) -> list[str]:
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if mark in (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    found.append(p.name)
            except OSError:
                pass
    return found


def test_bwrap_is_required_unless_the_teacher_accepts_no_containment(monkeypatch):
    monkeypatch.setattr(sandbox, "_STATUS", {"bwrap": "bubblewrap is not installed"})
    with pytest.raises(sandbox.SandboxUnavailable, match="--no-sandbox-i-understand"):
        sandbox.describe(unsafe=False)
    assert sandbox.describe(unsafe=True).startswith("NONE (--no-sandbox-i-understand)")
    with pytest.raises(sandbox.SandboxUnavailable):
        sandbox.run_contained({}, sandbox.Limits())


def test_the_sandbox_is_bubblewrap_with_every_limit():
    cmd = sandbox.bwrap_command(Path("/tmp/in"), sandbox.Limits(), fd=7)
    assert cmd[0] == "bwrap" and {"--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session",
                                  "--clearenv"} <= set(cmd)
    binds = {cmd[i + 2] for i, c in enumerate(cmd) if c in ("--ro-bind", "--bind")}
    assert "--bind" not in cmd, "nothing of the host is mounted writable"
    assert str(ROOT / "helpers") in binds and str(ROOT / "assignments") not in binds and str(ROOT) not in binds
    assert str(ROOT / "tests") not in binds and "/grader/harness.py" in binds
    if os.geteuid() == 0:
        assert "setpriv" in cmd and f"--reuid={sandbox.NOBODY}" in cmd
    limits = " ".join(sandbox.prlimit_prefix(sandbox.Limits()))
    assert all(f"--{k}=" in limits for k in ("as", "cpu", "fsize", "nproc"))
    env = sandbox.sandbox_env("/sub")
    assert env["OMP_NUM_THREADS"] == "1" and env["HOME"] == "/sub"


def test_no_pickle_and_no_student_object_crosses_the_boundary():
    """The grader's side of the boundary reads JSON and .npy with allow_pickle=False, and nothing else."""
    for module in ("sandbox", "judge", "grade"):
        tree = ast.parse((ROOT / "assignments" / f"{module}.py").read_text())
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
            {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
            {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        assert not names & {"pickle", "cloudpickle", "dill", "loads_pickle", "unpickle", "eval", "exec", "marshal",
                            "Unpickler", "joblib"}, module
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            for kw in call.keywords:
                if kw.arg == "allow_pickle":
                    assert isinstance(kw.value, ast.Constant) and kw.value.value is False, module
    import io
    import zipfile

    import numpy as np

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("report.json", '{"c0": {"a": "c0"}}')
        with zf.open("c0.npy", "w") as f:
            np.save(f, np.array([object()], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError):
        sandbox.read_results(buf.getvalue())


@pytest.mark.slow
def test_hostile_submission_is_contained(tmp_path, listener):
    port, accepted = listener
    target = ROOT / "tests" / "artifacts" / f"sandbox-target-{tmp_path.name}"  # a teacher's folder, git-ignored
    target.mkdir(parents=True)
    (target / "teacher.txt").write_text("teacher")
    (target / "keep.txt").write_text("keep")
    subs, gradebook = tmp_path / "submissions", tmp_path / "out" / "gradebook.csv"
    subs.mkdir()
    gradebook.parent.mkdir()
    try:
        nbformat.write(solution(NAME), subs / "good.ipynb")
        nbformat.write(student(NAME), subs / "blank.ipynb")
        before = (subs / "good.ipynb").read_bytes()
        hostile = student(NAME)
        attack = CONTAINMENT.format(target=str(target), gradebook=str(gradebook), victim=str(subs / "good.ipynb"),
                                    masters=str(ROOT / "assignments" / NAME), port=port, mark=MARK)
        hostile.cells.append(nbformat.v4.new_code_cell("while True:\n    pass"))  # stopped by the cell limit
        hostile.cells.append(nbformat.v4.new_code_cell(attack))
        nbformat.write(hostile, subs / "hostile.ipynb")

        rows, _, table = grade(NAME, subs, tmp_path, "--jobs", "2", "--cell-timeout", "20", "--timeout", "300",
                               "--csv", gradebook, "--feedback", tmp_path / "feedback")
        assert rows["good"]["error"] is None and scores(rows["good"]) == FULL, table
        assert rows["hostile"]["error"] is None, rows["hostile"]["error"]
        assert scores(rows["hostile"]) == scores(rows["blank"]) == BLANK, table
        page = html.unescape((tmp_path / "feedback" / NAME / "hostile.html").read_text())
        q1 = rows["hostile"]["questions"]["q1"]["tests"][0]["message"]
        assert "escaped: []" in page, f"an attack got out (named here) or the attack cell did not run: {q1}"
        assert (target / "teacher.txt").read_text() == "teacher" and (target / "keep.txt").read_text() == "keep"
        assert sorted(p.name for p in target.iterdir()) == ["keep.txt", "teacher.txt"]
        assert (subs / "good.ipynb").read_bytes() == before
        assert not accepted, "the submission reached a server on the host's 127.0.0.1"
        assert not _running(MARK), "a process of the submission is still running"
        with open(gradebook, newline="") as f:
            book = {r["student"]: r for r in csv.DictReader(f)}
        assert set(book) == {"good", "blank", "hostile"} and book["good"][f"{NAME}.total"] == "13"
        assert book["hostile"][f"{NAME}.total"] == "0"
    finally:
        for p in target.iterdir():
            p.unlink()
        target.rmdir()


@pytest.mark.slow
def test_a_submission_that_never_ends_is_stopped():
    """A function that loops forever in a call: the per-submission limit ends the whole sandbox."""
    from assignments.judge import Plan

    nb = student(NAME)
    nb.cells.append(nbformat.v4.new_code_cell("def attention_scores(Q, K):\n    while True:\n        pass"))
    p = Plan(0)
    p.call("attention_scores", [1.0], [2.0])
    files = p.files(nbformat.writes(nb).encode(), cell_seconds=60)
    report = sandbox.run_contained(files, sandbox.Limits(cell_seconds=60, submission_seconds=15))
    assert report == {"error": "grading stopped after the time limit of 15 s for one submission"}


CHILDREN = '''
import os, sys, time
pids = []
for i in range(3):                          # three children, each touching 300 MB: 900 MB in all
    pid = os.fork()
    if pid == 0:
        try:
            block = bytearray(300 * 2**20)
            for k in range(0, len(block), 4096):
                block[k] = 1
            time.sleep(3)
            os._exit(0)
        except MemoryError:
            os._exit(3)
    pids.append(pid)
held = sum(os.waitpid(pid, 0)[1] == 0 for pid in pids)
forks = 0
for _ in range(200):                        # then as many processes as it may have
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    forks += 1
print(f"held={held} forks={forks}", flush=True)
'''


@pytest.mark.slow
def test_memory_and_processes_are_limited_per_submission(tmp_path):
    """Issue 31 item 6: `prlimit` limits each process, so 3 children held 6.3 GB against a 6 GB limit. A cgroup
    per submission caps them together: with 500 MB for the whole sandbox, three children of 300 MB cannot all hold
    theirs, and a 40-process cap stops the forks (prlimit's per-user count would have allowed 256 for all
    submissions together). Where no cgroup can be made, grading says so in its log line and this is skipped."""
    import subprocess
    import sys

    limits = sandbox.Limits(total_memory_bytes=500 << 20, processes=40)
    cgroup = sandbox.SubmissionCgroup(limits)
    if cgroup.why_not:
        if os.environ.get("REQUIRE_CGROUP"):
            pytest.fail(f"REQUIRE_CGROUP is set, but no cgroup can be made: {cgroup.why_not}")
        pytest.skip(f"no cgroup here: {cgroup.why_not}")
    try:
        os.chmod(tmp_path, 0o755)
        cmd = cgroup.wrap([*sandbox.prlimit_prefix(sandbox.Limits()),
                           *sandbox.bwrap_command(tmp_path, limits, inner=[sys.executable, "-c", CHILDREN])])
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    finally:
        cgroup.remove()
    held, forks = (int(x.split("=")[1]) for x in proc.stdout.split())
    assert held < 3, f"three children held 900 MB against a 500 MB cgroup: {proc.stdout} {proc.stderr[-300:]}"
    assert forks < 40, f"the submission made {forks} processes against a cap of 40"
    assert not cgroup.folders and not any(p.exists() for p in cgroup.procs)
    assert "a cgroup per submission" in sandbox.describe(unsafe=False)
