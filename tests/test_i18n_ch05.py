"""Chapter 05 in Chinese: the sentences and labels its helpers show (the translation explorer's text fallback and
the word classes of its alignment tables). English stays byte for byte what it was (the literals below are what the
helpers showed before the strings moved into helpers.i18n.MESSAGES); under "zh" the same calls speak Chinese and
keep every number, in the same order."""
import re

import matplotlib.pyplot as plt
import pytest

import helpers
from helpers import i18n, toylang
from helpers.seq2seq import make_model
from helpers.training import WORD_CLASSES, word_class, word_class_label
from helpers.widgets import translation_explorer

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"(?<![A-Za-z_])-?\d+(?:[.,]\d+)*(?:e[+-]?\d+)?%?")   # as tests/test_i18n.py counts numbers


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_lang("en")
    plt.close("all")


# the classes word_class returned before their labels moved into the catalogue (its docstring lists them)
CLASSES = ["no source", "measure word", "phrasal verb", "two source words", "circumposition, 1st half",
           "circumposition, 2nd half", "clause joiner", "relative de", "determiner", "adjective", "noun", "verb"]


def test_every_word_class_has_a_label_english_unchanged_chinese_with_the_same_numbers():
    assert list(WORD_CLASSES) == CLASSES
    assert [word_class_label(c) for c in CLASSES] == CLASSES                  # English: the class itself
    with i18n.language("zh"):
        chinese = [word_class_label(c) for c in CLASSES]
    for en, zh in zip(CLASSES, chinese, strict=True):
        assert CJK.search(zh) and NUMBER.findall(en) == NUMBER.findall(zh), (en, zh)
    assert len(set(chinese)) == len(chinese), "two classes share a Chinese label"
    assert word_class_label("?") == "?", "a class the table does not know is shown as it is"


def test_word_class_returns_only_labelled_classes_on_the_test_sentences():
    pairs = [p for bucket in toylang.load_test_buckets(limit=20).values() for p in bucket]
    found = {word_class(src, align, j) for src, tgt, align in pairs for j in range(len(tgt))}
    assert found <= set(WORD_CLASSES), found - set(WORD_CLASSES)
    assert {"measure word", "relative de", "circumposition, 1st half", "no source"} <= found


def test_translation_explorer_text_fallback_in_both_languages():
    model = make_model("attention", emb=8, hidden=8, attn_hidden=8, seed=0)
    box = translation_explorer(model, ["the dog sleeps", "a cat runs"])
    english = repr(box)
    shown = box.last.message
    assert english == f"TranslationExplorer(2 test sentences; showing: {shown})"
    helpers.setup(lang="zh", quiet=True)                  # as a zh notebook's setup cell does (registers the font)
    try:
        text = repr(translation_explorer(model, ["the dog sleeps", "a cat runs"]))
    finally:
        helpers.setup(lang="en", quiet=True)
    assert text.startswith("TranslationExplorer(2 个测试句子；正在显示：the dog sleeps  ->"), text
    assert CJK.search(text) and "test sentences" not in text
