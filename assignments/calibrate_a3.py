"""Calibrate decoder_attention's training test: train the reference decoder for several seeds, report the margins.

    python -m assignments.calibrate_a3                      # seeds 0 1 2 with the master's default budget
    python -m assignments.calibrate_a3 --steps 200 --seeds 0 1 2 3

The hidden test `test_q2_learns_long_sentences` of assignments/decoder_attention trains the student's
BahdanauDecoder for GRADING_A3_STEPS steps and requires a BLEU of at least GRADING_A3_MIN_BLEU on the long test
buckets (31-40 and 41-50). This script runs that very test function (taken from the master) on the master's own
solution, once per seed, and prints the BLEU each seed reaches, its CPU time, and the margin over the threshold.
Re-run it whenever the data or the models change, and keep the threshold well below the worst seed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import time

import nbformat

from assignments.build import masters

TEST = "test_q2_learns_long_sentences"


def master_namespace(name: str = "decoder_attention") -> dict:
    """Execute the master's setup and solution code and the training test's definition -> the namespace."""
    nb = nbformat.read(masters()[name], as_version=4)
    namespace: dict = {}
    block = None
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw":
            block = head.split()[2] if head.startswith(("# BEGIN SOLUTION", "# BEGIN TESTS")) else \
                (None if head.startswith("# END") else block)
            continue
        if cell.cell_type != "code" or (block == "TESTS" and f"def {TEST}(" not in cell.source):
            continue
        skip = ("%", 'print(f"{translator')
        source = "\n".join(line for line in cell.source.splitlines() if not line.startswith(skip))
        if block == "TESTS":
            source = source.split(f"\n{TEST}(")[0]  # the definition, not the call
        exec(compile(source, f"<{name} master>", "exec"), namespace)
    return namespace


def run_seed(namespace: dict, seed: int, steps: int | None) -> tuple[float, float]:
    """(BLEU on the long buckets, CPU seconds) of one training run of the reference decoder."""
    env = {"GRADING_A3_SEED": str(seed), "GRADING_A3_MIN_BLEU": "-1"}
    if steps:
        env["GRADING_A3_STEPS"] = str(steps)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    out = io.StringIO()
    cpu = time.process_time()
    try:
        with contextlib.redirect_stdout(out):
            namespace[TEST](namespace["BahdanauDecoder"])
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    bleu = float(re.search(r"BLEU ([0-9.]+)", out.getvalue()).group(1))
    return bleu, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, help="training steps (default: the master's GRADING_A3_STEPS default)")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    namespace = master_namespace()
    source = nbformat.read(masters()["decoder_attention"], as_version=4)
    text = "\n".join(c.source for c in source.cells)
    steps = args.steps or int(re.search(r'GRADING_A3_STEPS", "(\d+)"', text).group(1))
    threshold = float(re.search(r'GRADING_A3_MIN_BLEU", "([0-9.]+)"', text).group(1))
    results = []
    for seed in args.seeds:
        bleu, cpu = run_seed(namespace, seed, steps)
        results.append(bleu)
        print(f"seed {seed}: long-bucket BLEU {bleu:.2f} after {steps} steps, {cpu:.0f} s CPU", flush=True)
    worst = min(results)
    print(f"threshold {threshold:g}; worst seed {worst:.2f}; margin {worst - threshold:+.2f} BLEU "
          f"({'OK' if worst - threshold >= 5 else 'TOO SMALL: lower the threshold or raise the budget'})")
    return 0 if worst >= threshold else 1


if __name__ == "__main__":
    sys.exit(main())
