"""The course's scaled_dot_product_attention against torch's fused F.scaled_dot_product_attention.

For each sequence length n: median time of repeated calls (process CPU seconds and wall seconds) and peak
memory (torch profiler's allocation events, see helpers/cost.py), with ours/fused ratios. One torch
thread, as in the notebooks; float32; d = 64; batch 1 x 2 heads by default.

    python benchmarks/bench_attention.py                     # print the table and update README
    python benchmarks/bench_attention.py --no-readme         # print only (default: update README's perf-attention)
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import torch
import torch.nn.functional as F

from helpers import cost
from helpers.attention import scaled_dot_product_attention
from helpers.devtools import update_readme_section
from helpers.tables import format_table

FUNCTIONS = {
    "ours": lambda Q, K, V: scaled_dot_product_attention(Q, K, V),
    "fused": F.scaled_dot_product_attention,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024, 2048, 4096])
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--min-seconds", type=float, default=0.05, help="each timed run repeats the call this long")
    parser.add_argument("--no-readme", action="store_true", help="print only; do not update README.md (perf-attention)")
    args = parser.parse_args()

    torch.set_num_threads(1)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    started = time.perf_counter()
    results = cost.measure_attention(FUNCTIONS, args.sizes, d=args.d, batch=args.batch, heads=args.heads, repeats=1)
    timing = cost.time_attention(FUNCTIONS, args.sizes, d=args.d, batch=args.batch, heads=args.heads,
                                 repeats=args.repeats, min_seconds=args.min_seconds)
    for name in FUNCTIONS:  # time from the batched runs; peak memory from measure_attention (deterministic)
        results[name].update(cpu=timing[name]["cpu"], wall=timing[name]["wall"])
    rows = []
    for i, n in enumerate(args.sizes):
        o, f = ({k: results[name][k][i] for k in ("cpu", "wall", "peak")} for name in ("ours", "fused"))
        rows.append([
            n,
            f"{o['cpu'] * 1e3:.2f}", f"{f['cpu'] * 1e3:.2f}", f"{o['cpu'] / f['cpu']:.1f}x",
            f"{o['wall'] * 1e3:.2f}", f"{f['wall'] * 1e3:.2f}",
            cost.format_bytes(o["peak"]), cost.format_bytes(f["peak"]), f"{o['peak'] / f['peak']:.0f}x",
        ])
    header = ["n", "ours CPU ms", "fused CPU ms", "time ours/fused", "ours wall ms", "fused wall ms",
              "ours peak", "fused peak", "memory ours/fused"]
    exps = {name: (cost.fit_exponent(r["n"], r["cpu"]), cost.fit_exponent(r["n"], r["peak"]))
            for name, r in results.items()}
    note = (
        f"`benchmarks/bench_attention.py`: `helpers.attention.scaled_dot_product_attention` (ours) vs "
        f"`torch.nn.functional.scaled_dot_product_attention` (fused), float32, batch {args.batch} x {args.heads} "
        f"heads, d = {args.d}, **1 torch thread** (as in the notebooks). Time per call: median of {args.repeats} runs, "
        f"each repeating the call for at least {args.min_seconds} s of CPU (`helpers.cost.time_per_call`), "
        f"process CPU time (wall time beside it; the machine is shared, load average {load:.1f} at the start). "
        f"Peak: torch profiler's allocation events (deterministic; `helpers.cost.peak_tracked_bytes`). "
        f"torch {torch.__version__.split('+')[0]}, Python {platform.python_version()}, {os.cpu_count()} cores."
    )
    fit = ("Fitted exponents over these n (CPU time, peak memory): " +
           "; ".join(f"{name} {t:.2f}, {m:.2f}" for name, (t, m) in exps.items()) +
           ". Both take ~n² time; only ours takes ~n² memory. The speed-up of fused over ours (CPU time) went "
           + ", ".join(f"{o / f:.1f}x at n = {n}" for n, o, f in zip(args.sizes, results["ours"]["cpu"],
                                                                     results["fused"]["cpu"], strict=True))
           + ": it is not a constant factor.")
    markdown = "\n\n".join([note, format_table(rows, header, markdown=True), fit])
    print(markdown)
    print(f"\n({time.perf_counter() - started:.1f} s)")
    if not args.no_readme:
        update_readme_section("perf-attention", markdown)
        print("README.md section perf-attention updated")


if __name__ == "__main__":
    main()
