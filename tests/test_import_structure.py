"""helpers/ imports without cycles and without arrows up. The layers are declared once, in pyproject.toml
([tool.importlinter]); these tests run those contracts with import-linter and look for import cycles among all
helpers modules in grimp's graph (imports inside functions count). A failure names the offending import chain."""
import os
import subprocess
import sys
import tomllib
from itertools import pairwise

import grimp
import pytest

from helpers import ROOT

CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def lint_imports(cwd, *args: str) -> subprocess.CompletedProcess:
    """`lint-imports` (import-linter's command) run in `cwd` on its pyproject.toml, output unwrapped."""
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
                           "--no-cache", "--no-logo", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, COLUMNS="300"), timeout=120)


def _step(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
    lines = ", ".join(f"l.{d['line_number']}: {d['line_contents']}"
                      for d in graph.get_import_details(importer=importer, imported=imported))
    return f"{importer} -> {imported} ({lines})"


def import_cycles(graph: grimp.ImportGraph) -> list[str]:
    """One import cycle per group of modules that import each other, each as its chain of imports (file lines
    included), e.g. 'a -> b (l.3: import b)\\n  b -> a (l.9: from a import x)'. A module importing itself is no cycle.
    """
    imports = {m: sorted(graph.find_modules_directly_imported_by(m) - {m}) for m in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for start in imports:                      # Tarjan's strongly connected components, without recursion
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            module, i = work.pop()
            if i == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            if i < len(imports[module]):
                work.append((module, i + 1))
                nxt = imports[module][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[module] = min(low[module], index[nxt])
                continue
            if low[module] == index[module]:
                group = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    group.append(m)
                    if m == module:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
    cycles = []
    for group in groups:
        first = group[0]
        second = next(m for m in imports[first] if m in group)
        chain = (first, *graph.find_shortest_chain(importer=second, imported=first))
        cycles.append("\n  ".join(_step(graph, a, b) for a, b in pairwise(chain)))
    return cycles


def test_helpers_has_no_import_cycle():
    cycles = import_cycles(grimp.build_graph("helpers", cache_dir=None))
    assert not cycles, "import cycles among helpers modules:\n" + "\n".join(cycles)


@pytest.mark.parametrize("contract", [c["id"] for c in CONTRACTS])
def test_import_contract_is_kept(contract):
    run = lint_imports(ROOT, "pyproject.toml", "--contract", contract)
    assert run.returncode == 0, f"import contract {contract!r} (pyproject.toml) is broken:\n{run.stdout}{run.stderr}"


def test_the_contracts_declare_layers_for_helpers_and_every_package_is_checked_for_cycles():
    by_type = {}
    for c in CONTRACTS:
        by_type.setdefault(c["type"], []).append(c)
    assert any(c.get("containers") == ["helpers"] and c.get("exhaustive") for c in by_type["layers"])
    assert any(c["ancestors"] == ["helpers"] for c in by_type["acyclic_siblings"])


@pytest.fixture
def tangled(tmp_path, monkeypatch):
    """A package whose lower layer imports the higher one inside a function: a cycle and an arrow up."""
    package = tmp_path / "tangled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "high.py").write_text("from tangled import low\n")
    (package / "low.py").write_text("def f():\n    from tangled.high import g\n    return g\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_package = "tangled"\n\n[[tool.importlinter.contracts]]\nid = "layers"\n'
        'name = "layers"\ntype = "layers"\ncontainers = ["tangled"]\nlayers = ["high", "low"]\n\n'
        '[[tool.importlinter.contracts]]\nid = "acyclic"\nname = "acyclic"\ntype = "acyclic_siblings"\n'
        'ancestors = ["tangled"]\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_the_cycle_check_names_the_chain(tangled):
    assert import_cycles(grimp.build_graph("tangled", cache_dir=None)) == [
        "tangled.high -> tangled.low (l.1: from tangled import low)\n"
        "  tangled.low -> tangled.high (l.2: from tangled.high import g)"]


@pytest.mark.parametrize("contract, says", [("layers", "tangled.low is not allowed to import tangled.high"),
                                            ("acyclic", "removing 1 dependency:\n\n- .low -> .high")])
def test_the_contracts_fail_on_an_arrow_up_and_a_cycle(tangled, contract, says):
    run = lint_imports(tangled, "pyproject.toml", "--contract", contract)
    assert run.returncode == 1 and says in run.stdout, run.stdout + run.stderr
