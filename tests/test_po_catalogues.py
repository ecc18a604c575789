"""The Chinese catalogues are gettext PO files that translators' tools read: every one reads with Babel (and with
GNU msgfmt where it is installed), is complete (no fuzzy entry, no empty msgstr), passes Babel's checks, and is
in the one form the course writes (read, then written again, gives the same bytes). The helpers' messages take
their Chinese from helpers/locale/zh/messages.po, which travels with helpers/."""
import os
import re
import shutil
import subprocess
import tomllib

import nbformat
import pytest
from babel.messages.pofile import read_po

from helpers import ROOT, i18n, messages
from helpers.devtools import zh

CATALOGUES = [*sorted(zh.CATALOGUE_DIR.glob("*.po")), i18n.MESSAGES_PO]
IDS = [p.name for p in CATALOGUES]
ENGLISH_ONLY_FIELDS = {"s"}      # English plural endings ("item{s}"): a Chinese template leaves them out


def read(path):
    return zh.read_catalogue(path, brace_format=path == i18n.MESSAGES_PO)


def test_every_chapter_has_a_po_catalogue_and_no_yaml_is_left():
    assert [p.stem for p in zh.CATALOGUE_DIR.glob("*.po")] and not list(zh.CATALOGUE_DIR.glob("*.yml"))
    assert sorted(p.stem for p in zh.CATALOGUE_DIR.glob("*.po")) == sorted(p.stem for p in zh.chapter_notebooks())


@pytest.mark.parametrize("path", CATALOGUES, ids=IDS)
def test_a_catalogue_reads_with_babel_and_is_complete(path):
    with path.open("rb") as f:
        catalogue = read_po(f, abort_invalid=True)
    entries = [m for m in catalogue if m.id]
    assert entries and catalogue.locale_identifier == "zh_CN" and catalogue.charset == "utf-8"
    assert not [m.context for m in entries if not m.context], "every entry needs a msgctxt (a cell id or a key)"
    assert not [m.context for m in entries if m.fuzzy], f"{path.name}: fuzzy entries: translate them, clear the flag"
    assert not [m.context for m in entries if not m.string], f"{path.name}: untranslated entries"
    ours = read(path)    # the flags the file carries (Babel guesses python-format from "%" in Markdown: dropped)
    assert not list(ours.check()), f"{path.name}: {[(m.context, e) for m, e in ours.check()]}"


@pytest.mark.parametrize("path", CATALOGUES, ids=IDS)
def test_a_catalogue_is_in_its_one_written_form(path):
    assert zh.po_text(read(path)) == path.read_text(encoding="utf-8"), (
        f"{path.name} is not in the form `zh extract` writes (a PO editor may have rewrapped it): run "
        "`python -m helpers.devtools.zh extract`")


def _need_msgfmt() -> None:
    """Skip where GNU gettext's msgfmt is missing, or fail when CI promises it (REQUIRE_MSGFMT=1, set by .ci/run)."""
    if shutil.which("msgfmt") is None:
        if os.environ.get("REQUIRE_MSGFMT") == "1":
            pytest.fail("REQUIRE_MSGFMT=1 but GNU gettext's msgfmt is not installed", pytrace=False)
        pytest.skip("GNU gettext's msgfmt is not installed (Debian: gettext; set REQUIRE_MSGFMT=1 to make this a "
                    "failure)")


@pytest.mark.parametrize("path", CATALOGUES, ids=IDS)
def test_gnu_msgfmt_reads_a_catalogue_and_checks_its_format_strings(path):
    _need_msgfmt()
    done = subprocess.run(["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(path)],
                          capture_output=True, text=True)
    complaints = [line for line in done.stderr.splitlines() if ": " in line and "translated message" not in line
                  and "fatal error" not in line]
    left_out = [m.group(1) for line in complaints
                if (m := re.search(r"argument '(\w+)' doesn't exist in 'msgstr'", line))]
    assert set(left_out) <= ENGLISH_ONLY_FIELDS and len(left_out) == len(complaints), complaints
    assert re.search(r"\d+ translated messages?\.", done.stderr) and "untranslated" not in done.stderr
    assert "fuzzy" not in done.stderr


def test_msgfmt_complaint_parsing_catches_a_dropped_field(tmp_path):
    _need_msgfmt()
    bad = tmp_path / "bad.po"
    bad.write_text(i18n.MESSAGES_PO.read_text(encoding="utf-8").replace(
        'msgstr "`{name}` 里有 NaN 或无穷大。"', 'msgstr "里有 NaN 或无穷大。"'), encoding="utf-8")
    done = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(bad)], capture_output=True, text=True)
    assert "argument 'name' doesn't exist in 'msgstr'" in done.stderr


def test_every_message_key_has_a_current_chinese_entry_and_messages_take_it():
    status = zh.messages_status()
    assert list(status) == list(messages.ENGLISH) and set(status.values()) == {"ok"}, (
        {k: v for k, v in status.items() if v != "ok"})
    assert i18n.MESSAGES == i18n.with_chinese(messages.ENGLISH)
    assert all(i18n.MESSAGES[k][0] == en for k, en in messages.ENGLISH.items())
    brace = {m.context for m in read(i18n.MESSAGES_PO) if "python-brace-format" in m.flags}
    assert brace == {k for k, en in messages.ENGLISH.items() if i18n.template_fields(en)}


def test_a_fuzzy_changed_or_missing_entry_shows_the_english(tmp_path):
    text = i18n.MESSAGES_PO.read_text(encoding="utf-8")
    path = tmp_path / "messages.po"
    english = {"core.nan": "`{name}` contains NaN or infinity.", "core.correct": "Correct: ",
               "core.not_yet": "Not yet (changed English): ", "core.brand_new": "New."}
    path.write_text(text.replace('msgctxt "core.correct"', '#, fuzzy\nmsgctxt "core.correct"'), encoding="utf-8")
    found = i18n.with_chinese(english, path)
    assert found["core.nan"] == (english["core.nan"], "`{name}` 里有 NaN 或无穷大。")
    assert [found[k] for k in ("core.correct", "core.not_yet", "core.brand_new")] == \
        [(english[k], english[k]) for k in ("core.correct", "core.not_yet", "core.brand_new")]


def test_extract_merges_the_messages_template_as_msgmerge_would(tmp_path, monkeypatch):
    path = tmp_path / "messages.po"
    shutil.copy(i18n.MESSAGES_PO, path)
    assert zh.extract_messages(path) == {"new": 0, "stale": 0, "moved": 0}
    assert path.read_bytes() == i18n.MESSAGES_PO.read_bytes()
    english = dict(messages.ENGLISH)
    english["core.correct"] = "Right: "
    english["core.brand_new"] = "A new message about {name}."
    del english["core.not_yet"]
    monkeypatch.setattr(messages, "ENGLISH", english)
    assert zh.extract_messages(path) == {"new": 1, "stale": 1, "moved": 0}
    text = path.read_text(encoding="utf-8")
    assert '#, fuzzy\n#| msgid "Correct: "\nmsgctxt "core.correct"\nmsgid "Right: "\nmsgstr "正确："' in text
    assert '#, python-brace-format\nmsgctxt "core.brand_new"\nmsgid "A new message about {name}."\nmsgstr ""' in text
    assert '#~ msgctxt "core.not_yet"\n#~ msgid "Not yet: "\n#~ msgstr "还不对："' in text     # obsolete, kept
    status = zh.messages_status(path)
    assert (status["core.correct"], status["core.brand_new"]) == ("stale", "untranslated")
    assert zh.po_text(zh.read_catalogue(path, brace_format=True)) == text      # the fuzzy entry reads back


def test_the_messages_catalogue_travels_with_helpers():
    assert i18n.MESSAGES_PO.is_relative_to(ROOT / "helpers")   # the student release and the grading sandbox
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(i18n.MESSAGES_PO.relative_to(ROOT / "helpers").match(p) for p in data["helpers"])   # pip install .


def test_a_speaking_code_cell_gets_an_entry_that_can_say_there_is_nothing_to_translate(scratch_chapter00):
    source, nb = scratch_chapter00
    cell = nbformat.v4.new_code_cell('print("a brand new sentence")')
    cell.id = "newcode1"
    nb.cells.insert(3, cell)
    nbformat.write(nb, source)
    assert zh.runs_in_zh(source) and zh.extract_notebook(source) == {"new": 1, "stale": 0, "moved": 0}
    assert zh.chapter_status(source)["newcode1"] == "untranslated"
    catalogue = zh.read_catalogue(zh.catalogue_path(source))
    (entry,) = [m for m in catalogue if m.context == "newcode1" + zh.CODE]
    assert entry.id == zh.NO_PAIRS and not entry.string and entry.auto_comments == [f"code {zh.text_hash(cell.source)}"]
    entry.string = "（没有要翻译的文字）"                                  # reviewed: nothing to translate
    zh.write_catalogue(zh.catalogue_path(source), catalogue)
    assert zh.chapter_status(source)["newcode1"] == "ok"
    assert zh.extract_notebook(source) == {"new": 0, "stale": 0, "moved": 0}      # and extract does not re-add it
    built = nbformat.reads(zh.build_notebook(source), as_version=4)
    assert next(c for c in built.cells if c.id == "newcode1").source == cell.source
    nb.cells.remove(nb.cells[3])          # the cell goes: an entry that says "nothing" is not kept as obsolete
    nbformat.write(nb, source)
    zh.extract_notebook(source)
    assert "newcode1" not in zh.catalogue_path(source).read_text(encoding="utf-8")


def test_extract_changes_nothing_in_the_shipped_catalogues(tmp_path, monkeypatch):
    monkeypatch.setattr(zh, "CATALOGUE_DIR", tmp_path)
    for source in zh.chapter_notebooks():
        shutil.copy(ROOT / "i18n" / "zh" / f"{source.stem}.po", tmp_path)
    counts = zh.extract()
    assert all(c == {"new": 0, "stale": 0, "moved": 0} for c in counts.values()), counts
    assert [p.name for p in sorted(tmp_path.iterdir())] == [p.name for p in CATALOGUES[:-1]]
    differ = [p.name for p in CATALOGUES[:-1] if (tmp_path / p.name).read_bytes() != p.read_bytes()]
    assert not differ, f"`zh extract` would rewrite {differ}: run it and commit the result"
