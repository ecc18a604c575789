"""What pinning the CPU kernels costs: training steps of the chapter-05 models, default kernels against pinned.

    python benchmarks/bench_pinning.py [--steps 60] [--rounds 2] [--no-readme]

Each run is a fresh process (torch chooses its kernels when it loads). The settings alternate, round after round,
so that a change in the machine's load falls on both. Prints CPU ms per step and writes README section perf-pinning.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from helpers import pinning

CHILD = r"""
import json, sys, torch
import helpers
from helpers.seq2seq import make_model
from helpers.toylang import load_split
from helpers.training import train
kind, steps = sys.argv[1], int(sys.argv[2])
helpers.setup(seed=0, quiet=True)
pairs = load_split("train")
model = make_model(kind=kind, seed=0)
train(model, pairs, steps=5, batch_size=32, progress=False)            # warm-up
log = train(model, pairs, steps=steps, batch_size=32, lr=5e-3, progress=False)
print(json.dumps({"cpu_ms_per_step": 1000 * log.cpu_seconds / log.steps,
                  "kernels": torch.backends.cpu.get_cpu_capability()}))
"""


def measure(kind: str, steps: int, pinned: bool) -> dict:
    """CPU ms per training step, and the kernels ATen chose, in a fresh process pinned or not."""
    base = {k: v for k, v in os.environ.items() if k not in pinning.PINNED}
    env = pinning.pinned_env(base) if pinned else base | {pinning.OFF_SWITCH: "off", **pinning.THREADS}
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(steps)], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-readme", action="store_true")
    args = parser.parse_args()
    if pinning.cpu_reason():
        sys.exit(f"nothing to compare: {pinning.cpu_reason()}")
    rows = []
    for kind in ("none", "attention"):
        ms = {False: [], True: []}
        for _ in range(args.rounds):
            for pinned in (False, True):
                r = measure(kind, args.steps, pinned)
                ms[pinned].append(r["cpu_ms_per_step"])
                print(f"{kind:<10} {'pinned ' + r['kernels'] if pinned else 'default ' + r['kernels']:<16} "
                      f"{r['cpu_ms_per_step']:7.1f} ms/step CPU", flush=True)
        default, pinned = statistics.median(ms[False]), statistics.median(ms[True])
        rows.append([kind, f"{default:.0f}", f"{pinned:.0f}", f"{pinned / default:.2f}"])
    if not args.no_readme:
        from helpers.devtools import update_readme_section
        from helpers.tables import format_table

        note = (f"`python benchmarks/bench_pinning.py`: {args.steps} training steps (batch 32, as in the chapters) of "
                f"the chapter-05 models, median of {args.rounds} fresh processes per setting, settings alternating. "
                "Default: the kernels torch picks on this CPU; pinned: `helpers/pinning.py`.")
        update_readme_section("perf-pinning", note + "\n\n" + format_table(
            rows, ["model", "default ms / step (CPU)", "pinned ms / step (CPU)", "pinned / default"], markdown=True))


if __name__ == "__main__":
    main()
