"""Run the chapters that train models with other seeds: do their asserts hold?

    .venv/bin/python benchmarks/bench_seeds.py                       # seeds 1 2 3, chapters 01 05 06 07; README
    .venv/bin/python benchmarks/bench_seeds.py --seeds 4 --chapters 05 --no-readme
    .venv/bin/python benchmarks/bench_seeds.py --jobs 2                # two kernels at a time (CPU s stay per run)

Each run executes a notebook top to bottom in a fresh kernel with `SEED` replaced in its parameters cell
(helpers.devtools.execute_notebook, inplace=False: the committed notebook is not touched). A run passes when
every cell, including every assert cell, runs without error; a failure names the assert that failed. CPU seconds
are those of the kernel process (resource.getrusage of finished children), so other jobs on the shared machine do
not inflate them.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import time
from concurrent.futures import ProcessPoolExecutor

from helpers.devtools import chapter_notebooks, execute_notebook, update_readme_section
from helpers.tables import format_table

CHAPTERS = ("01", "05", "06", "07")  # the chapters with a parameters cell and trained models


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_seed(notebook, seed: int) -> dict:
    """Execute `notebook` with SEED = seed: {"passed", "error", "wall", "cpu"}."""
    cpu0, wall0 = _children_cpu(), time.perf_counter()
    error = None
    try:
        execute_notebook(notebook, inplace=False, parameters={"SEED": seed})
    except Exception as e:  # the failing cell's error is the finding
        message = str(e)
        asserts = re.findall(r"AssertionError: ?(.*)", message)
        error = asserts[-1].strip() if asserts else message.strip().splitlines()[-1][:200]
    return {"passed": error is None, "error": error, "wall": time.perf_counter() - wall0,
            "cpu": _children_cpu() - cpu0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--chapters", nargs="+", default=list(CHAPTERS))
    parser.add_argument("--no-readme", action="store_true", help="print only, do not update README.md")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time, each in its own worker process")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    notebooks = [p for p in chapter_notebooks() if p.name[:2] in args.chapters]
    runs = [(path, seed) for path in notebooks for seed in args.seeds]
    rows = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:   # a worker's children are its own kernels
        for (path, seed), r in zip(runs, pool.map(run_seed, *zip(*runs, strict=True)), strict=True):
            verdict = "pass" if r["passed"] else f"**fail**: {r['error']}"
            rows.append([path.name, seed, verdict, f"{r['cpu']:.0f}", f"{r['wall']:.0f}"])
            print(f"{path.name} seed {seed}: {verdict} ({r['cpu']:.0f} s CPU, {r['wall']:.0f} s wall)", flush=True)
    if not args.no_readme:
        text = ("`benchmarks/bench_seeds.py`: each chapter that trains models, executed in a fresh kernel with `SEED` "
                "replaced (the committed notebooks use seed 0). Pass = every cell, including every assert cell, ran "
                f"without error. CPU s = the kernel's CPU time (user + system). Run on {time.strftime('%Y-%m-%d')}, "
                f"chapters {', '.join(args.chapters)}, {args.jobs} run(s) at a time, load average {load:.1f} at the "
                "start.\n\n"
                + format_table(rows, ["notebook", "seed", "asserts", "CPU s", "wall s"], markdown=True))
        update_readme_section("perf-seeds", text)


if __name__ == "__main__":
    main()
