"""Why the course sets one torch thread: time training steps of the chapter-05 models with 1 and 2 threads.

    python benchmarks/bench_threads.py [--steps 40] [--no-readme]

Each setting runs in its own process (torch's thread pool is fixed once used); prints ms per step and writes
README section perf-threads.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys, time, torch
import helpers
from helpers.seq2seq import make_model
from helpers.toylang import load_split
from helpers.training import train
threads, kind, steps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
helpers.setup(seed=0, threads=threads, quiet=True)
pairs = load_split("train")
model = make_model(kind=kind, seed=0)
train(model, pairs, steps=5, progress=False)            # warm-up
log = train(model, pairs, steps=steps, progress=False)
print(json.dumps({"ms_per_step": 1000 * log.wall_seconds / log.steps,
                  "cpu_ms_per_step": 1000 * log.cpu_seconds / log.steps}))
"""


def measure(threads: int, kind: str, steps: int) -> dict:
    """ms per training step (wall and CPU) of a fresh process with `threads` torch threads."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(threads), kind, str(steps)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def busy_core() -> subprocess.Popen:
    """Another process that keeps one core busy (what a second notebook in `make test` does)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--no-readme", action="store_true")
    args = parser.parse_args()
    rows = []
    for kind in ("none", "attention"):
        for busy in (False, True):
            for threads in (1, 2):
                other = busy_core() if busy else None
                try:
                    r = measure(threads, kind, args.steps)
                finally:
                    if other is not None:
                        other.kill()
                        other.wait()
                load = "one core busy" if busy else "idle"
                rows.append([kind, load, threads, f"{r['ms_per_step']:.0f}", f"{r['cpu_ms_per_step']:.0f}"])
                print(f"{kind:<10} {load:<14} threads={threads}  {r['ms_per_step']:7.0f} ms/step wall  "
                      f"{r['cpu_ms_per_step']:7.0f} ms/step CPU", flush=True)
    if not args.no_readme:
        from helpers.devtools import update_readme_section
        from helpers.tables import format_table

        note = (f"`python benchmarks/bench_threads.py`: {args.steps} training steps (batch 64) of the chapter-05 "
                "models "
                "in a fresh process per setting, with the other core idle or kept busy by another process (as when "
                "`make test` runs two notebooks at once). The notebooks use `helpers.setup(threads=1)`: a second "
                "thread helps only while the other core is idle, always costs more CPU per step, and a fixed thread "
                "count keeps the committed, strictly compared outputs reproducible.")
        update_readme_section("perf-threads", note + "\n\n" + format_table(
            rows, ["model", "other core", "torch threads", "ms / step (wall)", "ms / step (CPU)"], markdown=True))


if __name__ == "__main__":
    main()
