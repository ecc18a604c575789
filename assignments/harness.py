"""Inside the sandbox: run one submission's notebook, call its functions on the grader's inputs, return plain data.

    python harness.py IN_DIR RESULT_FD

IN_DIR holds `submission.ipynb`, `plan.json` (the calls to make, the limits) and `inputs.npz` (arrays only). The
harness runs every code cell of the notebook in one in-process IPython shell (a time limit per cell; an error or a
timeout goes on with the next cell; otter's own cells are skipped: public tests earn nothing here), then makes each
call of the plan and writes ONE `.npz` stream to RESULT_FD: every returned tensor as an array, and under the key
`report` the JSON description of every result (values, sequences, "raised", or just a type name). Nothing else is
sent: no object of the student's, no pickle. The grader outside decides what the data is worth.

This file is standard library plus numpy and torch, and imports nothing of the grader (which is not mounted here).
Everything in this process is the student's: the grader trusts none of what it writes.
"""
from __future__ import annotations

import io
import json
import os
import re
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


def _torch_refs():
    """Public reference versions of earlier questions, patched in for one call (no cascading penalties)."""
    import torch

    return {
        "scores": lambda Q, K: Q @ K.transpose(-2, -1),
        "softmax": lambda x: torch.softmax(x, dim=-1),
        "split_heads": lambda X, h: X.reshape(X.shape[0], X.shape[1], h, X.shape[2] // h).transpose(1, 2),
        "merge_heads": lambda H: H.transpose(1, 2).reshape(H.shape[0], H.shape[2], H.shape[1] * H.shape[3]),
    }


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
    (`steps`, `batch_size`, `lr`, `seed`) on the training pairs of at most `max_len` source words -> its state dict."""
    import torch

    from helpers.seq2seq import make_model
    from helpers.toylang import load_split
    from helpers.training import train

    torch.set_num_threads(1)
    sizes = spec.get("model", {})
    model = make_model(seed=spec["seed"], **sizes)
    kwargs = {"attn_hidden": sizes["attn_hidden"]} if "attn_hidden" in sizes else {}
    model.decoder = ns[spec["cls"]](len(model.tgt_vocab), model.config["emb"], model.config["hidden"],
                                    model.encoder.output_size, **kwargs)
    pairs = [pair for pair in load_split("train") if len(pair[0]) <= spec.get("max_len", 10**6)]
    train(model, pairs, steps=spec["steps"], batch_size=spec.get("batch_size", 64),
          lr=spec.get("lr", 3e-3), seed=spec["seed"], progress=False)
    return dict(model.state_dict())


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
    refs = _torch_refs()
    patch = {name: refs[ref] for name, ref in call.get("patch", {}).items()}
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


def main(argv: list[str]) -> int:
    in_dir, fd = argv[0], int(argv[1])
    out = os.fdopen(os.dup(fd), "wb")
    os.close(fd)
    signal.signal(signal.SIGALRM, _alarm)
    import numpy as np

    plan = json.load(open(os.path.join(in_dir, "plan.json")))
    with np.load(os.path.join(in_dir, "inputs.npz"), allow_pickle=False) as z:
        inputs = {k: z[k] for k in z.files}
    ns = run_notebook(os.path.join(in_dir, "submission.ipynb"), plan["cell_seconds"])
    enc, report = Encoder(), {}
    for call in plan["calls"]:
        signal.alarm(plan.get("call_seconds", plan["cell_seconds"]))
        try:
            result = enc.encode(make_call(call, ns, inputs), call["id"])
        except CellTimeout:
            result = {"raised": "TimeoutError", "message": "time limit"}
        except BaseException as e:
            result = {"raised": type(e).__name__[:40], "message": str(e)[:200]}
        finally:
            signal.alarm(0)
        report[call["id"]] = result
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("report.json", json.dumps(report))
        for key, arr in enc.arrays.items():
            with zf.open(f"{key}.npy", "w") as f:
                np.lib.format.write_array(f, arr, allow_pickle=False)
    out.write(buf.getvalue())
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
