"""Train the two translators of chapters 01 and 06 as the notebooks do; time them; score them by length bucket.

    .venv/bin/python benchmarks/bench_translation.py            # writes README section perf-translation
    .venv/bin/python benchmarks/bench_translation.py --wide     # also the 4x wider no-attention model (slow)

CPU seconds are time.process_time() of this process with one torch thread: on a shared 2-core machine they
are a fairer budget than wall seconds, which are reported too.
"""
from __future__ import annotations

import argparse
import platform
import time

import torch

import helpers
from helpers import toylang
from helpers.devtools import update_readme_section
from helpers.seq2seq import make_model
from helpers.tables import format_table
from helpers.training import evaluate_buckets, train

SEED, TRAIN_STEPS = 0, 600     # the notebooks' parameters


def run(kind: str, hidden: int, steps: int, seed: int, train_pairs, test) -> dict:
    """Train one model and evaluate it; returns timings and per-bucket results."""
    model = make_model(kind, emb=64, hidden=hidden, seed=seed)
    log = train(model, train_pairs, steps=steps, seed=seed, progress=False)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    results = evaluate_buckets(model, test)
    return {"log": log, "results": results, "params": model.n_parameters(), "context": model.encoder.output_size,
            "eval_cpu": time.process_time() - cpu0, "eval_wall": time.perf_counter() - wall0}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=TRAIN_STEPS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--wide", action="store_true", help="also train a no-attention model with hidden=512")
    parser.add_argument("--no-readme", action="store_true", help="print only, do not touch README.md")
    args = parser.parse_args(argv)

    helpers.setup(seed=args.seed)
    train_pairs, test = toylang.load_split("train"), toylang.load_test_buckets()
    configs = [("no attention", "none", 128), ("attention (additive)", "attention", 128)]
    if args.wide:
        configs.append(("no attention, 4x wider", "none", 512))
    runs = {}
    for label, kind, hidden in configs:
        runs[label] = run(kind, hidden, args.steps, args.seed, train_pairs, test)
        log = runs[label]["log"]
        print(f"{label}: {log.cpu_seconds:.1f} s CPU, {log.wall_seconds:.1f} s wall, "
              f"{1000 * log.cpu_seconds / log.steps:.0f} ms CPU/step, final loss {log.final_loss():.3f}")

    buckets = list(test)
    timing = format_table([[label, r["context"], f"{r['params']:,}", r["log"].steps, f"{r['log'].cpu_seconds:.1f}",
          f"{r['log'].wall_seconds:.1f}", f"{1000 * r['log'].cpu_seconds / r['log'].steps:.0f}", f"{r['eval_cpu']:.1f}"]
         for label, r in runs.items()], ["model", "context numbers", "parameters", "steps", "train CPU s", "train wall s", "CPU ms/step", "eval CPU s"], markdown=True)
    quality = format_table([[label] + [f"{r['results'][b]['bleu']:.1f}" for b in buckets] + [f"{r['results'][b]['exact']:.0f}%" for b in buckets]
         for label, r in runs.items()], ["model"] + [f"BLEU {b}" for b in buckets] + [f"exact {b}" for b in buckets], markdown=True)
    att = runs["attention (additive)"]["results"]
    align = format_table([["alignment accuracy (attention)"] + [f"{att[b]['align']:.1f}%" for b in buckets]], ["bucket"] + buckets, markdown=True)
    text = (f"`benchmarks/bench_translation.py`: seed {args.seed}, {args.steps} steps of 64 pairs, embedding 64, "
            f"hidden 128 per direction unless noted (see context numbers), one torch thread, python {platform.python_version()}, torch "
            f"{torch.__version__.split('+')[0]}, {len(test['4-10'])} test sentences per bucket, greedy decoding. "
            "CPU seconds = `time.process_time()` of the benchmark process; the machine's 2 cores were shared, "
            "so wall seconds are noisy.\n\n" + timing + "\n\n" + quality + "\n\n" + align)
    print(text)
    if not args.no_readme:
        update_readme_section("perf-translation", text)
        print("README section perf-translation updated")


if __name__ == "__main__":
    main()
