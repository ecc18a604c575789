"""Grade 30 submissions of each assignment (contained, as `make grade` does), time it, update the README.

    python benchmarks/bench_grading.py                                  # every assignment, 30 each, 2 at a time
    python benchmarks/bench_grading.py --assignment decoder_attention --n 10 --jobs 1 --no-readme

Issue 21's target: 30 submissions of one assignment in at most 5 minutes on the 2-core machine. The submissions
are the solutions notebook and mutated copies of it (every third has a bug that costs points). The grading runs
with the grader's own budget (A3: `assignments/decoder_attention/checks.py`), not the test suite's. Prints the
wall time, the time per submission, the containment and the load average, and writes the README section
`perf-grading` (the figures are also quoted in assignments/README.md).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checks' lists of graded names (assignments/<name>/checks.py)
# A mistake per assignment (old -> new in the solutions notebook), made in every third submission
MISTAKES = {
    "attention_by_hand": ("math.sqrt(d_k)", "1.0"),
    "bottleneck_and_average": ("backward_states[:, 0]", "backward_states[:, -1]"),
    "decoder_attention": ("enc_outputs, enc_outputs, mask=mask)  # query: s_{t-1}",
                          "enc_outputs, enc_outputs, mask=None)"),
    "transformer_and_cost": ("return per_head.transpose(1, 2)",
                             "return X.reshape(batch, n_heads, n, d_model // n_heads)"),
}
TARGET = 300  # seconds for 30 submissions (issue 21), 3 of which sleep in every function (issue 31)
# A submission that sleeps in every graded function and shrugs off alarms (issue 31): the last `--sleepers` of the
# `--n` submissions. Each call is killed at its limit (a few times the master's time; grade.Grading.call_limits).
SLEEPER = """
import time
def _sleep(*args, **kwargs):
    while True:
        try:
            time.sleep(1000)
        except BaseException:
            pass
for _name in {names!r}:
    globals()[_name] = _sleep
"""


def sleeper(notebook_text: str, name: str) -> str:
    """The solutions notebook with a last cell that replaces every graded function and class by a sleeper."""
    import json

    from assignments import judge

    names = sorted({n for rule in judge.load_checks(name).RULES.values() for n in rule.get("defines", [])})
    nb = json.loads(notebook_text)
    nb["cells"].append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                        "source": SLEEPER.format(names=names)})
    return json.dumps(nb)


def bench(name: str, n: int, jobs: int, tmp: Path, env: dict, sleepers: int = 0) -> dict:
    """Grade `n` submissions of one assignment (the last `sleepers` of them sleepers) -> one table row's figures."""
    solution = tmp / "dist" / name / "autograder" / f"{name}.ipynb"
    subs = tmp / f"submissions-{name}"
    subs.mkdir()
    old, new = MISTAKES[name]
    for i in range(n):
        text = solution.read_text()
        if i % 3 == 2:
            assert old in text, f"{name}: the benchmark's mistake {old!r} is not in the solution"
            text = text.replace(old, new, 1)
        if i >= n - sleepers:
            text = sleeper(text, name)
        (subs / f"student{i:02d}_{name}.ipynb").write_text(text)
    load_start = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "assignments.grade", tmp / "dist" / name, subs, "--jobs", str(jobs),
                           "--csv", tmp / "gradebook.csv"], env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    shutil.rmtree(subs)
    if proc.returncode:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
    return {"name": name, "n": n, "jobs": jobs, "wall": wall, "status": proc.returncode, "sleepers": sleepers,
            "load": (load_start, os.getloadavg()[0]), "containment": proc.stdout.splitlines()[0] if proc.stdout else ""}


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), to say which machine a figure comes from."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU unknown"


def _stored_rows() -> dict[str, list[str]]:
    """{assignment: its row's cells} of the README's perf-grading table as it stands (empty if there is none)."""
    from helpers.devtools.readme import read_section

    try:
        section = read_section("perf-grading")
    except ValueError:
        return {}
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
             if line.startswith("| ")]
    return {row[0]: row for row in cells[1:] if row and row[0] in MISTAKES}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", nargs="*", default=list(MISTAKES), help="default: every assignment")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sleepers", type=int, default=3, help="of the n, how many sleep in every function")
    parser.add_argument("--no-readme", action="store_true")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADING_A3_")}  # the grader's own budget
    env |= {"PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run([sys.executable, "-m", "assignments.build", *args.assignment, "--out", tmp / "dist",
                        "--no-run-tests"], check=True, env=env, cwd=ROOT, capture_output=True)
        for name in args.assignment:
            r = bench(name, args.n, args.jobs, tmp, env, args.sleepers)
            rows.append(r)
            print(f"{r['n']} submissions of {name}, {r['jobs']} at a time: {r['wall']:.0f} s wall "
                  f"({r['wall'] / r['n']:.1f} s per submission); exit status {r['status']}; load average "
                  f"{r['load'][0]:.1f} at the start, {r['load'][1]:.1f} at the end", flush=True)
    print(rows[0]["containment"] if rows else "")
    if not args.no_readme:
        from helpers.devtools import update_readme_section
        from helpers.tables import format_table

        note = (f"`python benchmarks/bench_grading.py`: {args.n} submissions of each assignment (the solution, every "
                f"third with a mistake, the last {args.sleepers} sleeping in every graded function), graded in "
                f"bubblewrap with `--jobs {args.jobs}` and the grader's own budget, "
                f"on "
                f"{os.cpu_count()} cores ({cpu_model()}), {date.today().isoformat()}. Issue 21's target: 30 in at most "
                f"{TARGET} s (issue 31: with 3 of them sleepers). "
                "Wall time depends on what else runs: the load average (1 minute) is recorded at the start and the "
                "end of each assignment; on a loaded machine the figures are upper bounds.")
        fresh = {r["name"]: [r["name"], r["n"], f"{r['wall']:.0f}", f"{r['wall'] / r['n']:.1f}",
                             f"{r['load'][0]:.1f} / {r['load'][1]:.1f}",
                             "yes" if r["wall"] * 30 / r["n"] <= TARGET else "no"] for r in rows}
        kept = {name: row for name, row in _stored_rows().items() if name not in fresh}   # not re-run this time
        if kept:
            note += (" Rows of assignments not graded in the latest run (" + ", ".join(kept) + ") keep the figures of "
                     "the run before it.")
        table = format_table([fresh.get(name) or kept[name] for name in MISTAKES if name in fresh or name in kept],
                             ["assignment", "submissions", "wall s", "s per submission", "load at start / end",
                              f"30 within {TARGET} s"], markdown=True)
        update_readme_section("perf-grading", note + "\n\n" + table)
    return max((r["status"] for r in rows), default=0)


if __name__ == "__main__":
    sys.exit(main())
