"""helpers.exercises.translation: exercises 01.2 (translate by hand), 05.1 (alignment), 05.2 (read the map),
05.3 (the attention part of a decoder step) and 05.4 (a whole decoder step)."""
import pytest
import torch
from _checkers import example, fresh_tries, said  # noqa: F401

import helpers.exercises as ex
from helpers.exercises.translation import _reference_step

torch.set_num_threads(1)

MAP = torch.tensor([[0.1, 0.7, 0.2], [0.6, 0.3, 0.1], [0.2, 0.1, 0.7], [0.1, 0.2, 0.7]])  # (n_target, n_source)
# a one-to-one sentence and, for the richer grammar, sets (possibly empty) per target word
SRC = "a b c d"
OLD_GOLD = [3, 2, 1, 0]
NEW_TGT, NEW_GOLD = ["w", "x", "y", "de", "z"], [(3,), (0, 2), (), (), (1,)]

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
    out = said(capsys, lambda a: ex.check_alignment(a, SRC), [3, 2, 0, 1])
    assert "entry 2 of `my_alignment` (target word 'b') does not translate source word 0 ('a')" in out
    assert "Expected" not in out
    assert "Expected: [3, 2, 1, 0]." in said(capsys, lambda a: ex.check_alignment(a, SRC), [3, 2, 0, 1])
    assert "one entry per target word" in said(capsys, lambda a: ex.check_alignment(a, SRC), [1, 2])
    assert "run from 0 to 3" in said(capsys, lambda a: ex.check_alignment(a, SRC), [3, 2, 1, -1])


def test_one_based_positions_are_named(old_toylang, capsys):
    ex.reset_tries()
    out = said(capsys, lambda a: ex.check_alignment(a, "a b c d e"), [4, 3, 2, 1])
    assert "positions count from 0" in out


def test_translation_order_and_word_mistakes(old_toylang, capsys):
    out = said(capsys, lambda a: ex.check_translation(a, SRC), "c d b a")
    assert "order is not, from target position 0" in out and "d c b a" not in out
    assert "'q' is in no valid translation" in said(capsys, lambda a: ex.check_translation(a, SRC), "d c b q")
    assert "2 word(s) are missing: 'b', 'a'" in said(capsys, lambda a: ex.check_translation(a, SRC), "d c")
    assert "'d' appears more often" in said(capsys, lambda a: ex.check_translation(a, SRC), "d d c b a")
    assert "has no words" in said(capsys, lambda a: ex.check_translation(a, SRC), "")
    assert "expected a string of target words" in said(capsys, lambda a: ex.check_translation(a, SRC), [1, 2])


def test_translation_accepts_any_reference_of_the_richer_grammar(new_toylang, capsys):
    assert ex.check_translation("w x y de z", SRC) and ex.check_translation("w x y z", SRC)
    assert "one of 2 valid translations" in capsys.readouterr().out
    assert "order is not" in said(capsys, lambda a: ex.check_translation(a, SRC), "x w y z")


@pytest.mark.parametrize("answer, words", [
    ([3, 0, [], [], 1], "depends on more source words than 0 ('a')"),
    ([3, [0, 1, 2], [], [], 1], "does not translate all of 0 ('a'), 1 ('b'), 2 ('c')"),
    ([3, [0, 2], 1, [], 1], "entry 2 of `my_alignment` (target word 'y') translates no source word: give []"),
    ([[], [0, 2], [], [], 1], "entry 0 of `my_alignment` (target word 'w') does translate something"),
    ([2, [0, 2], [], [], 1], "does not translate source word 2 ('c')"),
])
def test_alignment_sets_name_each_mistake(new_toylang, capsys, answer, words):
    assert words in said(capsys, lambda a: ex.check_alignment(a, SRC), answer)


def test_alignment_sets_show_the_answer_as_the_learner_types_it(new_toylang, capsys):
    assert ex.check_alignment([3, [2, 0], [], None, {1}], SRC) is True
    assert "Expected: [3, [0, 2], [], [], 1]." in said(
        capsys, lambda a: ex.check_alignment(a, SRC, show_answer=True), [3, 0, [], [], 1])


def test_a_sentence_the_toy_language_cannot_translate_is_feedback(monkeypatch, capsys):
    from helpers import toylang

    def refuse(src):
        raise ValueError("unknown word 'zzz'")

    monkeypatch.setattr(toylang, "translate", refuse)
    assert "cannot translate the exercise's sentence" in said(capsys, lambda a: ex.check_translation(a, "zzz"), "w")
    assert "cannot translate" in said(capsys, lambda a: ex.check_alignment(a, "zzz"), [0])


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
    assert words in said(capsys, example("check_most_attended").call, answer)


def test_reading_the_map_names_a_column_read_and_finds_the_row_in_a_batch(capsys):
    weights = torch.tensor([[0.2, 0.1, 0.7, 0.0], [0.6, 0.1, 0.0, 0.3], [0.3, 0.1, 0.0, 0.6]])
    assert ex.check_most_attended(2, weights[None], 0) is True   # a (1, n_target, n_source) map works too
    assert "you read a column" in said(capsys, lambda a: ex.check_most_attended(a, weights, 0), 1)
    assert "find row 2" in said(capsys, lambda a: ex.check_most_attended(a, weights, 2), 1)


def test_reading_the_map_names_the_word_counted_from_one_and_its_row_in_both_languages(capsys):
    from helpers import i18n

    for lang, words in (("en", "writing output word 3 (row 2 of the map), the decoder looks hardest at source "
                                "position 2."),
                        ("zh", "写第 3 个输出词（图中的第 2 行）时，解码器最关注源位置 2。")):
        with i18n.language(lang):
            assert ex.check_most_attended(2, MAP, step=2) is True
        assert words in capsys.readouterr().out, lang


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
    (_step(lambda s, m: torch.nan_to_num(torch.softmax(s.masked_fill(m, float("-inf")), -1))), "wrong way round"),
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
    assert words in said(capsys, ex.check_attention_step, fn)


def test_attention_step_with_the_course_mask_shape(capsys):
    def attend(query, states, mask, score_fn):  # mask (B, 1, S): the course's convention
        assert mask.shape[1] == 1
        return _reference_step(query, states, mask[:, 0], score_fn)

    assert ex.check_attention_step(attend, with_query_axis=True) is True
    assert "raised AssertionError" in said(capsys, ex.check_attention_step, attend)


def test_decoder_step_names_the_wrong_query_and_an_unused_context(capsys):
    def check(a):
        return ex.check_decoder_step(a, decoder_step, STEP_INPUTS, encoder_arg=2, mistakes={
            WRONG_QUERY: lambda *x: decoder_step(*x, query_from="current")})

    assert WRONG_QUERY in said(capsys, check, lambda *x: decoder_step(*x, query_from="current"))
    assert "context vector never reaches the output" in said(capsys, check,
                                                              lambda *x: decoder_step(*x, use_context=False))
    assert "output 1 of 3 differs" in said(capsys, check, lambda *x: (2 * decoder_step(*x)[0],) + decoder_step(*x)[1:])
    assert "the step returns 3 value(s)" in said(capsys, check, lambda *x: decoder_step(*x)[:2])


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


def test_the_course_mask_with_its_query_axis_left_on_is_named(capsys):
    def attend(query, states, mask, score_fn):   # masks (B, S) scores with the (B, 1, S) mask: (B, B, S) weights
        w = torch.nan_to_num(torch.softmax(score_fn(query, states).masked_fill(~mask, float("-inf")), -1))
        return w.sum(1) @ states[0], w

    out = said(capsys, lambda a: ex.check_attention_step(a, with_query_axis=True), attend)
    assert "the mask is (B, 1, S), with an axis for the query" in out and "mask[:, 0]" in out
    out = said(capsys, ex.check_attention_step, lambda q, v, m, f: attend(q, v, m[:, None], f))
    assert "an axis of length 1 was added" in out


def test_one_based_alignment_positions_are_named_even_past_the_last_word(capsys):
    out = said(capsys, example("check_alignment").call, example("check_alignment").wrong)
    assert "positions count from 0" in out
    assert "run from 0 to 5" in said(capsys, example("check_alignment").call, [0, [0, 1], 1, 3, 6, 3, 2, []])


# ---------------------------------------------------------------- exercise 05.4: a whole step of a chapter-05 model
def _luong_step(decoder, y_prev, state, keys, enc):
    """The worked solution's step, written out: GRU first, then attention with s_t, then the readout."""
    e = decoder.embedding(y_prev)
    s_t = decoder.rnn(e[:, None], state[None])[0][:, 0]
    context, weights = decoder.scorer(s_t[:, None], keys, enc.outputs, mask=enc.mask)
    return decoder.readout(s_t, context[:, 0], e), weights[:, 0], s_t


def test_decoder_step_of_a_luong_model_accepts_the_step_and_names_each_slip(capsys):
    from helpers.exercises.translation import _example_model, _step_variant

    model, batch = _example_model()
    check = lambda a: ex.check_decoder_step(a, model=model, batch=batch)  # noqa: E731
    assert (~batch.src_mask).any(), "the example batch must have padding, or a missing mask goes unseen"
    assert check(_luong_step) is True
    capsys.readouterr()
    for kw, words in [({"query": "previous"}, "the query is the previous state s_{t-1}"),
                      ({"masked": False}, "padding gets weight"),
                      ({"context": "summary"}, "the encoder's summary"),
                      ({"new_state": False}, "returns the old state")]:
        ex.reset_tries()
        out = said(capsys, check, lambda *a, kw=kw: _step_variant(*a, **kw))
        assert words in out and "solution(" not in out, (kw, out)
    out = said(capsys, check, lambda *a: (2 * _luong_step(*a)[0],) + _luong_step(*a)[1:])
    assert "output 1 of 3 (logits) differs" in out and "solution('05.4')" in out     # a second wrong try
    assert "Luong's wiring: embedding, recurrent update, query with the new state" in out   # Luong's order, GRU first


def test_decoder_step_of_a_bahdanau_model_lists_bahdanau_order(capsys):
    from helpers.exercises.translation import _example_model
    from helpers.seq2seq import make_model

    _, batch = _example_model()
    model = make_model("attention", wiring="bahdanau", emb=8, hidden=8, attn_hidden=8, seed=0).eval()
    step = lambda d, y, s, k, enc: d.step(y, s, k, enc)  # noqa: E731
    out = said(capsys, lambda a: ex.check_decoder_step(a, model=model, batch=batch),
               lambda *a: (2 * step(*a)[0],) + tuple(step(*a)[1:]))
    assert "Bahdanau's wiring: embedding, query with the previous state" in out, out


@pytest.mark.parametrize("axis_on", ["context", "weights", "both"])
def test_attention_step_rejects_the_query_axis_left_on_its_outputs(capsys, axis_on):
    def attend(query, states, mask, score_fn):   # right values, returned as (B, 1, C) and/or (B, 1, S)
        ctx, w = _reference_step(query, states, mask[:, 0], score_fn)
        return (ctx[:, None] if axis_on != "weights" else ctx), (w[:, None] if axis_on != "context" else w)

    out = said(capsys, lambda a: ex.check_attention_step(a, with_query_axis=True), attend)
    assert "an axis of length 1 is extra" in out and "Correct" not in out, out


def test_decoder_step_of_a_bahdanau_model_is_its_helper_step(capsys):
    from helpers.exercises.translation import _example_model
    from helpers.seq2seq import make_model

    _, batch = _example_model()
    model = make_model("attention", wiring="bahdanau", emb=8, hidden=8, attn_hidden=8, seed=0).eval()
    assert ex.check_decoder_step(lambda d, y, s, k, enc: d.step(y, s, k, enc), model=model, batch=batch) is True
    assert "raised AttributeError" in said(capsys, lambda a: ex.check_decoder_step(a, model=model, batch=batch),
                                           _luong_step)


def test_the_worked_solution_of_the_decoder_step_passes_its_checker():
    from helpers.exercises.translation import _example_model
    from helpers.seq2seq import make_model

    demo, luong_demo = (make_model("attention", wiring=w, seed=0) for w in ("bahdanau", "luong"))
    ns = {"demo": demo, "luong_demo": luong_demo}
    exec(_solution_code("05.4"), ns)                     # its last line prints the two matrices' shapes
    model, batch = _example_model()
    assert ex.check_decoder_step(ns["my_step"], model=model, batch=batch) is True


def test_the_worked_solution_names_the_matrix_that_no_longer_fits():
    """Exercise 05.4's question: the solution's answer (the cell's input weights) is what the models' shapes say."""
    from helpers.seq2seq import make_model

    b, lu = (make_model("attention", wiring=w, seed=0).decoder for w in ("bahdanau", "luong"))
    shapes = lambda d: {n.replace("rnn.", "cell.").replace("_l0", ""): p.shape for n, p in d.named_parameters()}  # noqa: E731
    differ = [n for n, shape in shapes(b).items() if shapes(lu).get(n) != shape]
    assert differ == ["cell.weight_ih"]
    emb = b.embedding.weight.shape[1]
    assert shapes(lu)["cell.weight_ih"][1] == emb < shapes(b)["cell.weight_ih"][1]
    for lang in ("en", "zh"):
        text = ex.core._SOLUTIONS["05.4"][1 if lang == "en" else 3]
        assert "cell.weight_ih" in text, lang


def test_a_malformed_entry_counts_as_a_try_but_text_does_not(capsys):
    ex.reset_tries()
    said(capsys, lambda a: ex.check_alignment(a, "a cat slept in the house"), "0 [0,1] 1")   # not a list: unreadable
    assert ex.tries("05.1") == 0
    out = said(capsys, lambda a: ex.check_alignment(a, "a cat slept in the house"), [0, [0, 1], 1, 3, 5.5, 3, 2, []])
    assert "entry 4 of `my_alignment` is 5.5" in out and ex.tries("05.1") == 1
    assert "Expected:" in said(capsys, lambda a: ex.check_alignment(a, "a cat slept in the house"), [0, "x"])


# ---------------------------------------------------------------- classic slips of 05.3 and 05.4, each named
def _by_hand(shift="row", zero_nan=True):
    """05.3 with a softmax written out: shift "row" (each sentence's max), "none" or "global" (one max of the batch)."""
    def attend(query, states, mask, score_fn):
        s = score_fn(query, states).masked_fill(~mask[:, 0], float("-inf"))
        top = {"row": s.amax(-1, keepdim=True).clamp_min(-1e300), "none": 0.0, "global": s.max()}[shift]
        e = torch.exp(s - top)
        w = e / e.sum(-1, keepdim=True)
        w = torch.nan_to_num(w, nan=0.0) if zero_nan else w
        return (w.unsqueeze(-1) * states).sum(1), w
    return attend


def test_a_softmax_by_hand_with_each_rows_max_shift_passes():
    assert ex.check_attention_step(_by_hand("row"), with_query_axis=True) is True


def _course_mask(weights_fn=None, context_fn=None):
    """Like _step, with the course's (B, 1, S) mask."""
    step = _step(weights_fn, context_fn)
    return lambda q, v, m, f: step(q, v, m[:, 0], f)


@pytest.mark.parametrize("fn, words", [
    (_by_hand("none"), "The max shift is missing"),
    (_by_hand("none", zero_nan=False), "The max shift is missing"),
    (_by_hand("global"), "one maximum of the whole batch was subtracted"),
    (_by_hand("global", zero_nan=False), "one maximum of the whole batch was subtracted"),
    (_course_mask(lambda s, m: torch.softmax(s.masked_fill(~m, 0.0), -1)), "set to 0, not -inf"),
    (_course_mask(lambda s, m: torch.softmax(s * m, -1)), "set to 0, not -inf"),
    (_course_mask(lambda s, m: s * m / (s * m).sum(-1, keepdim=True)), "divided by their sum, with no exp"),
    (_course_mask(lambda s, m: torch.log_softmax(s.masked_fill(~m, float("-inf")), -1)), "log_softmax"),
    (_course_mask(lambda s, m: torch.nan_to_num(torch.softmax(s.masked_fill(~m, float("-inf")) / 2.0, -1))),
     "divided by a square root"),
    (_course_mask(context_fn=lambda w, v, s: w @ v), "multiplies every sentence's weights"),
])
def test_attention_step_names_each_classic_slip_with_a_hint_first(capsys, fn, words):
    out = said(capsys, lambda a: ex.check_attention_step(a, with_query_axis=True), fn)
    assert words in out and "solution(" not in out, out
    assert "solution('05.3')" in said(capsys, lambda a: ex.check_attention_step(a, with_query_axis=True), fn)


def test_the_overflow_inputs_overflow_a_naive_softmax():
    """The checker's extreme scores really break exp/sum without the shift (else the slip would pass)."""
    from helpers.exercises.translation import _extreme_inputs, _naive_softmax

    query, states, mask, score_fn = _extreme_inputs()
    naive = _naive_softmax(score_fn(query, states).masked_fill(~mask, float("-inf")))
    assert torch.isnan(naive[1][mask[1]]).all() and torch.isnan(naive[2][mask[2]]).all()   # inf/inf and 0/0
    assert torch.isfinite(naive[0]).all()
    assert torch.isfinite(_reference_step(query, states, mask, score_fn)[1]).all()


@pytest.mark.parametrize("kw, words", [
    ({"masked": "inverted"}, "the mask is used the wrong way round"),
    ({"tanh": False}, "leaves out its tanh"),
    ({"output": "probabilities"}, "these are probabilities"),
    ({"output": "log-probabilities"}, "these are log-probabilities"),
    *[({"readout": o}, "the readout's input is [") for o in ("cse", "esc", "sec", "ces", "ecs")],
])
def test_decoder_step_names_each_classic_slip_with_a_hint_first(capsys, kw, words):
    from helpers.exercises.translation import _example_model, _step_variant

    model, batch = _example_model()
    out = said(capsys, lambda a: ex.check_decoder_step(a, model=model, batch=batch),
               lambda *a: _step_variant(*a, **kw))
    assert words in out and "solution(" not in out, (kw, out)


@pytest.mark.parametrize("fix, words", [
    (lambda lg, w, s: (lg, w[:, None], s), "weights has shape (3, 1, 6); expected (3, 6): the values are right"),
    (lambda lg, w, s: (lg, w, s[None]), "state has shape (1, 3, 8); expected (3, 8): the values are right"),
    (lambda lg, w, s: (lg[:, None], w, s), "logits has shape"),
    (lambda lg, w, s: (lg, w.T, s), "weights has shape (6, 3); expected (3, 6)."),
])
def test_decoder_step_names_an_extra_axis_or_a_transposed_output(capsys, fix, words):
    from helpers.exercises.translation import _example_model

    model, batch = _example_model()
    out = said(capsys, lambda a: ex.check_decoder_step(a, model=model, batch=batch),
               lambda *a: fix(*_luong_step(*a)))
    assert words in out, out


@pytest.mark.parametrize("k, english, chinese", [
    (0, "output 1 of 3 (logits) differs from the reference step", "logits（第 1 个输出，共 3 个）和参考实现不同"),
    (1, "output 2 of 3 (weights) differs from the reference step", "注意力权重（第 2 个输出，共 3 个）和参考实现不同"),
    (2, "output 3 of 3 (state) differs from the reference step", "新状态（第 3 个输出，共 3 个）和参考实现不同"),
])
def test_decoder_step_names_the_output_that_differs_counted_from_one_in_both_languages(capsys, k, english, chinese):
    from helpers import i18n
    from helpers.exercises.translation import _example_model

    model, batch = _example_model()

    def off(*a):                                   # the step with only output k changed (no classic slip)
        outs = list(_luong_step(*a))
        outs[k] = outs[k] + 0.01
        return tuple(outs)

    for lang, words in (("en", english), ("zh", chinese)):
        ex.reset_tries()
        with i18n.language(lang):
            out = said(capsys, lambda a: ex.check_decoder_step(a, model=model, batch=batch), off)
        assert words in out, (lang, out)
    ex.reset_tries()
    generic = said(capsys, lambda a: ex.check_decoder_step(a, decoder_step, STEP_INPUTS, encoder_arg=2),
                   lambda *x: decoder_step(*x)[:2] + (decoder_step(*x)[2] + 0.01,))
    assert "output 3 of 3 differs from the reference step" in generic, generic   # no names given: counted from 1
