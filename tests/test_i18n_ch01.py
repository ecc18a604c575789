"""Chapter 01 runs in Chinese: the sentences its helpers print go through helpers.i18n, English byte for byte what
it was (the old literal, formatted here as the helper formatted it before), Chinese under "zh"; and its zh
catalogue translates every code cell a learner reads (the zh notebook's own run is checked by tests/test_i18n.py)."""
import re

from helpers import i18n
from helpers.devtools import zh
from helpers.evidence import Evidence, Recipe
from helpers.tables import format_table, text_width

CJK = re.compile(r"[\u4e00-\u9fff]")


def toy_evidence() -> Evidence:
    """An evidence file of two stored seeds (nothing is run: `check` compares rows the caller made)."""
    recipe = Recipe("toy_evidence", "01", "a toy", {"seeds": [0, 1]}, units=lambda s: [], run=lambda s, u: [])
    units = [{"unit": {"seed": seed}, "cpu_seconds": 0.0, "rows": [{"seed": seed, "value": 1.0}]} for seed in (0, 1)]
    return Evidence(recipe, {"seeds": [0, 1]}, {}, units)


def test_evidence_says_nothing_was_compared_in_both_languages(capsys):
    ev, unit = toy_evidence(), {"seed": 7}
    assert ev.check(unit, [{"value": 2.0}]) == [{"seed": 7, "value": 2.0}]
    english = capsys.readouterr().out
    old = (f"{ev.recipe.name}: {unit} is not among the {len(ev.units)} stored runs, so this live run was "
           f"not compared with a stored one (the stored runs are "
           f"{', '.join(sorted({str(u['unit'].get('seed')) for u in ev.units}))} by seed)\n")
    assert english == old
    with i18n.language("zh"):
        ev.check(unit, [{"value": 2.0}])
    chinese = capsys.readouterr().out
    assert CJK.search(chinese) and "not compared" not in chinese
    assert "toy_evidence" in chinese and "{'seed': 7}" in chinese and "0, 1" in chinese
    ev.check({"seed": 1}, [{"value": 1.0}])                      # a stored seed: compared, nothing printed
    assert capsys.readouterr().out == ""


def test_format_table_pads_chinese_headers_by_their_width():
    english = format_table({"hidden 32": {"context": 64, "4-10 BLEU": 36.9}}, index_name="model")
    assert english == "model      context  4-10 BLEU\nhidden 32       64       36.9"   # as before wide characters
    lines = format_table({"hidden 32": {"上下文": 64, "4-10 BLEU": 36.9}}, index_name="模型").splitlines()
    assert len({text_width(line) for line in lines}) == 1, lines    # every column ends where its header ends
    assert text_width("上下文，") == 8


def test_chapter_01_translates_every_code_cell_a_learner_reads():
    path = zh.NOTEBOOKS_DIR / "01_fixed_context_bottleneck.ipynb"
    assert zh.runs_in_zh(path)
    status = zh.chapter_status(path)
    assert status and set(status.values()) == {"ok"}, {k: v for k, v in status.items() if v != "ok"}
    code = zh.load_catalogue(zh.catalogue_path(path))["code"]
    assert all(entry["pairs"] for entry in code), "every code entry of chapter 01 has something to translate"
