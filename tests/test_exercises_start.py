"""helpers.exercises.start: exercise 00.1, most of the weight on the second key."""
import pytest
from _checkers import example, fresh_tries, said  # noqa: F401

from helpers import i18n


@pytest.mark.parametrize("answer, words", [
    ([0.8, 0.1, 0.1], "most of the weight is on the first key"),
    ([0.1, 0.1, 0.8], "the exercise asks for the second key (position 1)"),
    ([0.3, 0.4, 0.3], "largest weight (0.40) but not most of it"),
    ([0.2, 0.3, 0.4], "do not sum to 1"),
    ([0.7, 0.5, -0.2], "outside [0, 1]"),
    ([1.0], "has shape (1,); expected 3 weights, one per key"),
    ([0.2, 0.8], "has shape (2,); expected 3 weights, one per key"),                   # a distribution, too short
    ([0.1, 0.8, 0.1, 0.0], "has shape (4,); expected 3 weights"),
    ([[0.1, 0.8, 0.1]], "has shape (1, 3): an extra axis of length 1"),
    ([[0.1], [0.8], [0.1]], "has shape (3, 1): an extra axis of length 1"),             # transposed
    (0.8, "a single number"),
    ([0.5, 0.5, 0.0], "the second key ties with the first key for the largest weight (0.50): a tie is not most"),
    ([0.0, 0.5, 0.5], "the second key ties with the third key for the largest weight (0.50)"),
    ([0.45, 0.1, 0.45], "the first key and the third key tie for the largest weight (0.45); the exercise asks for "
                        "the second key (position 1)"),
])
def test_chapter_00_asks_for_most_of_the_weight_on_the_second_key(capsys, answer, words):
    assert words in said(capsys, example("check_start_weights").call, answer)


@pytest.mark.parametrize("answer, words, not_said", [
    ([0.5, 0.5, 0.0], "第二个键和第一个键并列最大（0.50）；打平不算占了大部分", "大部分权重落在第一个键上"),
    ([0.45, 0.1, 0.45], "第一个键和第三个键并列最大（0.45），题目要的却是第二个键（位置 1）", "大部分权重落在"),
    ([0.25, 0.5, 0.25], "第二个键的权重最大（0.50），但没有超过一半", "还不到一半"),
])
def test_a_tie_is_named_as_a_tie_in_chinese_too(capsys, answer, words, not_said):
    with i18n.language("zh"):
        out = said(capsys, example("check_start_weights").call, answer)
    assert words in out and not_said not in out


def test_a_tie_is_not_told_that_most_of_the_weight_is_elsewhere(capsys):
    out = said(capsys, example("check_start_weights").call, [0.5, 0.5, 0.0])
    assert "most of the weight is on" not in out
