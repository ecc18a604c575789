"""Every assert in a chapter can fail: none compares only literals or names bound to literals in the same cell.

An assert such as `assert 64 * 2 == 128`, or `n = 128` followed by `assert n == 128` in the same cell, passes
whatever the helpers do; the learner-read checklist's kind 2. This test reads every code cell's syntax tree (both
editions share their code) and fails on such asserts, naming the chapter, the cell and the line.
"""
from __future__ import annotations

import ast
import builtins

import nbformat
import pytest

from helpers.devtools import chapter_notebooks, python_of

BUILTINS = set(dir(builtins))


def _literal_names(tree: ast.AST) -> set[str]:
    """Names assigned only constants (or expressions of constants) anywhere in the cell."""
    literal, other = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            target_names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            immutable = not isinstance(node.value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp))
            (literal if immutable and _is_literal(node.value, set()) else other).update(target_names)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            for t in ast.walk(node.target if not isinstance(node, ast.With) else node):
                if isinstance(t, ast.Name):
                    other.add(t.id)
    return literal - other


def _is_literal(node: ast.AST, literal_names: set[str]) -> bool:
    """True if `node` is built only from constants, operators, builtins and names in `literal_names`."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id not in BUILTINS and sub.id not in literal_names:
            return False
        if isinstance(sub, ast.Attribute):        # math.pi is a constant, but x.shape is not: be strict
            return False
    return True


def literal_asserts(source: str) -> list[tuple[int, str]]:
    """(line, text) of the asserts in `source` whose test cannot depend on anything computed."""
    try:
        tree = ast.parse(python_of(source))
    except SyntaxError:
        return []
    names = _literal_names(tree)
    return [(node.lineno, ast.unparse(node.test)) for node in ast.walk(tree)
            if isinstance(node, ast.Assert) and _is_literal(node.test, names)]


def test_the_detector_sees_literal_asserts_and_lets_real_ones_through():
    assert literal_asserts("assert 64 * 2 == 128") == [(1, "64 * 2 == 128")]
    assert literal_asserts("n = 128\nassert n == 128") == [(2, "n == 128")]
    assert literal_asserts("assert abs(0.5 - 0.5) < 1e-9, 'msg'")
    assert literal_asserts("n = len(rows)\nassert n == 128") == []
    assert literal_asserts("assert model.hidden == 128") == []
    assert literal_asserts("for n in range(3):\n    pass\nassert n == 2") == []
    assert literal_asserts("%matplotlib inline\nassert result > 0") == []
    assert literal_asserts("top = {}\ntop['a'] = f(1)\nassert top['a'] < 0.5") == []


@pytest.mark.parametrize("path", chapter_notebooks(), ids=lambda p: p.stem)
def test_no_chapter_assert_compares_only_literals(path):
    nb = nbformat.read(path, as_version=4)
    found = [f"cell {i} line {line}: assert {text}"
             for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
             for line, text in literal_asserts(cell.source)]
    assert not found, f"{path.name}: asserts that cannot fail (only literals):\n" + "\n".join(found)
