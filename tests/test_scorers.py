"""The registered scorers of helpers.attention against written-out references (float64): loops, torch's fused one."""
import math

import pytest
import torch
import torch.nn.functional as F

from helpers.attention import (
    SCORERS,
    DotProductAttention,
    ScaledDotProductAttention,
    register_scorer,
)

DT = torch.float64
B, NQ, NK, DQ, DK, DV, H = 2, 3, 5, 4, 6, 7, 8


def rand(gen, *shape):
    return torch.randn(*shape, generator=gen, dtype=DT)


def loop_softmax_and_context(scores, values):
    """Softmax over keys and the weighted sum, one position at a time.  scores (b, n_q, n_k), values (b, n_k, d_v)"""
    b, n_q, n_k = scores.shape
    weights = torch.zeros_like(scores)
    context = torch.zeros(b, n_q, values.shape[-1], dtype=DT)
    for i in range(b):
        for t in range(n_q):
            exps = [math.exp(scores[i, t, s].item()) for s in range(n_k)]
            total = sum(exps)
            for s in range(n_k):
                weights[i, t, s] = exps[s] / total
                context[i, t] += weights[i, t, s] * values[i, s]
    return context, weights


def make(name, d_q, d_k, dropout=0.0):
    """One registered scorer, float64, built the way every model builds it: its class's `from_sizes`."""
    torch.manual_seed(0)
    return SCORERS[name].from_sizes(d_q, d_k, H, dropout=dropout).double()


def query_size(name):
    """DQ, or DK for scorers whose class says queries and keys must be the same size."""
    return DK if SCORERS[name].needs_equal_sizes else DQ


def test_the_registry_describes_its_members():
    import helpers.attention as attention

    defined = {c for c in vars(attention).values() if isinstance(c, type) and issubclass(c, attention.Scorer)}
    assert defined - {attention.Scorer} <= set(SCORERS.values()), "every scorer class of attention.py is registered"
    for name, cls in SCORERS.items():
        built = cls.from_sizes(query_size(name), DK, H)
        assert isinstance(built, cls) and cls.name == name
        count = sum(p.numel() for p in built.parameters())
        assert (count > 0) == cls.has_parameters and count == cls.expected_parameters(query_size(name), DK, H)
        q, k, v = torch.randn(B, NQ, DQ), torch.randn(B, NK, DK), torch.randn(B, NK, DV)
        if cls.needs_equal_sizes:
            with pytest.raises(ValueError, match="same size"):
                cls.from_sizes(DQ, DK, H)(q, k, v)
        else:
            assert cls.from_sizes(DQ, DK, H)(q, k, v)[1].shape == (B, NQ, NK), "unequal sizes are accepted"


def test_a_taken_name_is_refused_unless_replace_is_asked_for():
    private = dict(SCORERS)
    for name, cls in SCORERS.items():
        with pytest.raises(ValueError, match="already registered"):
            register_scorer(name, registry=private)(cls)
        assert register_scorer(name, replace=True, registry=private)(cls) is cls
    assert private == SCORERS


def test_additive_matches_a_loop_of_v_tanh_W_concat():
    gen = torch.Generator().manual_seed(1)
    q, k, v = rand(gen, B, NQ, DQ), rand(gen, B, NK, DK), rand(gen, B, NK, DV)
    module = make("additive", DQ, DK)
    W = torch.cat([module.W_q.weight, module.W_k.weight], dim=1)  # (H, DQ + DK): W [h_t; h_s]
    v_vec = module.v.weight.squeeze(0)  # (H,)
    scores = torch.zeros(B, NQ, NK, dtype=DT)
    for i in range(B):
        for t in range(NQ):
            for s in range(NK):
                scores[i, t, s] = v_vec @ torch.tanh(W @ torch.cat([q[i, t], k[i, s]]))
    ref_ctx, ref_w = loop_softmax_and_context(scores, v)
    ctx, w = module(q, k, v)
    torch.testing.assert_close(w, ref_w, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(ctx, ref_ctx, rtol=1e-10, atol=1e-12)


def test_multiplicative_matches_a_loop_of_q_dot_W_k():
    gen = torch.Generator().manual_seed(2)
    q, k, v = rand(gen, B, NQ, DQ), rand(gen, B, NK, DK), rand(gen, B, NK, DV)
    module = make("multiplicative", DQ, DK)
    W = module.W.weight  # (DQ, DK)
    assert W.shape == (DQ, DK)
    scores = torch.zeros(B, NQ, NK, dtype=DT)
    for i in range(B):
        for t in range(NQ):
            for s in range(NK):
                scores[i, t, s] = q[i, t] @ (W @ k[i, s])
    ref_ctx, ref_w = loop_softmax_and_context(scores, v)
    ctx, w = module(q, k, v)
    torch.testing.assert_close(w, ref_w, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(ctx, ref_ctx, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, scale", [("dot", 1.0), ("scaled_dot", None)])
@pytest.mark.parametrize("with_mask", [False, True])
def test_dot_scorers_match_torch_fused_attention(name, scale, with_mask):
    gen = torch.Generator().manual_seed(3)
    q, k, v = rand(gen, B, NQ, DK), rand(gen, B, NK, DK), rand(gen, B, NK, DV)
    mask = None
    if with_mask:
        mask = torch.rand(B, NQ, NK, generator=gen) > 0.5
        mask[..., 0] = True  # every row keeps a key, so torch's and the course's conventions agree
    ctx, w = make(name, DK, DK)(q, k, v, mask=mask)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    torch.testing.assert_close(ctx, ref, rtol=1e-10, atol=1e-12)
    scores = q @ k.transpose(1, 2) * (1.0 if scale is not None else 1 / math.sqrt(DK))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(w, torch.softmax(scores, dim=-1), rtol=1e-10, atol=1e-12)


def test_scaled_and_plain_dot_differ_by_the_square_root_of_dk():
    gen = torch.Generator().manual_seed(4)
    q, k, v = rand(gen, 1, 1, DK), rand(gen, 1, NK, DK), rand(gen, 1, NK, DV)
    _, w_dot = make("dot", DK, DK)(q * math.sqrt(DK) ** -1, k, v)
    _, w_scaled = make("scaled_dot", DK, DK)(q, k, v)
    torch.testing.assert_close(w_dot, w_scaled, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", list(SCORERS))
@pytest.mark.parametrize("mask_rows", [1, NQ])
def test_every_scorer_gives_hidden_keys_exactly_zero_weight(name, mask_rows):
    gen = torch.Generator().manual_seed(5)
    d_q = query_size(name)
    q, k, v = rand(gen, B, NQ, d_q), rand(gen, B, NK, DK), rand(gen, B, NK, DV)
    mask = torch.rand(B, mask_rows, NK, generator=gen) > 0.5
    mask[..., 1] = True
    ctx, w = make(name, d_q, DK)(q, k, v, mask=mask)
    full = mask.expand(B, NQ, NK)
    assert torch.all(w[~full] == 0)
    assert torch.all(w[full] > 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(B, NQ, dtype=DT))
    torch.testing.assert_close(ctx, torch.bmm(w, v))


@pytest.mark.parametrize("name", list(SCORERS))
def test_every_scorer_gives_a_fully_masked_row_zero_weights_and_zero_context(name):
    gen = torch.Generator().manual_seed(6)
    d_q = query_size(name)
    q, k, v = rand(gen, B, NQ, d_q), rand(gen, B, NK, DK), rand(gen, B, NK, DV)
    mask = torch.ones(B, NQ, NK, dtype=torch.bool)
    mask[1, 2] = False
    ctx, w = make(name, d_q, DK)(q, k, v, mask=mask)
    assert torch.isfinite(ctx).all() and torch.isfinite(w).all()
    assert torch.all(w[1, 2] == 0) and torch.all(ctx[1, 2] == 0)
    torch.testing.assert_close(w[0].sum(-1), torch.ones(NQ, dtype=DT))


@pytest.mark.parametrize("cls", [DotProductAttention, ScaledDotProductAttention])
def test_dot_scoring_with_different_query_and_key_sizes_names_the_shapes(cls):
    q, k, v = torch.zeros(2, 3, 4), torch.zeros(2, 5, 6), torch.zeros(2, 5, 7)
    with pytest.raises(ValueError) as err:
        cls()(q, k, v)
    message = str(err.value)
    assert "(2, 3, 4)" in message and "(2, 5, 6)" in message
    assert "same size" in message


@pytest.mark.parametrize("name", [n for n, cls in SCORERS.items() if not cls.needs_equal_sizes])
def test_learned_scorers_accept_different_query_and_key_sizes(name):
    gen = torch.Generator().manual_seed(7)
    q, k, v = rand(gen, B, NQ, DQ), rand(gen, B, NK, DK), rand(gen, B, NK, DV)
    ctx, w = make(name, DQ, DK)(q, k, v)
    assert ctx.shape == (B, NQ, DV) and w.shape == (B, NQ, NK)


@pytest.mark.parametrize("name", list(SCORERS))
def test_dropout_on_the_weights_is_on_in_train_mode_and_off_in_eval_mode(name):
    gen = torch.Generator().manual_seed(8)
    n_k = 40  # enough keys that dropping none of them by chance is impossible in practice
    d_q = query_size(name)
    q, k, v = rand(gen, B, NQ, d_q), rand(gen, B, n_k, DK), rand(gen, B, n_k, DV)
    plain = make(name, d_q, DK, dropout=0.0)
    dropped = make(name, d_q, DK, dropout=0.5)  # same seed, same parameters
    _, w_ref = plain(q, k, v)

    dropped.train()
    torch.manual_seed(9)
    ctx_train, w_train = dropped(q, k, v)
    zeroed = w_train == 0
    assert zeroed.any() and (~zeroed).any()
    torch.testing.assert_close(w_train[~zeroed], 2.0 * w_ref[~zeroed])  # survivors scaled by 1 / (1 - p)
    torch.testing.assert_close(ctx_train, torch.bmm(w_train, v))  # dropout acts on the weights, before the sum

    dropped.eval()
    ctx_eval, w_eval = dropped(q, k, v)
    torch.testing.assert_close(w_eval, w_ref, rtol=0, atol=0)
    torch.testing.assert_close(ctx_eval, torch.bmm(w_ref, v))


@pytest.mark.parametrize("name", sorted(SCORERS))
def test_prepared_keys_give_the_same_scores_one_query_at_a_time(name):
    """A decoder prepares the keys once per sentence (prepare_keys) and then scores one query per step."""
    d = DQ if SCORERS[name].needs_equal_sizes else DK
    scorer, gen = make(name, DQ, d), torch.Generator().manual_seed(3)
    q, k, v = rand(gen, B, NQ, DQ), rand(gen, B, NK, d), rand(gen, B, NK, DV)
    mask = torch.ones(B, 1, NK, dtype=torch.bool)
    mask[0, 0, -2:] = False
    full, full_w = scorer(q, k, v, mask=mask)
    prepared = scorer.prepare_keys(k)
    for t in range(NQ):
        ctx, w = scorer(q[:, t:t + 1], k, v, mask=mask, prepared=prepared)
        torch.testing.assert_close(w[:, 0], full_w[:, t])
        torch.testing.assert_close(ctx[:, 0], full[:, t])
    if name == "additive":
        assert prepared.shape == (B, NK, H), "the additive scorer prepares W_k k: (batch, n_k, hidden)"


@pytest.mark.parametrize("sheet, yes", [("cheatsheet.md", "yes"), ("zh/cheatsheet.md", "是")])
def test_the_cheat_sheets_score_table_has_one_row_per_registered_scorer(sheet, yes):
    """The cheat sheet's table (English, Chinese) is prose about SCORERS: one row per scorer, in registry order."""
    from helpers import ROOT

    text = (ROOT / "notebooks" / "companion" / sheet).read_text()
    table = text.split("score(q, k)", 1)[1].split("\n\n", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.splitlines()[2:]]
    assert [row[2] for row in rows] == [SCORERS[n].formula for n in SCORERS], f"{sheet}: one row per scorer {rows}"
    assert [row[3] == yes for row in rows] == [SCORERS[n].needs_equal_sizes for n in SCORERS], sheet
