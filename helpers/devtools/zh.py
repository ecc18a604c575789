"""The Chinese edition: one source (the English notebooks), a translation catalogue per chapter, a builder.

    python -m helpers.devtools.zh extract   # add new and stale cells to i18n/zh/NN_name.yml
    python -m helpers.devtools.zh build     # write notebooks/zh/NN_name.ipynb (nothing is re-run)
    python -m helpers.devtools.zh execute [NN ...]   # build, then run in Chinese the chapters that run in zh
    python -m helpers.devtools.zh status    # per chapter: cells translated, untranslated, stale

A catalogue holds one entry per Markdown cell, keyed by the cell's id and a hash of its English text:
``{id, hash, en, zh}``. An entry is *current* when its hash equals the hash of the cell's English text now, its
`zh` is not empty and it has no `todo` mark. `extract` marks new cells ``todo: untranslated`` and cells whose
English changed ``todo: stale`` (keeping the English the translation was made from as `previous_en`); a translator
writes `zh` and deletes the `todo` line. The builder copies each English notebook (code cells, outputs, metadata,
cell ids) and replaces the Markdown of current entries by their Chinese; any other cell keeps its English text
with a note saying it is not translated yet. The one code change is the setup line (`ZH_SETUP_LINE`), so that
checkers and widgets speak Chinese. The output is byte-for-byte deterministic: the same sources always give the
same files.

Chapters that run in Chinese (`runs_in_zh=True` in helpers/course.py, the one list) go further. Their catalogue
also has a `code` list: one entry per code cell whose text a learner reads, keyed by the cell's id and a hash of
its English source, holding replacement `pairs` ``{en, zh}``: an exact piece of the English source (a string
literal's text, a comment) and its Chinese. The builder replaces every occurrence of each `en` in turn and refuses
(ValueError) when a pair's `en` is no longer in the cell; nothing else in the code changes, so both editions
compute the same thing. `extract` adds a ``todo: untranslated`` entry for every code cell with English words in a
string literal (``pairs: []`` says there is nothing to translate) and marks ``todo: stale`` an entry whose cell
changed. `execute` runs such a chapter's zh notebook in a fresh kernel and records the hash of its code
(`metadata.learning_to_attend.zh_run`); `build` keeps those outputs, so a later change of the code shows as a
hash that no longer matches (tests/test_i18n.py). Every other chapter keeps the English run's outputs.
"""
from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import re
from pathlib import Path

import nbformat
import yaml

from helpers import NOTEBOOKS_DIR, ROOT
from helpers.devtools.hygiene import SETUP_CELL
from helpers.devtools.notebooks import chapter_notebooks

__all__ = ["CATALOGUE_DIR", "ZH_DIR", "EN_SETUP_LINE", "ZH_SETUP_LINE", "ZH_SETUP_CELL", "ZH_SKELETON",
           "UNTRANSLATED_NOTE", "text_hash", "catalogue_path", "load_catalogue", "entry_status", "chapter_status",
           "runs_in_zh", "speaks", "translate_code", "code_hash", "build_notebook", "build", "extract_notebook",
           "extract", "execute", "zh_command"]

CATALOGUE_DIR = ROOT / "i18n" / "zh"
ZH_DIR = NOTEBOOKS_DIR / "zh"
EN_SETUP_LINE = "DEVICE = helpers.setup(seed=0)"
ZH_SETUP_LINE = 'DEVICE = helpers.setup(seed=0, lang="zh")'
ZH_SETUP_CELL = SETUP_CELL.replace(EN_SETUP_LINE, ZH_SETUP_LINE)
# the skeleton markers of the Chinese edition, for helpers.devtools.hygiene.notebook_problems(path, **ZH_SKELETON)
ZH_SKELETON = {"setup_cell": ZH_SETUP_CELL, "question": "**本章问题：**", "chapter_map": "## 本章地图",
               "exercises": "## 练习"}
UNTRANSLATED_NOTE = "\n\n*（本段尚未译成中文，暂为英文原文。）*"
_HEADER = """\
# Chinese text of the Markdown cells of notebooks/{name} (one entry per cell, in notebook order).
# Keyed by the cell's id and a hash of its English text. To translate: run `python -m helpers.devtools.zh extract`,
# write `zh` for every entry marked `todo`, delete its `todo` line (and `previous_en`), then run
# `python -m helpers.devtools.zh build`. Links in `zh` are relative to notebooks/zh/.
"""
_CODE_HEADER = """\
# `code` (this chapter runs in Chinese): per code cell, `pairs` of an exact piece of its English source and the
# Chinese that replaces it (string literals and comments only; toy-language tokens and identifiers stay). Every
# occurrence of `en` is replaced. Then `python -m helpers.devtools.zh execute NN`.
"""
_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def text_hash(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of a cell's text: what a translation is keyed by."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def catalogue_path(notebook: Path | str) -> Path:
    """i18n/zh/NN_name.yml for notebooks/NN_name.ipynb."""
    return CATALOGUE_DIR / (Path(notebook).stem + ".yml")


def load_catalogue(path: Path | str) -> dict:
    """A catalogue as {"notebook": name, "cells": [entry, ...], "removed": [entry, ...]} (empty when absent)."""
    path = Path(path)
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    data = data or {}
    for key in ("cells", "removed", "code", "removed_code"):
        entries = data.get(key) or []
        for entry in entries:
            if not isinstance(entry, dict) or "id" not in entry or "hash" not in entry:
                raise ValueError(f"{path}: every entry needs an `id` and a `hash`; got {entry!r:.200}")
        data[key] = entries
    for entry in data["code"] + data["removed_code"]:
        pairs = entry.get("pairs") or []
        if not isinstance(pairs, list) or not all(isinstance(p, dict) and isinstance(p.get("en"), str) and p["en"]
                                                  and isinstance(p.get("zh"), str) for p in pairs):
            raise ValueError(f"{path}: code cell {entry['id']}: `pairs` must be a list of {{en: ..., zh: ...}} with "
                             f"a non-empty English text; got {pairs!r:.200}")
        entry["pairs"] = pairs
    return data


def _markdown_cells(nb) -> list:
    """The Markdown cells of a notebook, in order."""
    return [c for c in nb.cells if c.cell_type == "markdown"]


def entry_status(cell, entry: dict | None) -> str:
    """"ok" (a current translation), "untranslated" or "stale" for one Markdown cell and its catalogue entry."""
    if entry is None:
        return "untranslated"
    if entry.get("hash") != text_hash(cell.source):
        return "stale"
    if entry.get("todo") or not str(entry.get("zh") or "").strip():
        return entry.get("todo") if entry.get("todo") in ("stale", "untranslated") else "untranslated"
    return "ok"


def chapter_status(notebook: Path | str) -> dict[str, str]:
    """{cell id: status} for every Markdown cell of one English chapter (see `entry_status`) and, in a chapter that
    runs in Chinese, for every code cell that `speaks` or has a code entry."""
    nb = nbformat.read(notebook, as_version=4)
    catalogue = load_catalogue(catalogue_path(notebook))
    entries = {e["id"]: e for e in catalogue["cells"]}
    found = {c.id: entry_status(c, entries.get(c.id)) for c in _markdown_cells(nb)}
    if runs_in_zh(notebook):
        code = {e["id"]: e for e in catalogue["code"]}
        for cell in _code_cells(nb):
            if cell.id in code or speaks(cell.source):
                found[cell.id] = _code_status(cell, code.get(cell.id))
    return found


# ---------------------------------------------------------------- code cells of the chapters that run in Chinese
_TWO_WORDS = re.compile(r"[A-Za-z]{2,}[^\w\n]*\s[^\w\n]*[A-Za-z]{2,}")      # two English words in a string literal
_LETTERS = re.compile(r"[A-Za-z]{3,}")
_SHOWS = {"print", "Markdown", "display"}


def runs_in_zh(notebook: Path | str) -> bool:
    """Whether a chapter's Chinese edition is executed in Chinese (its `runs_in_zh` in helpers/course.py)."""
    from helpers.course import CHAPTERS

    return any(ch.file == Path(notebook).name and ch.runs_in_zh for ch in CHAPTERS)


def _code_cells(nb) -> list:
    """The code cells of a notebook, in order."""
    return [c for c in nb.cells if c.cell_type == "code"]


def speaks(source: str) -> bool:
    """Whether a code cell shows English a learner reads: a string literal with two English words, or a printed
    or displayed literal with a word (IPython magics are skipped; docstrings and comments do not count)."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    shown = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in _SHOWS:
            shown |= {id(n) for arg in node.args for n in ast.walk(arg)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if _TWO_WORDS.search(node.value) or (id(node) in shown and _LETTERS.search(node.value)):
                return True
    return False


def _code_status(cell, entry: dict | None) -> str:
    """"ok", "untranslated" or "stale" for one code cell and its code entry (like `entry_status`)."""
    if entry is None:
        return "untranslated"
    if entry.get("hash") != text_hash(cell.source):
        return "stale"
    if entry.get("todo"):
        return entry["todo"] if entry["todo"] in ("stale", "untranslated") else "untranslated"
    return "ok"


def translate_code(source: str, pairs: list[dict], where: str = "") -> str:
    """A code cell's source with every occurrence of each pair's `en` replaced by its `zh`, pair by pair; a
    ValueError names the pair whose English is no longer in the cell."""
    for pair in pairs:
        if pair["en"] not in source:
            raise ValueError(f"{where}: the English text {pair['en']!r} of a translation pair is no longer in the "
                             "cell; run `python -m helpers.devtools.zh extract` and update the pair in its catalogue")
        source = source.replace(pair["en"], pair["zh"])
    return source


def code_hash(nb) -> str:
    """The hash of every code cell's source of a notebook, in order: what a Chinese run is tied to."""
    return text_hash("\n\x00".join(c.source for c in _code_cells(nb)))


def _relink(markdown: str) -> str:
    """Relative link targets of an English cell, rewritten to work from notebooks/zh/ (chapters stay in zh)."""
    def fix(m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"^([a-z]+:|#|/)", target) or re.match(r"^\d\d_\w+\.ipynb(#.*)?$", target):
            return m.group(0)
        return f"{m.group(1)}../{target}{m.group(3)}"
    return _LINK.sub(fix, markdown)


def build_notebook(source: Path | str, previous: Path | str | None = None) -> str:
    """The Chinese edition of one English notebook, as the exact text of its .ipynb file.

    For a chapter that runs in Chinese, the code cells are translated (`translate_code`) and the outputs, execution
    counts and `zh_run` record are those of `previous` (default: the committed notebooks/zh/ file), when it exists.
    """
    source = Path(source)
    nb = nbformat.read(source, as_version=4)
    catalogue = load_catalogue(catalogue_path(source))
    entries = {e["id"]: e for e in catalogue["cells"]}
    out = copy.deepcopy(nb)
    for cell in out.cells:
        if cell.cell_type == "markdown":
            entry = entries.get(cell.id)
            if entry_status(cell, entry) == "ok":
                cell.source = str(entry["zh"]).rstrip("\n")
            else:
                cell.source = _relink(cell.source) + UNTRANSLATED_NOTE
    code = [c for c in out.cells if c.cell_type == "code"]
    if code and code[0].source.strip() == SETUP_CELL:
        code[0].source = code[0].source.replace(EN_SETUP_LINE, ZH_SETUP_LINE)
    out.metadata["learning_to_attend"] = {
        "edition": "zh", "source": f"notebooks/{source.name}",
        "note": "built by `python -m helpers.devtools.zh build`; edit the English notebook or i18n/zh/, not this file"}
    if runs_in_zh(source):
        pairs = {e["id"]: e["pairs"] for e in catalogue["code"]}
        for cell in code:
            cell.source = translate_code(cell.source, pairs.get(cell.id, []),
                                         where=f"{catalogue_path(source).name}: code cell {cell.id}")
        previous = Path(previous) if previous is not None else ZH_DIR / source.name
        if previous.exists():
            ran = nbformat.read(previous, as_version=4)
            run = ran.metadata.get("learning_to_attend", {}).get("zh_run")
            if run:
                by_id = {c.id: c for c in _code_cells(ran)}
                for cell in code:
                    if cell.id in by_id:
                        cell.outputs = by_id[cell.id].outputs
                        cell.execution_count = by_id[cell.id].execution_count
                out.metadata["learning_to_attend"]["zh_run"] = run
    return nbformat.writes(out)


def build(sources: list[Path] | None = None, out_dir: Path = ZH_DIR) -> list[Path]:
    """Write the Chinese edition of every chapter into `out_dir`, removing editions of chapters that are gone."""
    sources = chapter_notebooks() if sources is None else sources
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for source in sources:
        target = out_dir / source.name
        text = build_notebook(source)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    for stale in sorted(set(out_dir.glob("*.ipynb")) - set(written)):
        stale.unlink()
    return written


class _Dumper(yaml.SafeDumper):
    """YAML with multi-line strings as literal blocks, so translators edit plain text."""


def _str(dumper, data):
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str)


def _dump(name: str, data: dict) -> str:
    """The text of a catalogue file: the header comment and the YAML."""
    body = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=1000)
    return _HEADER.format(name=name) + (_CODE_HEADER if data.get("code") else "") + body


def extract_notebook(notebook: Path | str) -> dict[str, int]:
    """Bring one chapter's catalogue up to date with its English Markdown; returns counts of what changed."""
    notebook = Path(notebook)
    nb = nbformat.read(notebook, as_version=4)
    path = catalogue_path(notebook)
    old = load_catalogue(path)
    by_id = {e["id"]: e for e in old["cells"]}
    counts = {"new": 0, "stale": 0, "moved": 0}
    cells, used = [], set()
    code, removed_code = _extract_code(nb, old, counts) if runs_in_zh(notebook) else (old["code"], old["removed_code"])
    orphans = [e for e in old["cells"] + old["removed"] if e["id"] not in {c.id for c in _markdown_cells(nb)}]
    for cell in _markdown_cells(nb):
        h = text_hash(cell.source)
        entry = by_id.get(cell.id)
        if entry is None:  # a new cell, or a cell whose id changed but whose text did not
            match = next((e for e in orphans if e["hash"] == h and id(e) not in used), None)
            if match is not None:
                used.add(id(match))
                entry = {**match, "id": cell.id}
                counts["moved"] += 1
            else:
                entry = {"id": cell.id, "hash": h, "todo": "untranslated", "en": cell.source, "zh": ""}
                counts["new"] += 1
        elif entry["hash"] != h:
            entry = dict(entry)
            if not entry.get("todo"):
                entry["todo"] = "stale"
                entry["previous_en"] = entry.get("en", "")
                counts["stale"] += 1
            entry.update(hash=h, en=cell.source)
        order = ["id", "hash", "todo", "en", "previous_en", "zh"]
        cells.append({k: entry[k] for k in order if k in entry} | {k: v for k, v in entry.items() if k not in order})
    removed = [e for e in orphans if id(e) not in used and e.get("zh")]   # an untranslated orphan carries nothing
    data = {"notebook": notebook.name, "cells": cells}
    if removed:
        data["removed"] = removed
    if code:
        data["code"] = code
    if removed_code:
        data["removed_code"] = removed_code
    text = _dump(notebook.name, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return counts


def _extract_code(nb, old: dict, counts: dict) -> tuple[list, list]:
    """The `code` and `removed_code` lists of a chapter that runs in Chinese, brought up to date (counts updated)."""
    by_id = {e["id"]: e for e in old["code"]}
    ids = {c.id for c in _code_cells(nb)}
    orphans = [e for e in old["code"] + old["removed_code"] if e["id"] not in ids]
    entries, used = [], set()
    for cell in _code_cells(nb):
        h = text_hash(cell.source)
        entry = by_id.get(cell.id)
        if entry is None:
            match = next((e for e in orphans if e["hash"] == h and id(e) not in used), None)
            if match is not None:
                used.add(id(match))
                entry = {**match, "id": cell.id}
                counts["moved"] += 1
            elif speaks(cell.source):
                entry = {"id": cell.id, "hash": h, "todo": "untranslated", "pairs": []}
                counts["new"] += 1
            else:
                continue
        elif entry["hash"] != h:
            entry = dict(entry, hash=h)
            if not entry.get("todo"):
                entry["todo"] = "stale"
                counts["stale"] += 1
        order = ["id", "hash", "todo", "pairs"]
        entries.append({k: entry[k] for k in order if k in entry} | {k: v for k, v in entry.items() if k not in order})
    return entries, [e for e in orphans if id(e) not in used and e.get("pairs")]


def extract(sources: list[Path] | None = None) -> dict[str, dict[str, int]]:
    """`extract_notebook` for every chapter: {notebook name: counts}."""
    return {p.name: extract_notebook(p) for p in (chapter_notebooks() if sources is None else sources)}


def execute(sources: list[Path] | None = None, out_dir: Path = ZH_DIR) -> list[tuple[Path, float]]:
    """Build, then execute in a fresh kernel, the zh notebook of each chapter that runs in Chinese (default: all of
    them), recording the hash of its code; returns (zh notebook, seconds) per chapter."""
    from helpers.devtools.notebooks import execute_notebook

    sources = [p for p in chapter_notebooks() if runs_in_zh(p)] if sources is None else sources
    refused = [Path(p).name for p in sources if not runs_in_zh(p)]
    if refused:
        raise ValueError(f"{refused}: not run in Chinese; set runs_in_zh=True for it in helpers/course.py first")
    done = []
    for source in sources:
        target = out_dir / Path(source).name
        target.write_text(build_notebook(source, previous=out_dir / "none.ipynb"), encoding="utf-8")
        seconds, ran = execute_notebook(target)
        ran.metadata["learning_to_attend"]["zh_run"] = {"code_hash": code_hash(ran)}
        nbformat.write(ran, target)
        target.write_text(build_notebook(source, previous=target), encoding="utf-8")
        done.append((target, seconds))
    return done


def zh_command(argv: list[str] | None = None) -> int:
    """`python -m helpers.devtools.zh extract|build|execute|status`."""
    parser = argparse.ArgumentParser(prog="python -m helpers.devtools.zh", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["extract", "build", "execute", "status"])
    parser.add_argument("chapters", nargs="*",
                        help="execute: chapter numbers or English notebooks (default: every chapter run in zh)")
    parser.add_argument("--skip-others", action="store_true",
                        help="execute: leave out the named chapters that do not run in Chinese (make execute)")
    args = parser.parse_intermixed_args(argv)
    if args.command == "execute":
        sources = None
        if args.chapters:
            wanted = {Path(c).name[:2] for c in args.chapters}
            sources = [p for p in chapter_notebooks() if p.name[:2] in wanted]
            if len(sources) != len(wanted):
                numbers = [p.name[:2] for p in chapter_notebooks()]
                parser.error(f"no such chapter among {args.chapters}; the chapters are {numbers}")
            if args.skip_others:
                sources = [p for p in sources if runs_in_zh(p)]
        try:
            done = execute(sources)
        except ValueError as error:
            parser.error(str(error))
        for path, seconds in done:
            print(f"{seconds:7.1f} s  {path.relative_to(ROOT)}")
        return 0
    if args.command == "extract":
        for name, counts in extract().items():
            print(f"{name:<48} new {counts['new']:>3}  stale {counts['stale']:>3}  moved {counts['moved']:>3}")
    elif args.command == "build":
        for path in build():
            print(path.relative_to(ROOT))
    else:
        for source in chapter_notebooks():
            found = list(chapter_status(source).values())
            print(f"{source.name:<48} ok {found.count('ok'):>3}  untranslated {found.count('untranslated'):>3}  "
                  f"stale {found.count('stale'):>3}")
    return 0


if __name__ == "__main__":
    raise SystemExit(zh_command())
