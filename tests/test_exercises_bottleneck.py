"""helpers.exercises.bottleneck: exercise 01.1, the size of the context vector (read from the model)."""
import pytest
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex
from helpers.exercises import core


def _solution_code(exercise):
    """The indented code of a worked solution, as a learner would copy it."""
    import textwrap

    text = core._SOLUTIONS[exercise][1]
    return textwrap.dedent("\n".join(line for line in text.splitlines() if line.startswith("    ")))


def test_the_checker_reads_the_sizes_from_the_model_so_the_cell_need_not_show_the_answer(capsys):
    from helpers.seq2seq import make_model

    model = make_model("none", emb=64, hidden=96)
    assert ex.check_context_size(192, model) is True
    assert "adds a word's embedding (64 numbers)" in said(capsys, lambda a: ex.check_context_size(a, model), 256)
    assert "one GRU's state" in said(capsys, lambda a: ex.check_context_size(a, model), 96)


@pytest.mark.parametrize("answer, words", [
    (96, "one GRU's state"), (64, "one word's embedding"), (2, "count numbers, not vectors"),
    (2 * 96 + 64, "adds a word's embedding (64 numbers)"), (2 * (96 + 64), "to each GRU's state, 128 numbers in all"),
    (96 + 64, "one GRU's state plus an embedding"), (3 * 96, "a GRU has gates inside"),
    (10 * 192, "grows with the sentence (10 ×"), (4096, "more than the encoder's final states hold"),
    (2 * 192, "counts the context vector twice"),
    (100, "how many GRUs"),
])
def test_context_size_slips(capsys, answer, words):
    out = said(capsys, example("check_context_size").call, answer)
    assert words in out and "grows with something" not in out and "Expected" not in out


def test_the_worked_solution_of_the_bottleneck_exercise_passes_its_checker(capsys):
    from types import SimpleNamespace

    ns = {"other": SimpleNamespace(encoder=SimpleNamespace(output_size=2 * 96))}   # make_model("none", hidden=96)
    exec(_solution_code("01.1"), ns)
    assert capsys.readouterr().out.strip() == "192"
    assert ex.check_context_size(ns["context_numbers"], 192, per_direction=96, embedding=64) is True


@pytest.mark.parametrize("drop, named", [("de", "'de'"), ("le", "'le'"), ("zhi", "'zhi'"), ("xia", "'xia'")])
def test_hand_translation_names_the_missing_word(capsys, drop, named):
    """Exercise 01.2: leaving out one word (a slip a learner makes) gets that word named, not just counted."""
    ex.reset_tries()
    answer = "yi zhi xiaoxiao de mao zai zhuozi xia shuijiao le".split()
    answer.remove(drop)
    out = said(capsys, lambda a: ex.check_translation(a, "a small cat slept under the table"), " ".join(answer))
    assert f"1 word(s) are missing: {named}" in out and "Expected" not in out
    assert ex.check_translation("yi zhi xiaoxiao de mao zai zhuozi xia shuijiao le",
                                "a small cat slept under the table") is True


@pytest.mark.parametrize("hidden, emb", [(96, 64), (40, 24), (50, 70)])
def test_an_embedding_added_to_each_state_is_named_with_the_gap_it_makes(capsys, hidden, emb):
    """Exercise 01.1: 2·(hidden + emb) adds 2·emb numbers, and the message gives that number, computed (it once said
    64 where the gap was 128)."""
    out = said(capsys, lambda a: ex.check_context_size(a, 2 * hidden, per_direction=hidden, embedding=emb),
               2 * (hidden + emb))
    assert f"({emb} numbers) to each GRU's state, {2 * emb} numbers in all" in out and "Expected" not in out
    from helpers.i18n import language

    with language("zh"):
        out = said(capsys, lambda a: ex.check_context_size(a, 2 * hidden, per_direction=hidden, embedding=emb),
                   2 * (hidden + emb))
    assert f"（{emb} 维），一共多算了 {2 * emb} 维" in out and "numbers in all" not in out


@pytest.mark.parametrize("answer", [
    "Yi zhi xiaoxiao de mao zai zhuozi xia shuijiao le.",      # a sentence, as a learner writes one
    "yi zhi xiaoxiao de mao zai zhuozi xia shuijiao le .",     # the full stop as a word
    "YI ZHI XIAOXIAO DE MAO ZAI ZHUOZI XIA SHUIJIAO LE!",
    ["Yi", "zhi", "xiaoxiao", "de", "mao", "zai", "zhuozi", "xia", "shuijiao", "le."],
])
def test_hand_translation_ignores_capitals_and_end_punctuation(capsys, answer):
    """Exercise 01.2: the right words written as a sentence (a capital, a full stop) are right, in both languages,
    and spend no try (it once called 'Yi' a wrong word and showed the answer at the retry)."""
    from helpers.i18n import language

    for lang in ("en", "zh"):
        ex.reset_tries()
        with language(lang):
            assert ex.check_translation(answer, "a small cat slept under the table") is True
    assert "Expected" not in capsys.readouterr().out


def test_hand_translation_still_rejects_a_wrong_word_after_normalising(capsys):
    """Normalising case and end punctuation does not make a wrong word right: 'Gou' is still named."""
    ex.reset_tries()
    out = said(capsys, lambda a: ex.check_translation(a, "a small cat slept under the table"),
               "Yi zhi xiaoxiao de gou zai zhuozi xia shuijiao le.")
    assert "'gou'" in out and "Expected" not in out


@pytest.mark.parametrize("answer, rule", [
    ("yi zhi xiaoxiao de mao shuijiao le zai zhuozi xia", "a place phrase moves right before its verb"),   # English
    ("zai zhuozi xia yi zhi xiaoxiao de mao shuijiao le", "a place phrase moves right before its verb"),
    ("yi xiaoxiao de zhi mao zai zhuozi xia shuijiao le", "a measure word comes right after its determiner"),
    ("yi zhi mao xiaoxiao de zai zhuozi xia shuijiao le", "an adjective is followed by `de`"),
    ("xiaoxiao de yi zhi mao zai zhuozi xia shuijiao le", "an adjective is followed by `de`"),
    ("yi zhi xiaoxiao de mao zai zhuozi xia le shuijiao", "`le` comes right after its verb"),
    ("yi zhi xiaoxiao de mao zai xia zhuozi shuijiao le", "two words around its noun phrase"),
    ("yi zhi xiaoxiao de mao zhuozi zai xia shuijiao le", "two words around its noun phrase"),
])
def test_hand_translation_in_a_wrong_order_names_the_rule_it_breaks(capsys, answer, rule):
    """Exercise 01.2: the right words in a wrong order get the word-order rule they break, and no answer yet."""
    ex.reset_tries()
    out = said(capsys, lambda a: ex.check_translation(a, "a small cat slept under the table"), answer)
    assert "order is not" in out and rule in out and "re-read the word-order rules" not in out
    assert "Expected" not in out and "yi zhi xiaoxiao de mao zai zhuozi xia shuijiao le" not in out


def test_no_valid_translation_breaks_a_word_order_rule_of_the_hints():
    """The hints' rules hold for every valid translation of generated sentences (so a hint never names a rule the
    right answer breaks, and it names one only when the reference keeps it)."""
    from helpers import toylang
    from helpers.exercises.translation import _broken_rules

    for lo in (4, 11, 21, 31, 41):
        for src, _, _ in toylang.sample_pairs(60, lo, lo + 9, seed=lo):
            for ref in toylang.references(src):
                assert _broken_rules(list(ref)) == [], " ".join(ref)
