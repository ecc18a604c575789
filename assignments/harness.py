"""Inside the sandbox: run one submission's notebook, call its functions on the grader's inputs, return plain data.

    python harness.py IN_DIR RESULT_FD

IN_DIR holds `submission.ipynb`, `plan.json` (the calls to make, the limits) and `inputs.npz` (arrays only). The
harness runs every code cell of the notebook in one in-process IPython shell (a time limit per cell; an error or a
timeout goes on with the next cell; otter's own cells are skipped: public tests earn nothing here), then makes each
call of the plan in a process forked for that call alone (`call_in_child`: killed at the call's time limit, which
the grader derives from the master's own times), and writes ONE zip stream to RESULT_FD: every returned tensor as
an `.npy` array, and `report.json`, the JSON description of every result (values, sequences, "raised", or just a
type name) and the seconds each call took. Nothing else is sent: no object of the student's, no pickle. The grader
outside decides what the data is worth.

The harness holds no reference implementation: where a call is graded with the grader's versions of earlier
questions patched in (no cascading penalties), their source comes in the plan and is compiled in that call's
process only. The course package it imports is the assignment's grading copy (`assignments/withhold.py`).

This file is standard library plus numpy and torch, and imports nothing of the grader (which is not mounted here).
Everything in this process is the student's: the grader trusts none of what it writes.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import select
import signal
import sys
import types
import zipfile

# otter's own cells (its init cell, grader.check("q1"), check_all, export): every line one of these, or a comment
OTTER_CELL = re.compile(r"\A(?:[ \t]*(?:#[^\n]*|import otter|grader = otter\.Notebook\([^\n]*\)|"
                        r"grader\.(?:check|check_all|export)\([^\n]*\))?[ \t]*(?:\n|\Z))+\Z")
SEND_LIMIT = 64 << 20  # bytes of arrays sent back at most


class CellTimeout(BaseException):
    """Raised in the main thread when a cell or a call runs past its time limit."""


def _alarm(signum, frame):
    raise CellTimeout("time limit")


class Encoder:
    """Plain results: tensors as arrays (exact torch.Tensor only), exact int/float/bool/str/None, tuples/lists."""

    def __init__(self):
        self.arrays: dict = {}
        self.size = 0

    def encode(self, x, key: str, depth: int = 0):
        import numpy as np
        import torch

        if depth > 4:
            return {"type": "nested too deep"}
        if type(x) in (torch.Tensor, torch.nn.Parameter):
            t = torch.Tensor.detach(x)
            if t.dtype not in (torch.float32, torch.float64, torch.int64, torch.int32, torch.bool):
                return {"type": f"tensor of {t.dtype}"}
            arr = np.ascontiguousarray(torch.Tensor.numpy(torch.Tensor.cpu(t))).copy()
            self.size += arr.nbytes
            if self.size > SEND_LIMIT:
                return {"type": "too large"}
            self.arrays[key] = arr
            return {"a": key}
        if type(x) in (int, float, bool, str) or x is None:
            return {"v": x if type(x) is not str else x[:200]}
        if type(x) in (np.int64, np.int32, np.float64, np.float32, np.bool_):  # numpy's scalars: plain numbers too
            return {"v": x.item()}
        if type(x) is dict and len(x) <= 256 and all(type(k) is str for k in x):
            return {"map": {k[:100]: self.encode(v, f"{key}/{k[:100]}", depth + 1) for k, v in x.items()}}
        if type(x) in (tuple, list):
            return {"seq": [self.encode(v, f"{key}.{i}", depth + 1) for i, v in enumerate(x[:8])], "n": len(x)}
        return {"type": type(x).__name__[:40]}


def decode_arg(spec, inputs: dict):
    """A call argument from the plan: {"a": key} an input array as a tensor, {"ns": {...}} a namespace, else JSON."""
    import torch

    if isinstance(spec, dict) and "a" in spec:
        return torch.from_numpy(inputs[spec["a"]].copy())
    if isinstance(spec, dict) and "ns" in spec:
        return types.SimpleNamespace(**{k: decode_arg(v, inputs) for k, v in spec["ns"].items()})
    if isinstance(spec, list):
        return [decode_arg(v, inputs) for v in spec]
    return spec


def build_object(spec: dict, ns: dict, inputs: dict):
    """An instance of the submission's class with the grader's weights: {"cls", "args", "kwargs", "state", "double"}."""
    import torch

    obj = ns[spec["cls"]](*spec.get("args", []), **spec.get("kwargs", {}))
    if spec.get("double"):
        obj = obj.double()
    if spec.get("state"):
        obj.load_state_dict({k: decode_arg(v, inputs) for k, v in spec["state"].items()}, strict=True)
    torch.nn.Module.eval(obj)
    return obj


def train_model(spec: dict, ns: dict):
    """The course's translator (sizes `spec["model"]`) with the submission's decoder, trained by the course's loop
    (`steps`, `batch_size`, `lr`, `seed`) on the training pairs of at most `max_len` source words -> its state dict,
    and, where the spec lists source sentences (`translate`, drawn by the grader), {"state": the state dict,
    "translations": (n, T) target ids}: the greedy translations made by the submission's own decoder with those
    weights (<eos> ends each row, <pad> fills it), which the grader scores outside."""
    import torch

    make_model, greedy_translate, load_split, train = course_functions()
    torch.set_num_threads(1)
    sizes = spec.get("model", {})
    model = make_model(seed=spec["seed"], **sizes)
    kwargs = {"attn_hidden": sizes["attn_hidden"]} if "attn_hidden" in sizes else {}
    model.decoder = ns[spec["cls"]](len(model.tgt_vocab), model.config["emb"], model.config["hidden"],
                                    model.encoder.output_size, **kwargs)
    pairs = [pair for pair in load_split("train") if len(pair[0]) <= spec.get("max_len", 10**6)]
    train(model, pairs, steps=spec["steps"], batch_size=spec.get("batch_size", 64),
          lr=spec.get("lr", 3e-3), seed=spec["seed"], progress=False)
    state = dict(model.state_dict())
    if not spec.get("translate"):
        return state
    with torch.no_grad():
        hyps, _ = greedy_translate(model, [list(map(str, src)) for src in spec["translate"]])
    vocab = model.tgt_vocab
    rows = [vocab.encode(h) + [vocab.eos_id] for h in hyps]
    ids = torch.full((len(rows), max(map(len, rows))), vocab.pad_id, dtype=torch.int64)
    for i, row in enumerate(rows):
        ids[i, :len(row)] = torch.tensor(row, dtype=torch.int64)
    return {"state": state, "translations": ids}


_COURSE: list = []


def course_functions() -> tuple:
    """The course's make_model, greedy_translate, load_split and train, imported before the notebook runs (main),
    so that a notebook that rebinds them in their modules (helpers.training.train = ...) does not train or
    translate in the course's place."""
    if not _COURSE:
        from helpers.seq2seq import greedy_translate, make_model
        from helpers.toylang import load_split
        from helpers.training import train

        _COURSE.extend([make_model, greedy_translate, load_split, train])
    return tuple(_COURSE)


def make_call(call: dict, ns: dict, inputs: dict):
    """One entry of the plan -> the raw result (the caller encodes it)."""
    import torch

    if "value" in call:
        return ns[call["value"]]
    if "train" in call:
        return train_model(call["train"], ns)
    if call.get("seed") is not None:
        torch.manual_seed(call["seed"])
    target = build_object(call["build"], ns, inputs) if "build" in call else None
    fn = getattr(target, call["method"]) if target is not None else ns[call["call"]]
    args = [decode_arg(a, inputs) for a in call.get("args", [])]
    kwargs = {k: decode_arg(v, inputs) for k, v in call.get("kwargs", {}).items()}
    # the grader's reference versions of earlier questions for this call only, sent as source in the plan and
    # compiled here, in the call's own process: the harness holds no reference of its own
    patch = {name: eval(source, {"torch": torch}) for name, source in call.get("patch", {}).items()}
    saved = {k: ns[k] for k in patch if k in ns}
    ns.update(patch)
    try:
        with torch.no_grad() if call.get("no_grad") else _null():
            return fn(*args, **kwargs)
    finally:
        for k in patch:
            ns.pop(k, None)
        ns.update(saved)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def run_notebook(path: str, seconds: int):
    """Every code cell (otter's skipped) in one IPython shell, a time limit per cell -> the shell's namespace."""
    from IPython.core.interactiveshell import InteractiveShell

    class Shell(InteractiveShell):
        def enable_gui(self, gui=None):  # `%matplotlib inline` needs no event loop here
            return None

        def enable_matplotlib(self, gui=None):  # `%matplotlib inline`: Agg, and no figure is ever rendered
            import matplotlib

            matplotlib.use("Agg")
            return "agg", "agg"

    shell = Shell.instance()
    for cell in json.load(open(path, encoding="utf-8")).get("cells", []):  # (nbformat takes 3 s to import)
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") != "code" or OTTER_CELL.match(source.strip()):
            continue
        signal.alarm(seconds)
        try:
            shell.run_cell(source, store_history=False)
        except CellTimeout:
            print("cell stopped at the time limit", flush=True)
        finally:
            signal.alarm(0)
    return shell.user_ns


def call_in_child(call: dict, ns: dict, inputs: dict, seconds: float) -> tuple[dict, dict, float]:
    """Make one call of the plan in a process forked for it -> (its report entry, its arrays, seconds taken).

    The child gets the notebook's state as it was after the last cell and nothing a call before it changed; it
    sends its encoded result over a pipe made for it alone. Past `seconds` it is killed (SIGKILL, which no
    `except` catches), so a function that sleeps costs its own limit, not the submission's."""
    import time

    import numpy as np

    start = time.monotonic()
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:  # no process left (the notebook used them all up): the call is made here, with an alarm
        return (*call_here(call, ns, inputs, seconds), time.monotonic() - start)
    if pid == 0:  # the child: one call, one encoded answer, then gone
        os.close(read_end)
        code = 0
        try:
            enc = Encoder()
            try:
                entry = enc.encode(make_call(call, ns, inputs), call["id"])
            except BaseException as e:
                entry = raised(e)
            with os.fdopen(write_end, "wb") as out:
                out.write(pack({"entry": entry}, enc.arrays))
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_end)
    chunks, size = [], 0
    deadline = start + seconds
    with os.fdopen(read_end, "rb", buffering=0) as f:
        while (left := deadline - time.monotonic()) > 0 and select.select([f], [], [], left)[0]:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > SEND_LIMIT:
                break
            chunks.append(chunk)
    timed_out = time.monotonic() >= deadline
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    elapsed = time.monotonic() - start
    if timed_out:
        return {"raised": "TimeoutError", "message": f"time limit ({seconds:g} s)"}, {}, elapsed
    if size > SEND_LIMIT:
        return {"type": "too large"}, {}, elapsed
    try:
        with zipfile.ZipFile(io.BytesIO(b"".join(chunks))) as zf:
            entry = json.loads(zf.read("report.json"))["entry"]
            arrays = {m[:-4]: np.load(io.BytesIO(zf.read(m)), allow_pickle=False)
                      for m in zf.namelist() if m.endswith(".npy")}
    except Exception:
        return {"raised": "SystemExit", "message": "the call ended without a result"}, {}, elapsed
    return entry, arrays, elapsed


def raised(e: BaseException) -> dict:
    """A report entry for an exception: its type's name, message, and the built-in exceptions it is a kind of."""
    import builtins

    kinds = [c.__name__ for c in type(e).__mro__ if getattr(builtins, c.__name__, None) is c][:8]
    return {"raised": type(e).__name__[:40], "message": str(e)[:200], "is": kinds}


def call_here(call: dict, ns: dict, inputs: dict, seconds: float) -> tuple[dict, dict]:
    """One call in this process (where no child can be forked): an alarm at its time limit -> (entry, arrays)."""
    enc = Encoder()
    signal.alarm(max(1, math.ceil(seconds)))
    try:
        entry = enc.encode(make_call(call, ns, inputs), call["id"])
    except CellTimeout:
        entry = {"raised": "TimeoutError", "message": f"time limit ({seconds:g} s)"}
    except BaseException as e:
        entry = raised(e)
    finally:
        signal.alarm(0)
    return entry, enc.arrays


def pack(report: dict, arrays: dict) -> bytes:
    """One zip stream (stored members): `report.json` and an `.npy` per array."""
    import numpy as np

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("report.json", json.dumps(report))
        for key, arr in arrays.items():
            with zf.open(f"{key}.npy", "w") as f:
                np.lib.format.write_array(f, arr, allow_pickle=False)
    return buf.getvalue()


def main(argv: list[str]) -> int:
    in_dir, fd = argv[0], int(argv[1])
    out = os.fdopen(os.dup(fd), "wb")
    os.close(fd)
    signal.signal(signal.SIGALRM, _alarm)
    import numpy as np

    plan = json.load(open(os.path.join(in_dir, "plan.json")))
    with np.load(os.path.join(in_dir, "inputs.npz"), allow_pickle=False) as z:
        inputs = {k: z[k] for k in z.files}
    if any("train" in call for call in plan["calls"]):
        course_functions()
    ns = run_notebook(os.path.join(in_dir, "submission.ipynb"), plan["cell_seconds"])
    report, arrays, seconds, timed_out = {}, {}, {}, set()
    for call in plan["calls"]:
        # the student's name the call runs: a function, or the class built for a method or trained
        name = call.get("call") or call.get("build", {}).get("cls") or call.get("train", {}).get("cls") \
            or call.get("value")
        if name in timed_out:  # a function or class that ran past its limit once is not waited for again
            report[call["id"]] = {"raised": "TimeoutError", "message": f"{name} ran past its time limit before"}
            continue
        limit = call.get("seconds", plan.get("call_seconds", plan["cell_seconds"]))
        entry, got, seconds[call["id"]] = call_in_child(call, ns, inputs, limit)
        if entry.get("raised") == "TimeoutError":
            timed_out.add(name)
        if sum(a.nbytes for a in arrays.values()) + sum(a.nbytes for a in got.values()) > SEND_LIMIT:
            entry, got = {"type": "too large"}, {}
        report[call["id"]], arrays = entry, {**arrays, **got}
    report["_seconds"] = seconds
    out.write(pack(report, arrays))
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
