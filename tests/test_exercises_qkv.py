"""helpers.exercises.qkv: exercise 03.1, attention weights by hand; the tolerance separates the right answer from
every slip."""
import math

import numpy as np
import pytest
import torch
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex

SCORES = torch.tensor([1.0, 2.0, 1.0], dtype=torch.float64)       # Q = [1, 1] against chapter 03's keys
RIGHT = torch.softmax(SCORES / math.sqrt(2), -1).tolist()


@pytest.mark.parametrize("answer, words", [
    ([0.25, 0.5, 0.25], "the scores divided by their sum"),                            # no exp (the slip)
    ((SCORES / SCORES.sum()).tolist(), "softmax takes exp of each score first"),
    (torch.exp(SCORES / math.sqrt(2)).tolist(), "not yet divided by their sum"),       # no normalisation
    ((SCORES / math.sqrt(2)).tolist(), "the scaled scores, before the softmax"),  # scaled, no softmax
    (torch.softmax(SCORES / 2, -1).tolist(), "divide the scores by d_k = 2"),          # d_k instead of √d_k
    (torch.softmax(SCORES * math.sqrt(2), -1).tolist(), "multiply the scores by √d_k"),
    (np.round(torch.softmax(SCORES, -1).numpy(), 2).tolist(), "WITHOUT the scale"),     # no scale, rounded
    ([[w] for w in RIGHT], "expected one weight per key, shape (3,)"),                 # transposed shape
])
def test_every_listed_slip_is_rejected_and_named(capsys, answer, words):
    out = said(capsys, example("check_hand_weights").call, answer)
    assert words in out and "Expected" not in out


@pytest.mark.parametrize("decimals", [3, 4, 6])
def test_the_right_weights_pass_rounded_to_three_decimals_or_more(decimals):
    assert example("check_hand_weights").call(np.round(RIGHT, decimals).tolist()) is True


def test_the_tolerance_sits_between_the_right_answer_and_the_closest_slip():
    gap = float(np.max(np.abs(np.array(RIGHT) - [0.25, 0.5, 0.25])))     # no exp: the closest slip
    rounding = float(np.max(np.abs(np.array(RIGHT) - np.round(RIGHT, 3))))
    assert rounding < 1e-3 < gap, (rounding, gap)


def test_two_decimals_of_the_right_answer_are_told_apart_from_nothing_but_say_so(capsys):
    out = said(capsys, example("check_hand_weights").call, np.round(RIGHT, 2).tolist())
    assert "rounded to two decimals: give three" in out


@pytest.mark.parametrize("answer, words", [
    ([1.0, 2.0, 1.0], "raw scores"),
    (torch.softmax(torch.tensor([1.0, 2.0, 1.0]), -1).tolist(), "WITHOUT the scale"),
    ([0.3, 0.3, 0.3], "sum to 0.900"),
    ([0.3, 0.4, 0.3], "the weight of key 2 is 0.4000, too low"),
])
def test_hand_weight_slips(capsys, answer, words):
    out = said(capsys, example("check_hand_weights").call, answer)
    assert words in out and "Expected" not in out


def test_hand_weight_checker_names_the_usual_slips(capsys):  # moved from tests/test_widgets.py
    keys, q = [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], [1.0, 1.0]
    e = [math.exp(s - 2) for s in (1, 2, 1)]            # the unscaled scores [1, 2, 1], softmax written out
    unscaled = [x / sum(e) for x in e]
    assert ex.check_hand_weights(None, q, keys) is False
    assert "Not answered yet" in capsys.readouterr().out
    assert "WITHOUT the scale" in said(capsys, lambda a: ex.check_hand_weights(a, q, keys), unscaled)
    assert "raw scores" in said(capsys, lambda a: ex.check_hand_weights(a, q, keys), [1.0, 2.0, 1.0])
    assert "sum to 0.900" in said(capsys, lambda a: ex.check_hand_weights(a, q, keys), [0.3, 0.3, 0.3])
