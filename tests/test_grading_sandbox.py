"""Untrusted student code: a hostile submission that loops forever, allocates 10 GB, writes and deletes outside its
folder, opens a socket to 127.0.0.1 and overwrites another submission is contained, and the other submission's
grade does not change. The hostile notebook is the solution plus an attack cell; its answers break if any attack
got through, so its own score reports the containment too."""
import csv
import socket
import threading

import nbformat
import pytest
from _classroom import grade, mutate, scores, solution

from assignments.sandbox import Mode, detect_mode
from helpers import ROOT

NAME = "attention_by_hand"
FULL = {"q1": 2, "q2": 3, "q3": 3, "q4": 5}

ATTACK = '''
import os, socket
escaped = []
try:                                        # 10 GB in one go (the limit is 6 GB of address space)
    hog = bytearray(10 * 2**30)
    hog[::4096] = b"x" * len(hog[::4096])
    escaped.append("memory")
except MemoryError:
    pass
hog = None
target = {target!r}
for attempt, action in [("write", lambda: open(os.path.join(target, "teacher.txt"), "w").write("changed")),
                        ("create", lambda: open(os.path.join(target, "new.txt"), "w").write("new")),
                        ("delete", lambda: os.remove(os.path.join(target, "keep.txt"))),
                        ("gradebook", lambda: open({gradebook!r}, "a").write("victim,0\\n")),
                        ("other submission", lambda: open({victim!r}, "w").write("{{}}"))]:
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
print("escaped:", escaped)
'''
# the answers only work when nothing escaped: each escape costs q1
GUARD = ("return Q @ K.T", "return Q @ K.T if not escaped else Q")


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


def test_containment_mode_is_detected_and_can_be_forced(monkeypatch):
    monkeypatch.setenv("ASSIGNMENTS_SANDBOX", "none")
    assert detect_mode() == Mode("none", "ASSIGNMENTS_SANDBOX=none")
    assert Mode("none", "").prefix() == [] and "--net" in Mode("namespaces", "").prefix()
    assert "--map-root-user" in Mode("userns", "").prefix()


@pytest.mark.slow
def test_hostile_submission_is_contained(tmp_path, listener):
    if detect_mode().name != "namespaces":
        pytest.skip(f"needs root and Linux namespaces here: {detect_mode().reason}")
    port, accepted = listener
    # a teacher's folder outside /tmp (tmp is private to each submission anyway), git-ignored
    target = ROOT / "tests" / "artifacts" / f"sandbox-target-{tmp_path.name}"
    target.mkdir(parents=True)
    (target / "teacher.txt").write_text("teacher")
    (target / "keep.txt").write_text("keep")
    subs, gradebook = tmp_path / "submissions", tmp_path / "out" / "gradebook.csv"
    subs.mkdir()
    gradebook.parent.mkdir()
    try:
        good = solution(NAME)
        nbformat.write(good, subs / "good.ipynb")
        before = (subs / "good.ipynb").read_bytes()
        hostile = mutate(good, GUARD)
        attack = ATTACK.format(target=str(target), gradebook=str(gradebook), victim=str(subs / "good.ipynb"), port=port)
        hostile.cells.insert(2, nbformat.v4.new_code_cell(attack))
        hostile.cells.insert(3, nbformat.v4.new_code_cell("while True:\n    pass"))  # stopped by the cell limit
        nbformat.write(hostile, subs / "hostile.ipynb")

        rows, _, table = grade(NAME, subs, tmp_path, "--jobs", "2", "--cell-timeout", "30", "--timeout", "300",
                               "--csv", gradebook)
        assert rows["good"]["error"] is None and scores(rows["good"]) == FULL, table
        assert rows["hostile"]["error"] is None, rows["hostile"]["error"]
        assert scores(rows["hostile"]) == FULL, f"an attack escaped (q1 lost): {rows['hostile']['questions']['q1']}"
        assert (target / "teacher.txt").read_text() == "teacher" and (target / "keep.txt").read_text() == "keep"
        assert sorted(p.name for p in target.iterdir()) == ["keep.txt", "teacher.txt"]
        assert (subs / "good.ipynb").read_bytes() == before
        assert not accepted, "the submission reached a server on the host's 127.0.0.1"
        with open(gradebook, newline="") as f:
            book = {r["student"]: r for r in csv.DictReader(f)}
        assert set(book) == {"good", "hostile"} and book["good"][f"{NAME}.total"] == "13"
    finally:
        for p in target.iterdir():
            p.unlink()
        target.rmdir()


@pytest.mark.slow
def test_a_submission_that_never_ends_is_stopped(tmp_path):
    """A test that calls a function looping forever is not a cell: the per-submission limit ends it."""
    from assignments.sandbox import Limits, run_contained

    nb = mutate(solution(NAME), ("return Q @ K.T", "while True:\n        pass"))
    for cell in nb.cells:  # keep the notebook's own run short: the example call would hit the cell limit first
        cell.source = cell.source.replace("example_scores = attention_scores(Q_example, K_example)", "")
    path = tmp_path / f"{NAME}.ipynb"
    nbformat.write(nb, path)
    from _classroom import built

    from assignments.build import autograder_zip
    report = run_contained(path, autograder_zip(built(NAME)), NAME, Limits(cell_seconds=5, submission_seconds=25))
    assert report == {"error": "grading stopped after the time limit of 25 s for one submission"}
