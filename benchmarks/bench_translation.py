"""Train chapter 05's two translators and chapter 07's Transformer as the notebooks do; time them; score by length.

    .venv/bin/python benchmarks/bench_translation.py                 # seed 0; writes README section perf-translation
    .venv/bin/python benchmarks/bench_translation.py --seeds 0 1     # several seeds, one table each
    .venv/bin/python benchmarks/bench_translation.py --wide          # also the 4x wider no-attention model (slow)

BLEU and exact match are scored against every valid reference of a sentence (helpers.toylang.references),
decoding up to helpers.toylang.max_target_length words. The run ends with the issue's targets, checked per seed:
attention >= 85 BLEU on every bucket 4-10 ... 31-40, its 31-40 score >= 0.85x its 4-10 score, the no-attention
model's 31-40 score <= 0.5x its 4-10 score, each model trained in <= 75 s of CPU.

CPU seconds are time.process_time() of this process with one torch thread: on a shared 2-core machine they
are a fairer budget than wall seconds, which are reported too.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import torch

import helpers
from helpers import toylang
from helpers.devtools import update_readme_section
from helpers.seq2seq import make_model
from helpers.tables import format_table
from helpers.training import evaluate_buckets, train
from helpers.transformer import TRANSFORMER_TRAINING, make_transformer

LOAD = os.getloadavg()[0]
SEED, TRAIN_STEPS = 0, 450     # chapter 05's parameters
BATCH, LR = 32, 5e-3           # chapter 05's batch size and peak learning rate
TRANSFORMER_STEPS = 800        # chapter 07's Transformer (same batch size; its own learning rate and warm-up)
TRANSFORMER = "Transformer (chapter 07)"
ATTENTION, NO_ATTENTION = "attention (Luong's wiring, additive scorer)", "no attention"
SEEN = [toylang.bucket_name(lo, hi) for lo, hi in toylang.TEST_BUCKETS if hi <= toylang.TRAIN_LENGTHS[1]]
MIN_BLEU, MIN_KEEP, MAX_KEEP_NONE, MAX_CPU = 85.0, 0.85, 0.5, 75.0


def train_and_score(model, context, seed: int, train_pairs, test, **train_args) -> dict:
    """Train `model` (train_args go to helpers.training.train) and evaluate it; timings and per-bucket results."""
    log = train(model, train_pairs, batch_size=BATCH, seed=seed, progress=False, **train_args)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    results = evaluate_buckets(model, test)
    return {"log": log, "results": results, "params": model.n_parameters(), "context": context,
            "eval_cpu": time.process_time() - cpu0, "eval_wall": time.perf_counter() - wall0}


def run(kind: str, hidden: int, steps: int, seed: int, train_pairs, test) -> dict:
    """One of chapter 05's RNN translators, trained with chapter 05's batch size and learning rate."""
    model = make_model(kind, emb=64, hidden=hidden, seed=seed)
    return train_and_score(model, model.encoder.output_size, seed, train_pairs, test, steps=steps, lr=LR)


def run_transformer(seed: int, train_pairs, test) -> dict:
    """Chapter 07's Transformer, trained as the notebook does (same keys as `run`)."""
    return train_and_score(make_transformer(seed=seed), "n × 64", seed, train_pairs, test, steps=TRANSFORMER_STEPS,
                           lr=TRANSFORMER_TRAINING["lr"], warmup=TRANSFORMER_TRAINING["warmup"])


def check_targets(runs: dict) -> list[tuple[str, str, bool]]:
    """The issue's targets for one seed: (target, measured, met)."""
    att, none = runs[ATTENTION]["results"], runs[NO_ATTENTION]["results"]
    first, last = SEEN[0], SEEN[-1]
    worst = min(SEEN, key=lambda b: att[b]["bleu"])
    out = [(f"attention BLEU >= {MIN_BLEU:g} on {first} ... {last}", f"lowest {att[worst]['bleu']:.1f} ({worst})",
            att[worst]["bleu"] >= MIN_BLEU)]
    keep = att[last]["bleu"] / max(att[first]["bleu"], 1e-9)
    out.append((f"attention {last} >= {MIN_KEEP}x {first}", f"{keep:.2f}x", keep >= MIN_KEEP))
    keep_none = none[last]["bleu"] / max(none[first]["bleu"], 1e-9)
    out.append((f"no attention {last} <= {MAX_KEEP_NONE}x {first}", f"{keep_none:.2f}x", keep_none <= MAX_KEEP_NONE))
    for label in runs:
        cpu = runs[label]["log"].cpu_seconds
        out.append((f"{label} trains in <= {MAX_CPU:g} s CPU", f"{cpu:.1f} s", cpu <= MAX_CPU))
    return out


def report(runs: dict, seed: int, steps: int, buckets: list[str]) -> str:
    """Markdown tables for one seed: timing, quality, alignment, targets."""
    timing_rows = [[label, r["context"], f"{r['params']:,}", r["log"].steps, f"{r['log'].cpu_seconds:.1f}",
                    f"{r['log'].wall_seconds:.1f}", f"{1000 * r['log'].cpu_seconds / r['log'].steps:.0f}",
                    f"{r['eval_cpu']:.1f}"] for label, r in runs.items()]
    timing = format_table(timing_rows, ["model", "context numbers", "parameters", "steps", "train CPU s",
                                        "train wall s", "CPU ms/step", "eval CPU s"], markdown=True)
    quality_rows = [[label] + [f"{r['results'][b]['bleu']:.1f}" for b in buckets]
                    + [f"{r['results'][b]['exact']:.0f}%" for b in buckets] for label, r in runs.items()]
    quality = format_table(quality_rows, ["model"] + [f"BLEU {b}" for b in buckets]
                           + [f"exact {b}" for b in buckets], markdown=True)
    att = runs[ATTENTION]["results"]
    align = format_table([["alignment accuracy"] + [f"{att[b]['align']:.1f}%" for b in buckets],
                          ["attention mass on gold"] + [f"{att[b]['mass']:.2f}" for b in buckets]],
                         [f"attention, seed {seed}"] + buckets, markdown=True)
    targets = format_table([[t, m, "yes" if ok else "**no**"] for t, m, ok in check_targets(runs)],
                           ["target", "measured", "met"], markdown=True)
    return f"**Seed {seed}**, {steps} steps\n\n" + "\n\n".join([timing, quality, align, targets])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=TRAIN_STEPS)
    parser.add_argument("--seeds", type=int, nargs="+", default=[SEED])
    parser.add_argument("--wide", action="store_true", help="also train a no-attention model with hidden=512")
    parser.add_argument("--no-readme", action="store_true", help="print only, do not touch README.md")
    args = parser.parse_args(argv)

    train_pairs, test = toylang.load_split("train"), toylang.load_test_buckets()
    configs = [(NO_ATTENTION, "none", 128), (ATTENTION, "attention", 128)]
    if args.wide:
        configs.append(("no attention, 4x wider", "none", 512))
    sections, all_met = [], True
    for seed in args.seeds:
        helpers.setup(seed=seed, quiet=True)
        runs = {}
        for label, kind, hidden in configs:
            runs[label] = run(kind, hidden, args.steps, seed, train_pairs, test)
            log = runs[label]["log"]
            print(f"seed {seed}, {label}: {log.cpu_seconds:.1f} s CPU, {log.wall_seconds:.1f} s wall, "
                  f"{1000 * log.cpu_seconds / log.steps:.0f} ms CPU/step, final loss {log.final_loss():.3f}",
                  flush=True)
        runs[TRANSFORMER] = run_transformer(seed, train_pairs, test)
        print(f"seed {seed}, {TRANSFORMER}: {runs[TRANSFORMER]['log'].cpu_seconds:.1f} s CPU", flush=True)
        sections.append(report(runs, seed, args.steps, list(test)))
        all_met &= all(ok for _, _, ok in check_targets(runs))
        print(sections[-1], flush=True)

    text = (f"`benchmarks/bench_translation.py`: seeds {', '.join(map(str, args.seeds))}, {args.steps} steps of "
            f"{BATCH} pairs (peak learning rate {LR:g}), embedding 64, hidden 128 per direction unless noted (see "
            f"context numbers); the Transformer {TRANSFORMER_STEPS} steps as in chapter 07; one torch thread, "
            f"python {platform.python_version()}, torch {torch.__version__.split('+')[0]}, {len(test[SEEN[0]])} test "
            "sentences per bucket, greedy decoding up to `toylang.max_target_length` words, BLEU and exact match "
            "against every valid reference. CPU seconds = `time.process_time()` of the benchmark process; "
            f"load average {LOAD:.1f} at the start on {os.cpu_count()} cores (wall seconds are the noisier number)."
            "\n\n" + "\n\n".join(sections)
            + f"\n\nAll targets met: {'yes' if all_met else 'no'}.")
    if not args.no_readme:
        update_readme_section("perf-translation", text)
        print("README section perf-translation updated")


if __name__ == "__main__":
    main()
