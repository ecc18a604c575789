"""helpers.exercises.scorers: exercises 06.1 (the scorer with the most parameters, from the registry) and 06.2
(dropout's row sum)."""
import pytest
import torch
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex


# ---------------------------------------------------------------- scorers (from the registry), dropout
def test_most_parameters_reads_the_registry(monkeypatch, capsys):
    from helpers import attention
    from helpers.cost import count_parameters
    from helpers.exercises.scorers import _build

    counts = {n: count_parameters(_build(n, 64)) for n in attention.SCORERS}      # the chapter's count (cell 16)
    assert counts == {n: cls.expected_parameters(64, 64, 64) for n, cls in attention.SCORERS.items()}
    assert counts["additive"] == 64 * 128 + 64 == max(counts.values())   # the exercise's answer, by its formula

    class Huge(attention.DotProductAttention):
        needs_equal_sizes = False

        def __init__(self, query_size, key_size, dropout=0.0):
            super().__init__(dropout)
            self.W = torch.nn.Parameter(torch.zeros(query_size * key_size * 3))

        @classmethod
        def from_sizes(cls, query_size, key_size, hidden_size, dropout=0.0):
            return cls(query_size, key_size, dropout)

    monkeypatch.setitem(attention.SCORERS, "huge", Huge)
    assert ex.check_most_parameters("huge", 3 * 64 * 64) is True
    assert "another scorer has more" in said(capsys, lambda a: ex.check_most_parameters(a, 1), "additive")


@pytest.mark.parametrize("scorer, count, words", [
    ("multiplicative", 4096, "another scorer has more"),
    ("dot", 0, "no parameters at all"),
    ("additive", 2 * 64 * 64, "that leaves out v: the + h in h·(d_q + d_k) + h is v's 64 numbers, not a bias"),
    ("additive", 64 * 64 + 64, "that counts only W_q, v; the score also uses W_k"),
    ("additive", 64 * 128 + 64 + 128 + 1, "129 more than the weights: the course's layers have no bias"),
    ("additive", 64 * 128 + 64 + 64 + 1, "65 more than the weights"),     # the practitioner's W [h_t; h_s] and v
    ("additive", 64 * 128 + 64 + 1, "1 more than the weights"),          # v's bias only (cell 25's module)
    ("additive", 4096, "that is the count of 'multiplicative'"),
    ("additive", 128 * 256 + 128, "that is the count at d = 128; here d_q = d_k = h = 64"),   # the table's d = 128 column
    ("additive", 64 * 128 + 64 + 64 * 3, "count every matrix and vector"),
    ("additive", 8256.5, "expected a whole number"),
    ("Additive", 8256, "expected one of the names 'additive'"),
])
def test_most_parameters_slips(capsys, scorer, count, words):
    out = said(capsys, lambda a: ex.check_most_parameters(a, count), scorer)
    assert words in out and "Expected" not in out


def test_most_parameters_second_try_names_the_scorer(capsys):
    said(capsys, lambda a: ex.check_most_parameters(a, None), "dot")
    assert "Expected: 'additive'." in said(capsys, lambda a: ex.check_most_parameters(a, None), "multiplicative")


@pytest.mark.parametrize("answer, words", [(0.9, "share of weights that survive"), (1 / 0.9, "only (1 - p) of them"),
                                           (0.1, "share of weights dropped"), (2, "think of which share")])
def test_dropout_row_sum_slips(capsys, answer, words):
    assert words in said(capsys, example("check_dropout_row_sum").call, answer)
