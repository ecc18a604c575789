"""Grade 30 submissions of one assignment (contained, as `make grade` does) and time it.

    python benchmarks/bench_grading.py                       # attention_by_hand, 30 submissions, 2 at a time
    python benchmarks/bench_grading.py --n 10 --jobs 1

The submissions are the solutions notebook and mutated copies of it (a third with a bug). Prints the wall time, the
time per submission and the containment (bubblewrap); the result is recorded by hand in the README's Performance
section and assignments/README.md.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="attention_by_hand")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run([sys.executable, "-m", "assignments.build", args.assignment, "--out", tmp / "dist",
                        "--no-run-tests"], check=True, env=env, cwd=ROOT, capture_output=True)
        solution = tmp / "dist" / args.assignment / "autograder" / f"{args.assignment}.ipynb"
        subs = tmp / "submissions"
        subs.mkdir()
        for i in range(args.n):
            text = solution.read_text()
            if i % 3 == 2:  # a third of the class forgot the scaling or another line: some failed tests
                text = text.replace("math.sqrt(d_k)", "1.0", 1)
            (subs / f"student{i:02d}_{args.assignment}.ipynb").write_text(text)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "assignments.grade", tmp / "dist" / args.assignment, subs,
                               "--jobs", str(args.jobs), "--csv", tmp / "gradebook.csv"], env=env, cwd=ROOT,
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
        shutil.rmtree(subs)
    print(proc.stdout.splitlines()[0])
    print(f"{args.n} submissions of {args.assignment}, {args.jobs} at a time: {wall:.0f} s wall "
          f"({wall / args.n:.1f} s per submission); exit status {proc.returncode}; cores {os.cpu_count()}, "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
