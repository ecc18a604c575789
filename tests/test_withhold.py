"""The grading copy of the course package (assignments/withhold.py, issue 31 item 1): what an assignment's sandbox
finds of `helpers/`. A blank notebook earned 13/13 by fetching the course's own references where no source check
could follow; in the copy every module the assignment does not keep raises ImportError on import and every stubbed
function raises when called, whatever route reaches it."""
import json
import os
import subprocess
import sys

import pytest

from assignments import withhold
from assignments.build import masters

PROBE = """
import importlib, json, sys
out = {}
for target in json.loads(sys.argv[1]):
    module, _, qualname = target.partition(":")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split(".") if qualname else []:
            obj = getattr(obj, part)
        if qualname:
            obj(*[None] * (obj.__code__.co_argcount))
        out[target] = "ok"
    except BaseException as e:
        out[target] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
"""


def probe(root, targets: list[str]) -> dict[str, str]:
    """Import each module (and call each "module:qualname" with None arguments) with `root` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-P", "-c", PROBE, json.dumps(targets)], capture_output=True, text=True,
                          env=env, cwd=root, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def every_module() -> list[str]:
    return sorted(withhold.module_name(p) for p in withhold.PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


RUNS = [(name, run) for name in masters() for run in (None, *withhold.apart_runs(name))]


@pytest.mark.parametrize("name, run", RUNS)
def test_the_sandbox_finds_only_what_the_assignment_keeps(name, run, tmp_path):
    keep, stubs = withhold.declared(name, run=run)
    withhold.build_copy(name, tmp_path, run=run)
    modules = every_module()
    got = probe(tmp_path, modules + stubs)
    for module in modules:
        if withhold.is_kept(module, keep):
            assert got[module] == "ok", f"{name} keeps {module}, but it does not import in the copy: {got[module]}"
        else:
            assert got[module].startswith("ImportError: ") and "not available while grading" in got[module], \
                f"{name}'s sandbox can import {module}: {got[module]}"
    for stub in stubs:
        assert got[stub].startswith("RuntimeError: ") and "not available while grading" in got[stub], \
            f"{stub} still runs in {name}'s sandbox: {got[stub]}"
    assert (tmp_path / "data").resolve() == (withhold.ROOT / "data").resolve()


def test_a_stub_keeps_the_signature_and_everything_else(tmp_path):
    source = ('"""doc"""\nimport math\n\n\nclass A:\n    x = 1\n\n    def f(self, a,\n          b=2):\n'
              '        """f"""\n        return a + b\n\n    def g(self):\n        return 3\n\n\n'
              'def h(y):\n    return math.sqrt(y)\n')
    out = withhold.stubbed_source(source, "m", ["A.f", "h"])
    assert "def f(self, a,\n          b=2):\n        raise RuntimeError(\"m.A.f is not available" in out
    assert "    def g(self):\n        return 3\n" in out and "return a + b" not in out and "math.sqrt" not in out
    namespace = {}
    exec(compile(out, "m", "exec"), namespace)
    assert namespace["A"]().g() == 3 and namespace["A"].x == 1
    with pytest.raises(RuntimeError, match="m.h is not available while grading"):
        namespace["h"](4)
    with pytest.raises(LookupError, match="A.k"):
        withhold.stubbed_source(source, "m", ["A.k"])
    with pytest.raises(LookupError, match="is a class"):
        withhold.stubbed_source(source, "m", ["A"])


def test_a_bad_declaration_is_refused_with_its_place(tmp_path):
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "withheld.txt").write_text("keep helpers\nstub helpers.attention\n")
    with pytest.raises(ValueError, match=r"withheld.txt:2: expected"):
        withhold.declared("a", folder)
    (folder / "withheld.txt").write_text("keep helpers\nkeep helpers.nothing_here\n")
    with pytest.raises(ValueError, match="do not exist"):
        withhold.build_copy("a", tmp_path / "copy", folder)
    (folder / "withheld.txt").write_text("keep helpers\nstub helpers.masks:causal_mask\n")
    with pytest.raises(ValueError, match="does not keep"):
        withhold.build_copy("a", tmp_path / "copy", folder)
    (folder / "withheld.txt").write_text("keep helpers\napart q1\nkeep helpers.masks\n")
    with pytest.raises(ValueError, match="after which only stubs"):
        withhold.declared("a", folder)
    with pytest.raises(FileNotFoundError, match="declares what its sandbox keeps"):
        withhold.declared("missing", tmp_path / "missing")
