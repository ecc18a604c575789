"""helpers.exercises.core: try counting (a slip or hint first, the answer on a second try or on request), the
generic checks check_close and check_weights, and the chapter-00 demo of check_weights."""
import pytest
import torch
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex


def test_chapter_00s_demo_of_check_weights_prints_what_its_committed_output_shows(capsys):
    results = [ex.check_weights([0.2, 0.3, 0.4]), ex.check_weights([0.7, 0.5, -0.2]), ex.check_weights([0.2, 0.3, 0.5])]
    assert results == [False, False, True]
    assert capsys.readouterr().out == (
        "Not yet: `weights` do not sum to 1 along the key axis (the sums are 0.9).\n"
        "Not yet: `weights` has values outside [0, 1]: weights are probabilities.\n"
        "Correct: `weights` form a probability distribution over the keys.\n")


def test_wrong_counts_and_promises_the_answer_only_when_there_is_one(capsys):
    assert ex.core.wrong("x", "no.", "42") is False
    assert "Try again" in capsys.readouterr().out
    assert "Expected: 42." in said(capsys, lambda a: ex.core.wrong("x", "no.", "42"), None)
    assert ex.core.wrong("y", "no.") is False
    out = capsys.readouterr().out
    assert "Try again" not in out and "Expected" not in out and ex.tries("y") == 1


def test_first_wrong_try_names_the_slip_without_the_answer_and_the_second_shows_it(capsys):
    check = example("check_attention_mib").call
    first = said(capsys, check, 8192 * 8192 * 4)
    assert "that is bytes" in first and "Expected" not in first and "256" not in first
    second = said(capsys, check, 268.4)
    assert "megabytes" in second and "Expected: 256." in second and "solution('08.1')" in second
    assert ex.tries("08.1") == 2


def test_show_answer_gives_the_value_on_the_first_try_and_tries_are_per_exercise(capsys):
    assert "Expected: 256." in said(capsys, lambda a: ex.check_attention_mib(a, show_answer=True), 1)
    assert "Expected" not in said(capsys, example("check_smallest_batch").call, 1)  # another exercise: first try
    ex.reset_tries("08.2")
    assert ex.tries("08.2") == 0 and ex.tries("08.1") == 1


def test_not_answered_and_unreadable_answers_do_not_count_as_tries_but_a_wrong_shape_does(capsys):
    check = example("check_std_scaling").call
    for odd in (None, "16", {"a": 1}):
        check(odd)
    assert ex.tries("04.1") == 0
    assert "expected a list of two numbers" in said(capsys, check, [16])
    assert ex.tries("04.1") == 1
    assert "Expected: [16.0, 1.0]." in said(capsys, check, [17, 3])


def test_check_close_without_an_exercise_id_counts_tries_by_name(capsys):
    first = said(capsys, lambda a: ex.check_close(a, 0.25, name="x"), 0.75)
    assert "too high" in first and "0.25" not in first
    assert "Expected: 0.25." in said(capsys, lambda a: ex.check_close(a, 0.25, name="x"), 0.0)


@pytest.mark.parametrize("answer, expected, words", [  # moved from tests/test_core.py
    ([0.5, 0.6], None, "do not sum to 1 along the key axis"),
    ([1.5, -0.5], None, "outside [0, 1]"),
    ([0.5, 0.5], [0.4, 0.6], "`weights` at index (0,) is 0.5, too high"),
    ("abc", None, "is the string 'abc'; expected numbers"),
    ([[0.5, 0.5], [0.5]], None, "cannot be read as numbers"),
])
def test_check_weights_says_what_is_wrong(capsys, answer, expected, words):
    assert words in said(capsys, lambda a: ex.check_weights(a, expected), answer)


def test_check_weights_still_checks_a_plain_distribution(capsys):
    assert ex.check_weights([0.2, 0.3, 0.5]) is True
    assert "shape (3,); expected shape (2,)" in said(capsys, lambda a: ex.check_weights(a, [0.4, 0.6]),
                                                      [0.2, 0.3, 0.5])


def test_call_learner_turns_an_exception_into_a_sentence_unless_it_is_passed_through():
    def index_slip(x):
        return x[:, 0]

    ok, sentence = ex.core.call_learner(index_slip, [1.0], name="f")
    assert ok is False and "raised TypeError" in sentence
    ok, sentence = ex.core.call_learner(index_slip, torch.ones(3), name="f")
    assert ok is False and "raised IndexError" in sentence
    with pytest.raises(IndexError):
        ex.core.call_learner(index_slip, torch.ones(3), name="f", passthrough=(IndexError,))
    assert ex.core.call_learner(lambda x: x + 1, 1, passthrough=(IndexError,)) == (True, 2)
