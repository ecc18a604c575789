"""The exercise checkers: never a traceback, every named mistake, every reference answer, the answer only on a
second wrong try (or on request), and worked solutions on demand."""
import math

import numpy as np
import pytest
import torch

import helpers.exercises as ex
from helpers.exercises import core
from helpers.exercises.translation import _reference_step

torch.set_num_threads(1)

# chapter 02's encoder states and words
H = np.array([[0.1, 0.0, 0.0, 0.3, 0.9], [0.9, 0.0, 0.1, 0.0, 0.1], [0.2, 0.4, 0.9, 0.0, 0.0],
              [0.0, 0.3, 0.0, 0.9, 0.2], [0.1, 0.9, 0.1, 0.1, 0.0]])
WORDS = ["the", "cat", "drank", "warm", "milk"]
K = [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]                   # chapter 03's keys
MAP = torch.tensor([[0.1, 0.7, 0.2], [0.6, 0.3, 0.1], [0.2, 0.1, 0.7], [0.1, 0.2, 0.7]])  # (n_target, n_source)
# a one-to-one sentence and, for the richer grammar, sets (possibly empty) per target word
SRC = "a b c d"
OLD_GOLD = [3, 2, 1, 0]
NEW_TGT, NEW_GOLD = ["w", "x", "y", "de", "z"], [(3,), (0, 2), (), (), (1,)]


def stable(x):
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def self_attention(X):
    w = torch.softmax(X @ X.T / math.sqrt(X.shape[-1]), dim=-1)
    return w @ X, w


# ---------------------------------------------------------------- a small decoder step (Bahdanau wiring)
torch.manual_seed(0)
CELL, OUT, W_Q = torch.nn.GRUCell(2 + 3, 4).double(), torch.nn.Linear(4 + 3, 6).double(), torch.randn(4, 3).double()


def decoder_step(y, s_prev, enc, mask, query_from="previous", use_context=True):
    """(B, 2), (B, 4), (B, S, 3), (B, S) -> logits (B, 6), state (B, 4), weights (B, S)."""
    score = lambda q, k: torch.einsum("bh,hc,bsc->bs", q, W_Q, k)  # noqa: E731
    q = s_prev if query_from == "previous" else CELL(torch.cat([y, torch.zeros(len(y), 3).double()], -1), s_prev)
    ctx, w = _reference_step(q, enc, mask, score)
    ctx = ctx if use_context else torch.zeros_like(ctx)
    s = CELL(torch.cat([y, ctx], -1), s_prev)
    return OUT(torch.cat([s, ctx], -1)), s, w


g = torch.Generator().manual_seed(1)
STEP_INPUTS = (torch.randn(2, 2, generator=g).double(), torch.randn(2, 4, generator=g).double(),
               torch.randn(2, 5, 3, generator=g).double(), torch.tensor([[True] * 5, [True] * 3 + [False] * 2]))
WRONG_QUERY = "the query is the current state s_t; Bahdanau's wiring uses the previous state s_{t-1}."


# ---------------------------------------------------------------- every checker: how to call it, its right answer
CALLS = {  # name -> (call with the learner's answer, the reference answer)
    "check_close": (lambda a: ex.check_close(a, 0.5), 0.5),
    "check_weights": (lambda a: ex.check_weights(a, most_on=1), [0.1, 0.8, 0.1]),
    "check_start_weights": (lambda a: ex.check_start_weights(a), [0.1, 0.8, 0.1]),
    "check_context_size": (lambda a: ex.check_context_size(a, 256, embedding=64), 256),
    "check_weighted_average": (lambda a: ex.check_weighted_average(a, H, (H[1] + H[4]) / 2), [0, 0.5, 0, 0, 0.5]),
    "check_query_favours_key": (lambda a: ex.check_query_favours_key(a, H, 2, key_names=WORDS), [0, 0, 3, 0, 0]),
    "check_hand_weights": (lambda a: ex.check_hand_weights(a, [1.0, 1.0], K),
                           torch.softmax(torch.tensor([1.0, 2.0, 1.0]) / math.sqrt(2), -1).tolist()),
    "check_std_scaling": (lambda a: ex.check_std_scaling(a, 256), [16, 1]),
    "check_stable_softmax": (lambda a: ex.check_stable_softmax(a), stable),
    "check_causal_mask": (lambda a: ex.check_causal_mask(a, 6), torch.ones(6, 6, dtype=torch.bool).tril()),
    "check_translation": (lambda a: ex.check_translation(a, SRC, references=["d c b a", "d c b ba"]), "d c b a"),
    "check_alignment": (lambda a: ex.check_alignment(a, SRC, gold=NEW_GOLD), [3, [0, 2], [], set(), 1]),
    "check_most_attended": (lambda a: ex.check_most_attended(a, MAP, 2), 2),
    "check_attention_step": (lambda a: ex.check_attention_step(a), _reference_step),
    "check_decoder_step": (lambda a: ex.check_decoder_step(a, decoder_step, STEP_INPUTS, encoder_arg=2),
                           decoder_step),
    "check_most_parameters": (lambda a: ex.check_most_parameters("additive", a, d=64), 64 * 128 + 64),
    "check_dropout_row_sum": (lambda a: ex.check_dropout_row_sum(a, p=0.1), 1.0),
    "check_self_attention": (lambda a: ex.check_self_attention(a), self_attention),
    "check_shuffle_prediction": (lambda a: ex.check_shuffle_prediction(a, with_positions=False),
                                 "shuffled the same way"),
    "check_multihead_parameters": (lambda a: ex.check_multihead_parameters(a, 64, 8), 4 * 64 * 64 + 4 * 64),
    "check_attention_mib": (lambda a: ex.check_attention_mib(a, 8192), 256),
    "check_smallest_batch": (lambda a: ex.check_smallest_batch(a), 9),
}


def _raises(*args):
    raise RuntimeError("boom")


ODD = [None, "", "8256", [], [1, 2], {}, float("nan"), float("inf"), -float("inf"), torch.ones(3, requires_grad=True),
       lambda *a: None, lambda *a: (1, 2), lambda *a: (torch.ones(2), None), _raises, lambda: 1, "5432106", 5.9,
       [[1, 2], [3]], ["1", "2"], True, object(), np.array(["a"]), [float("inf"), 0, 0], torch.tensor(float("nan"))]


@pytest.fixture(autouse=True)
def fresh_tries():
    ex.reset_tries()
    yield
    ex.reset_tries()


def test_the_table_covers_every_public_checker():
    public = {n for n in ex.__all__ if n.startswith("check_")}
    assert public == set(CALLS) == set(ex.CHECKERS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_no_odd_answer_raises_and_each_gets_a_verdict(name, capsys):
    call, _ = CALLS[name]
    for odd in ODD:
        result = call(odd)
        out = capsys.readouterr().out
        assert isinstance(result, bool) and result is False, (name, odd)
        assert out.strip() and core.FALLBACK not in out, (name, odd, out)


def test_the_second_answer_of_check_most_parameters_is_fuzzed_too(capsys):
    for odd in ODD:
        assert ex.check_most_parameters(odd, 8256) is False
        assert core.FALLBACK not in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_checker_accepts_its_reference_answer(name, capsys):
    call, answer = CALLS[name]
    assert call(answer) is True
    assert capsys.readouterr().out.startswith("Correct: ")


def test_the_reference_answers_agree_with_torch_and_the_course_helpers():
    from helpers import cost

    assert sum(p.numel() for p in torch.nn.MultiheadAttention(64, 8).parameters()) == CALLS[
        "check_multihead_parameters"][1]
    assert cost.smallest_batch_over(24 * cost.GiB, 4000, 8, 6, 4) == CALLS["check_smallest_batch"][1]
    assert cost.score_matrix_bytes(8192) / cost.MiB == CALLS["check_attention_mib"][1]


def _said(capsys, call, answer) -> str:
    """The line a checker prints for a wrong answer (asserting it is wrong)."""
    assert call(answer) is False
    return capsys.readouterr().out


# ---------------------------------------------------------------- the crashes and misattributions
def test_the_three_known_crashes_are_feedback(capsys):
    assert ex.check_self_attention(lambda X: (X, None)) is False
    assert "weights that are None" in capsys.readouterr().out
    x = torch.tensor([0.5, 0.25], requires_grad=True)
    assert ex.check_close(x, torch.tensor([0.5, 0.25], requires_grad=True)) is True
    assert ex.check_most_parameters(["additive"], 8256) is False
    assert "a list of 1 item" in capsys.readouterr().out


def test_no_misattributed_messages(capsys):
    out = _said(capsys, ex.check_self_attention, lambda X: None)
    assert "returned None (did you forget `return`?)" in out and "raised" not in out
    out = _said(capsys, lambda a: ex.check_close(a, 8256, tol=0), "8256")
    assert "the string '8256'" in out and "should be 8256" not in out
    out = _said(capsys, lambda a: ex.check_most_parameters("additive", a), "8256")
    assert "the string '8256'" in out
    assert "NaN or infinity" in _said(capsys, CALLS["check_weights"][0], [0, float("inf"), 0])
    assert "infinity" in _said(capsys, CALLS["check_query_favours_key"][0], [0, 0, float("inf"), 0, 0])
    assert "is the string '5432106'" in _said(capsys, CALLS["check_alignment"][0], "5432106")
    assert "5.9; source positions are whole numbers" in _said(capsys, CALLS["check_alignment"][0],
                                                             [3, [0, 2], [], [], 5.9])
    assert "raised RuntimeError: boom" in _said(capsys, ex.check_stable_softmax, _raises)


# ---------------------------------------------------------------- first try: a slip or a hint; second try: the answer
def test_first_wrong_try_names_the_slip_without_the_answer_and_the_second_shows_it(capsys):
    check = CALLS["check_attention_mib"][0]
    first = _said(capsys, check, 8192 * 8192 * 4)
    assert "that is bytes" in first and "Expected" not in first and "256" not in first
    second = _said(capsys, check, 268.4)
    assert "megabytes" in second and "Expected: 256." in second and "solution('08.1')" in second
    assert ex.tries("08.1") == 2


def test_show_answer_gives_the_value_on_the_first_try_and_tries_are_per_exercise(capsys):
    assert "Expected: 256." in _said(capsys, lambda a: ex.check_attention_mib(a, show_answer=True), 1)
    assert "Expected" not in _said(capsys, CALLS["check_smallest_batch"][0], 1)  # another exercise: first try
    ex.reset_tries("08.2")
    assert ex.tries("08.2") == 0 and ex.tries("08.1") == 1


def test_not_answered_and_unreadable_answers_do_not_count_as_tries(capsys):
    check = CALLS["check_std_scaling"][0]
    for odd in (None, "16", [16]):
        check(odd)
    assert ex.tries("04.1") == 0
    assert "Expected" not in _said(capsys, check, [17, 3])


def test_check_close_without_an_exercise_id_counts_tries_by_name(capsys):
    first = _said(capsys, lambda a: ex.check_close(a, 0.25, name="x"), 0.75)
    assert "too high" in first and "0.25" not in first
    assert "Expected: 0.25." in _said(capsys, lambda a: ex.check_close(a, 0.25, name="x"), 0.0)


def test_solution_prints_the_worked_solution_only_when_asked(capsys):
    ex.solution("04.2")
    out = capsys.readouterr().out
    assert out.startswith("Exercise 04.2: ") and "amax" in out
    ex.solution("99.9")
    assert "No worked solution for '99.9'" in capsys.readouterr().out
    ex.solution(None)
    assert "04.2" in capsys.readouterr().out
    assert {"00.1", "01.1", "01.2", "02.1", "03.1", "04.1", "04.2", "05.1", "05.2", "05.3", "06.1", "06.2",
            "07.1", "07.2", "08.1", "08.2"} <= set(ex.exercise_ids())


# ---------------------------------------------------------------- each named mistake, checker by checker
@pytest.mark.parametrize("answer, words", [
    ([0.8, 0.1, 0.1], "most of the weight is on the first key"),
    ([0.1, 0.1, 0.8], "the exercise asks for the second key (position 1)"),
    ([0.3, 0.4, 0.3], "largest weight (0.40) but not most of it"),
    ([0.2, 0.3, 0.4], "do not sum to 1"),
    ([0.7, 0.5, -0.2], "outside [0, 1]"),
    ([1.0], "expected a list of weights with a second key"),
])
def test_chapter_00_asks_for_most_of_the_weight_on_the_second_key(capsys, answer, words):
    assert words in _said(capsys, CALLS["check_start_weights"][0], answer)


@pytest.mark.parametrize("answer, expected, words", [  # moved from tests/test_core.py
    ([0.5, 0.6], None, "do not sum to 1 along the key axis"),
    ([1.5, -0.5], None, "outside [0, 1]"),
    ([0.5, 0.5], [0.4, 0.6], "`weights` at index (0,) is 0.5, too high"),
    ("abc", None, "is the string 'abc'; expected numbers"),
    ([[0.5, 0.5], [0.5]], None, "cannot be read as numbers"),
])
def test_check_weights_says_what_is_wrong(capsys, answer, expected, words):
    assert words in _said(capsys, lambda a: ex.check_weights(a, expected), answer)


def test_check_weights_still_checks_a_plain_distribution(capsys):
    assert ex.check_weights([0.2, 0.3, 0.5]) is True
    assert "shape (3,); expected shape (2,)" in _said(capsys, lambda a: ex.check_weights(a, [0.4, 0.6]),
                                                      [0.2, 0.3, 0.5])


@pytest.mark.parametrize("answer, words", [(128, "one GRU's state"), (64, "one word's embedding"),
                                           (2, "count numbers, not vectors"), (4096, "does not depend")])
def test_context_size_slips(capsys, answer, words):
    assert words in _said(capsys, CALLS["check_context_size"][0], answer)


def test_weighted_average_and_query_messages(capsys):
    first = _said(capsys, CALLS["check_weighted_average"][0], [0.2, 0.2, 0.2, 0.2, 0.2])
    assert "which inputs does the target mix" in first and "Expected" not in first
    assert "sum to 1.200" in _said(capsys, CALLS["check_weighted_average"][0], [0.2, 0.2, 0.2, 0.2, 0.4])
    assert "right now 'milk' gets the most" in _said(capsys, CALLS["check_query_favours_key"][0], [0, 3, 0, 0, 0])
    assert "make it longer" in _said(capsys, CALLS["check_query_favours_key"][0], [0, 0, 0.5, 0, 0])


@pytest.mark.parametrize("answer, words", [
    ([1.0, 2.0, 1.0], "raw scores"),
    (torch.softmax(torch.tensor([1.0, 2.0, 1.0]), -1).tolist(), "WITHOUT the scale"),
    ([0.3, 0.3, 0.3], "sum to 0.900"),
    ([0.3, 0.4, 0.3], "the weight of key 2 is 0.4000, too low"),
])
def test_hand_weight_slips(capsys, answer, words):
    out = _said(capsys, CALLS["check_hand_weights"][0], answer)
    assert words in out and "Expected" not in out


@pytest.mark.parametrize("answer, words", [
    ([256, 1], "variance of q·k"), ([256, 16], "those are variances"), ([16, 16], "divides its standard deviation"),
    ([1, 1], "its variance grows with d_k"), ([5, 5], "the standard deviation is its square root"),
    ([16, 1, 0], "expected a list of two numbers"),
])
def test_std_scaling_slips(capsys, answer, words):
    ex.reset_tries()
    out = _said(capsys, CALLS["check_std_scaling"][0], answer)
    assert words in out and "Expected" not in out


@pytest.mark.parametrize("fn, words", [
    (lambda x: torch.exp(x) / torch.exp(x).sum(-1, keepdim=True), "subtract each row's maximum"),
    (lambda x: stable(x) if x.dim() == 1 else torch.softmax(x, dim=0), "sum to 1 along the last axis"),
    (lambda x: stable(2 * x), "differ from softmax"),
    (lambda x: 1 / 0, "raised ZeroDivisionError"),
    (lambda x: None, "returned None (did you forget `return`?)"),
    (lambda x: stable(x)[..., :1], "returned shape"),
])
def test_stable_softmax_mistakes(capsys, fn, words):
    assert words in _said(capsys, CALLS["check_stable_softmax"][0], fn)


def test_stable_softmax_accepts_numpy_results_and_other_dtypes():
    assert ex.check_stable_softmax(lambda x: stable(x.double()).numpy()) is True


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
    assert words in _said(capsys, CALLS["check_causal_mask"][0], mask)


def test_causal_mask_accepts_ones_and_zeros():
    assert ex.check_causal_mask(torch.ones(4, 4).tril().int(), 4) is True


# ---------------------------------------------------------------- translation: both alignment formats, references
@pytest.fixture
def old_toylang(monkeypatch):
    """The one-to-one toy language: one source position per target word, one reference."""
    from helpers import toylang

    monkeypatch.setattr(toylang, "translate", lambda src: (["d", "c", "b", "a"], list(OLD_GOLD)))
    monkeypatch.delattr(toylang, "references", raising=False)


@pytest.fixture
def new_toylang(monkeypatch):
    """The richer grammar: a tuple (possibly empty) per target word, several references."""
    from helpers import toylang

    monkeypatch.setattr(toylang, "translate", lambda src: (list(NEW_TGT), [tuple(s) for s in NEW_GOLD]))
    monkeypatch.setattr(toylang, "references", lambda src: [list(NEW_TGT), ["w", "x", "y", "z"]], raising=False)


def test_translation_and_alignment_in_the_one_to_one_format(old_toylang, capsys):
    assert ex.check_translation("d c b a", SRC) and ex.check_translation(["d", "c", "b", "a"], SRC)
    assert ex.check_alignment([3, 2, 1, 0], SRC) and ex.check_alignment(torch.tensor([3, 2, 1, 0]), SRC)
    assert ex.check_alignment([[3], (2,), {1}, 0.0], SRC)
    assert "permutation" in capsys.readouterr().out
    out = _said(capsys, lambda a: ex.check_alignment(a, SRC), [3, 2, 0, 1])
    assert "target word 2 ('b') does not translate source word 0 ('a')" in out and "Expected" not in out
    assert "Expected: [3, 2, 1, 0]." in _said(capsys, lambda a: ex.check_alignment(a, SRC), [3, 2, 0, 1])
    assert "one entry per target word" in _said(capsys, lambda a: ex.check_alignment(a, SRC), [1, 2])
    assert "run from 0 to 3" in _said(capsys, lambda a: ex.check_alignment(a, SRC), [3, 2, 1, -1])


def test_one_based_positions_are_named(old_toylang, capsys):
    ex.reset_tries()
    out = _said(capsys, lambda a: ex.check_alignment(a, "a b c d e"), [4, 3, 2, 1])
    assert "positions count from 0" in out


def test_translation_order_and_word_mistakes(old_toylang, capsys):
    out = _said(capsys, lambda a: ex.check_translation(a, SRC), "c d b a")
    assert "order is not, from target position 0" in out and "d c b a" not in out
    assert "'q' is in no valid translation" in _said(capsys, lambda a: ex.check_translation(a, SRC), "d c b q")
    assert "2 word(s) are missing" in _said(capsys, lambda a: ex.check_translation(a, SRC), "d c")
    assert "'d' appears more often" in _said(capsys, lambda a: ex.check_translation(a, SRC), "d d c b a")
    assert "has no words" in _said(capsys, lambda a: ex.check_translation(a, SRC), "")
    assert "expected a string of target words" in _said(capsys, lambda a: ex.check_translation(a, SRC), [1, 2])


def test_translation_accepts_any_reference_of_the_richer_grammar(new_toylang, capsys):
    assert ex.check_translation("w x y de z", SRC) and ex.check_translation("w x y z", SRC)
    assert "one of 2 valid translations" in capsys.readouterr().out
    assert "order is not" in _said(capsys, lambda a: ex.check_translation(a, SRC), "x w y z")


@pytest.mark.parametrize("answer, words", [
    ([3, 0, [], [], 1], "depends on more source words than 0 ('a')"),
    ([3, [0, 1, 2], [], [], 1], "does not translate all of 0 ('a'), 1 ('b'), 2 ('c')"),
    ([3, [0, 2], 1, [], 1], "target word 2 ('y') translates no source word: give []"),
    ([[], [0, 2], [], [], 1], "target word 0 ('w') does translate something"),
    ([2, [0, 2], [], [], 1], "does not translate source word 2 ('c')"),
])
def test_alignment_sets_name_each_mistake(new_toylang, capsys, answer, words):
    assert words in _said(capsys, lambda a: ex.check_alignment(a, SRC), answer)


def test_alignment_sets_show_the_answer_as_the_learner_types_it(new_toylang, capsys):
    assert ex.check_alignment([3, [2, 0], [], None, {1}], SRC) is True
    assert "Expected: [3, [0, 2], [], [], 1]." in _said(
        capsys, lambda a: ex.check_alignment(a, SRC, show_answer=True), [3, 0, [], [], 1])


def test_a_sentence_the_toy_language_cannot_translate_is_feedback(monkeypatch, capsys):
    from helpers import toylang

    def refuse(src):
        raise ValueError("unknown word 'zzz'")

    monkeypatch.setattr(toylang, "translate", refuse)
    assert "cannot translate the exercise's sentence" in _said(capsys, lambda a: ex.check_translation(a, "zzz"), "w")
    assert "cannot translate" in _said(capsys, lambda a: ex.check_alignment(a, "zzz"), [0])


def test_the_live_toy_language_accepts_its_own_translation_and_alignment():
    from helpers import toylang

    src = toylang.sample_pairs(1, min_len=8, max_len=8, seed=3)[0][0]
    target, alignment = toylang.translate(src)
    assert ex.check_translation(" ".join(target), " ".join(src))
    assert ex.check_alignment([list(a) if isinstance(a, tuple) else a for a in alignment], src)


@pytest.mark.parametrize("answer, words", [
    (3, "1-based position"), (0, "neighbouring output word"), (9, "run from 0 to 2"),
])
def test_reading_the_map_names_the_slips(capsys, answer, words):
    assert words in _said(capsys, CALLS["check_most_attended"][0], answer)


def test_reading_the_map_names_a_column_read_and_finds_the_row_in_a_batch(capsys):
    weights = torch.tensor([[0.2, 0.1, 0.7, 0.0], [0.6, 0.1, 0.0, 0.3], [0.3, 0.1, 0.0, 0.6]])
    assert ex.check_most_attended(2, weights[None], 0) is True   # a (1, n_target, n_source) map works too
    assert "you read a column" in _said(capsys, lambda a: ex.check_most_attended(a, weights, 0), 1)
    assert "find row 2" in _said(capsys, lambda a: ex.check_most_attended(a, weights, 2), 1)


# ---------------------------------------------------------------- the attention part of a decoder step
def _step(weights_fn=None, context_fn=None, fill=float("-inf"), nan_to_zero=True):
    """A learner's step built from parts: weights_fn(scores, mask), context_fn(weights, states, scores)."""
    def attend(query, states, mask, score_fn):
        scores = score_fn(query, states)
        if weights_fn is None:
            w = torch.softmax(scores.masked_fill(~mask, fill), -1)
            w = torch.nan_to_num(w) if nan_to_zero else w
        else:
            w = weights_fn(scores, mask)
        ctx = (w.unsqueeze(-1) * states).sum(1) if context_fn is None else context_fn(w, states, scores)
        return ctx, w
    return attend


@pytest.mark.parametrize("fn, words", [
    (_step(lambda s, m: torch.softmax(s.masked_fill(~m, float("-inf")), 0)), "over the batch axis"),
    (_step(lambda s, m: torch.softmax(s.unsqueeze(-1), -1).squeeze(-1)), "an axis of length 1"),
    (_step(lambda s, m: torch.softmax(s, -1)), "the padding is not masked"),
    (_step(lambda s, m: torch.softmax(s.masked_fill(m, float("-inf")), -1)), "wrong way round"),
    (_step(lambda s, m: torch.softmax(s, -1) * m), "zeroed after the softmax"),
    (_step(lambda s, m: torch.exp(s.masked_fill(~m, float("-inf")))), "not normalised"),
    (_step(lambda s, m: s), "raw scores"),
    (_step(context_fn=lambda w, v, s: (w * s).sum(-1)), "as if the weights multiplied the scores"),
    (_step(context_fn=lambda w, v, s: (s.masked_fill(s < -1e30, 0).unsqueeze(-1) * v).sum(1)), "raw scores"),
    (_step(context_fn=lambda w, v, s: v.sum(1)), "plain sum of the states"),
    (_step(context_fn=lambda w, v, s: v.mean(1)), "plain mean"),
    (lambda q, v, m, f: _reference_step(q, v, m, f)[::-1], "swapped"),
    (_step(context_fn=lambda w, v, s: w), "one number per source position"),
    (_step(nan_to_zero=False), "gets NaN"),
    (_step(fill=-1e9), "should be all zeros"),
    (lambda q, v, m, f: ((torch.ones(3, 4), torch.ones(3, 5) / 5)), "`score_fn` was never called"),
    (lambda q, v, m, f: _reference_step(q, v, m, f)[1], "expected a pair (context, weights)"),
    (lambda q, v, m, f: (None, _reference_step(q, v, m, f)[1]), "whose context is None"),
])
def test_attention_step_names_each_mistake(capsys, fn, words):
    assert words in _said(capsys, CALLS["check_attention_step"][0], fn)


def test_attention_step_with_the_course_mask_shape(capsys):
    def attend(query, states, mask, score_fn):  # mask (B, 1, S): the course's convention
        assert mask.shape[1] == 1
        return _reference_step(query, states, mask[:, 0], score_fn)

    assert ex.check_attention_step(attend, with_query_axis=True) is True
    assert "raised AssertionError" in _said(capsys, ex.check_attention_step, attend)


def test_decoder_step_names_the_wrong_query_and_an_unused_context(capsys):
    def check(a):
        return ex.check_decoder_step(a, decoder_step, STEP_INPUTS, encoder_arg=2, mistakes={
            WRONG_QUERY: lambda *x: decoder_step(*x, query_from="current")})

    assert WRONG_QUERY in _said(capsys, check, lambda *x: decoder_step(*x, query_from="current"))
    assert "context vector never reaches the output" in _said(capsys, check,
                                                              lambda *x: decoder_step(*x, use_context=False))
    assert "output 0 of 3 differs" in _said(capsys, check, lambda *x: (2 * decoder_step(*x)[0],) + decoder_step(*x)[1:])
    assert "the step returns 3 value(s)" in _said(capsys, check, lambda *x: decoder_step(*x)[:2])


# ---------------------------------------------------------------- scorers (from the registry), dropout
def test_most_parameters_reads_the_registry(monkeypatch, capsys):
    from helpers import attention
    from helpers.exercises.scorers import _build

    counts = {n: sum(p.numel() for p in _build(n, 64).parameters()) for n in attention.SCORERS}
    assert counts == {"additive": 64 * 128 + 64, "multiplicative": 64 * 64, "dot": 0, "scaled_dot": 0}

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
    assert "another scorer has more" in _said(capsys, lambda a: ex.check_most_parameters(a, 1), "additive")


@pytest.mark.parametrize("scorer, count, words", [
    ("multiplicative", 4096, "another scorer has more"),
    ("dot", 0, "no parameters at all"),
    ("additive", 2 * 64 * 64, "that counts only W_q, W_k; the score also uses v"),
    ("additive", 64 * 128 + 64 + 128 + 1, "the course's layers have no bias"),
    ("additive", 4096, "that is the count of 'multiplicative'"),
    ("additive", 64 * 128 + 64 + 64 * 3, "count every matrix and vector"),
    ("additive", 8256.5, "expected a whole number"),
    ("Additive", 8256, "expected one of the names 'additive'"),
])
def test_most_parameters_slips(capsys, scorer, count, words):
    out = _said(capsys, lambda a: ex.check_most_parameters(a, count), scorer)
    assert words in out and "Expected" not in out


def test_most_parameters_second_try_names_the_scorer(capsys):
    _said(capsys, lambda a: ex.check_most_parameters(a, None), "dot")
    assert "Expected: 'additive'." in _said(capsys, lambda a: ex.check_most_parameters(a, None), "multiplicative")


@pytest.mark.parametrize("answer, words", [(0.9, "share of weights that survive"), (1 / 0.9, "only (1 - p) of them"),
                                           (0.1, "share of weights dropped"), (2, "think of which share")])
def test_dropout_row_sum_slips(capsys, answer, words):
    assert words in _said(capsys, CALLS["check_dropout_row_sum"][0], answer)


# ---------------------------------------------------------------- self-attention chapter
@pytest.mark.parametrize("fn, words", [
    (lambda X: (torch.softmax(X @ X.T, -1) @ X, torch.softmax(X @ X.T, -1)), "not scaled"),
    (lambda X: (X, self_attention(X)[1]), "context is not"),
    (lambda X: self_attention(X)[1], "should return (context, weights)"),
    (lambda X: (X, torch.softmax(X @ X.T / 2, 0)), "do not sum to 1"),
    (lambda X: (X, torch.softmax(X[:, :2] @ X[:, :2].T, -1)), "differ from softmax"),
    (lambda X: (None, self_attention(X)[1]), "context is not"),
    (lambda X: (X, self_attention(X)[1][:3]), "expected (6, 6)"),
])
def test_self_attention_mistakes(capsys, fn, words):
    assert words in _said(capsys, ex.check_self_attention, fn)


def test_shuffle_prediction(capsys):
    assert ex.check_shuffle_prediction("They are shuffled the same way", with_positions=False)
    assert ex.check_shuffle_prediction("changed", with_positions=True)
    assert ex.check_shuffle_prediction("The outputs are permuted", with_positions=False)
    capsys.readouterr()
    out = _said(capsys, lambda a: ex.check_shuffle_prediction(a, with_positions=False), "changed")
    assert "does any score" in out and "Expected" not in out
    assert "positional encodings tie" in _said(capsys, lambda a: ex.check_shuffle_prediction(a, True), "same way")
    assert "answer \"shuffled the same way\" or \"changed\"" in _said(
        capsys, lambda a: ex.check_shuffle_prediction(a, True), "no idea")
    assert ex.tries("07.4a") == 1 and ex.tries("07.4b") == 1


@pytest.mark.parametrize("answer, words", [
    (8 * (4 * 64 * 64 + 4 * 64), "do not multiply the parameter count"),
    (3 * 64 * 64 + 3 * 64, "the output projection W_O counts too"),
    (4 * 64 * 64, "also have a bias each"),
    (4 * 64 * 8 + 4 * 8, "one head's slice"),
    (12345, "count the four projections"),
])
def test_multihead_parameter_slips(capsys, answer, words):
    assert words in _said(capsys, CALLS["check_multihead_parameters"][0], answer)


def test_multihead_parameters_without_bias():
    mha = torch.nn.MultiheadAttention(32, 4, bias=False)
    assert ex.check_multihead_parameters(sum(p.numel() for p in mha.parameters()), 32, 4, bias=False)


# ---------------------------------------------------------------- cost chapter
@pytest.mark.parametrize("answer, words", [
    (268435456, "that is bytes"), (268.4, "megabytes"), (262144, "KiB"), (0.25, "GiB"), (2048, "counts bits"),
    (64, "number of entries"), (512, "float64"), (100, "entries × bytes per entry"),
])
def test_attention_mib_slips(capsys, answer, words):
    ex.reset_tries()
    out = _said(capsys, CALLS["check_attention_mib"][0], answer)
    assert words in out and "Expected" not in out


@pytest.mark.parametrize("answer, words", [
    (8, "still not over the limit"), (51, "multiply by the layers"), (68, "multiply by the heads"),
    (403, "count every head of every layer"), (3, "bytes per sentence"),
])
def test_smallest_batch_slips(capsys, answer, words):
    ex.reset_tries()
    out = _said(capsys, CALLS["check_smallest_batch"][0], answer)
    assert words in out and "Expected" not in out


# ---------------------------------------------------------------- the same fuzz pass in Chinese (helpers.i18n)
def _english_left(text: str) -> list[str]:
    """Runs of two or more English words outside code, quotes, brackets, answers and a learner's exception text."""
    import re

    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", " ", text)
    text = re.sub(r"抛出了 \w+: [^。；\n]*|正确答案：[^。\n]*", " ", text)   # the learner's error text; the answer
    text = re.sub(r"\([^()\u4e00-\u9fff]*\)", " ", text)                 # signatures and formulas in brackets
    return re.findall(r"[A-Za-z]+(?: +[A-Za-z]+)+", text)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_in_chinese_no_odd_answer_raises_and_every_verdict_is_chinese(name, capsys):
    from helpers import i18n

    call, answer = CALLS[name]
    verdicts = (i18n.t("core.not_yet", lang="zh"), i18n.t("core.not_answered", lang="zh", name="")[:5])
    with i18n.language("zh"):
        for odd in ODD:
            result = call(odd)
            out = capsys.readouterr().out
            assert isinstance(result, bool) and result is False, (name, odd)
            assert out.startswith(verdicts), (name, odd, out)
            assert i18n.t("core.fallback", lang="zh") not in out and core.FALLBACK not in out, (name, odd, out)
            assert "Not yet" not in out and "Expected" not in out and "Try again" not in out, (name, odd, out)
            assert not _english_left(out), ("English words in a Chinese message", name, odd, out)
        assert call(answer) is True
        assert capsys.readouterr().out.startswith(i18n.t("core.correct", lang="zh"))
    assert i18n.get_lang() == "en"


def test_in_chinese_a_second_wrong_try_shows_the_answer(capsys):
    from helpers import i18n

    with i18n.language("zh"):
        first = _said(capsys, CALLS["check_attention_mib"][0], 8192 * 8192 * 4)
        second = _said(capsys, CALLS["check_attention_mib"][0], 268.4)
    assert "这是字节数" in first and "再试一次" in first and "256" not in first
    assert "MB（10⁶ 字节）" in second and "正确答案：256。" in second and "solution('08.1')" in second


def _solution_code(exercise):
    """The indented code of a worked solution, as a learner would copy it."""
    import textwrap

    text = ex.core._SOLUTIONS[exercise][1]
    return textwrap.dedent("\n".join(line for line in text.splitlines() if line.startswith("    ")))


def test_worked_solutions_of_the_translation_exercises_run_and_pass_their_checkers(capsys):
    ns = {"torch": torch}
    exec(_solution_code("05.3"), ns)
    assert ex.check_attention_step(ns["my_attend"], with_query_axis=True) is True
    exec(_solution_code("05.1"), ns)
    alignment = [a[0] if len(a) == 1 else list(a) for a in ns["alignment"]]
    assert ex.check_alignment(alignment, "a cat slept in the house") is True
    exec(_solution_code("01.2"), ns)
    printed = capsys.readouterr().out.strip().splitlines()[-1]
    assert ex.check_translation(printed, "a small cat slept under the table") is True
    weights = torch.softmax(torch.randn(5, 4, generator=torch.Generator().manual_seed(0)), -1)
    exec(_solution_code("05.2"), {"ex_weights": weights})
    assert ex.check_most_attended(int(capsys.readouterr().out.split()[-1]), weights, step=2) is True


# ---------------------------------------------------------------- worked solutions in Chinese
def _code_lines(text):
    """The code of a worked solution: its lines indented by four spaces, in order and byte for byte."""
    return [line for line in text.splitlines() if line.startswith("    ")]


def _translation_problems(sol):
    """What is missing from the Chinese version of a worked solution: a title, a text, translated prose
    (every line outside the code has Chinese in it) or the English code byte for byte."""
    import re

    chinese = re.compile(r"[\u4e00-\u9fff]")
    problems = []
    if not sol.zh_title or not chinese.search(sol.zh_title):
        problems.append("no Chinese title")
    if not sol.zh_text:
        return problems + ["no Chinese text"]
    prose = [line for line in sol.zh_text.splitlines() if line.strip() and not line.startswith("    ")]
    problems += [f"prose line not in Chinese: {line!r}" for line in prose if not chinese.search(line)]
    if bool(prose) != any(line.strip() and not line.startswith("    ") for line in sol.text.splitlines()):
        problems.append("prose in one language only")
    if _code_lines(sol.zh_text) != _code_lines(sol.text):
        problems.append("code differs from the English")
    return problems


def test_the_translation_check_reports_an_incomplete_or_altered_solution():
    english = core.Solution("t", "Prose.\n\n    x = 1  # a comment")
    assert _translation_problems(english) == ["no Chinese title", "no Chinese text"]
    assert _translation_problems(english._replace(zh_title="标题", zh_text="说明。\n\n    x = 1  # a comment")) == []
    assert _translation_problems(english._replace(zh_title="标题", zh_text="Prose.\n\n    x = 1  # a comment")) == [
        "prose line not in Chinese: 'Prose.'"]
    assert _translation_problems(english._replace(zh_title="标题", zh_text="    x = 1  # a comment")) == [
        "prose in one language only"]
    for altered in ("说明。\n\n    x = 1  # 注释", "说明。\n\n  x = 1  # a comment", "说明。\n\n    x = 2  # a comment",
                    "说明。"):
        assert "code differs from the English" in _translation_problems(english._replace(zh_title="标题",
                                                                                         zh_text=altered)), altered


def test_every_worked_solution_has_chinese_with_the_english_code():
    assert len(ex.exercise_ids()) >= 21
    problems = {k: _translation_problems(core._SOLUTIONS[k]) for k in ex.exercise_ids()}
    assert not {k: p for k, p in problems.items() if p}


def test_solution_prints_the_current_language_and_english_when_a_translation_is_missing(capsys, monkeypatch):
    from helpers import i18n

    for k in ex.exercise_ids():
        sol = core._SOLUTIONS[k]
        printed = {}
        for lang, (title, text) in (("en", (sol.title, sol.text)), ("zh", (sol.zh_title, sol.zh_text))):
            with i18n.language(lang):
                ex.solution(k)
            printed[lang] = capsys.readouterr().out
            assert printed[lang] == i18n.t("core.solution_head", lang=lang, exercise=k, title=title) + f"\n\n{text}\n"
        assert printed["en"] != printed["zh"], k
    assert i18n.get_lang() == "en"
    monkeypatch.setitem(core._SOLUTIONS, "99.1", core.Solution("only English", "Prose.\n\n    x = 1"))
    monkeypatch.setitem(core._SOLUTIONS, "99.2", core.Solution("half", "Prose.", zh_title="一半"))
    for k, title in (("99.1", "only English"), ("99.2", "half")):
        with i18n.language("zh"):
            ex.solution(k)
        assert capsys.readouterr().out == f"练习 {k}：{title}\n\n{core._SOLUTIONS[k].text}\n"


def test_the_worked_solution_of_the_bottleneck_exercise_passes_its_checker(capsys):
    from types import SimpleNamespace

    ns = {"other": SimpleNamespace(encoder=SimpleNamespace(output_size=2 * 96))}   # make_model("none", hidden=96)
    exec(_solution_code("01.1"), ns)
    assert capsys.readouterr().out.strip() == "192"
    assert ex.check_context_size(ns["context_numbers"], 192, per_direction=96, embedding=64) is True
