"""The grading copy of the course package: `helpers/` as an assignment's sandbox sees it, without the references.

The sandbox must not find the course's own versions of what a question asks the student to write: with them in
reach, a blank notebook earned full marks by fetching them in ways no source check can follow (a magic, a string
run as code, `pkgutil.resolve_name`). So each assignment declares, in `assignments/<name>/withheld.txt`, what of
the package its sandbox keeps:

    keep helpers.seq2seq                       # a module the handed-out notebook needs (a package: its __init__)
    keep helpers.toylang.*                     # a package with every module in it
    stub helpers.seq2seq:BahdanauDecoder.step  # a function or method of a kept module, replaced by a raise
    apart q1                                   # the calls the checks make `with p.apart("q1")` run in a sandbox
    stub helpers.attention:AdditiveAttention.score   # of their own, whose copy also has these stubs

`apart` is for a reference the handed-out notebook itself needs elsewhere: A3's decoders are built on the course's
additive scorer, which question 1 asks the student to write; its calls run where that scorer does not compute.

Every other module of `helpers/` is replaced by one line that raises ImportError, and every `stub` keeps its
signature (so that classes and registries still build) with a body that raises `NotAvailableWhileGrading`. Data
files (`helpers/locale/`) are copied as they are. The chapters, the student notebooks and the teacher's own runs
keep the full package: only the sandbox mounts the copy, at the same path (`sandbox.bwrap_command`).
"""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from helpers import ROOT

HERE = Path(__file__).resolve().parent
PACKAGE = ROOT / "helpers"
MISSING = ('raise ImportError("{module} is not available while grading: the sandbox has only what the '
           'assignment needs (assignments/withhold.py)")\n')
STUB = ('raise RuntimeError("{name} is not available while grading: write it yourself '
        '(assignments/withhold.py)")')


def declared(name: str, folder: Path | None = None, run: str | None = None) -> tuple[list[str], list[str]]:
    """(kept modules, stubbed "module:qualname") from `assignments/<name>/withheld.txt` for the main sandbox run
    (`run=None`) or for the run kept apart under `run`; raises on a bad line."""
    path = (folder or HERE / name) / "withheld.txt"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: every assignment declares what its sandbox keeps")
    keep, stub, section = [], [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "apart" and len(words) == 2:
            section = words[1]
            continue
        if len(words) != 2 or words[0] not in ("keep", "stub") or (words[0] == "stub") != (":" in words[1]) \
                or (section is not None and words[0] == "keep"):
            raise ValueError(f"{path}:{number}: expected 'keep helpers.module', 'stub helpers.module:name' or "
                             f"'apart NAME' (after which only stubs), got {line.strip()!r}")
        if words[0] == "keep":
            keep.append(words[1])
        elif section is None or section == run:
            stub.append(words[1])
    return keep, stub


def apart_runs(name: str, folder: Path | None = None) -> list[str]:
    """The names of the runs `withheld.txt` keeps apart (`apart NAME`)."""
    path = (folder or HERE / name) / "withheld.txt"
    return [line.split()[1] for line in path.read_text(encoding="utf-8").splitlines()
            if line.split("#", 1)[0].split()[:1] == ["apart"]]


def module_name(path: Path) -> str:
    """helpers/toylang/task.py -> helpers.toylang.task; helpers/toylang/__init__.py -> helpers.toylang."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_kept(module: str, keep: list[str]) -> bool:
    """`module` is kept: named exactly, or inside a package kept with `.*`."""
    return any(module == k or (k.endswith(".*") and (module == k[:-2] or module.startswith(k[:-1])))
               for k in keep)


def _find(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The top-level function or the method `Class.method` named by `qualname` in a module's syntax tree."""
    body, node = tree.body, None
    for part in qualname.split("."):
        found = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                 and n.name == part]
        if not found:
            raise LookupError(f"{qualname}: no {part!r} here")
        node = found[-1]
        body = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise LookupError(f"{qualname} is a class: stub its methods one by one")
    return node


def stubbed_source(source: str, module: str, qualnames: list[str]) -> str:
    """A module's source with each function or method of `qualnames` keeping its signature and raising."""
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    spans = []
    for qualname in qualnames:
        node = _find(tree, qualname)
        first = node.body[0]
        if first.lineno == node.lineno:
            raise ValueError(f"{module}:{qualname} is written on one line; give it a body of its own")
        indent = " " * first.col_offset
        spans.append((first.lineno - 1, node.end_lineno, f"{indent}{STUB.format(name=f'{module}.{qualname}')}\n"))
    for start, end, text in sorted(spans, reverse=True):
        lines[start:end] = [text]
    return "".join(lines)


def build_copy(name: str, dest: Path, folder: Path | None = None, run: str | None = None) -> Path:
    """Write the grading copy of `helpers/` for assignment `name` (its run kept apart as `run`, if given) into
    `dest/helpers` -> that folder.

    `dest` also gets a link `data` to the course's data, so that the copy's `helpers.ROOT / "data"` works where
    the copy is used without a sandbox (in the sandbox it is mounted at the course's own path)."""
    keep, stubs = declared(name, folder, run)
    by_module: dict[str, list[str]] = {}
    for entry in stubs:
        module, qualname = entry.split(":")
        by_module.setdefault(module, []).append(qualname)
    unknown = [m for m in (*by_module, *(k[:-2] if k.endswith(".*") else k for k in keep))
               if not (PACKAGE.parent / m.replace(".", "/")).with_suffix(".py").is_file()
               and not (PACKAGE.parent / m.replace(".", "/") / "__init__.py").is_file()]
    if unknown:
        raise ValueError(f"assignments/{name}/withheld.txt names modules that do not exist: {unknown}")
    not_kept = [m for m in by_module if not is_kept(m, keep)]
    if not_kept:
        raise ValueError(f"assignments/{name}/withheld.txt stubs names in modules it does not keep: {not_kept}")
    target = Path(dest) / "helpers"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), dirs_exist_ok=True)
    for path in sorted(target.rglob("*.py")):
        module = module_name(PACKAGE / path.relative_to(target))
        if not is_kept(module, keep):
            path.write_text(MISSING.format(module=module), encoding="utf-8")
        elif module in by_module:
            path.write_text(stubbed_source(path.read_text(encoding="utf-8"), module, by_module[module]),
                            encoding="utf-8")
    link = Path(dest) / "data"
    if not link.exists():
        link.symlink_to(ROOT / "data")
    return target
