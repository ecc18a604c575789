"""One program per cell in both editions: every code cell of notebooks/zh/ is its English twin's program up to its
strings. Both sources are parsed (IPython magics blanked), every string literal and every literal piece of an
f-string (format specs included: a column width is layout) is blanked, and the two syntax trees must be equal;
comments are not in the tree. A translation changes what a string or a comment says, never which code runs: a
display name, a translated label or a verdict in words comes through helpers.i18n (`t`, `Labels`) or through code
both editions run, not through code only the Chinese cell has. The one exception is the setup line (`lang="zh"`)."""
from __future__ import annotations

import ast
import difflib

import nbformat
import pytest

from helpers.devtools import chapter_notebooks, python_of, zh

CHAPTERS = chapter_notebooks()


class _BlankStrings(ast.NodeTransformer):
    """Every str constant becomes "", an f-string keeps only its fields, a field's literal format spec goes."""

    def visit_Constant(self, node):
        return ast.Constant(value="") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node):
        self.generic_visit(node)
        fields = [v for v in node.values if isinstance(v, ast.FormattedValue)]
        return ast.JoinedStr(values=fields) if fields else ast.Constant(value="")

    def visit_FormattedValue(self, node):
        self.generic_visit(node)
        if isinstance(node.format_spec, ast.Constant):   # ":>20" (blanked above); a spec with a field stays
            node.format_spec = None
        return node


def program(source: str) -> ast.AST:
    """A code cell's syntax tree with its strings blanked: what a translation may not change."""
    return _BlankStrings().visit(ast.parse(python_of(source)))


def program_differences(en, other) -> list[str]:
    """One line per code cell of `other` (a zh notebook) that is not its twin's program in `en` (the English
    notebook) up to strings, with a short diff of the two programs (strings blanked)."""
    code = [c for c in en.cells if c.cell_type == "code"]
    setup = code[0].id if code and code[0].source.strip() == zh.SETUP_CELL else None
    theirs = {c.id: c for c in other.cells if c.cell_type == "code"}
    found = []
    for i, cell in enumerate(en.cells):
        if cell.cell_type != "code":
            continue
        where = f"cell [{i}] {cell.id}"
        twin = theirs.get(cell.id)
        if twin is None:
            found.append(f"{where}: no code cell with this id in the Chinese edition")
            continue
        source = cell.source.replace(zh.EN_SETUP_LINE, zh.ZH_SETUP_LINE) if cell.id == setup else cell.source
        try:
            mine, yours = program(source), program(twin.source)
        except SyntaxError as error:
            found.append(f"{where}: does not parse ({error})")
            continue
        if ast.dump(mine) != ast.dump(yours):
            diff = list(difflib.unified_diff(ast.unparse(mine).splitlines(), ast.unparse(yours).splitlines(),
                                             "English", "Chinese", lineterm="", n=0))
            shown = [line[:160] for line in diff[2:] if not line.startswith("@@")][:8]
            found.append(f"{where}: not the English program up to strings (strings blanked, - English, + Chinese):\n"
                         + "\n".join(f"    {line}" for line in shown))
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem[:2] for p in CHAPTERS])
def test_every_zh_code_cell_is_the_english_program_up_to_strings(path):
    en = nbformat.read(path, as_version=4)
    other = nbformat.read(zh.ZH_DIR / path.name, as_version=4)
    found = program_differences(en, other)
    assert not found, (f"{path.name}: the Chinese edition changes code, not only strings; move the difference into "
                       "the English cell (a helpers.i18n message, a label both editions show) and let the "
                       "translation pair change strings only:\n" + "\n".join(found))


def _notebook(*cells: str, chinese: bool = False):
    """A notebook of the setup cell (English or Chinese) and `cells`, with ids c0, c1, ..."""
    nb = nbformat.v4.new_notebook()
    setup = zh.ZH_SETUP_CELL if chinese else zh.SETUP_CELL
    nb.cells = [nbformat.v4.new_code_cell(setup), *(nbformat.v4.new_code_cell(c) for c in cells)]
    for i, cell in enumerate(nb.cells):
        cell.id = f"c{i}"
    return nb


ENGLISH_CELL = ('%matplotlib inline\nx = {"first": 1}   # a comment\nprint("first:", x["first"], f"{x!r:>8} items")\n'
                'def f():\n    """Doc."""\n    return f"{len(x)} of {2}"')


@pytest.mark.parametrize("chinese", [
    ENGLISH_CELL.replace("# a comment", "# 注释").replace('"first:"', '"第一个："'),       # strings and comments
    ENGLISH_CELL.replace('"""Doc."""', '"""文档。"""').replace(":>8} items", "} 项"),    # docstring, width
    ENGLISH_CELL.replace('f"{len(x)} of {2}"', 'f"{len(x)}（共 {2} 个）"'),             # an f-string's words
    ENGLISH_CELL.replace("%matplotlib inline", "%matplotlib widget"),                    # a magic is not Python
])
def test_strings_comments_widths_and_the_setup_line_may_differ(chinese):
    assert program_differences(_notebook(ENGLISH_CELL), _notebook(chinese, chinese=True)) == []


@pytest.mark.parametrize("chinese, shown", [
    (ENGLISH_CELL.replace('print("first:", x["first"]', 'print("第一个：" + str(x["first"])'), "str("),  # + for ,
    (ENGLISH_CELL.replace('f"{len(x)} of {2}"', 'f"{2} 个里的 {len(x)} 个"'), "{2}{len(x)}"),     # fields swapped
    (ENGLISH_CELL.replace('x["first"],', '{"first": "第一个"}[x["first"]],'), "[x["),              # a zh-only map
    (ENGLISH_CELL + "\nimport json", "import json"),                                              # an extra line
    (ENGLISH_CELL.replace('x["first"]', 'x["first"] * 2'), "* 2"),                              # a number
    (ENGLISH_CELL.replace('"first"', "'first'.upper()"), "upper"),                               # a call on a key
])
def test_any_other_change_is_caught_and_shown(chinese, shown):
    found = program_differences(_notebook(ENGLISH_CELL), _notebook(chinese, chinese=True))
    assert len(found) == 1 and found[0].startswith("cell [1] c1: not the English program") and shown in found[0], found


def test_the_setup_line_is_the_only_exception_and_only_in_the_setup_cell():
    other = _notebook(ENGLISH_CELL, chinese=True)
    other.cells[0].source = zh.ZH_SETUP_CELL.replace('lang="zh"', 'lang="zh", threads=2')
    assert [f[:14] for f in program_differences(_notebook(ENGLISH_CELL), other)] == ["cell [0] c0: n"]
    en, other = _notebook(zh.EN_SETUP_LINE), _notebook(zh.ZH_SETUP_LINE, chinese=True)   # outside the setup cell
    assert [f[:14] for f in program_differences(en, other)] == ["cell [1] c1: n"]
