"""Chapter 07 in Chinese: the alignment column of results_table (07's table of alignment accuracy by bucket) speaks
Chinese under "zh"; English stays byte for byte what it was (the literal below is the helper's English output before
the column name moved into helpers.i18n.MESSAGES). The head explorer and 07's plots are covered by
tests/test_i18n_helpers.py."""
import re

from helpers import i18n
from helpers.tables import format_table
from helpers.training import results_table

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"(?<![A-Za-z_])-?\d+(?:[.,]\d+)*(?:e[+-]?\d+)?%?")   # as tests/test_i18n.py counts numbers
RESULTS = {"RNN + attention": {"4-10": {"bleu": 98.1, "align": 96.0}, "41-50": {"bleu": 37.5, "align": 70.1}},
           "Transformer": {"4-10": {"bleu": 99.6, "align": 92.8}, "41-50": {"bleu": 57.8, "align": 55.0}}}


def test_the_alignment_column_keeps_its_english_name_and_speaks_chinese():
    english = format_table(results_table(RESULTS, metrics=("align",)), index_name="bucket")
    assert english == ("bucket  RNN + attention align  Transformer align\n"
                       "4-10                     96.0               92.8\n"
                       "41-50                    70.1               55.0")
    with i18n.language("zh"):
        chinese = format_table(results_table(RESULTS, metrics=("align",)), index_name="分桶")
        assert list(results_table(RESULTS, metrics=("align", "bleu"))["4-10"]) == [
            "RNN + attention 对齐准确率", "RNN + attention BLEU", "Transformer 对齐准确率", "Transformer BLEU"]
    assert CJK.search(chinese) and "align" not in chinese, chinese
    assert NUMBER.findall(english) == NUMBER.findall(chinese)
    assert i18n.get_lang() == "en"
