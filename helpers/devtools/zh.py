"""The Chinese edition: one source (the English notebooks), a gettext PO catalogue per chapter, a builder.

    python -m helpers.devtools.zh extract   # merge new and changed cells and messages into the PO catalogues
    python -m helpers.devtools.zh build     # write notebooks/zh/NN_name.ipynb (nothing is re-run)
    python -m helpers.devtools.zh execute [NN ...]   # build, then run in Chinese the chapters that run in zh
    python -m helpers.devtools.zh status    # per chapter: cells translated, untranslated, stale

The catalogues are gettext PO files, read and written with Babel, so Poedit, Weblate, Crowdin, Lokalize and
`msgfmt` open them: `i18n/zh/NN_name.po` per chapter and `helpers/locale/zh/messages.po` for the helpers' messages
(its English is `helpers.messages.ENGLISH`). A chapter's catalogue holds one entry per Markdown cell: msgctxt = the
cell's id, msgid = its English text, msgstr = the Chinese. An entry is *current* when its msgid equals the cell's
text now, it is not fuzzy and its msgstr is not empty. `extract` adds an empty entry for a new cell and marks
`#, fuzzy` an entry whose English changed (keeping the English the translation was made from as `#| msgid`), as
msgmerge does; a translator writes the msgstr and clears the fuzzy flag. Entries of cells that are gone stay as
obsolete entries (`#~`); a cell whose id changed but whose text did not keeps its translation. The builder copies
each English notebook (code cells, outputs, metadata, cell ids) and replaces the Markdown of current entries by
their Chinese; any other cell keeps its English text with a note saying it is not translated yet. The one code
change is the setup line (`ZH_SETUP_LINE`), so that checkers and widgets speak Chinese. Every file is written in
one form (`po_text`: a fixed header, entries in notebook order, lines wrapped at `PO_WIDTH`), so `build` and
`extract` are byte-for-byte deterministic.

Chapters that run in Chinese (`runs_in_zh=True` in helpers/course.py, the one list) go further. Their catalogue
also holds, per code cell whose text a learner reads, its translation pairs: one entry per pair, msgctxt =
"<cell id> code", msgid = an exact piece of the English source (a string literal's text, a comment), msgstr = its
Chinese, and the extracted comment `#. code <hash of the cell's source>`. The builder replaces every occurrence of
each pair's msgid in turn (in the catalogue's order) and refuses (ValueError) when it is no longer in the cell;
nothing else in the code changes, so both editions compute the same thing. `extract` adds the entry `NO_PAIRS`
with an empty msgstr for every code cell with English words in a string literal (a translator replaces it by
pairs, or gives it a msgstr to say there is nothing to translate) and marks fuzzy the entries of a cell whose
source changed. `execute` runs such a chapter's zh notebook in a fresh kernel and records the hash of its code
(`metadata.learning_to_attend.zh_run`); `build` keeps those outputs, so a later change of the code shows as a hash
that no longer matches (tests/test_i18n.py). Every other chapter keeps the English run's outputs.
"""
from __future__ import annotations

import argparse
import ast
import copy
import datetime
import hashlib
import io
import re
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import denormalize, normalize, read_po, write_po

from helpers import i18n, messages
from helpers.base import NOTEBOOKS_DIR, ROOT
from helpers.devtools.hygiene import SETUP_CELL
from helpers.devtools.notebooks import chapter_notebooks, python_of

__all__ = ["CATALOGUE_DIR", "ZH_DIR", "EN_SETUP_LINE", "ZH_SETUP_LINE", "ZH_SETUP_CELL", "ZH_SKELETON",
           "UNTRANSLATED_NOTE", "PO_WIDTH", "CODE", "NO_PAIRS", "text_hash", "catalogue_path", "new_catalogue",
           "read_catalogue", "po_text", "write_catalogue", "load_catalogue", "entry_status", "chapter_status",
           "runs_in_zh", "speaks", "translate_code", "code_hash", "build_notebook", "build", "extract_notebook",
           "extract_messages", "messages_status", "extract", "execute", "zh_command"]

CATALOGUE_DIR = ROOT / "i18n" / "zh"
ZH_DIR = NOTEBOOKS_DIR / "zh"
EN_SETUP_LINE = "DEVICE = helpers.setup(seed=0)"
ZH_SETUP_LINE = 'DEVICE = helpers.setup(seed=0, lang="zh")'
ZH_SETUP_CELL = SETUP_CELL.replace(EN_SETUP_LINE, ZH_SETUP_LINE)
# the skeleton markers of the Chinese edition, for helpers.devtools.hygiene.notebook_problems(path, **ZH_SKELETON)
ZH_SKELETON = {"setup_cell": ZH_SETUP_CELL, "question": "**本章问题：**", "chapter_map": "## 本章地图",
               "exercises": "## 练习"}
UNTRANSLATED_NOTE = "\n\n*（本段尚未译成中文，暂为英文原文。）*"
PO_WIDTH = 120                    # the repository's line length; Babel wraps longer msgid/msgstr lines
CODE = " code"                    # msgctxt "<cell id> code": a translation pair of a code cell
NO_PAIRS = "(no translation pairs)"   # the entry of a code cell that has no pairs (yet)
_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)   # a fixed header date: byte-stable files
_PREVIOUS = "@previous-msgid@"    # where `po_text` writes a fuzzy entry's `#| msgid` (Babel's own is lossy)
_FORMAT_FLAGS = {"python-format", "python-brace-format"}
# Babel rewrites "PROJECT", "VERSION", "YEAR" and "ORGANIZATION" in a header comment: the headers avoid them.
_HEADER = """\
# Chinese text of notebooks/{name}
# One entry per Markdown cell, in notebook order: msgctxt = the cell's id, msgid = its English text, msgstr = the
# Chinese (links relative to notebooks/zh/). To translate: `python -m helpers.devtools.zh extract`, then in a PO
# editor (Poedit, Lokalize) or a text editor write the msgstr of every empty or fuzzy entry and clear its fuzzy
# flag; then `python -m helpers.devtools.zh build`.
"""
_CODE_HEADER = """\
# This chapter runs in Chinese: msgctxt "<cell id> code" entries are translation pairs of a code cell, an exact
# piece of its English source (string literals and comments only; toy-language tokens and identifiers stay) and
# the Chinese that replaces every occurrence of it, applied in this order. Then `python -m helpers.devtools.zh
# execute NN`. `#. code <hash>` ties the pairs to the cell's source; a changed cell makes them fuzzy.
"""
_MESSAGES_HEADER = """\
# Chinese text of the helpers' messages: msgctxt = the key, msgid = its English template in helpers/messages.py
# (`ENGLISH`), msgstr = the Chinese template (str.format fields: a subset of the English one's).
# After changing `ENGLISH`: `python -m helpers.devtools.zh extract`, then translate every empty or fuzzy entry.
"""
_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def text_hash(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of a text: what a code cell's translation pairs are tied to."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def catalogue_path(notebook: Path | str) -> Path:
    """i18n/zh/NN_name.po for notebooks/NN_name.ipynb."""
    return CATALOGUE_DIR / (Path(notebook).stem + ".po")


# ---------------------------------------------------------------- PO files: one form, read and written by Babel
def new_catalogue(name: str, header_comment: str) -> Catalog:
    """An empty Babel catalogue with the course's fixed header (no dates that change, no placeholders)."""
    return Catalog(locale="zh_CN", header_comment=header_comment.rstrip("\n"), project="Learning to Attend",
                   version=name, copyright_holder="", msgid_bugs_address="README.md, For course authors",
                   creation_date=_DATE, revision_date=_DATE, last_translator="Learning to Attend translators",
                   language_team="Chinese (Simplified)", fuzzy=False)


def _keep_flags(message: Message, brace_format: bool) -> None:
    """Drop the format flags Babel guesses from a msgid, but python-brace-format where `brace_format`."""
    message.flags -= _FORMAT_FLAGS - ({"python-brace-format"} if brace_format else set())


def read_catalogue(path: Path | str, name: str = "", header_comment: str = "", brace_format: bool = False) -> Catalog:
    """A PO file as a Babel catalogue with the course's header (an empty one when the file is absent) and
    `header_comment` (default: the file's); a fuzzy entry's previous msgid (`#| msgid`) is its `previous_id`.
    Chapter catalogues are Markdown, not format strings: Babel's guessed format flags are dropped (`brace_format`:
    keep python-brace-format, for messages.po). A file that is not valid PO raises babel's PoFileError."""
    path = Path(path)
    if not path.exists():
        return new_catalogue(name or path.stem, header_comment)
    with path.open("rb") as f:
        found = read_po(f, abort_invalid=True)
    catalogue = new_catalogue(name or path.stem, header_comment or found.header_comment)
    for message in [*found, *found.obsolete.values()]:
        if not message.id:
            continue
        previous = [c[2:] for c in message.user_comments if c.startswith("| ")]
        if previous and previous[0].startswith("msgid "):
            message.previous_id = [denormalize("\n".join([previous[0][6:], *previous[1:]]))]
            message.user_comments = [c for c in message.user_comments if not c.startswith("| ")]
        _keep_flags(message, brace_format)
    for message in found:
        if message.id:
            catalogue[message.id] = message
    catalogue.obsolete = found.obsolete
    return catalogue


def po_text(catalogue: Catalog) -> str:
    """The one text form of a catalogue: its header, the entries in their order, the obsolete ones last."""
    blocks = []
    for message in catalogue:
        if message.id and message.previous_id:
            message.auto_comments.append(_PREVIOUS)
            blocks.append(f"#| msgid {normalize(message.previous_id[0], prefix='#| ', width=PO_WIDTH)}\n")
    out = io.BytesIO()
    try:
        write_po(out, catalogue, width=PO_WIDTH, no_location=True, include_lineno=False)
    finally:
        for message in catalogue:
            if _PREVIOUS in message.auto_comments:
                message.auto_comments.remove(_PREVIOUS)
    pending = iter(blocks)
    return re.sub(rf"#\. {re.escape(_PREVIOUS)}\n(#,[^\n]*\n)?", lambda m: (m.group(1) or "") + next(pending),
                  out.getvalue().decode("utf-8"))


def write_catalogue(path: Path | str, catalogue: Catalog) -> bool:
    """Write a catalogue in its one form (`po_text`) when its text changed; returns whether it did."""
    path, text = Path(path), po_text(catalogue)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def _chapter_catalogue(notebook: Path | str) -> Catalog:
    """The PO catalogue of one chapter, read (empty when absent)."""
    name = Path(notebook).stem + ".ipynb"
    header = _HEADER.format(name=name) + (_CODE_HEADER if runs_in_zh(name) else "")
    return read_catalogue(catalogue_path(notebook), name=Path(notebook).stem, header_comment=header)


def _is_code(message: Message) -> bool:
    return (message.context or "").endswith(CODE)


def _cell_id(message: Message) -> str:
    """The id of the cell an entry belongs to (its msgctxt, without " code")."""
    return message.context[:-len(CODE)] if _is_code(message) else message.context


def _pair_hash(message: Message) -> str | None:
    """The code hash an entry's `#. code <hash>` comment records."""
    return next((c.split()[1] for c in message.auto_comments if c.startswith("code ") and len(c.split()) == 2), None)


def load_catalogue(path: Path | str) -> dict:
    """A chapter's catalogue as the builder reads it: {"cells": [{id, en, zh, fuzzy, previous_en}, ...],
    "code": [{id, hash, todo, pairs: [{en, zh}, ...]}, ...]}, both in file order (empty when absent). A code
    cell's `todo` is "stale" when an entry is fuzzy, "untranslated" when one has no msgstr, else None; its
    `pairs` are the translated ones."""
    path = Path(path)
    catalogue = read_catalogue(path)
    cells, code = [], {}
    for message in catalogue:
        if not message.id:
            continue
        if not message.context:
            raise ValueError(f"{path}: the entry {message.id!r:.80} has no msgctxt (its cell's id)")
        if not _is_code(message):
            cells.append({"id": message.context, "en": message.id, "zh": message.string or "",
                          "fuzzy": message.fuzzy, "previous_en": (message.previous_id or [None])[0]})
            continue
        entry = code.setdefault(_cell_id(message), {"id": _cell_id(message), "hash": _pair_hash(message),
                                                    "todo": None, "pairs": []})
        if _pair_hash(message) != entry["hash"]:
            entry["hash"] = None                               # entries from two versions of the cell: stale
        if message.fuzzy:
            entry["todo"] = "stale"
        elif not message.string and entry["todo"] is None:
            entry["todo"] = "untranslated"
        if message.id != NO_PAIRS and message.string:
            entry["pairs"].append({"en": message.id, "zh": message.string})
    return {"cells": cells, "code": list(code.values())}


def _markdown_cells(nb) -> list:
    """The Markdown cells of a notebook, in order."""
    return [c for c in nb.cells if c.cell_type == "markdown"]


def entry_status(cell, entry: dict | None) -> str:
    """"ok" (a current translation), "untranslated" or "stale" for one Markdown cell and its catalogue entry: stale
    when the entry's English is not the cell's text or it is fuzzy, untranslated when it has no Chinese."""
    if entry is None:
        return "untranslated"
    if entry["en"] != cell.source or entry["fuzzy"]:
        return "stale"
    return "ok" if entry["zh"].strip() else "untranslated"


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
    try:
        tree = ast.parse(python_of(source))
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
    """"ok", "untranslated" or "stale" for one code cell and its code entries (like `entry_status`)."""
    if entry is None:
        return "untranslated"
    if entry["hash"] != text_hash(cell.source):
        return "stale"
    return entry["todo"] or "ok"


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


def _clone(message: Message, **changes) -> Message:
    """A copy of a catalogue entry with some attributes changed (id, context, ...)."""
    out = message.clone()
    for name, value in changes.items():
        setattr(out, name, value)
    return out


def _merge_entry(old: dict, orphans: list, used: set, context: str, text: str, counts: dict,
                 brace_format: bool = False) -> Message:
    """The entry for (msgctxt `context`, msgid `text`) merged from `old` ({msgctxt: entry}), as msgmerge would but
    keyed by msgctxt: the same text keeps its entry; a changed one turns fuzzy with its previous msgid (counts
    "stale"); a new context takes the translation of an orphan with the same text ("moved") or is empty ("new")."""
    entry = old.get(context)
    if entry is None:
        match = next((m for m in orphans if m.id == text and id(m) not in used), None)
        if match is not None:
            used.add(id(match))
            counts["moved"] += 1
            message = _clone(match, context=context)
        else:
            message = Message(text, "", context=context)
            counts["new"] += 1
    elif entry.id != text:
        message = _clone(entry, id=text)
        if message.string and not message.fuzzy:
            message.flags.add("fuzzy")
            message.previous_id = [entry.id]
            counts["stale"] += 1
    else:
        message = _clone(entry)
    if not message.fuzzy:
        message.previous_id = []
    _keep_flags(message, brace_format)
    return message


def _code_groups(messages) -> dict[str, list[Message]]:
    """{cell id: [its code entries, in order]} of some catalogue entries."""
    groups: dict[str, list[Message]] = {}
    for message in messages:
        if message.id and _is_code(message):
            groups.setdefault(_cell_id(message), []).append(message)
    return groups


def _merge_code(cell, groups: dict, orphans: list, used: set, counts: dict) -> list[Message]:
    """The code entries of one code cell of a chapter that runs in Chinese, brought up to date (counts updated)."""
    h = text_hash(cell.source)
    group = groups.get(cell.id)
    if group is None:
        match = next((g for g in orphans if _pair_hash(g[0]) == h and id(g) not in used), None)
        if match is not None:
            used.add(id(match))
            counts["moved"] += 1
            group = [_clone(m, context=cell.id + CODE) for m in match]
            for m in group:
                _keep_flags(m, False)
            return group
        if not speaks(cell.source):
            return []
        counts["new"] += 1
        marker = Message(NO_PAIRS, "", context=cell.id + CODE, auto_comments=[f"code {h}"])
        _keep_flags(marker, False)
        return [marker]
    group = [_clone(m) for m in group]
    for m in group:
        _keep_flags(m, False)
    if any(_pair_hash(m) != h for m in group):
        if all(m.string and not m.fuzzy for m in group):      # it was current: now it is stale
            for m in group:
                m.flags.add("fuzzy")
            counts["stale"] += 1
        for m in group:
            m.auto_comments = [c for c in m.auto_comments if not c.startswith("code ")] + [f"code {h}"]
    return group


def extract_notebook(notebook: Path | str) -> dict[str, int]:
    """Bring one chapter's catalogue up to date with its English notebook; returns counts of what changed."""
    notebook = Path(notebook)
    nb = nbformat.read(notebook, as_version=4)
    old = _chapter_catalogue(notebook)
    fresh = new_catalogue(notebook.stem, old.header_comment)
    counts = {"new": 0, "stale": 0, "moved": 0}
    markdown = {m.context: m for m in old if m.id and not _is_code(m)}
    md_ids = {c.id for c in _markdown_cells(nb)}
    orphans = [m for m in [*markdown.values(), *old.obsolete.values()] if not _is_code(m) and m.context not in md_ids]
    used: set = set()
    runs = runs_in_zh(notebook)
    groups, gone = _code_groups(old), _code_groups(old.obsolete.values())
    code_ids = {c.id for c in _code_cells(nb)}
    code_orphans = [g for cid, g in [*groups.items(), *gone.items()] if cid not in code_ids]
    entries = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            entries.append(_merge_entry(markdown, orphans, used, cell.id, cell.source, counts))
        elif cell.cell_type == "code" and runs:
            entries += _merge_code(cell, groups, code_orphans, used, counts)
        elif cell.cell_type == "code":   # a chapter that does not run in Chinese keeps its code entries as they are
            entries += groups.get(cell.id, [])
    if not runs:
        entries += [m for cell_id, g in groups.items() if cell_id not in code_ids for m in g]
    for message in entries:
        fresh[message.id] = message
    for m in orphans:    # an untranslated orphan carries nothing
        if id(m) not in used and m.string:
            fresh.obsolete[(m.id, m.context)] = _clone(m, flags=set(), previous_id=[])
    for g in code_orphans if runs else [g for cid, g in gone.items()]:
        if id(g) not in used and any(m.string and m.id != NO_PAIRS for m in g):
            for m in g:
                fresh.obsolete[(m.id, m.context)] = _clone(m, flags=set(), previous_id=[])
    write_catalogue(catalogue_path(notebook), fresh)
    return counts


def extract_messages(path: Path | str | None = None) -> dict[str, int]:
    """Merge helpers.messages.ENGLISH into the messages catalogue (helpers/locale/zh/messages.po); returns counts."""
    path = Path(path or i18n.MESSAGES_PO)
    old = read_catalogue(path, name="messages", header_comment=_MESSAGES_HEADER, brace_format=True)
    fresh = new_catalogue("messages", _MESSAGES_HEADER)
    counts = {"new": 0, "stale": 0, "moved": 0}
    by_key = {m.context: m for m in old if m.id}
    orphans = [m for m in [*by_key.values(), *old.obsolete.values()] if m.context not in messages.ENGLISH]
    used: set = set()
    for key, english in messages.ENGLISH.items():
        message = _merge_entry(by_key, orphans, used, key, english, counts, brace_format=True)
        fresh[message.id] = message
    for m in orphans:
        if id(m) not in used and m.string:
            fresh.obsolete[(m.id, m.context)] = _clone(m, flags=set(), previous_id=[])
    write_catalogue(path, fresh)
    return counts


def messages_status(path: Path | str | None = None) -> dict[str, str]:
    """{key: "ok" | "untranslated" | "stale"} for every message of helpers.messages.ENGLISH in the messages
    catalogue."""
    catalogue = read_catalogue(Path(path or i18n.MESSAGES_PO), brace_format=True)
    by_key = {m.context: m for m in catalogue if m.id}
    found = {}
    for key, english in messages.ENGLISH.items():
        m = by_key.get(key)
        found[key] = ("untranslated" if m is None or (m.id == english and not m.fuzzy and not m.string) else
                      "stale" if m.id != english or m.fuzzy else "ok")
    return found


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
    if out_dir == ZH_DIR:
        from helpers import pinning

        pinning.check_can_write("executed Chinese notebooks")
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
        found = extract() | {"helpers/locale/zh/messages.po": extract_messages()}
        for name, counts in found.items():
            print(f"{name:<48} new {counts['new']:>3}  stale {counts['stale']:>3}  moved {counts['moved']:>3}")
    elif args.command == "build":
        for path in build():
            print(path.relative_to(ROOT))
    else:
        statuses = {p.name: chapter_status(p) for p in chapter_notebooks()}
        for name, status in (statuses | {"helpers/locale/zh/messages.po": messages_status()}).items():
            found = list(status.values())
            print(f"{name:<48} ok {found.count('ok'):>3}  untranslated {found.count('untranslated'):>3}  "
                  f"stale {found.count('stale'):>3}")
    return 0


if __name__ == "__main__":
    raise SystemExit(zh_command())
