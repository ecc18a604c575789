"""helpers.exercises.cost: exercises 08.1 (MiB of one score matrix) and 08.2 (the batch over a memory limit)."""
import pytest
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex


# ---------------------------------------------------------------- cost chapter
@pytest.mark.parametrize("answer, words", [
    (268435456, "that is bytes"), (268.4, "megabytes"), (262144, "KiB"), (0.25, "GiB"), (2048, "counts bits"),
    (64, "number of entries"), (512, "float64"), (100, "entries × bytes per entry"),
    (8192 * 4 / 2**20, "that is one row"), (0.03, "that is one row"), (255.5, "entries × bytes per entry"),
])
def test_attention_mib_slips(capsys, answer, words):
    """Each slip gets its own message (one row's 0.03 MiB is not the GiB slip's 0.25); a near miss gets the hint."""
    ex.reset_tries()
    out = said(capsys, example("check_attention_mib").call, answer)
    assert words in out and "Expected" not in out


@pytest.mark.parametrize("answer, words", [
    (8, "still not over the limit"), (51, "multiply by the layers"), (68, "multiply by the heads"),
    (403, "count every head of every layer"), (3, "bytes per sentence"),
])
def test_smallest_batch_slips(capsys, answer, words):
    ex.reset_tries()
    out = said(capsys, example("check_smallest_batch").call, answer)
    assert words in out and "Expected" not in out
