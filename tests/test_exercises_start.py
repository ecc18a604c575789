"""helpers.exercises.start: exercise 00.1, most of the weight on the second key."""
import pytest
from _checkers import example, fresh_tries, said  # noqa: F401


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
])
def test_chapter_00_asks_for_most_of_the_weight_on_the_second_key(capsys, answer, words):
    assert words in said(capsys, example("check_start_weights").call, answer)
