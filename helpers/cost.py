"""What attention costs: parameters, timing, peak memory, the fitted exponent, the arithmetic of n x n matrices.

Two honest ways to see peak memory on a CPU (``tracemalloc`` does not see torch's allocations):

* ``peak_tracked_bytes``: torch's profiler records every allocation and free made through torch's CPU
  allocator, including the scratch buffers inside fused kernels; the peak of the running total is the
  answer. It depends only on tensor sizes, so it is deterministic.
* ``peak_rss_bytes``: the operating system's high-water mark of the process's resident memory (Linux:
  reset through /proc/self/clear_refs, read as VmHWM). Noisier, but it sees everything; use it to cross-check.
"""
from __future__ import annotations

import contextlib
import gc
import math
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers import i18n

__all__ = [
    "count_parameters",
    "random_qkv",
    "time_call",
    "time_per_call",
    "time_attention",
    "quiet_stderr",
    "peak_tracked_bytes",
    "peak_rss_bytes",
    "peak_rss_fresh",
    "saved_for_backward",
    "called_ops",
    "fit_exponent",
    "score_matrix_bytes",
    "smallest_batch_over",
    "additive_attention_bytes",
    "smallest_over",
    "format_bytes",
    "source_module_verdict",
    "SeedBahdanauAttention",
    "decoder_loop_memory",
    "fit_quadratic",
    "measure_attention",
    "GiB",
    "MiB",
]

MiB = 2**20
GiB = 2**30


def count_parameters(module: torch.nn.Module) -> int:
    """Number of trainable numbers in a module (0 for the dot-product scorers)."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


def random_qkv(n: int, d: int = 64, batch: int = 1, heads: int = 1, seed: int = 0,
               dtype: torch.dtype = torch.float32, requires_grad: bool = False):
    """Seeded random Q, K, V of unit variance.  -> three tensors (batch, heads, n, d)"""
    if n < 1 or d < 1 or batch < 1 or heads < 1:
        raise ValueError(f"random_qkv needs positive sizes; got n={n}, d={d}, batch={batch}, heads={heads}")
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(batch, heads, n, d, generator=gen, dtype=dtype).requires_grad_(requires_grad)
                 for _ in range(3))


def time_call(fn: Callable[[], object], repeats: int = 5, warmup: int = 1, number: int = 1) -> dict[str, float]:
    """Seconds per call of fn(): {'wall': perf_counter seconds, 'cpu': process CPU seconds}, each the median
    over `repeats` runs of `number` calls (after `warmup` calls that are not timed).

    CPU seconds count only this process's work, so they stay meaningful when other jobs share the cores.
    """
    if repeats < 1 or number < 1:
        raise ValueError(f"repeats and number must be at least 1, got repeats={repeats}, number={number}")
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(number):
            fn()
        cpu.append((time.process_time() - c0) / number)
        wall.append((time.perf_counter() - w0) / number)
    return {"wall": statistics.median(wall), "cpu": statistics.median(cpu)}


def time_per_call(fn: Callable[[], object], min_seconds: float = 0.05, repeats: int = 5) -> dict[str, float]:
    """Like time_call, but each timed run repeats fn() enough times to last about `min_seconds` of CPU.

    One call, timed once, sets how many calls a run needs; short calls are then timed in batches, so a
    shared machine's interruptions are averaged out instead of deciding a 1 ms measurement.
    Not torch.utils.benchmark.Timer: measured against it (blocked_autorange, timer=time.process_time) on chapter
    08's attention at n = 64 and 512 it agrees within 2% with the same run-to-run spread, but it reads one clock
    per run, so wall and CPU seconds of the same runs (bench_attention prints both) would take two measurements.
    """
    if min_seconds <= 0:
        raise ValueError(f"min_seconds must be positive, got {min_seconds}")
    one = time_call(fn, repeats=1, warmup=1)["cpu"]
    number = max(1, math.ceil(min_seconds / max(one, 1e-6)))
    return time_call(fn, repeats=repeats, warmup=0, number=number)


@contextlib.contextmanager
def quiet_stderr():
    """Silence the OS-level stderr (the profiler's C++ start/stop lines) for the duration of the block."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def peak_tracked_bytes(fn: Callable[[], object]) -> int:
    """Peak bytes held through torch's CPU allocator while fn() runs, above what was held before it started.

    Measured with torch.profiler's memory events (every allocation and free, kernels' scratch buffers included).
    """
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    gc.collect()
    with quiet_stderr():
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            result = fn()
            del result
    events = sorted(
        (e.start_ns(), e.nbytes())
        for e in prof.profiler.kineto_results.events()
        if e.name() == "[memory]" and e.device_type() == DeviceType.CPU
    )
    running = peak = 0
    for _, nbytes in events:
        running += nbytes
        peak = max(peak, running)
    return int(peak)


def _status_bytes(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.M).group(1)) * 1024


def peak_rss_bytes(fn: Callable[[], object]) -> int | None:
    """Rise of the process's resident-memory high-water mark while fn() runs (Linux only; None elsewhere)."""
    try:
        gc.collect()
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current resident size
        before = _status_bytes("VmRSS")
    except (OSError, AttributeError):
        return None
    result = fn()
    peak = _status_bytes("VmHWM")
    del result
    return max(0, peak - before)


# One fresh process per repeat: it imports torch, makes Q, K, V, calls both once on a small input (so that the
# libraries' one-time set-up is not counted), then measures each function's RSS rise once.
_FRESH_RSS = """
import json, sys
import torch, torch.nn.functional as F
from helpers import cost
from helpers.attention import scaled_dot_product_attention
torch.set_num_threads(1)
n, d = int(sys.argv[1]), int(sys.argv[2])
Q, K, V = cost.random_qkv(n, d)
calls = {"ours": lambda: scaled_dot_product_attention(Q, K, V),
         "fused": lambda: F.scaled_dot_product_attention(Q, K, V)}
small = cost.random_qkv(128, d)
scaled_dot_product_attention(*small), F.scaled_dot_product_attention(*small)    # one-time set-up costs, paid here
print(json.dumps({name: cost.peak_rss_bytes(call) for name, call in calls.items()}))
"""


def peak_rss_fresh(n: int, d: int = 64, repeats: int = 3) -> dict[str, int | None]:
    """Median over `repeats` fresh processes of the RSS rise (peak_rss_bytes) of one call of ours and of the fused
    kernel at (1, 1, n, d): {'ours': bytes, 'fused': bytes}, None where /proc is missing.

    A process of its own has no pages left over from earlier calls and shares no allocator with other work, so its
    high-water mark is the call's own (an in-process reading depends on what ran before)."""
    import json
    import subprocess

    from helpers.base import ROOT

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", _FRESH_RSS, str(n), str(d)], capture_output=True, text=True,
                             env=env, cwd=ROOT, timeout=600)
        if out.returncode != 0:
            raise RuntimeError(f"the fresh RSS measurement failed: {out.stderr[-1500:]}")
        runs.append(json.loads(out.stdout.splitlines()[-1]))
    return {name: None if any(r[name] is None for r in runs) else int(statistics.median(r[name] for r in runs))
            for name in runs[0]}


def saved_for_backward(fn: Callable[[], object]) -> list[tuple[tuple[int, ...], int]]:
    """The tensors autograd keeps for the backward pass while fn() runs, one per storage: [(shape, bytes), ...]."""
    seen: dict[int, tuple[tuple[int, ...], int]] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        seen.setdefault(storage.data_ptr(), (tuple(t.shape), storage.nbytes()))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = fn()
        del result
    return list(seen.values())


def called_ops(fn: Callable[[], object], contains: str = "") -> list[str]:
    """Names of the torch operators that fn() runs (e.g. 'aten::bmm'), sorted, only those containing `contains`."""
    from torch.profiler import ProfilerActivity, profile

    with quiet_stderr():
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            result = fn()
            del result
    return sorted({e.name() for e in prof.profiler.kineto_results.events()
                   if e.name().startswith("aten::") and contains in e.name()})


def fit_exponent(ns: Iterable[float], values: Iterable[float]) -> float:
    """The slope p of log(value) = p log(n) + c, fitted by least squares: value ~ n^p."""
    ns, values = np.asarray(list(ns), dtype=float), np.asarray(list(values), dtype=float)
    if ns.shape != values.shape or ns.size < 2:
        raise ValueError(f"fit_exponent needs two equally long sequences of at least 2 numbers; "
                         f"got {ns.size} and {values.size}")
    if np.any(ns <= 0) or np.any(values <= 0):
        raise ValueError("fit_exponent needs positive sizes and values (it fits on log-log axes)")
    return float(np.polyfit(np.log(ns), np.log(values), 1)[0])


def score_matrix_bytes(n: int, batch: int = 1, heads: int = 1, layers: int = 1, bytes_per_entry: float = 4) -> int:
    """Bytes of the n x n attention matrices: batch x heads x layers matrices of n*n entries."""
    if min(n, batch, heads, layers) < 1 or bytes_per_entry <= 0:
        raise ValueError(f"sizes must be positive; got n={n}, batch={batch}, heads={heads}, layers={layers}, "
                         f"bytes_per_entry={bytes_per_entry}")
    return int(round(n * n * batch * heads * layers * bytes_per_entry))


def smallest_batch_over(limit_bytes: float, n: int, heads: int = 1, layers: int = 1, bytes_per_entry: float = 4) -> int:
    """The smallest batch size whose n x n matrices need more than limit_bytes."""
    per_sequence = score_matrix_bytes(n, 1, heads, layers, bytes_per_entry)
    return math.floor(limit_bytes / per_sequence) + 1


def additive_attention_bytes(n_q: int, n_k: int, hidden: int, batch: int = 1, bytes_per_entry: float = 4,
                             softmax_saves: int = 3) -> dict[str, int]:
    """Bytes of the tensors of one additive (Bahdanau) attention call that grow with n_q x n_k, from sizes.

    scores, weights: (batch, n_q, n_k); features = tanh(W_q q + W_k k): (batch, n_q, n_k, hidden).
    saved: what autograd keeps for backward, the features plus `softmax_saves` (batch, n_q, n_k) tensors
    (3 for the course's written-out softmax: scores, exponentials, weights; 1 for torch.softmax: its output).
    forward_peak: the sum before tanh and the features alive together (2 x features).
    training_peak: in backward, the saved features, their gradient and tanh's backward output (3 x features).
    Tensors that do not grow with n_q x n_k (projections, parameters) are not counted: these are lower bounds.
    """
    if min(n_q, n_k, hidden, batch) < 1 or bytes_per_entry <= 0 or softmax_saves < 0:
        raise ValueError(f"sizes must be positive; got n_q={n_q}, n_k={n_k}, hidden={hidden}, batch={batch}, "
                         f"bytes_per_entry={bytes_per_entry}, softmax_saves={softmax_saves}")
    pairs = batch * n_q * n_k * bytes_per_entry  # one number per (sequence, query, key)
    features = pairs * hidden
    return {name: int(round(value)) for name, value in {
        "scores": pairs,
        "features": features,
        "weights": pairs,
        "saved": features + softmax_saves * pairs,
        "forward_peak": 2 * features,
        "training_peak": 3 * features,
    }.items()}


def smallest_over(limit_bytes: float, bytes_of: Callable[[int], float], largest: int = 2**40) -> int:
    """The smallest whole x >= 1 with bytes_of(x) > limit_bytes, for a bytes_of that never decreases.

    E.g. the first batch size, or the first sequence length, whose tensors no longer fit in a memory.
    """
    if bytes_of(largest) <= limit_bytes:
        raise ValueError(f"bytes_of({largest}) = {bytes_of(largest)} is still not over the limit {limit_bytes}")
    low, high = 0, 1  # invariant: bytes_of(low) <= limit (or low == 0), bytes_of(high) > limit once found
    while bytes_of(high) <= limit_bytes:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if bytes_of(middle) <= limit_bytes else (low, middle)
    return high


def format_bytes(n_bytes: float) -> str:
    """Human-readable binary units: 1536 -> '1.5 KiB', 36e6 -> '34.3 MiB'."""
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


class SeedBahdanauAttention(nn.Module):
    """The additive attention module printed in source chapter 003 (its "simple PyTorch implementation"), as is.

    Repeat the decoder state along the source, concatenate it with the encoder outputs, Linear(2h -> h), tanh,
    v (h -> 1), softmax, dropout on the weights, bmm. One decoder step per call:
    decoder_hidden (batch, h), encoder_outputs (batch, n_k, h) -> context (batch, h), weights (batch, n_k).
    Kept for chapter 08's memory measurement; the course's own scorer is helpers.attention.AdditiveAttention.
    """

    def __init__(self, hidden_dim: int, dropout: float = 0.1):
        super().__init__()
        self.W = nn.Linear(hidden_dim * 2, hidden_dim)
        self.v = nn.Linear(hidden_dim, 1)
        self.dropout = nn.Dropout(dropout)

    def forward(self, decoder_hidden: torch.Tensor, encoder_outputs: torch.Tensor):
        """decoder_hidden (batch, h), encoder_outputs (batch, n_k, h) -> context (batch, h), weights (batch, n_k)"""
        seq_len = encoder_outputs.size(1)
        decoder_hidden = decoder_hidden.unsqueeze(1).repeat(1, seq_len, 1)      # (batch, n_k, h)
        combined = torch.cat((decoder_hidden, encoder_outputs), dim=2)           # (batch, n_k, 2h)
        energy = self.v(torch.tanh(self.W(combined))).squeeze(2)                 # (batch, n_k)
        attention_weights = F.softmax(energy, dim=1)
        attention_weights = self.dropout(attention_weights)
        context = torch.bmm(attention_weights.unsqueeze(1), encoder_outputs).squeeze(1)   # (batch, h)
        return context, attention_weights


def decoder_loop_memory(attend: Callable, n_q: int, n_k: int, hidden: int, batch: int = 1, seed: int = 0,
                        saved: bool = False) -> dict[str, int]:
    """Memory of training one attention module the way a decoder uses it: n_q steps, then one backward pass.

    attend(state (batch, hidden), encoder_outputs (batch, n_k, hidden)) -> (context, weights) is called once per
    output step, every step's graph kept until the backward pass of the sum of the contexts (as in training).
    Returns {'peak': peak tracked bytes of the forward steps and the backward pass together, and with saved=True
    'saved': the bytes autograd keeps for backward, one count per storage (a second forward run)}.
    """
    if min(n_q, n_k, hidden, batch) < 1:
        raise ValueError(f"sizes must be positive; got n_q={n_q}, n_k={n_k}, hidden={hidden}, batch={batch}")
    gen = torch.Generator().manual_seed(seed)
    states = torch.randn(batch, n_q, hidden, generator=gen).requires_grad_()          # the decoder's states
    encoder_outputs = torch.randn(batch, n_k, hidden, generator=gen).requires_grad_()

    def forward():
        return sum(attend(states[:, t], encoder_outputs)[0].sum() for t in range(n_q))

    result = {"peak": peak_tracked_bytes(lambda: forward().backward())}
    if saved:
        result["saved"] = sum(nbytes for _, nbytes in saved_for_backward(forward))
    return result


def fit_quadratic(ns: Iterable[float], values: Iterable[float]) -> tuple[float, float, float]:
    """Least-squares a, b, c of value = a n² + b n + c (exact for three points)."""
    ns, values = np.asarray(list(ns), dtype=float), np.asarray(list(values), dtype=float)
    if ns.shape != values.shape or ns.size < 3:
        raise ValueError(f"fit_quadratic needs two equally long sequences of at least 3 numbers; "
                         f"got {ns.size} and {values.size}")
    a, b, c = np.polyfit(ns, values, 2)
    return float(a), float(b), float(c)


def source_module_verdict(per_pair: dict, at_doc: dict, first_n_over: dict, summary_bytes: float, n_doc: int,
                          n_summary: int, limit_bytes: float, direct: dict, n_fit: int, batch: int = 1) -> str:
    """Markdown: source chapter 003's module against the course's scorer, measured and extrapolated.

    per_pair, at_doc, first_n_over: {("source" | "ours", h): value}, fitted to measurements at n <= n_fit;
    direct: {("source" | "ours", h, n): (measured bytes, bytes the fit predicts)}, measured at larger n.
    """
    sizes = sorted({h for _, h in per_pair}, reverse=True)
    if {(name, h) for name in ("source", "ours") for h in sizes} != set(per_pair) or len(sizes) < 2:
        raise ValueError(f"per_pair needs ('source', h) and ('ours', h) for at least two sizes h; "
                         f"got {sorted(per_pair)}")
    if not direct:
        raise ValueError("direct needs at least one measurement {(module, h, n): (measured, predicted)}")
    big, small = sizes[0], sizes[-1]
    ratio = {h: per_pair["source", h] / per_pair["ours", h] for h in sizes}
    limit = format_bytes(limit_bytes)
    text = i18n.t("ch08.source_module", n_fit=n_fit, src_big=per_pair["source", big], big=big,
                  ours_big=per_pair["ours", big], ratio_big=ratio[big], ratio_small=ratio[small], small=small,
                  three_h=3 * big)
    module_key = {"source": "ch08.module_source", "ours": "ch08.module_ours"}
    items = [i18n.t("ch08.source_module_direct_item", module=i18n.t(module_key[name]), h=h, n=n,
                    measured=format_bytes(measured), predicted=format_bytes(predicted))
             for (name, h, n), (measured, predicted) in direct.items()]
    text += i18n.t("ch08.source_module_direct", measured=i18n.t("ch08.list_separator").join(items))
    text += i18n.t("ch08.source_module_extrapolated", n_doc=n_doc, big=big, src_doc=format_bytes(at_doc["source", big]),
                   limit=limit, src_over=first_n_over["source", big], ours_doc=format_bytes(at_doc["ours", big]),
                   ours_over=first_n_over["ours", big], n_summary=n_summary, summary=format_bytes(summary_bytes))
    if at_doc["source", big] > limit_bytes:
        text += (i18n.t("ch08.source_module_over", n_doc=n_doc, batch=batch, big=big)
                 + i18n.t("ch08.source_module_ours_under" if at_doc["ours", big] <= limit_bytes
                          else "ch08.source_module_ours_over", limit=limit))
    else:
        text += i18n.t("ch08.source_module_under", limit=limit, n_doc=n_doc, batch=batch)
    return text


def measure_attention(functions: dict[str, Callable], ns: Iterable[int], d: int = 64, batch: int = 1, heads: int = 1,
                      repeats: int = 5, rss: bool = False) -> dict[str, dict[str, list]]:
    """Time (median wall and CPU seconds) and peak tracked memory of attention functions f(Q, K, V) at each n.

    Q, K, V: (batch, heads, n, d) float32. Returns {name: {'n': [...], 'wall': [...], 'cpu': [...],
    'peak': [...] (bytes), 'rss': [...] (bytes, when rss=True)}}.
    """
    results = {name: {"n": [], "wall": [], "cpu": [], "peak": [], "rss": []} for name in functions}
    for n in ns:
        Q, K, V = random_qkv(n, d, batch, heads)
        for name, f in functions.items():
            def call(f=f, Q=Q, K=K, V=V):
                return f(Q, K, V)

            timing = time_call(call, repeats=repeats)
            row = results[name]
            row["n"].append(n)
            row["wall"].append(timing["wall"])
            row["cpu"].append(timing["cpu"])
            row["peak"].append(peak_tracked_bytes(call))
            if rss:
                row["rss"].append(peak_rss_bytes(call))
    return results


def time_attention(functions: dict[str, Callable], ns: Iterable[int], d: int = 64, batch: int = 1, heads: int = 1,
                   repeats: int = 5, min_seconds: float = 0.05, sweeps: int = 1) -> dict[str, dict[str, list]]:
    """Seconds per call (median wall and CPU, see time_per_call) of attention functions f(Q, K, V) at each n.

    Q, K, V: (batch, heads, n, d) float32. The whole sweep over `ns` runs `sweeps` times, so that a slow moment of
    a shared machine falls into one sweep. Returns {name: {'n': [...], 'wall': [...], 'cpu': [...] (median over
    the sweeps), 'wall_sweeps', 'cpu_sweeps': [[one value per n] per sweep]}}.
    """
    if sweeps < 1:
        raise ValueError(f"sweeps must be at least 1, got {sweeps}")
    ns = list(ns)
    results = {name: {"n": list(ns), "wall_sweeps": [], "cpu_sweeps": []} for name in functions}
    inputs = {n: random_qkv(n, d, batch, heads) for n in ns}
    for _ in range(sweeps):
        for row in results.values():
            row["wall_sweeps"].append([])
            row["cpu_sweeps"].append([])
        for n in ns:
            Q, K, V = inputs[n]
            for name, f in functions.items():
                timing = time_per_call(lambda f=f, Q=Q, K=K, V=V: f(Q, K, V), min_seconds=min_seconds, repeats=repeats)
                for key in ("wall", "cpu"):
                    results[name][f"{key}_sweeps"][-1].append(timing[key])
    for row in results.values():
        for key in ("wall", "cpu"):
            row[key] = [statistics.median(values) for values in zip(*row[f"{key}_sweeps"], strict=True)]
    return results
