"""helpers.exercises.scaled_softmax: exercises 04.1 (the spread of q·k) and 04.2 (a stable softmax)."""
import pytest
import torch
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex
from helpers.exercises.scaled_softmax import _row_max_softmax as stable


@pytest.mark.parametrize("answer, words", [
    ([256, 1], "variance of q·k"),
    ([256, 16], "256 is the variance of q·k; dividing q·k by √d_k divides its variance by d_k, not by √d_k"),
    ([16, 4], "as if dividing q·k by √d_k divided its variance by √d_k"), ([16, 16], "divides its standard deviation"),
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
    (lambda x: stable(x) if x.dim() == 1 else torch.softmax(x, dim=0), "the weights sum to 1 along dim=0"),
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
     "divided by one sum over the whole tensor (e.sum())"),
    (lambda x: torch.exp(x - x.max()) / torch.exp(x - x.max()).sum(), "one sum over the whole tensor"),
    (lambda x: torch.softmax(x, dim=0), "the weights sum to 1 along dim=0, not along each row"),
    (lambda x: torch.softmax(x, dim=1), "raised IndexError (Dimension out of range"),
    (lambda x: stable(x) + 0 * x[:, :1], "uses an axis that this 1-D tensor does not have"),
    (lambda x: _normalised(torch.exp(x - x.amax(1 if x.dim() > 1 else 0, keepdim=True))),
     "each column's maximum is subtracted (dim=1)"),
    (lambda x: _normalised(torch.exp(x - x.amax(0 if x.dim() == 3 else -1, keepdim=True))),
     "the maximum is taken along dim=0, across the batch"),
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
    assert len(misses) == 2 and all("hundreds apart" in m for m in misses)   # every other case passes it
    assert "two rows" in misses[0]                      # the 2-D case comes first, so its message names it


def _last_axis_only_in_2d(x):
    """The slip of the reader's report: dim = 1 if x.dim() > 1 else 0, right in 1-D and 2-D, wrong in 3-D."""
    dim = 1 if x.dim() > 1 else 0
    e = torch.exp(x - x.amax(dim, keepdim=True))
    return e / e.sum(dim, keepdim=True)


def test_a_softmax_over_dim_1_is_rejected_by_the_3d_case_with_a_hint_then_the_answer(capsys):
    from helpers.exercises.scaled_softmax import _cases

    passes = [label for label, scores in _cases()
              if torch.allclose(_last_axis_only_in_2d(scores), torch.softmax(scores, -1), atol=1e-5)]
    assert len(passes) == len(_cases()) - 1               # only the (2, 2, 3) case tells dim=1 from dim=-1
    first = said(capsys, ex.check_stable_softmax, _last_axis_only_in_2d)
    assert "(2, 2, 3)" in first and "along dim=1" in first and "normalise along the last axis, dim=-1" in first
    assert "Expected" not in first
    assert "Expected" in said(capsys, ex.check_stable_softmax, _last_axis_only_in_2d)


@pytest.mark.parametrize("fn, words", [
    (lambda x: torch.exp(x - x.amax(-1, keepdim=True)) / torch.exp(x - x.amax(-1, keepdim=True)).sum(),
     "one sum over the whole tensor"),
    (lambda x: torch.softmax(x, dim=0), "along dim=0"),
    (lambda x: torch.softmax(x, dim=1), "normalise along the last axis, dim=-1"),
])
def test_the_minor_slips_get_a_hint_first_and_the_answer_on_the_second_try(capsys, fn, words):
    first = said(capsys, ex.check_stable_softmax, fn)
    assert words in first and "Expected" not in first and "Traceback" not in first
    second = said(capsys, ex.check_stable_softmax, fn)
    assert words in second and "Expected" in second


def test_std_slip_of_dividing_the_variance_by_root_dk_is_named_then_followed(capsys):
    first = said(capsys, ex.check_std_scaling, [256, 16])
    assert "divides its variance by d_k, not by √d_k" in first and "Expected" not in first
    assert "Expected" in said(capsys, ex.check_std_scaling, [16, 4])   # following the old hint: still wrong, named
    assert ex.check_std_scaling([16, 1]) is True


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
