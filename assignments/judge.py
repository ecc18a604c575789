"""Outside the sandbox: plan the calls, read the plain results, check the source, award every point.

Each assignment's hidden checks live in `assignments/<name>/checks.py` (teachers only; never mounted in the
sandbox, never in the student release). Its `plan(p: Plan)` draws inputs from `p.rng` (seeded afresh for every
grading run, from a seed the sandbox never sees), registers calls (`p.call`, `p.method`, `p.value`, `p.train`) and,
per question, checks: `p.check(question, name, judge, public=False)`, where `judge(R)` gets the decoded results
(`R[call_id]`: a torch tensor built here from a plain array, a Python number/bool/str, a tuple, a dict, `Raised`
or `Foreign`) and returns None (passed) or a message. Expected values are computed here, in the grader's process.
Its `RULES` say, per question, what must be written by the student (`defines`) and which references earn nothing
(`banned`); `source_verdicts` checks them on the submission's syntax tree.
"""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
# Dynamic code the syntax tree cannot follow: a submission using any of these earns no source-checked points.
# The built-in functions among them count only as themselves (`eval(...)`, `builtins.eval`): a method of the same
# name (`model.eval()`, `re.compile(...)`, `torch.compile`) is ordinary code and must not cost an honest student.
DYNAMIC_BUILTINS = {"eval", "exec", "compile", "__import__", "getattr", "setattr", "delattr", "globals", "locals",
                    "vars"}
DYNAMIC = DYNAMIC_BUILTINS | {
           "importlib", "builtins", "__builtins__", "__dict__", "__globals__", "__code__", "__class__",
           "__subclasses__", "__getattribute__", "ctypes", "inspect", "gc", "sys.modules", "_getframe", "f_globals",
           "f_locals", "__wrapped__", "marshal", "pickle", "FunctionType", "CodeType",
           # names looked up from strings, code run from strings or in another process
           "pkgutil", "resolve_name", "import_module", "attrgetter", "methodcaller", "runpy", "subprocess",
           "os.system", "os.popen", "os.execv", "os.execve", "os.spawnv", "multiprocessing", "signal.getsignal",
           "code.interact", "codeop", "string-run-as-code",
           # IPython's and Python's ways to change what runs or what a name means behind the syntax tree's back
           "push", "user_ns", "user_global_ns", "__main__", "input_transformers_cleanup", "input_transformers_post",
           "ast_transformers", "register_magic_function", "pydoc", "Formatter", "get_field",
           "module-written-here", "patches-the-course"}
# torch's internals, which expose every built-in under other names (torch.ops.aten._softmax, torch._C._nn,
# torch._refs.softmax ...): no honest solution needs them, so any question using them earns nothing.
BACKDOORS = {"torch.ops", "torch._C", "torch._refs", "torch._prims", "torch._decomp", "torch._ops", "torch._VF",
             "torch.library", "_VariableFunctions"}
# Synonyms of the built-ins a question may forbid (the attacks of issue 31 used each of these).
SOFTMAX_FAMILY = ("softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin", "Softmax2d",
                  "Categorical", "OneHotCategorical", "RelaxedOneHotCategorical", "_softmax", "_log_softmax",
                  "_safe_softmax", "logits_to_probs", "SoftmaxTransform", "gumbel_softmax")
ATTENTION_FAMILY = ("scaled_dot_product_attention", "MultiheadAttention", "multi_head_attention_forward",
                    "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
                    "TransformerDecoderLayer", "_scaled_dot_product_attention_math",
                    "_native_multi_head_attention", "flex_attention", "torch.nn.attention")
# IPython's ways to run code given as a string. A literal string is parsed and checked as code (so `%timeit f(x)`
# and a `%%capture` cell are ordinary code); a string built at run time is dynamic code.
CODE_RUNNERS = {"run_cell", "run_line_magic", "run_cell_magic", "ex", "ev", "run_code", "run_source",
                "runcode", "run_ast_nodes", "safe_execfile", "safe_run_module", "system", "getoutput",
                "system_piped", "system_raw"}
SHELL_RUNNERS = {"system", "getoutput", "system_piped", "system_raw"}  # `!cmd`, `x = !cmd`
SHELL_CODE = r"python|pypy|perl|ruby|node|\b(?:ba|z|k|c|tc)?sh\b|\.py\b|exec|eval|source|\$\(|`"
# magics whose code runs elsewhere or comes from a file: dynamic whatever their text
FOREIGN_MAGICS = {"run", "load", "script", "python", "python2", "python3", "bash", "sh", "system", "sx", "pypy",
                  "perl", "ruby", "macro", "rerun", "recall", "load_ext", "reload_ext", "prun", "debug"}
# The course's reference implementations and the task's generator: using a name of these modules that the student
# notebook itself does not import (its given code) earns nothing.
REFERENCE_MODULES = ("helpers.attention", "helpers.seq2seq", "helpers.toylang", "helpers.transformer",
                     "helpers.exercises", "helpers.training", "helpers.experiments", "helpers.cost", "helpers.masks",
                     "helpers.metrics", "helpers.widgets", "helpers.tables")


# The grader's versions of earlier questions, patched into the notebook for one call (`Plan.call(patch=...)`): a
# wrong softmax costs its own question only. Sent as source in the plan and compiled in that call's process.
REFERENCES = {
    "scores": "lambda Q, K: Q @ K.transpose(-2, -1)",
    "softmax": "lambda x: torch.softmax(x, dim=-1)",
    "split_heads": "lambda X, h: X.reshape(X.shape[0], X.shape[1], h, X.shape[2] // h).transpose(1, 2)",
    "merge_heads": "lambda H: H.transpose(1, 2).reshape(H.shape[0], H.shape[2], H.shape[1] * H.shape[3])",
}


class Raised:
    """The submission's code raised: the exception's type name and message (plain strings from the sandbox), and
    the built-in exceptions it is a kind of (a student's `class WeightError(ValueError)` is a ValueError)."""

    def __init__(self, kind: str, message: str, kinds=()):
        self.kind, self.message = str(kind)[:40], str(message)[:200]
        self.kinds = {str(k)[:40] for k in (kinds if isinstance(kinds, list) else [])[:8]} | {self.kind}

    def is_a(self, name: str) -> bool:
        """The exception is a `name` (ValueError, ...) or a subclass of it."""
        return name in self.kinds

    def __repr__(self):
        return f"Raised({self.kind})"


class Foreign:
    """A result that was not plain data (a subclass, a custom object): only its type name crossed."""

    def __init__(self, name: str):
        self.name = str(name)[:40]

    def __repr__(self):
        return f"Foreign({self.name})"


@dataclasses.dataclass
class Check:
    question: str
    name: str
    judge: Callable
    public: bool


class Plan:
    """What the sandbox is asked to compute (calls and input arrays) and how the answers are judged (checks)."""

    def __init__(self, seed: int, env: dict | None = None, share: Plan | None = None):
        """`share`: another plan whose calls and inputs this one adds to (one sandbox run judges several draws:
        each plan keeps its own checks; identical training calls are made once)."""
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.env = env or {}
        self.inputs: dict[str, np.ndarray] = share.inputs if share else {}
        self.calls: list[dict] = share.calls if share else []
        self.checks: list[Check] = []

    def arr(self, x) -> dict:
        """An input array (numpy or torch) -> its reference in a call's arguments."""
        key = f"in{len(self.inputs)}"
        self.inputs[key] = np.ascontiguousarray(x.detach().numpy() if hasattr(x, "detach") else np.asarray(x))
        return {"a": key}

    def _encode(self, x):
        import torch

        if isinstance(x, (np.ndarray, torch.Tensor)):
            return self.arr(x)
        if isinstance(x, dict):
            return {"ns": {k: self._encode(v) for k, v in x.items()}}
        if isinstance(x, (list, tuple)):
            return [self._encode(v) for v in x]
        return x

    def _add(self, entry: dict) -> str:
        entry["id"] = f"c{len(self.calls)}"
        if getattr(self, "_apart", None):
            entry["apart"] = self._apart
        self.calls.append(entry)
        return entry["id"]

    @contextlib.contextmanager
    def apart(self, run: str):
        """The calls registered inside run in a sandbox of their own, whose copy of the course package also has
        the stubs `withheld.txt` lists under `apart <run>` (assignments/withhold.py)."""
        self._apart = run
        try:
            yield self
        finally:
            self._apart = None

    def call(self, fn: str, *args, patch: dict | None = None, **kwargs) -> str:
        """Call the submission's function `fn` (patch: names -> keys of `REFERENCES`, for the call only)."""
        return self._add({"call": fn, "args": self._encode(list(args)),
                          "kwargs": {k: self._encode(v) for k, v in kwargs.items()},
                          "patch": {name: REFERENCES[ref] for name, ref in (patch or {}).items()}})

    def method(self, cls: str, init: tuple, init_kwargs: dict, state: dict, method: str, *args, double: bool = False,
               **kwargs) -> str:
        """Build the submission's class `cls(*init, **init_kwargs)` (`.double()` if asked), load the weights `state`
        (a state dict), call `method` without gradients."""
        build = {"cls": cls, "args": list(init), "kwargs": init_kwargs, "double": double,
                 "state": {k: self.arr(v) for k, v in state.items()}}
        return self._add({"build": build, "method": method, "args": self._encode(list(args)),
                          "kwargs": {k: self._encode(v) for k, v in kwargs.items()}, "no_grad": True})

    def value(self, name: str) -> str:
        """The value of a top-level name of the notebook."""
        return self._add({"value": name})

    def train(self, cls: str, steps: int, seed: int, translate: list | None = None, **spec) -> tuple[str, int]:
        """Train the course's translator with the submission's decoder class; `spec`: `model` (make_model's sizes),
        `batch_size`, `lr` (see harness.train_model). `translate`: source sentences (token lists) that the trained
        model translates in the sandbox with the submission's own decoder. Made once per sandbox run: draws that
        ask for the same training share it, each adding its sentences -> (call id, index of this draw's first
        sentence in the returned translations)."""
        entry = {"train": {"cls": cls, "steps": steps, "seed": seed, **spec}}
        for c in self.calls:
            if c.get("train") and {k: v for k, v in c["train"].items() if k != "translate"} == entry["train"]:
                start = len(c["train"].get("translate", []))
                c["train"].setdefault("translate", []).extend(translate or [])
                return c["id"], start
        if translate:
            entry["train"]["translate"] = list(translate)
        return self._add(entry), 0

    def check(self, question: str, name: str, judge: Callable, public: bool = False) -> None:
        self.checks.append(Check(question, name, judge, public))

    def runs(self) -> list[str | None]:
        """The sandbox runs this plan needs: None (the main one) and each run kept apart, in order."""
        return list(dict.fromkeys(c.get("apart") for c in self.calls))

    def files(self, notebook: bytes, cell_seconds: int, run: str | None = None) -> dict[str, bytes]:
        """The files one sandbox run gets: the notebook, the plan (that run's calls only) and the input arrays it
        needs."""
        import io

        calls = [c for c in self.calls if c.get("apart") == run]
        used = set(re.findall(r'"a": "(in\d+)"', json.dumps(calls)))
        buf = io.BytesIO()
        np.savez(buf, **{k: v for k, v in self.inputs.items() if k in used})
        plan = {"cell_seconds": cell_seconds, "calls": calls}
        return {"submission.ipynb": notebook, "plan.json": json.dumps(plan).encode(), "inputs.npz": buf.getvalue()}


def decode(entry, arrays: dict):
    """One result of the harness's report -> plain Python/torch values built here (see `Raised`, `Foreign`)."""
    import torch

    if not isinstance(entry, dict):
        return Foreign("malformed")
    if "a" in entry:
        arr = arrays.get(str(entry["a"]))
        if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "biuf" or arr.dtype.hasobject:
            return Foreign("missing array")
        return torch.from_numpy(np.array(arr))
    if "v" in entry:
        v = entry["v"]
        return v if type(v) in (int, float, bool, str) or v is None else Foreign("malformed")
    if "seq" in entry and isinstance(entry["seq"], list):
        return tuple(decode(e, arrays) for e in entry["seq"])
    if "map" in entry and isinstance(entry["map"], dict):
        return {str(k): decode(v, arrays) for k, v in entry["map"].items()}
    if "raised" in entry:
        return Raised(entry.get("raised", "?"), entry.get("message", ""), entry.get("is", []))
    return Foreign(entry.get("type", "unknown"))


def load_checks(name: str, folder: Path | None = None):
    """The module `assignments/<name>/checks.py` (its `plan` and `RULES`)."""
    path = (folder or HERE / name) / "checks.py"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: every assignment needs its hidden checks")
    spec = importlib.util.spec_from_file_location(f"assignments.{name}.checks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------- the source check

def notebook_source(nb: dict) -> tuple[ast.Module, list[str]]:
    """Every code cell (otter's cells left out) as one syntax tree; cells that do not parse are skipped (their
    names stay undefined, as in the run) and listed."""
    from IPython.core.inputtransformer2 import TransformerManager

    from assignments.harness import OTTER_CELL

    manager, body, broken = TransformerManager(), [], []
    for i, cell in enumerate(nb.get("cells", [])):
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") != "code" or OTTER_CELL.match(source.strip()):
            continue
        try:
            cell_body = ast.parse(manager.transform_cell(source)).body
            first = next((line.strip() for line in source.splitlines() if line.strip()), "")
            for node in cell_body:
                node.cell = first[:50] + ("…" if len(first) > 50 else "")   # where a finding is, for the message
            body += cell_body
        except (SyntaxError, ValueError):
            broken.append(f"cell {i + 1}")
    return ast.Module(body=body, type_ignores=[]), broken


class _Refs(ast.NodeVisitor):
    """Every name a piece of code refers to: dotted paths resolved through the imports, attribute names, keyword
    argument names (as "kw:name"), bare names (also as "name:id"), string constants that look like names, and the
    names it calls."""

    def __init__(self, aliases: dict[str, str]):
        self.aliases, self.found = aliases, set()

    def _dotted(self, node) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            parts.append(self.aliases.get(node.id, node.id))
            return ".".join(reversed(parts))
        return None

    def visit_Attribute(self, node):
        self.found.add(node.attr)
        dotted = self._dotted(node)
        if dotted:
            self.found.add(dotted)
        self.generic_visit(node)

    def visit_Name(self, node):
        self.found |= {node.id, self.aliases.get(node.id, node.id), f"name:{node.id}"}   # name: a bare name

    def visit_keyword(self, node):
        if node.arg:
            self.found.add(f"kw:{node.arg}")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            for piece in node.value.split(":"):  # "helpers.attention:softmax" (pkgutil's form) too; not prose
                if re.fullmatch(r"[\w.]{1,60}", piece):
                    self.found.add(piece)

    def visit_Call(self, node):
        """A string run as code by IPython (a magic, `run_cell`): parsed and visited as code when it is a literal,
        dynamic code when it is built at run time or runs elsewhere (`%run`, `%%bash`, `!`)."""
        name = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name in CODE_RUNNERS:
            args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
            if len(args) != len(node.args) or None in args or node.keywords or not args:
                self.found.add("string-run-as-code")
            elif name in ("run_line_magic", "run_cell_magic") and args[0] in FOREIGN_MAGICS \
                    or name in ("safe_execfile", "safe_run_module"):
                self.found.add("string-run-as-code")
            elif name in SHELL_RUNNERS:  # `!ls` is harmless; `!python -c ...` computes where no check looks
                if re.search(SHELL_CODE, args[-1]):
                    self.found.add("string-run-as-code")
            else:
                self._visit_code(args[-1])
        self.generic_visit(node)

    def _visit_code(self, text: str) -> None:
        from IPython.core.inputtransformer2 import TransformerManager

        try:
            tree = ast.parse(TransformerManager().transform_cell(text))
        except (SyntaxError, ValueError):  # not Python (a %%html cell, `%matplotlib inline`'s word): nothing runs
            return
        self.aliases.update(_aliases(tree))
        self.visit(tree)

    def visit_Import(self, node):
        for a in node.names:
            self.found.add(a.name)

    def visit_ImportFrom(self, node):
        for a in node.names:
            self.found.add(f"{node.module}.{a.name}")


def _aliases(tree: ast.Module) -> dict[str, str]:
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def _refs(nodes, aliases) -> set[str]:
    v = _Refs(aliases)
    for n in nodes:
        v.visit(n)
    return v.found


def _matches(found: set[str], banned: str) -> bool:
    """`banned` is a dotted name or a last component: torch.softmax, F.softmax and x.softmax all match softmax."""
    return any(f == banned or f.endswith("." + banned) or f.startswith(banned + ".") for f in found)


def _is_builtin(found: set[str], name: str) -> bool:
    """The built-in `name` itself is used (bare, or as builtins.name), not a method or function that shares its name."""
    return f"name:{name}" in found or f"builtins.{name}" in found


def given_helpers(student_nb: dict) -> set[str]:
    """The helpers names the notebook as handed out uses itself (its given code): those may be used."""
    tree, _ = notebook_source(student_nb)
    return {r for r in _refs(tree.body, _aliases(tree)) if r.startswith("helpers.")}


def source_verdicts(nb: dict, rules: dict, allowed_helpers: set[str]) -> dict[str, str | None]:
    """question -> None (the source may earn points) or why it earns nothing, from the submission's syntax tree.

    A question's code is the top-level functions and classes it `defines`, every top-level function or class they
    refer to (transitively), and all module-level code (which runs before any call). `defines` must be bound by
    `def`/`class` only (not imported, not assigned). Banned: the question's `banned` names, dynamic code
    (`DYNAMIC`, strings run as code that are not literals) and torch's internals (`BACKDOORS`) anywhere; the
    question's `banned` names and the names of the course's reference modules that the handed-out notebook does
    not use itself in the question's code and in the module-level code that feeds it (`_feeding`: a statement that
    may change a name the question's code reads, with the functions it calls). A module-level `print` that
    compares with the built-in or the course's version feeds nothing and costs nothing (and the sandbox's copy of
    the package has no reference anyway, `assignments/withhold.py`). Literal strings that IPython runs as code
    (`%time ...`, a `%%capture` cell, `get_ipython().run_cell("...")`) are read as code."""
    tree, _ = notebook_source(nb)
    aliases = _aliases(tree)
    defs: dict[str, ast.AST] = {}
    other_bindings: dict[str, str] = {}
    module_level = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs[node.name] = node
            other_bindings.pop(node.name, None)  # a later def wins, as when the notebook runs
            module_level += _definition_time(node)   # what runs when it is defined, used or not
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                other_bindings[a.asname or a.name.split(".")[0]] = "imported"
            module_level.append(node)
            continue
        for target in ast.walk(node):
            if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                other_bindings[target.id] = "assigned"
        module_level.append(node)
    module_level = [n for n in module_level if not isinstance(n, (ast.Import, ast.ImportFrom))]
    imported = {name for name, how in other_bindings.items() if how == "imported"}
    module_refs = _refs(module_level, aliases)
    everything = [tree, *(t for n in module_level for t in _code_of(n)[1:])]   # with the code of literal magics
    if any(map(_writes_files, everything)) and any(map(_unknown_imports, everything)):
        module_refs.add("module-written-here")   # a file written, then imported: code the syntax tree never saw
    if _patches_the_course([t for n in module_level for t in _code_of(n)], aliases):
        module_refs.add("patches-the-course")
    # names the notebook binds itself (its functions, methods, variables, parameters): a student's own `softmax`
    # helper or a local variable of that name is not torch's
    bound_here = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound_here |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    bound_here |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef))}
    bound_here -= imported
    verdicts = {}
    for q, rule in rules.items():
        missing = [n for n in rule.get("defines", []) if n not in defs]
        rebound = [n for n in rule.get("defines", []) if n in other_bindings]
        if missing or rebound:
            name = (missing or rebound)[0]
            verdicts[q] = (f"{name} is not defined with def/class in this notebook" if missing else
                           f"{name} is {other_bindings[name]}, not written here: define your own with def")
            continue
        blank = [n for n in rule.get("defines", []) if _is_blank(defs[n])]
        if blank and len(blank) == len(rule.get("defines", [])):
            # the hand-out's `...` left as it is in every function of the question: whatever the results say,
            # nothing here was written (one function written and one not keeps the partial credit its checks give)
            verdicts[q] = f"{blank[0]} is still `...`: write its body (the source check, not a test, found this)"
            continue
        seen, todo = set(), list(rule.get("defines", []))
        while todo:
            n = todo.pop()
            if n in seen or n not in defs:
                continue
            seen.add(n)
            todo += [r for r in _refs([defs[n]], aliases) if r in defs]
        graded = _refs([defs[n] for n in seen], aliases)
        reads = _free_names([defs[n] for n in seen])
        found = graded | _refs(_feeding(module_level, reads, defs, imported), aliases)
        own = {f for f in found if f in bound_here or (f.startswith("name:") and f[5:] in bound_here)}
        hit = [b for b in rule.get("banned", []) if _matches(found - own, b)]
        anywhere = graded | module_refs  # dynamic code and torch's internals count wherever they are
        hit += [b for b in sorted(DYNAMIC)
                if (_is_builtin(anywhere, b) if b in DYNAMIC_BUILTINS else _matches(anywhere, b))]
        hit += [b for b in sorted(BACKDOORS) if _matches(anywhere, b)]
        hit += sorted(r for r in found if r.startswith(REFERENCE_MODULES) and r not in allowed_helpers
                      and not any(a.startswith(r + ".") for a in allowed_helpers))
        verdicts[q] = None if not hit else _verdict(hit[0]) + _where(hit[0], rule, defs, seen, aliases, tree)
    return verdicts


def _is_blank(node: ast.AST) -> bool:
    """A function whose body is only a docstring, `...` or `pass` (a class is never blank: its hand-out code is
    written, only some methods are the student's)."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and \
        isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str) else node.body
    return all(isinstance(b, ast.Pass) or (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)
                                           and b.value.value is Ellipsis) for b in body)


def _where(hit: str, rule: dict, defs: dict, seen: set, aliases: dict, tree: ast.Module) -> str:
    """Where the source check found `hit`: in the question's own functions, or in which cell."""
    mine = [n for n in sorted(seen) if _matches(_refs([defs[n]], aliases), hit)]
    if mine:
        return f" [found in {mine[0]}]"
    for node in tree.body:
        if _matches(_refs(_code_of(node) + _definition_time(node), aliases), hit) and hasattr(node, "cell"):
            return (f" [found in the cell that begins \"{node.cell}\", which runs before "
                    f"{rule.get('defines', ['it'])[0]} is called]")
    return ""


def _free_names(nodes: list[ast.AST]) -> set[str]:
    """The names a piece of code reads that it does not bind itself (parameters, assignments, loop and
    comprehension variables are its own; a `global` declaration makes a name the module's)."""
    loaded, own, declared = set(), set(), set()
    for node in (n for tree in nodes for n in ast.walk(tree)):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else own).add(node.id)
        elif isinstance(node, ast.arg):
            own.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared |= set(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node not in nodes:
            own.add(node.name)
    return loaded - (own - declared)


def _definition_time(node: ast.AST) -> list[ast.AST]:
    """The code a `def` or `class` statement runs when it is defined, not when it is called: decorators, default
    values, annotations, base classes, and a class body's own statements (a method's body waits for a call)."""
    out: list[ast.AST] = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        out += [*node.decorator_list, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
        out += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                if x is not None and x.annotation is not None]
        out += [node.returns] if node.returns is not None else []
    elif isinstance(node, ast.ClassDef):
        out += [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
        for child in node.body:
            out += _definition_time(child) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                  ast.ClassDef)) else [child]
    return out


@functools.lru_cache(maxsize=512)
def _installed(module: str) -> bool:
    """`module` (its top-level package) can be imported in the course's environment without the notebook."""
    import importlib.util
    import sys

    top = module.split(".")[0]
    if top in sys.builtin_module_names or top in sys.stdlib_module_names:
        return True
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _writes_files(tree: ast.AST) -> bool:
    """The notebook writes a file: `%%writefile`/`%%file`, `open(...)` with a mode that is not a literal read,
    `Path.write_text`/`write_bytes`."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name == "run_cell_magic" and node.args and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value in ("writefile", "file"):
            return True
        if name in ("write_text", "write_bytes"):
            return True
        if name == "open":
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"),
                                                                 None)
            if mode is not None and not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)
                                         and set(mode.value) <= set("rbt")):
                return True
    return False


def _unknown_imports(tree: ast.AST) -> bool:
    """The code imports a module the course's environment does not have (one the notebook wrote to a file)."""
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        if any(not _installed(n) for n in names):
            return True
    return False


def _patches_the_course(nodes: list[ast.AST], aliases: dict[str, str]) -> bool:
    """Module-level code assigns an attribute of one of the course's modules (`helpers.training.train = ...`)."""
    for node in (n for tree in nodes for n in ast.walk(tree)):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and aliases.get(base.id, base.id).split(".")[0] == "helpers":
                return True
    return False


def _code_of(node: ast.AST) -> list[ast.AST]:
    """A statement and the code of the literal strings IPython runs for it (a magic's text, a run_cell)."""
    from IPython.core.inputtransformer2 import TransformerManager

    out = [node]
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in CODE_RUNNERS \
                and call.args and isinstance(call.args[-1], ast.Constant) and isinstance(call.args[-1].value, str):
            try:
                out.append(ast.parse(TransformerManager().transform_cell(call.args[-1].value)))
            except (SyntaxError, ValueError):
                pass
    return out


def _changed_names(nodes: list[ast.AST], imported: set[str]) -> set[str]:
    """Names a piece of code may change: assigned, the base of an attribute or item it stores, the object of a
    method it calls (R.update(...)), except modules it only calls into (torch.manual_seed(0) changes no name)."""
    names = set()
    for node in (n for tree in nodes for n in ast.walk(tree)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name):
                names.add(base.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id not in imported:
            names.add(node.func.value.id)
        if isinstance(node, ast.Call):  # an object handed to a function may be changed by it: f(CFG), map(...)
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                base = arg.value if isinstance(arg, ast.Starred) else arg
                while isinstance(base, (ast.Attribute, ast.Subscript)):
                    base = base.value
                if isinstance(base, ast.Name) and base.id not in imported:
                    names.add(base.id)
    return names


def _feeding(module_level: list[ast.AST], reads: set[str], defs: dict, imported: set[str]) -> list[ast.AST]:
    """The module-level statements that may change a name the graded code reads (`reads`: its free names), with
    every function they call: a `print(torch.softmax(x))` that compares with the built-in feeds nothing (even if it
    assigns a name the graded code uses only as its own local variable), `f = torch.softmax` (even inside a magic)
    and `_fetch()` whose body fills a dict the graded code reads do."""
    out = []
    for node in module_level:
        code = _code_of(node)
        called, todo = [], [r[5:] for r in _refs(code, {}) if r.startswith("name:") and r[5:] in defs]
        while todo:
            n = todo.pop()
            if n not in [c.name for c in called]:
                called.append(defs[n])
                todo += [r[5:] for r in _refs([defs[n]], {}) if r.startswith("name:") and r[5:] in defs]
        changed = _changed_names(code, imported)
        for fn in called:  # a function changes what it declares global and the objects it mutates, not its locals
            own = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} if hasattr(fn, "args") else set()
            own |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            declared = {name for n in ast.walk(fn) if isinstance(n, ast.Global) for name in n.names}
            changed |= (_changed_names([fn], imported) - own) | declared
        if changed & reads:
            out += [*code, *called]
    return out


def _verdict(hit: str) -> str:
    """Why a question's source earns nothing, naming what was found."""
    if hit == "module-written-here":
        return ("imports a module that is not part of the course's environment (one the notebook writes itself?), "
                "which the source check cannot read: write the code in the notebook (the source check, not a test, "
                "found this)")
    if hit == "patches-the-course":
        return ("changes a function of the course's own modules (helpers...), which grading relies on: leave them "
                "as they are (the source check, not a test, found this)")
    if hit == "string-run-as-code":
        return ("runs code from a string built while the notebook runs (or in another program), which the source "
                "check cannot read: write it as code (the source check, not a test, found this)")
    return f"uses {hit}, which earns nothing here: write it yourself (the source check, not a test, found this)"


# ------------------------------------------------------------------------------------------------- scoring

def judge_results(plan: Plan, report: dict, arrays: dict, verdicts: dict, points: dict[str, float]) -> dict:
    """{question: {"score", "possible", "tests": [{"name", "passed", "hidden", "message"}]}} from plain results."""
    results = _Results(report, arrays)
    questions = {}
    for q, possible in points.items():
        checks = [c for c in plan.checks if c.question == q]
        tests = []
        for c in checks:
            if verdicts.get(q):
                passed, message = False, verdicts[q]
            else:
                try:
                    message = c.judge(results)
                except Exception as e:
                    message = f"the result could not be checked ({type(e).__name__})"
                passed = message is None
            tests.append({"name": c.name, "passed": passed, "hidden": not c.public,
                          "message": None if passed else str(message)[:300]})
        score = possible * sum(t["passed"] for t in tests) / len(tests) if tests else 0.0
        questions[q] = {"score": score, "possible": possible, "tests": tests}
    return questions


class _Results:
    def __init__(self, report: dict, arrays: dict):
        self.report, self.arrays = report, arrays

    def __getitem__(self, call_id: str):
        if call_id not in self.report:
            return Foreign("no result")
        return decode(self.report[call_id], self.arrays)


# ------------------------------------------------------------------------------- small judging helpers

def failure(x, name: str) -> str | None:
    """A message when `x` is not a usable result (the code raised, or it returned no plain value)."""
    if isinstance(x, Raised):
        if x.kind in ("NameError", "KeyError") and x.message.strip("'\"") == name:
            return f"{name} is not defined: does its cell run without errors?"
        import builtins

        cls = getattr(builtins, x.kind, None)
        known = isinstance(cls, type) and issubclass(cls, BaseException)
        return f"your code raised {x.kind}: {x.message[:100]}" if known else "your code raised an exception"
    if isinstance(x, Foreign):
        return f"{name} returned {x.name}, not a plain tensor or number: replace the ... with your code"
    return None


def is_tensor(x, shape=None) -> bool:
    import torch

    return type(x) is torch.Tensor and (shape is None or tuple(x.shape) == tuple(shape))


def close(a, b, atol=1e-5) -> bool:
    import torch

    return is_tensor(a) and tuple(a.shape) == tuple(b.shape) and a.dtype != torch.bool and \
        bool(torch.allclose(a.to(b.dtype), b, atol=atol, equal_nan=False))


def equal(a, b) -> bool:
    import torch

    return is_tensor(a) and a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape) and bool(torch.equal(a, b))


def pair(x, n: int = 2):
    """x as a tuple of n items, or None."""
    return x if isinstance(x, tuple) and len(x) == n else None
