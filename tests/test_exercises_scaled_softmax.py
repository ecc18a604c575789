"""helpers.exercises.scaled_softmax: exercises 04.1 (the spread of q·k) and 04.2 (a stable softmax)."""
import pytest
import torch
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex
from helpers.exercises.scaled_softmax import _row_max_softmax as stable


@pytest.mark.parametrize("answer, words", [
    ([256, 1], "variance of q·k"), ([256, 16], "those are variances"), ([16, 16], "divides its standard deviation"),
    ([1, 1], "its variance grows with d_k"), ([5, 5], "the standard deviation is its square root"),
    ([16, 1, 0], "expected a list of two numbers"), ([1, 16], "in the wrong order"),
    ([16, 1 / 16], "the second divides q·k by d_k instead of √d_k"),
    ([16, 0.5], "the first number is right; for the second"), ([16, 1.5], "the first number is right"),
    ([15.5, 1], "the standard deviation is its square root"),
])
def test_std_scaling_slips(capsys, answer, words):
    ex.reset_tries()
    out = said(capsys, example("check_std_scaling").call, answer)
    assert words in out and "Expected" not in out


@pytest.mark.parametrize("fn, words", [
    (lambda x: torch.exp(x) / torch.exp(x).sum(-1, keepdim=True), "subtract each row's maximum"),
    (lambda x: stable(x) if x.dim() == 1 else torch.softmax(x, dim=0), "sum to 1 along the last axis"),
    (lambda x: stable(2 * x), "differ from softmax"),
    (lambda x: 1 / 0, "raised ZeroDivisionError"),
    (lambda x: None, "returned None (did you forget `return`?)"),
    (lambda x: stable(x)[..., :1], "returned shape"),
    (lambda x: torch.exp(x - x.amax(-1)) / torch.exp(x - x.amax(-1)).sum(-1, keepdim=True), "keepdim=True, so each"),
    (lambda x: torch.exp(x - x.amax(-1, keepdim=True)) / torch.exp(x - x.amax(-1, keepdim=True)).sum(-1),
     "each row's max broadcasts"),
])
def test_stable_softmax_mistakes(capsys, fn, words):
    assert words in said(capsys, example("check_stable_softmax").call, fn)


def test_the_second_wrong_softmax_shows_a_softmax_the_checker_accepts(capsys):
    said(capsys, example("check_stable_softmax").call, lambda x: torch.exp(x) / torch.exp(x).sum(-1, keepdim=True))
    second = said(capsys, example("check_stable_softmax").call, lambda x: x)
    code = second.split("Expected: for example ")[1].split(". Worked solution")[0]
    namespace = {"torch": torch}
    exec(code, namespace)
    assert ex.check_stable_softmax(namespace["my_softmax"]) is True


def test_stable_softmax_accepts_numpy_results_and_other_dtypes():
    assert ex.check_stable_softmax(lambda x: stable(x.double()).numpy()) is True


def _normalised(e):
    return e / e.sum(-1, keepdim=True)


@pytest.mark.parametrize("fn, words", [
    (lambda x: _normalised(torch.exp(x - x.max())), "one maximum of the whole tensor is subtracted"),   # global max
    (lambda x: _normalised(torch.exp(x.double() - x.double().max())), "one maximum of the whole tensor"),
    (lambda x: _normalised(torch.exp(x - x.amax(0, keepdim=True))), "each column's maximum is subtracted"),
    (lambda x: x / x.sum(-1, keepdim=True), "with no exp"),
    (lambda x: torch.exp(x - x.amax(-1, keepdim=True)), "not yet divided by their sum"),
    (lambda x: torch.exp(x - x.amax(-1, keepdim=True)) / torch.exp(x - x.amax(-1, keepdim=True)).sum(),
     "do not sum to 1 along the last axis"),
    (lambda x: _normalised(torch.exp(x - x.amin(-1, keepdim=True))), "each row's minimum is subtracted"),
    (lambda x: _normalised(torch.exp(x.double() - x.double().amin(-1, keepdim=True))), "each row's minimum"),
    (lambda x: _normalised(torch.exp(x - x.mean(-1, keepdim=True))), "each row's mean is subtracted"),
    (lambda x: stable(x.half()), "returns float16, which keeps only 2 or 3 significant digits"),
    (lambda x: stable(x.bfloat16()), "returns bfloat16"),
])
def test_each_classic_softmax_slip_is_named(capsys, fn, words):
    out = said(capsys, ex.check_stable_softmax, fn)
    assert words in out and "Expected" not in out


def test_a_global_maximum_is_caught_only_by_rows_hundreds_apart():
    from helpers.exercises.scaled_softmax import _cases, _global_max_softmax

    misses = [label for label, scores in _cases()
              if not torch.allclose(_global_max_softmax(scores.double()), torch.softmax(scores.double(), -1),
                                    equal_nan=False)]
    assert len(misses) == 1 and "800" in misses[0]      # every other case passes a global maximum


@pytest.mark.parametrize("shift", ["amin", "mean"])
def test_a_row_min_or_mean_shift_is_caught_only_by_the_wide_row(capsys, shift):
    from helpers.exercises.scaled_softmax import _cases

    def shifted(x):
        e = torch.exp(x - getattr(x, shift)(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)

    misses = [label for label, scores in _cases() if not torch.isfinite(shifted(scores)).all()]
    assert misses == [_cases()[-1][0]] and "wide spread" in misses[0]
    first = said(capsys, ex.check_stable_softmax, shifted)
    assert "subtract each row's maximum instead" in first and "Expected" not in first      # a hint first
    assert "Expected" in said(capsys, ex.check_stable_softmax, shifted)                    # the answer on try two


def test_a_sum_that_is_off_is_printed_with_enough_digits_to_see_it(capsys):
    out = said(capsys, ex.check_stable_softmax, lambda x: stable(x) * (1 + 3e-5))
    assert "sums [1.00003]" in out
