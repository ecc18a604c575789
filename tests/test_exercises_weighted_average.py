"""helpers.exercises.weighted_average: exercises 02.1 (hand-set weights) and 02.2 / 03.2 (a query that favours
one key)."""
import numpy as np
import pytest
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex
from helpers import i18n

SEED_KEYS = [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]   # chapter 03's keys


def test_query_and_average_checkers():  # moved from tests/test_widgets.py
    assert ex.check_query_favours_key([2.0, 2.0], SEED_KEYS, 1, 0.6, scale=True) is True
    assert ex.check_query_favours_key([1.0, 1.0], SEED_KEYS, 1, 0.6, scale=True) is False
    assert ex.check_query_favours_key([1.0, 1.0, 1.0], SEED_KEYS, 1) is False
    states = np.eye(3)
    assert ex.check_weighted_average([0.5, 0, 0.5], states, [0.5, 0, 0.5]) is True
    assert ex.check_weighted_average([0.6, 0, 0.4], states, [0.5, 0, 0.5]) is False
    assert ex.check_weighted_average([0.6, 0, 0.6], states, [0.6, 0, 0.6]) is False   # does not sum to 1


def test_the_query_exercise_counts_tries_per_chapter(capsys):
    said(capsys, lambda a: ex.check_query_favours_key(a, SEED_KEYS, 1, 0.6, scale=True), [1.0, 1.0])
    said(capsys, lambda a: ex.check_query_favours_key(a, SEED_KEYS, 1, 0.6), [1.0, 0.0])
    assert ex.tries("03.2") == 1 and ex.tries("02.2") == 1
    out = said(capsys, lambda a: ex.check_query_favours_key(a, SEED_KEYS, 1, 0.6, scale=True), [1.0, 1.0])
    assert "solution('03.2')" in out and "Expected: for example my_query = [3, 3]" in out
    assert ex.check_query_favours_key([3, 3], SEED_KEYS, 1, 0.6, scale=True) is True


def test_the_second_wrong_query_shows_a_query_the_checker_accepts(capsys):
    call = example("check_query_favours_key").call
    said(capsys, call, [3, 0, 0, 0, 0])
    second = said(capsys, call, [0, 3, 0, 0, 0])
    assert "Expected: for example my_query = [0, 0, 3, 0, 0], which gives 'drank'" in second
    assert call([0, 0, 3, 0, 0]) is True


def test_weighted_average_and_query_messages(capsys):
    first = said(capsys, example("check_weighted_average").call, [0.2, 0.2, 0.2, 0.2, 0.2])
    assert "which inputs does the target mix" in first and "Expected" not in first
    assert "sum to 1.200" in said(capsys, example("check_weighted_average").call, [0.2, 0.2, 0.2, 0.2, 0.4])
    assert "right now 'milk' gets the most" in said(capsys, example("check_query_favours_key").call, [0, 3, 0, 0, 0])
    assert "make it longer" in said(capsys, example("check_query_favours_key").call, [0, 0, 0.5, 0, 0])


@pytest.mark.parametrize("query, words", [
    ([0, 0, 0.5, 0, 0], "already points the right way; make it longer"),          # along the feature 'drank' leads
    ([0.2, 0.4, 0.9, 0.0, 0.0], "already points the right way"),                   # the key 'drank' itself
    ([0, 0.3, 0.6, 0, 0], "point the query the way that key points"),              # not along either: both hints
])
def test_a_query_along_the_key_is_only_told_to_grow(capsys, query, words):
    assert words in said(capsys, example("check_query_favours_key").call, query)


def test_the_weights_answer_prints_no_negative_zero(capsys):
    said(capsys, example("check_weighted_average").call, [0.2, 0.2, 0.2, 0.2, 0.2])
    second = said(capsys, example("check_weighted_average").call, [0.2, 0.2, 0.2, 0.2, 0.2])
    assert "Expected" in second and "-0.0" not in second



def _ch03_query(query, keys=SEED_KEYS):
    """Exercise 03.2 as chapter 03 calls it: K₂ must get more than 0.6 of the scaled softmax weight."""
    return ex.check_query_favours_key(query, keys, 1, 0.6, scale=True, key_names=["K₁", "K₂", "K₃"])


@pytest.mark.parametrize("query", [[1.0, 0.0], [3.0, 0.0]])   # chapter 03's own query, and longer: K₁ ties K₂
def test_a_tie_with_the_wanted_key_is_named_as_a_tie(capsys, query):
    out = said(capsys, _ch03_query, query)
    assert "right now 'K₂' ties with 'K₁' for the most" in out and "a longer query keeps the tie" in out
    assert "gets the most" not in out
    ex.reset_tries()
    with i18n.language("zh"):
        zh = said(capsys, _ch03_query, query)
    assert "现在 'K₂' 和 'K₁' 并列最多" in zh and "把查询拉长也还是打平" in zh
    assert "现在分到权重最多的是" not in zh


def test_a_tie_between_two_other_keys_names_both(capsys):
    assert "right now 'K₁' gets the most" in said(capsys, _ch03_query, [1.0, -1.0])   # scores 1, 0, -1: no tie
    keys = [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]   # K₁ and K₃ score the same for q = [1, 1], K₂ scores 0
    assert "right now 'K₁' and 'K₃' tie for the most" in said(capsys, lambda a: _ch03_query(a, keys), [1.0, 1.0])
    with i18n.language("zh"):
        assert "现在 'K₁' 和 'K₃' 并列最多" in said(capsys, lambda a: _ch03_query(a, keys), [1.0, 1.0])
