"""helpers.exercises.self_attention: exercises 07.1 (self-attention), 07.2 (a causal mask), 07.3 (heads'
parameters) and 07.4 (shuffling)."""

import pytest
import torch
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex
from helpers.exercises.self_attention import _self_attention as self_attention


@pytest.mark.parametrize("mask, words", [
    (torch.ones(6, 6).triu().bool(), "transposed"),
    (~torch.ones(6, 6, dtype=torch.bool).tril(), "inverted"),
    (torch.ones(6, 6).tril(-1).bool(), "see itself"),
    (torch.ones(5, 6).bool(), "expected (6, 6)"),
    (torch.ones(6, 6).bool(), "a later position"),
    (torch.ones(6, 6).tril().bool() & ~torch.eye(6, dtype=torch.bool).roll(1, 0), "an earlier position"),
    (torch.full((6, 6), 2.0), "only True/False"),
])
def test_causal_mask_mistakes(capsys, mask, words):
    assert words in said(capsys, example("check_causal_mask").call, mask)


@pytest.mark.parametrize("mask", [torch.ones(4, 4).tril(), torch.ones(4, 4).tril().int(), [[1, 0], [1, 1]]])
def test_a_float_or_int_mask_of_ones_and_zeros_is_named_and_a_bool_one_is_accepted(capsys, mask):
    n = len(mask)
    out = said(capsys, lambda a: ex.check_causal_mask(a, n, exercise="04.3"), mask)
    assert "a float/int mask" in out and "dtype=torch.bool" in out
    assert ex.check_causal_mask(torch.ones(4, 4, dtype=torch.bool).tril().numpy(), 4) is True
    assert ex.check_causal_mask([[True, False], [True, True]], 2) is True


# ---------------------------------------------------------------- self-attention chapter
@pytest.mark.parametrize("fn, words", [
    (lambda X: (torch.softmax(X @ X.T, -1) @ X, torch.softmax(X @ X.T, -1)), "not scaled"),
    (lambda X: (X, self_attention(X)[1]), "the context is X itself"),
    (lambda X: self_attention(X)[1], "should return (context, weights)"),
    (lambda X: (X, torch.softmax(X @ X.T / 6 ** 0.5, -1)), "divided the scores by √n"),
    (lambda X: (X, torch.softmax(X @ X.T * 2, -1)), "multiplied the scores by √d"),
    (lambda X: (self_attention(X)[1] @ self_attention(X)[1], self_attention(X)[1]), "multiply the (n, n) weights"),
    (lambda X: (X, torch.softmax(X @ X.T / 2, 0)), "runs down the columns (dim=0)"),
    (lambda X: (X, torch.softmax(X @ X.T / 2, -1) * 2), "do not sum to 1"),
    (lambda X: (X, torch.softmax(X @ X.T / 4, -1)), "divided by d = 4"),
    (lambda X: (self_attention(X)[1].T @ X, self_attention(X)[1]), "transposed (weights.T @ X)"),
    (lambda X: (X, torch.softmax(X[:, :2] @ X[:, :2].T, -1)), "Check the three steps"),
    (lambda X: (None, self_attention(X)[1]), "context is not"),
    (lambda X: (X, self_attention(X)[1][:3]), "expected (6, 6)"),
    (lambda X: ((X @ X.T / 2) / (X @ X.T / 2).sum(-1, keepdim=True) @ X,
                (X @ X.T / 2) / (X @ X.T / 2).sum(-1, keepdim=True)), "with no exp"),
    (lambda X: (X, torch.exp(X @ X.T / 2) / torch.exp(X @ X.T / 2).sum(-1)), "without keepdim=True"),
    (lambda X: (X, (lambda e: e / e.sum(-1, keepdim=True))(torch.exp(X @ X.T / 2 - (X @ X.T / 2).amax(0)))),
     "along the wrong axis (dim=0, one per column)"),
])
def test_self_attention_mistakes(capsys, fn, words):
    assert words in said(capsys, ex.check_self_attention, fn)


def test_shuffle_prediction(capsys):
    assert ex.check_shuffle_prediction("They are shuffled the same way", with_positions=False)
    assert ex.check_shuffle_prediction("changed", with_positions=True)
    assert ex.check_shuffle_prediction("The outputs are permuted", with_positions=False)
    capsys.readouterr()
    out = said(capsys, lambda a: ex.check_shuffle_prediction(a, with_positions=False), "changed")
    assert "does any score" in out and "Expected" not in out
    assert "positional encodings tie" in said(capsys, lambda a: ex.check_shuffle_prediction(a, True), "same way")
    assert "answer \"shuffled the same way\" or \"changed\"" in said(
        capsys, lambda a: ex.check_shuffle_prediction(a, True), "no idea")
    assert ex.tries("07.4a") == 1 and ex.tries("07.4b") == 1


@pytest.mark.parametrize("answer, with_positions, right", [
    ("unchanged, just shuffled", False, True), ("they are not changed, only permuted", False, True),
    ("The outputs don't change except for the order", False, True), ("不变，只是跟着打乱", False, True),
    ("not the same: they change", True, True), ("they are not just shuffled", True, True),
    ("unchanged", True, False), ("not the same", False, False), ("不一样", False, False),
    ("unchanged", False, False), ("the same", False, False), ("no change", False, False), ("不变", False, False),
    ("in a different order", False, True), ("in a different order", True, False), ("只是换了顺序", False, True),
    ("order changed", True, False), ("order changed", False, True), ("their order changes", False, True),
    ("shuffled differently", False, False), ("shuffled differently", True, True),
    ("nothing changes", True, False), ("nothing changed", True, False), ("not reordered", False, False),
    ("changed order", True, False), ("they change order", True, False), ("changed places", True, False),
])
def test_shuffle_prediction_reads_negations(answer, with_positions, right):
    assert ex.check_shuffle_prediction(answer, with_positions=with_positions) is right


@pytest.mark.parametrize("answer", ["unchanged", "the same", "they stay identical", "不变"])
def test_shuffle_prediction_names_invariance(capsys, answer):
    out = said(capsys, lambda a: ex.check_shuffle_prediction(a, with_positions=False), answer)
    assert "equivariant, not invariant" in out
    with_positions = said(capsys, lambda a: ex.check_shuffle_prediction(a, with_positions=True), answer)
    assert "equivariant" not in with_positions and "position" in with_positions, "(b) has its own hint"


@pytest.mark.parametrize("answer, words", [
    (8 * (4 * 64 * 64 + 4 * 64), "do not multiply the parameter count"),
    (3 * 64 * 64 + 3 * 64, "the output projection W_O counts too"),
    (4 * 64 * 64, "also have a bias each"),
    (4 * 64 * 8 + 4 * 8, "one head's slice"),
    (12345, "count the four projections"),
])
def test_multihead_parameter_slips(capsys, answer, words):
    assert words in said(capsys, example("check_multihead_parameters").call, answer)


def test_multihead_parameters_without_bias():
    mha = torch.nn.MultiheadAttention(32, 4, bias=False)
    assert ex.check_multihead_parameters(sum(p.numel() for p in mha.parameters()), 32, 4, bias=False)


@pytest.mark.parametrize("mask, words", [
    (torch.ones(6, 6, dtype=torch.bool).tril()[None], "an extra axis of length 1"),
    (torch.zeros(6, 6).masked_fill(~torch.ones(6, 6, dtype=torch.bool).tril(), float("-inf")), "additive float mask"),
])
def test_causal_mask_with_an_extra_axis_or_as_an_additive_mask_is_named(capsys, mask, words):
    assert words in said(capsys, example("check_causal_mask").call, mask)
