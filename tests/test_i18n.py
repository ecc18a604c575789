"""The Chinese edition: the message catalogue (every key in both languages, every key used), the chapter catalogues
(every Markdown cell translated and not stale), the built notebooks/zh/ (exactly what the builder makes, code cells
identical to the English ones but for the setup line, clean under the hygiene checks) and the glossary's terms."""
import re
import shutil
from pathlib import Path

import nbformat
import pytest

import helpers
from helpers import NOTEBOOKS_DIR, ROOT, course, i18n
from helpers.devtools import chapter_notebooks, notebook_problems, zh

CHAPTERS = chapter_notebooks()
IDS = [p.stem[:2] for p in CHAPTERS]
# Chapters whose English text changed so late in a round that the translation is still to come. Each one is named,
# with its reason, in README.zh.md; its zh notebook keeps the English text with the builder's "not yet translated"
# note on every cell. Remove a chapter from here when its catalogue is translated: then every test below applies.
PENDING = {}
TRANSLATED = [p for p in CHAPTERS if p.stem[:2] not in PENDING]
CJK = re.compile(r"[\u4e00-\u9fff]")
KEY_LITERAL = re.compile(
    r"""["']((?:core|attention|describe|setup|widgets|plots|tables|training|experiments|toylang|ch\d\d)\.[a-z0-9_]+)["']""")


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_lang("en")


# ---------------------------------------------------------------- the message catalogue
FULL_WIDTH = re.compile(r"[\u3000-\u303f\uff00-\uffef]")    # Chinese punctuation: "；", "{label}：{words}"
SAME_IN_CHINESE = {"tables.bleu", "ch05.output_logits",    # "BLEU", "logits": the glossary leaves them (不译)
                   "training.kind_transformer",             # "Transformer" (不译)
                   "experiments.interval_of_set"}           # "`4-10` +0.5 [-2.3, +3.2]": a bucket and numbers only


def test_every_message_has_an_english_and_a_chinese_text_with_the_same_fields():
    problems = []
    for key, texts in i18n.MESSAGES.items():
        if len(texts) != len(i18n.LANGUAGES) or not all(isinstance(x, str) and x.strip() for x in texts):
            problems.append(f"{key}: expected {len(i18n.LANGUAGES)} non-empty texts, got {texts!r}")
            continue
        en, zh_text = texts
        if not CJK.search(zh_text) and not FULL_WIDTH.search(zh_text) and key not in SAME_IN_CHINESE:
            problems.append(f"{key}: the Chinese text has no Chinese: {zh_text!r}")
        extra = i18n.template_fields(zh_text) - i18n.template_fields(en)
        if extra:
            problems.append(f"{key}: the Chinese text uses fields the English one does not: {sorted(extra)}")
        if "lang" in i18n.template_fields(en):
            problems.append(f"{key}: a field may not be called `lang` (t's own argument)")
    assert not problems, "\n".join(problems)


def test_every_key_used_in_helpers_exists_and_every_key_is_used():
    used = set()
    for path in (ROOT / "helpers").rglob("*.py"):
        if path.name not in ("i18n.py", "messages.py"):   # where the keys are defined, not used
            used |= set(KEY_LITERAL.findall(path.read_text(encoding="utf-8")))
    assert used, "no message key found in helpers/: has the key naming changed?"
    missing = sorted(used - set(i18n.MESSAGES))
    assert not missing, f"keys used but missing from the catalogue: {missing}"
    assert not set(i18n.MESSAGES) - used, f"keys nobody uses: {sorted(set(i18n.MESSAGES) - used)}"


def test_t_fills_the_current_language_and_rejects_unknown_keys_and_languages():
    assert i18n.t("core.nan", name="w") == "`w` contains NaN or infinity."
    with i18n.language("zh"):
        assert i18n.t("core.nan", name="w") == "`w` 里有 NaN 或无穷大。"
        assert i18n.ordinal(1) == "第二个" and i18n.ordinal(4) == "第 5 个"   # "number 5" in English
    assert i18n.get_lang() == "en" and i18n.ordinal(1) == "second"
    with pytest.raises(KeyError, match="no message 'core.nope'"):
        i18n.t("core.nope")
    with pytest.raises(ValueError, match="lang is 'fr'; expected one of 'en', 'zh'"):
        i18n.set_lang("fr")


def test_setup_switches_the_language_and_keeps_the_english_line(capsys):
    helpers.setup(seed=0)
    english = capsys.readouterr().out
    pinned, phrase = helpers.pinning.status()
    assert re.fullmatch(r"Learning to Attend \| python \d+\.\d+ \| torch \S+ \| device \w+ \| threads 1 \| seed 0"
                        rf" \| {re.escape(phrase)}\n" + ("" if pinned else r".+\n"), english)
    assert i18n.get_lang() == "en"
    helpers.setup(seed=0, lang="zh")
    chinese = english.replace(" | CPU", " | 语言 zh | CPU")
    for word, zh_word in (("device", "设备"), ("threads", "线程"), ("seed", "种子")):
        chinese = chinese.replace(f" | {word} ", f" | {zh_word} ", 1)
    if pinned:   # the pinned phrase is the catalogue's; an unpinned machine's reason stays as torch gives it
        assert i18n.t("setup.pinned", lang="en") == phrase
        chinese = chinese.replace(phrase, "CPU 内核 AVX2（已固定）")
    else:        # off the pinned paths, the line after it says so in the learner's language
        chinese = chinese.replace(i18n.t("setup.not_pinned", lang="en"), i18n.t("setup.not_pinned", lang="zh"))
    assert capsys.readouterr().out == chinese and i18n.get_lang() == "zh"
    with pytest.raises(ValueError, match="lang is 'de'"):
        helpers.setup(lang="de")
    assert i18n.get_lang() == "zh"  # a bad language changes nothing


def test_checkers_speak_chinese_after_setup(capsys):
    from helpers.exercises import check_weights, reset_tries

    reset_tries()
    helpers.setup(lang="zh", quiet=True)
    assert check_weights([0.8, 0.1, 0.1], most_on=1) is False
    first = capsys.readouterr().out
    assert first.startswith("还不对：") and "第一个键" in first and "第二次答错时会显示答案" in first
    check_weights([0.8, 0.1, 0.1], most_on=1)
    answer = "正确答案：任何一组非负、和为 1 的权重，只要有超过 0.5 的权重落在位置 1（从 0 数）上，都可以。"
    assert answer in capsys.readouterr().out
    helpers.setup(lang="en", quiet=True)
    assert check_weights([0.1, 0.8, 0.1], most_on=1) is True
    assert capsys.readouterr().out.startswith("Correct: ")
    reset_tries()


def test_widget_labels_and_readouts_speak_chinese():
    from helpers.widgets import QKExplorer, translate_and_show

    with i18n.language("zh"):
        explorer = QKExplorer()
        assert (explorer.key_picker.description, explorer.temperature.description) == ("要移动的键", "温度")
        assert explorer.scale_switch.description == "得分除以 √d_k"
        assert "注意力权重：" in explorer.readout.value and "上下文向量：" in explorer.readout.value
        assert explorer.displayed_weights() == pytest.approx([0.4011, 0.4011, 0.1978], abs=1e-4)
        assert translate_and_show(None, "").message.startswith("请输入一个源语言的句子")
        explorer.close()
    english = QKExplorer()
    assert english.key_picker.description == "move key" and "weights: " in english.readout.value
    english.close()


# ---------------------------------------------------------------- chapter catalogues and the built edition
def _untranslated(path) -> list[str]:
    return [f"{cell_id}: {status}" for cell_id, status in zh.chapter_status(path).items() if status != "ok"]


def test_every_markdown_cell_of_every_translated_chapter_is_translated_and_not_stale():
    missing = {p.name: len(_untranslated(p)) for p in TRANSLATED if _untranslated(p)}
    assert not missing, (f"Markdown cells without a current translation, per chapter: {missing}. Run "
                         "`python -m helpers.devtools.zh extract`, translate the entries marked `todo` in i18n/zh/, "
                         "then `python -m helpers.devtools.zh build`.")


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_chapter_is_translated_and_not_stale(path):
    if path.stem[:2] in PENDING:
        untranslated = _untranslated(path)
        assert untranslated, f"{path.name} is translated now: remove it from PENDING"
        readme = (ROOT / "README.zh.md").read_text()
        assert f"{path.stem[:2]}" in readme and "尚未" in readme, "README.zh.md must say which chapter is pending"
        text = "\n".join(c.source for c in nbformat.read(zh.ZH_DIR / path.name, as_version=4).cells
                         if c.cell_type == "markdown")
        assert text.count("本段尚未译成中文") >= len(untranslated), "every untranslated cell says so in the zh edition"
        return
    assert not _untranslated(path), f"{path.name}: {_untranslated(path)}"


def test_notebooks_zh_is_exactly_what_the_builder_builds():
    built = sorted(p.name for p in zh.ZH_DIR.glob("*.ipynb"))
    assert built == [p.name for p in CHAPTERS], "run `python -m helpers.devtools.zh build` (make zh)"
    differ = [p.name for p in CHAPTERS
              if (zh.ZH_DIR / p.name).read_text(encoding="utf-8") != zh.build_notebook(p)]
    assert not differ, f"notebooks/zh/ is out of date or hand-edited: {differ}; run `make zh`"


def test_the_builder_is_deterministic(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    zh.build(CHAPTERS[:1], first)
    zh.build(CHAPTERS[:1], second)
    name = CHAPTERS[0].name
    assert (first / name).read_bytes() == (second / name).read_bytes()
    (first / "99_gone.ipynb").write_text("{}")
    zh.build(CHAPTERS[:1], first)
    assert sorted(p.name for p in first.iterdir()) == [name]  # an edition whose chapter is gone is removed


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_code_cells_are_identical_but_for_the_setup_line_and_the_translated_texts(path):
    """A chapter not run in Chinese: the English code and outputs. One run in Chinese: the English code but for
    its translation pairs (undoing them, last first, gives the English source back), and its own outputs."""
    en = nbformat.read(path, as_version=4)
    other = nbformat.read(zh.ZH_DIR / path.name, as_version=4)
    assert [(c.cell_type, c.id) for c in en.cells] == [(c.cell_type, c.id) for c in other.cells]
    pairs = {e["id"]: e["pairs"] for e in zh.load_catalogue(zh.catalogue_path(path))["code"]}
    runs = zh.runs_in_zh(path)
    for i, (a, b) in enumerate(zip(en.cells, other.cells, strict=True)):
        if a.cell_type != "code":
            continue
        source = a.source.replace(zh.EN_SETUP_LINE, zh.ZH_SETUP_LINE) if i == next(
            k for k, c in enumerate(en.cells) if c.cell_type == "code") else a.source
        undone = b.source
        for pair in reversed(pairs.get(a.id, []) if runs else []):
            undone = undone.replace(pair["zh"], pair["en"])
        assert undone == source, f"{path.name} cell {i}: code differs"
        assert b.metadata == a.metadata, f"{path.name} cell {i}: metadata differs"
        if not runs:
            assert (b.outputs, b.execution_count) == (a.outputs, a.execution_count), f"{path.name} cell {i}: outputs"
    assert other.metadata["learning_to_attend"]["edition"] == "zh"


# ---------------------------------------------------------------- the chapters that run in Chinese
RUN_IN_ZH = [p for p in CHAPTERS if zh.runs_in_zh(p)]
NUMBER = re.compile(r"(?<![A-Za-z_])-?\d+(?:[.,]\d+)*(?:e[+-]?\d+)?%?")


def test_some_chapters_run_in_chinese():
    # README's and README.zh's sentence naming them is generated (section course-runs-in-zh, tests/test_course.py)
    assert RUN_IN_ZH, "no chapter has runs_in_zh=True in helpers/course.py"


@pytest.mark.parametrize("path", RUN_IN_ZH, ids=[p.stem[:2] for p in RUN_IN_ZH])
def test_a_chapter_run_in_chinese_was_run_from_its_current_code(path):
    nb = nbformat.read(zh.ZH_DIR / path.name, as_version=4)
    run = nb.metadata["learning_to_attend"].get("zh_run")
    command = f"`python -m helpers.devtools.zh execute {path.stem[:2]}`"
    assert run, f"{path.name} runs in Chinese but has no Chinese run: {command}"
    assert run["code_hash"] == zh.code_hash(nb), (
        f"{path.name}: its code changed since its Chinese run: {command}")
    english = english_outputs(nbformat.read(path, as_version=4), nb)
    assert not english, (f"{path.name}: cells whose translated code still shows the English run's text (a zh "
                         f"notebook built but not run in Chinese?): {english}; {command}")


_TWO_WORDS = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")


def _code_without_comments(source: str) -> str:
    """A code cell's tokens without its comments: what runs (a comment-only translation leaves it unchanged)."""
    import io
    import tokenize

    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    try:
        return " ".join(t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skip)
    except (tokenize.TokenError, SyntaxError):
        return source


def english_outputs(en, other) -> list[str]:
    """Cells (by id) of `other` whose code runs translated strings but whose text outputs (figures' reprs left out)
    have no Chinese where the English cell's outputs hold words: the English run's outputs under Chinese code."""
    theirs = {c.id: c for c in other.cells if c.cell_type == "code"}
    found = []
    for cell in en.cells:
        twin = theirs.get(cell.id)
        if cell.cell_type != "code" or twin is None or "DEVICE = helpers.setup(" in cell.source:
            continue
        if _code_without_comments(cell.source) == _code_without_comments(twin.source):
            continue
        if _TWO_WORDS.search(_text_not_figures(cell)) and not CJK.search(_text_not_figures(twin)):
            found.append(cell.id)
    return found


def _text_not_figures(cell) -> str:
    """The text a code cell shows, without the text/plain stand-in of a figure ("<Figure size ...>")."""
    keep = [o for o in cell.get("outputs", []) if "image/png" not in o.get("data", {})]
    return _output_text({"outputs": keep})


def test_english_outputs_under_chinese_code_are_caught():
    path = next(p for p in RUN_IN_ZH if p.stem.startswith("01"))
    en, nb = nbformat.read(path, as_version=4), nbformat.read(zh.ZH_DIR / path.name, as_version=4)
    assert not english_outputs(en, nb)
    theirs = {c.id: c for c in en.cells if c.cell_type == "code"}
    for cell in nb.cells:   # the zh code with the English run's outputs: what a build without a zh run would hold
        if cell.cell_type == "code":
            cell.outputs = theirs[cell.id].outputs
    assert len(english_outputs(en, nb)) >= 5


def _output_text(cell) -> str:
    """The text a code cell shows (streams, plain text, Markdown, HTML; not images or widget views)."""
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out["text"])
        for kind in ("text/plain", "text/markdown", "text/html"):
            if kind in out.get("data", {}):
                parts.append(out["data"][kind])
    return "\n".join(parts)


def numbers_that_differ(en, other) -> list[str]:
    """Code cells (by id) whose outputs do not show the same numbers in the same order in both notebooks; cells
    marked NBVAL_IGNORE_OUTPUT are left out, as nbval leaves them out."""
    theirs = {c.id: c for c in other.cells if c.cell_type == "code"}
    found = []
    for cell in en.cells:
        if cell.cell_type != "code" or "NBVAL_IGNORE_OUTPUT" in cell.source:
            continue
        a, b = NUMBER.findall(_output_text(cell)), NUMBER.findall(_output_text(theirs[cell.id]))
        if a != b:
            found.append(f"{cell.id}: {a} vs {b}")
    return found


@pytest.mark.parametrize("path", RUN_IN_ZH, ids=[p.stem[:2] for p in RUN_IN_ZH])
def test_every_number_in_a_zh_output_equals_the_english_one(path):
    differ = numbers_that_differ(nbformat.read(path, as_version=4), nbformat.read(zh.ZH_DIR / path.name, as_version=4))
    assert not differ, f"{path.name}: the editions disagree (numbers in order, per output cell): {differ}"


def test_a_changed_number_or_a_reordered_one_is_caught():
    path = RUN_IN_ZH[-1]
    en, other = nbformat.read(path, as_version=4), nbformat.read(zh.ZH_DIR / path.name, as_version=4)
    assert numbers_that_differ(en, other) == []
    cell = next(c for c in other.cells if c.cell_type == "code" and c.outputs and "NBVAL_IGNORE_OUTPUT" not in c.source
                and len(set(NUMBER.findall(c.outputs[0].get("text", "")))) > 1)
    text = cell.outputs[0]["text"]
    first, second = list(NUMBER.finditer(text))[:2]
    changed = text[:first.start()] + first.group(0) + "1" + text[first.end():]                 # 0.467 -> 0.4671
    swapped = (text[:first.start()] + second.group(0) + text[first.end():second.start()] + first.group(0)
               + text[second.end():])                                                         # two numbers swapped
    for wrong in (changed, swapped):
        cell.outputs[0]["text"] = wrong
        assert [d.split(":")[0] for d in numbers_that_differ(en, other)] == [cell.id], wrong
    cell.outputs[0]["text"] = text.replace("，", ", ")                                           # words may change
    assert numbers_that_differ(en, other) == []


def test_the_builder_refuses_a_pair_whose_english_is_gone_and_extract_marks_the_cell_stale(scratch_chapter00):
    source, nb = scratch_chapter00
    before = 'f"installed vs pinned: {mismatched}; run `make lab` to rebuild .venv"'
    after = 'f"installed vs pinned: {mismatched}; run `make lab` again"'
    cell = next(c for c in nb.cells if c.cell_type == "code" and before in c.source)
    cell.source = cell.source.replace(before, after)
    nbformat.write(nb, source)
    assert zh.chapter_status(source)[cell.id] == "stale"
    with pytest.raises(ValueError, match=r"code cell d6101507: the English text 'f\"installed vs pinned"):
        zh.build_notebook(source)
    assert zh.extract_notebook(source) == {"new": 0, "stale": 1, "moved": 0}
    entry = next(e for e in zh.load_catalogue(zh.catalogue_path(source))["code"] if e["id"] == cell.id)
    assert entry["todo"] == "stale" and entry["hash"] == zh.text_hash(cell.source)
    catalogue = zh.read_catalogue(zh.catalogue_path(source))    # the translator: fix the pair, clear the fuzzy flag
    for message in catalogue:
        if message.context == cell.id + zh.CODE:
            assert message.fuzzy
            message.flags.discard("fuzzy")
            if message.id == before:
                message.id = after
    zh.write_catalogue(zh.catalogue_path(source), catalogue)
    assert zh.chapter_status(source)[cell.id] == "ok"
    built = nbformat.reads(zh.build_notebook(source), as_version=4)
    assert "已安装的与固定的版本不符" in next(c for c in built.cells if c.id == cell.id).source


def test_speaks_finds_learner_text_and_not_code():
    assert zh.speaks('print("most weight on:", w)') and zh.speaks('ax.set(title="The same weights")')
    assert zh.speaks("%matplotlib inline\nprint('done')")
    assert not zh.speaks('x = d["unscaled"]  # a comment with words\ndef f():\n    """A docstring here."""')
    assert not zh.speaks("print(x)") and not zh.speaks("this is not python (")


def test_execute_refuses_a_chapter_that_does_not_run_in_chinese():
    other = [p for p in CHAPTERS if not zh.runs_in_zh(p)]
    if other:
        with pytest.raises(ValueError, match="not run in Chinese; set runs_in_zh=True"):
            zh.execute(other[:1])


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_zh_notebook_passes_the_hygiene_checks(path):
    skeleton = {} if path.stem[:2] in PENDING else zh.ZH_SKELETON     # a pending chapter keeps the English text
    problems = notebook_problems(zh.ZH_DIR / path.name, **skeleton)
    if path.stem[:2] in PENDING:   # ...and the zh setup line
        problems = [p for p in problems if "setup cell" not in p]
    assert problems == []


def test_the_zh_skeleton_is_checked():
    english = NOTEBOOKS_DIR / "00_start_here.ipynb"
    found = notebook_problems(english, **zh.ZH_SKELETON)
    assert any("本章问题" in p for p in found) and any("本章地图" in p for p in found)
    assert any("setup cell" in p for p in found)  # the English setup line is not the Chinese edition's


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_relative_links_in_the_zh_edition_resolve(path):
    nb = nbformat.read(zh.ZH_DIR / path.name, as_version=4)
    broken = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for target in re.findall(r"\]\(([^)\s]+)\)", cell.source):
                if not re.match(r"^([a-z]+:|#)", target) and not (zh.ZH_DIR / target.split("#")[0]).exists():
                    broken.append(target)
    assert not broken, f"{path.name}: links that lead nowhere from notebooks/zh/: {broken}"


def english_companion_links(markdown: str) -> list[str]:
    """Links of a zh cell to an English companion page (../companion/X.md) that has a Chinese one (zh/X.md)."""
    companion = zh.ZH_DIR.parent / "companion"
    return [target for target in re.findall(r"\]\((\.\./companion/[^)\s/#]+\.md)(?:#[^)\s]*)?\)", markdown)
            if (companion / "zh" / Path(target).name).exists()]


def test_the_companion_link_check_catches_a_link_to_the_english_glossary():
    assert english_companion_links("见[对齐](../companion/glossary.md)和[logits](../companion/glossary.md#l)") == [
        "../companion/glossary.md", "../companion/glossary.md"]
    assert english_companion_links("见[对齐](../companion/zh/glossary.md)") == []


# Issue 35 added notebooks/companion/zh/references.md; these chapters' PO files still link the English one (the
# lead edits them: "../companion/references.md" -> "../companion/zh/references.md"; the website already links the
# Chinese page). Strict: a fixed chapter fails here until its number is removed.
REFERENCES_LINK_PENDING: set = set()


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.xfail(
    strict=True, reason="its PO file links ../companion/references.md (issue 35: the lead edits it)"))
    if p.name[:2] in REFERENCES_LINK_PENDING else p for p in CHAPTERS], ids=IDS)
def test_the_zh_edition_links_the_chinese_companion(path):
    nb = nbformat.read(zh.ZH_DIR / path.name, as_version=4)
    found = [t for cell in nb.cells if cell.cell_type == "markdown" for t in english_companion_links(cell.source)]
    assert not found, f"{path.name}: links to the English companion where a Chinese page exists: {found}"


def test_an_edited_english_cell_makes_its_translation_stale_until_it_is_updated(scratch_chapter00):
    """The whole loop on a copy: edit English -> stale -> extract marks it -> translate, drop `todo` -> current."""
    source, nb = scratch_chapter00
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("**Takeaway:**"))
    assert zh.chapter_status(NOTEBOOKS_DIR / source.name)[cell.id] == "ok"
    cell.source += " A new sentence."
    nbformat.write(nb, source)
    assert zh.chapter_status(source)[cell.id] == "stale"
    built = nbformat.reads(zh.build_notebook(source), as_version=4)
    shown = next(c for c in built.cells if c.id == cell.id).source
    assert shown.startswith("**Takeaway:**") and shown.endswith(zh.UNTRANSLATED_NOTE)  # English until updated

    assert zh.extract_notebook(source) == {"new": 0, "stale": 1, "moved": 0}
    text = zh.catalogue_path(source).read_text(encoding="utf-8")
    entry = next(e for e in zh.load_catalogue(zh.catalogue_path(source))["cells"] if e["id"] == cell.id)
    assert entry["fuzzy"] and entry["en"] == cell.source and "A new sentence" not in entry["previous_en"]
    assert entry["previous_en"] + " A new sentence." == cell.source        # the `#| msgid` a PO editor shows
    assert text.count("#, fuzzy\n") == 1 and "#| msgid " in text
    assert zh.chapter_status(source)[cell.id] == "stale"  # still stale: the translator has not finished

    entry_text = re.sub(r"^#\| .*\n", "", text.replace("#, fuzzy\n", "", 1), flags=re.M)   # as a text editor would
    zh.catalogue_path(source).write_text(entry_text, encoding="utf-8")
    assert zh.chapter_status(source)[cell.id] == "ok"
    assert zh.extract_notebook(source) == {"new": 0, "stale": 0, "moved": 0}


def test_a_new_cell_is_added_untranslated_and_a_moved_cell_keeps_its_translation(tmp_path, monkeypatch):
    monkeypatch.setattr(zh, "CATALOGUE_DIR", tmp_path / "i18n")
    shutil.copytree(ROOT / "i18n" / "zh", zh.CATALOGUE_DIR)
    source = tmp_path / "00_start_here.ipynb"
    nb = nbformat.read(NOTEBOOKS_DIR / source.name, as_version=4)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("A brand-new paragraph."))
    old_id = nb.cells[0].id
    nb.cells[0].id = "renamed0"
    nbformat.write(nb, source)
    assert zh.extract_notebook(source) == {"new": 1, "stale": 0, "moved": 1}
    status = zh.chapter_status(source)
    assert status["renamed0"] == "ok" and status[nb.cells[1].id] == "untranslated" and old_id not in status


# ---------------------------------------------------------------- companion: the glossary's terms in the chapters
GLOSSARY = ROOT / "notebooks" / "companion" / "zh" / "glossary.md"


def glossary_terms() -> list[tuple[str, str, str]]:
    """(chapter, English term, Chinese term) rows of the zh glossary's table (中文 | English | 含义 | 章)."""
    rows = re.findall(r"^\| (.+?) \| (.+?) \| .+? \| (\d\d) \|$", GLOSSARY.read_text(encoding="utf-8"), flags=re.M)
    return [(chapter, en.strip(), zh_term.strip()) for zh_term, en, chapter in rows]


def test_the_glossary_has_a_term_table_following_the_seeds():
    terms = {en: zh_term for _, en, zh_term in glossary_terms()}
    assert len(terms) >= 30
    for en, zh_term in [("attention mechanism", "注意力机制"), ("query (Q)", "查询"), ("key (K)", "键"),
                        ("value (V)", "值"), ("attention weights", "注意力权重"), ("context vector", "上下文向量"),
                        ("scaled dot-product attention", "缩放点积注意力"), ("additive attention", "加性注意力"),
                        ("multiplicative attention", "乘性注意力"), ("mask", "掩码")]:
        assert terms.get(en) == zh_term, (en, terms.get(en))


# terms a chapter uses in code or outputs but its prose does not name yet (issue 19, item 5: the chapter's Markdown
# gains the term and a link to the glossary); the test below fails once the prose names one: then remove it here
NOT_YET_IN_PROSE = {"peak learning rate, schedule",
                    # issue 34's terms, chosen while chapters 05, 06 and 07 were being changed in other branches
                    "RNN with attention", "learned positional encoding"}
TERMS = [row for row in glossary_terms() if CJK.search(row[2]) and row[0] not in PENDING]  # BLEU etc. stay as they are


@pytest.mark.parametrize("chapter, english, chinese", TERMS, ids=[f"{c}-{e}" for c, e, _ in TERMS])
def test_a_glossary_term_appears_in_the_zh_chapter_that_introduces_it(chapter, english, chinese):
    paths = [p for p in zh.ZH_DIR.glob(f"{chapter}_*.ipynb")]
    assert paths, f"no zh chapter {chapter} for the glossary term {english!r}"
    text = "\n".join(c.source for c in nbformat.read(paths[0], as_version=4).cells if c.cell_type == "markdown")
    if english in NOT_YET_IN_PROSE:
        assert chinese not in text, f"{paths[0].name} says {chinese!r} now: remove {english!r} from NOT_YET_IN_PROSE"
        return
    assert chinese in text, f"{paths[0].name} never says {chinese!r} ({english})"


def test_the_glossary_has_one_chinese_term_per_concept():
    table = GLOSSARY.read_text(encoding="utf-8").split("## 统一译名", 1)[1]
    rows = re.findall(r"^\| (.+?) \| (.+?) \| (.+?) \|$", table, flags=re.M)[1:]   # after the header
    chosen = {zh_term for _, zh_term, _ in rows}
    avoided = {w.strip() for _, _, avoid in rows for w in avoid.split("、") if w.strip() not in ("—", "")}
    assert len(rows) >= 15 and not chosen & avoided
    glossary = {zh_term for _, _, zh_term in glossary_terms()}
    assert not glossary & avoided, f"the glossary's own terms include avoided ones: {glossary & avoided}"
    messages = "\n".join(zh_text for _, zh_text in i18n.MESSAGES.values())
    used = [w for w in avoided if len(w) > 1 and w in messages]
    assert used == [], f"a checker or widget message uses an avoided term: {used}"


def bold_that_does_not_render(text: str) -> list[str]:
    """Bold spans that end in punctuation and touch the next character: CommonMark then shows the asterisks."""
    import unicodedata

    def punct(ch):
        return unicodedata.category(ch)[0] in "PS"

    return [m.group(0) for m in re.finditer(r"\*\*([^*\n]+?)\*\*(?=(.))", text)
            if punct(m.group(1)[-1]) and not m.group(2).isspace() and not punct(m.group(2))]


def test_bold_labels_render_in_the_chinese_texts():
    assert bold_that_does_not_render("**要点：**文字") == ["**要点：**"]
    assert bold_that_does_not_render("**要点：** 文字，**键**、值") == []
    companion = ROOT / "notebooks" / "companion" / "zh"
    texts = {p.name: "\n".join(zh_values(zh.load_catalogue(p))) for p in sorted(zh.CATALOGUE_DIR.glob("*.po"))}
    texts |= {p.name: p.read_text(encoding="utf-8") for p in [*sorted(companion.glob("*.md")), ROOT / "README.zh.md"]}
    texts["helpers.i18n.MESSAGES"] = "\n".join(zh_text for _, zh_text in i18n.MESSAGES.values())
    bad = {name: found for name, text in texts.items() if (found := bold_that_does_not_render(text))}
    assert not bad, f"write a space after these bold labels: {bad}"


def test_plot_helpers_label_in_the_current_language_and_english_is_unchanged():
    import matplotlib.pyplot as plt

    from helpers.plotting import draw_explorer, draw_lookback, plot_attention, plot_mask
    from helpers.widgets import explorer_state

    def labels():
        fig, (a, b, c) = plt.subplots(1, 3)
        plot_attention([[0.5, 0.5]], ax=a)
        plot_mask([[True, False]], ax=b)
        draw_lookback([[0.5, 0.5]], ["x", "y"], ["z"], ax=c)
        found = [a.get_title(), a.get_xlabel(), a.get_ylabel(), b.get_title(), b.get_xlabel(), c.get_title(),
                 [t.get_text() for t in c.get_yticklabels()], c.get_legend().get_title().get_text()]
        explorer = draw_explorer(explorer_state([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]))
        found += [ax.get_title() for ax in explorer.axes]
        plt.close("all")
        return found

    assert labels() == ["Attention weights", "keys (attended positions)", "queries", "Mask",
                        "keys\n(blue: visible, grey: hidden)", "The decoder looks back at every input word",
                        ["encoder\n(input words)", "decoder\n(output steps)"], "line width = attention weight",
                        "Q and the keys", "raw scores Q·K", "softmax weights", "context = Σ weight·V"]
    helpers.setup(lang="zh", quiet=True)    # registers the Chinese font, as a zh notebook's first cell does
    assert labels() == ["注意力权重", "键（被关注的位置）", "查询", "掩码", "键\n（蓝：可见，灰：遮住）",
                        "解码器回头看每一个输入词", ["编码器\n（输入词）", "解码器\n（输出步）"], "线宽 = 注意力权重",
                        "Q 与各个键", "未缩放的得分 Q·K", "softmax 权重", "上下文 = Σ 权重·V"]
    helpers.setup(lang="en", quiet=True)


# ---------------------------------------------------------------- one term table: no listed alternate in zh text
# The chapters whose Chinese text the term test checks: every chapter of the course table (helpers/course.py) whose
# translation is not PENDING, so a new chapter's Chinese is checked from its first `zh extract`.
TERM_CHECKED_CHAPTERS = tuple(ch.number for ch in course.CHAPTERS if ch.number not in PENDING)
# assert: prose says 断言; the keyword itself appears only as 断言（`assert`） or inside longer code (`assert x == 1`)
LONE_ASSERT = re.compile(r"(?<!断言（)`assert`|(?<![`\w])assert(?![`\w])")
# chapter 08's code keys `ours` and `fused` stay in code, tables and legends; in a Chinese sentence (a Hanzi or
# Chinese punctuation within two characters) they are 课程的实现 and 融合内核
LONE_KEY = re.compile(r"(?:[\u4e00-\u9fff，。；：、（）“”][ ]?)(?<![`\w])(ours|fused)(?![`\w])"
                      r"|(?<![`\w])(ours|fused)(?![`\w])(?=[ ]?[\u4e00-\u9fff，。；：、（）“”])")


def term_table() -> list[tuple[str, str, list[str]]]:
    """(English, chosen Chinese, [alternates]) of the zh glossary's 统一译名 table; "—" means none."""
    table = GLOSSARY.read_text(encoding="utf-8").split("## 统一译名", 1)[1]
    rows = re.findall(r"^\| (.+?) \| (.+?) \| (.+?) \|$", table, flags=re.M)[1:]   # after the header
    return [(en, chosen, [w.strip() for w in avoid.split("、") if w.strip() not in ("—", "")])
            for en, chosen, avoid in rows]


def alternates_in(text: str) -> list[str]:
    """The term table's alternates found in a Chinese text, each with the term to use instead."""
    found = [f"{word} (use {chosen})" for _, chosen, avoid in term_table() for word in avoid
             if "`" not in word and word in text]
    found += [f"{m.group(0)} (use 断言, or 断言（`assert`）)" for m in LONE_ASSERT.finditer(text)]
    found += [f"{m.group(1) or m.group(2)} in a sentence (use 课程的实现 / 融合内核)" for m in LONE_KEY.finditer(text)]
    return found


def zh_values(data) -> list[str]:
    """Every `zh` string of a loaded catalogue (`zh.load_catalogue`: Markdown cells and code-cell pairs)."""
    if isinstance(data, dict):
        return [v for k, v in data.items() if k == "zh" and isinstance(v, str)] + \
            [x for k, v in data.items() if k != "zh" for x in zh_values(v)]
    return [x for v in data for x in zh_values(v)] if isinstance(data, list) else []


def glossary_prose() -> str:
    """The zh glossary without its English column and without the term table (which lists the alternates)."""
    text = GLOSSARY.read_text(encoding="utf-8").split("## 统一译名", 1)[0]
    return re.sub(r"^(\| [^|]+ \|) [^|]+ \|", r"\1", text, flags=re.M)


def zh_texts_under_the_term_table() -> dict[str, str]:
    texts = {}
    for number in TERM_CHECKED_CHAPTERS:
        path = zh.catalogue_path(course.chapter(number).file)
        assert path.exists(), f"chapter {number} (helpers/course.py) has no {path.relative_to(ROOT)}: `zh extract`"
        texts[path.name] = "\n".join(zh_values(zh.load_catalogue(path)))
    texts["README.zh.md"] = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks" / "companion" / "zh").glob("*.md")):
        texts[path.name] = glossary_prose() if path == GLOSSARY else path.read_text(encoding="utf-8")
    texts["helpers.i18n.MESSAGES"] = "\n".join(zh_text for _, zh_text in i18n.MESSAGES.values())
    for number in TERM_CHECKED_CHAPTERS:   # what the chapters print and show, run in Chinese (issue 34)
        path = zh.ZH_DIR / course.chapter(number).file
        if zh.runs_in_zh(path):
            cells = nbformat.read(path, as_version=4).cells
            texts[f"{path.stem} (outputs)"] = "\n".join(_text_not_figures(c) for c in cells if c.cell_type == "code")
    return texts


# Alternates still in chapters that other branches were changing when the term table grew (issue 34): {text name:
# the alternates it may still hold}. A listed word must still be there (remove it once the chapter is fixed), and
# no other alternate may come in.
TERMS_PENDING: dict[str, set[str]] = {
    "01_fixed_context_bottleneck.po": {"实践者", "数的个数", "见上方打印"},
    "01_fixed_context_bottleneck (outputs)": {"数的个数", "见上方打印"},
    "05_attention_translation.po": {"上面打印了", "学习率计划", "摘要向量"},
    "06_scoring_functions_and_dropout.po": {"上面打印了", "实践者", "比率", "点出赢家", "读成", "越过"},
    "06_scoring_functions_and_dropout (outputs)": {"实践者", "比率", "点出赢家", "读成", "越过"},
    "07_self_attention_and_transformer.po": {"一袋词", "上面打印了", "位置表", "可学习位置表", "可学习的位置表"},
    "07_self_attention_and_transformer (outputs)": {"位置表", "可学习的位置表"},
    "08_cost_of_attention.po": {"fused", "ours", "批大小", "数的个数", "见上面的打印", "隐藏尺寸"},
    "08_cost_of_attention (outputs)": {"fused", "ours", "见上面的打印", "隐藏尺寸"},
}


def test_the_term_table_lists_the_chosen_terms_and_their_alternates():
    table = {en: (chosen, avoid) for en, chosen, avoid in term_table()}
    for en, chosen, alternates in [("score", "得分", ["分数"]), ("widget", "控件", ["小部件", "部件"]),
                                   ("explorer", "探索器", ["探索工具"]), ("token", "词元", ["标记"]),
                                   ("wiring (Bahdanau's, Luong's)", "接法", ["式连接", "连接方式"])]:
        assert table[en][0].startswith(chosen) and set(alternates) <= set(table[en][1]), (en, table[en])
    assert table["assert"][0].startswith("断言")
    for en in ("head", "layer", "cross-attention", "residual connection", "feed-forward network",
               "vanishing gradient", "dropout"):
        assert en in table, en


def test_the_term_check_catches_every_alternate_and_passes_the_chosen_terms():
    for _, _, avoid in term_table():
        for word in avoid:
            if "`" not in word:
                assert alternates_in(f"前文{word}后文"), word
    assert alternates_in("由 `assert` 检验") and alternates_in("在 assert 的容差之内")
    assert alternates_in("Bahdanau 式连接") and alternates_in("这个小部件")
    assert alternates_in("得分、控件、探索器、词元、Bahdanau 接法、残差连接、断言（`assert`）、`assert x == 1`") == []


ZH_TEXTS = sorted(zh_texts_under_the_term_table().items())


@pytest.mark.parametrize("name, text", ZH_TEXTS, ids=[name for name, _ in ZH_TEXTS])   # a short text made an id
def test_zh_text_uses_the_term_table(name, text):
    pending = TERMS_PENDING.get(name, set())
    found = alternates_in(text)
    assert [f for f in found if f.split(" ")[0] not in pending] == [], f"{name}: {found}"
    gone = sorted(w for w in pending if not any(f.split(" ")[0] == w for f in found))
    assert not gone, f"{name} no longer holds {gone}: remove them from TERMS_PENDING"


def test_the_term_check_reads_outputs_and_catches_a_bare_code_key():
    assert any(name.endswith("(outputs)") for name, _ in ZH_TEXTS), "no zh chapter's outputs are term-checked"
    assert alternates_in("平均越过得最早") and alternates_in("ours 的峰值更低") and alternates_in("比 fused 慢")
    assert alternates_in("图例：`ours`、`fused`") == [] and alternates_in("ours  fused\n1.0   2.0") == []
