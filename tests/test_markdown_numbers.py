"""No computed number is typed into Markdown: every number in a Markdown cell is either not computed (a chapter
number, a year of a citation, a section number, code or maths, a figure quoted from the source chapters) or on the
allow-list below with its reason. Computed numbers are printed by cells or rendered with Markdown(f"..."), so that
strict nbval notices when they drift."""
import re

import nbformat
import pytest

from helpers.devtools import chapter_notebooks

NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
NOT_COMPUTED = [
    re.compile(r"`[^`]*`"),                                   # code spans: inputs and code, not results
    re.compile(r"\$[^$]*\$"),                                 # maths
    re.compile(r"\]\([^)]*\)"),                               # link targets
    re.compile(r"\b[Ss]ource chapters? \d{3}(?: and \d{3})?\b"),    # the source chapters' numbers (003)
    re.compile(r"\b[Cc]hapters? \d\d(?:(?:,| and| or|–|-) ?\d\d\b)*"),  # chapter numbers
    re.compile(r"\b\d\d\s?·"),                                # the title "NN · ..."
    re.compile(r"^\|\s?\d\d\s?\|", re.M),                       # the chapter column of a table of contents
    re.compile(r"\((?:\d\d)(?:[–-]\d\d)?\)"),                 # "(03)" chapter references
    re.compile(r"^\s*#+\s*\d+\.", re.M),                      # numbered section headings
    re.compile(r"^\s*\d+\.\s", re.M),                         # numbered lists
    re.compile(r"\*\*\d+\.", re.M),                           # numbered exercises: **1. Title.**
    re.compile(r"\b(?:19|20)\d\d[a-z]?\b"),                   # years of citations
    re.compile(r"§\s?\d+(?:\.\d+)*"),                         # section signs of the seeds
    re.compile(r"\b\d+-?D\b"),                                # 2-D, 3D
    re.compile(r"[A-Za-z]\d+"),                               # names with digits (K1, W2, x2, AVX512)
    re.compile(r"\bO\([^)]*\)"),                              # big-O
    re.compile(r"\b(?:0|1)(?:\s?[-–]\s?1)\b"),                # the 0-1 scale
]
# Numbers that are in prose on purpose, with the reason. {notebook stem: {number: reason}}
ALLOWED: dict[str, dict[str, str]] = {
    "*": {
        "0": "zero as a word (weight 0, index 0)",
        "1": "one as a word (sums to 1, weight 1)",
        "2": "small counts and exponents written in prose (n², 2 cores)",
    },
    "05_attention_translation": {
        "26.75": "quoted: Bahdanau et al. 2015, Table 1, RNNsearch-50 BLEU on WMT'14 English-French",
        "17.82": "quoted: Bahdanau et al. 2015, Table 1, RNNencdec-50 BLEU",
        "50": "the paper's model names (-50: trained on sentences of up to 50 words)",
        "1.5": "a threshold: the entropy ratio the next cell's assert asks for (set in its code)",
        "3.3": "quoted: Luong, Pham and Manning 2015, section 3.3 (input feeding)",
        "95": "the level of the intervals (95%), compare_variants' default level",
    },
    "07_self_attention_and_transformer": {
        "95": "the level of the intervals (95%), a setting of helpers.experiments.budget_curve",
    },
    "08_cost_of_attention": {
        "3,000": "source chapter 003: a 3,000-word paper",
        "24": "source chapter 003: a 24 GB card, and the 24 GiB limit taken from it",
        "1.5": "a threshold: the time exponent the assert asks for (set in its code)",
    },
}


def numbers_in(text: str) -> list[str]:
    """The numbers of a Markdown text that are not in a not-computed context."""
    for pattern in NOT_COMPUTED:
        text = pattern.sub(" ", text)
    return NUMBER.findall(text)


def test_the_scanner_sees_typed_numbers_and_lets_context_through():
    assert numbers_in("BLEU 98.9 on long sentences") == ["98.9"]
    assert numbers_in("chapter 04 and 2015 and `scale=0.5` and $\\sqrt{2}$ (03)") == []
    assert numbers_in("## 3. Weights\n1. first step") == []
    assert numbers_in("Source chapter 003 reports it") == [] and numbers_in("a chapter 003 of 4 runs") == ["3", "4"]
    assert numbers_in("AVX512 and AVX2, K12") == [] and numbers_in("x2 at 12 steps") == ["12"]


@pytest.mark.parametrize("path", chapter_notebooks(), ids=lambda p: p.stem)
def test_no_computed_number_is_typed_into_markdown(path):
    allowed = {**ALLOWED["*"], **ALLOWED.get(path.stem, {})}
    found = []
    for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "markdown":
            continue
        for number in numbers_in(cell.source):
            if number not in allowed:
                found.append(f"cell {i}: {number}")
    assert not found, (f"{path.name}: numbers typed into Markdown (print them from a cell, render them with "
                       f"Markdown(f'...'), or allow-list them with a reason): {found}")
