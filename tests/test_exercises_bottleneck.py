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
    (2 * 96 + 64, "adds a word's embedding (64 numbers)"), (2 * (96 + 64), "adds a word's embedding"),
    (96 + 64, "one GRU's state plus an embedding"), (3 * 96, "a GRU has gates inside"),
    (10 * 192, "grows with the sentence (10 ×"), (4096, "more than the encoder's final states hold"),
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
