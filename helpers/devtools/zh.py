"""The Chinese edition: one source (the English notebooks), a translation catalogue per chapter, a builder.

    python -m helpers.devtools.zh extract   # add new and stale Markdown cells to i18n/zh/NN_name.yml
    python -m helpers.devtools.zh build     # write notebooks/zh/NN_name.ipynb (nothing is re-run)
    python -m helpers.devtools.zh status    # per chapter: cells translated, untranslated, stale

A catalogue holds one entry per Markdown cell, keyed by the cell's id and a hash of its English text:
``{id, hash, en, zh}``. An entry is *current* when its hash equals the hash of the cell's English text now, its
`zh` is not empty and it has no `todo` mark. `extract` marks new cells ``todo: untranslated`` and cells whose
English changed ``todo: stale`` (keeping the English the translation was made from as `previous_en`); a translator
writes `zh` and deletes the `todo` line. The builder copies each English notebook (code cells, outputs, metadata,
cell ids) and replaces the Markdown of current entries by their Chinese; any other cell keeps its English text
with a note saying it is not translated yet. The one code change is the setup line (`ZH_SETUP_LINE`), so that
checkers and widgets speak Chinese; stored outputs stay the English run's. The output is byte-for-byte
deterministic: the same sources always give the same files.
"""
from __future__ import annotations

import argparse
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
           "build_notebook", "build", "extract_notebook", "extract", "zh_command"]

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
    for key in ("cells", "removed"):
        entries = data.get(key) or []
        for entry in entries:
            if not isinstance(entry, dict) or "id" not in entry or "hash" not in entry:
                raise ValueError(f"{path}: every entry needs an `id` and a `hash`; got {entry!r:.200}")
        data[key] = entries
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
    """{cell id: status} for every Markdown cell of one English chapter (see `entry_status`)."""
    nb = nbformat.read(notebook, as_version=4)
    entries = {e["id"]: e for e in load_catalogue(catalogue_path(notebook))["cells"]}
    return {c.id: entry_status(c, entries.get(c.id)) for c in _markdown_cells(nb)}


def _relink(markdown: str) -> str:
    """Relative link targets of an English cell, rewritten to work from notebooks/zh/ (chapters stay in zh)."""
    def fix(m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"^([a-z]+:|#|/)", target) or re.match(r"^\d\d_\w+\.ipynb(#.*)?$", target):
            return m.group(0)
        return f"{m.group(1)}../{target}{m.group(3)}"
    return _LINK.sub(fix, markdown)


def build_notebook(source: Path | str) -> str:
    """The Chinese edition of one English notebook, as the exact text of its .ipynb file."""
    source = Path(source)
    nb = nbformat.read(source, as_version=4)
    entries = {e["id"]: e for e in load_catalogue(catalogue_path(source))["cells"]}
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
    return _HEADER.format(name=name) + body


def extract_notebook(notebook: Path | str) -> dict[str, int]:
    """Bring one chapter's catalogue up to date with its English Markdown; returns counts of what changed."""
    notebook = Path(notebook)
    nb = nbformat.read(notebook, as_version=4)
    path = catalogue_path(notebook)
    old = load_catalogue(path)
    by_id = {e["id"]: e for e in old["cells"]}
    counts = {"new": 0, "stale": 0, "moved": 0}
    cells, used = [], set()
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
    text = _dump(notebook.name, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return counts


def extract(sources: list[Path] | None = None) -> dict[str, dict[str, int]]:
    """`extract_notebook` for every chapter: {notebook name: counts}."""
    return {p.name: extract_notebook(p) for p in (chapter_notebooks() if sources is None else sources)}


def zh_command(argv: list[str] | None = None) -> int:
    """`python -m helpers.devtools.zh extract|build|status`."""
    parser = argparse.ArgumentParser(prog="python -m helpers.devtools.zh", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["extract", "build", "status"])
    args = parser.parse_args(argv)
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
