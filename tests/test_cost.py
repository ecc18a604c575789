"""Measurement helpers: exponent fit, memory arithmetic, tracked and RSS peak memory, saved tensors, timing plumbing."""
import math
import sys
import time

import pytest
import torch
import torch.nn.functional as F

from helpers import cost
from helpers.attention import AdditiveAttention, scaled_dot_product_attention


def test_fit_exponent_recovers_exact_powers_and_a_constant_factor():
    ns = [128, 256, 512, 1024]
    assert cost.fit_exponent(ns, [3.0 * n**2 for n in ns]) == pytest.approx(2.0, abs=1e-9)
    assert cost.fit_exponent(ns, [n**1 + 0 for n in ns]) == pytest.approx(1.0, abs=1e-9)
    assert cost.fit_exponent(ns, [7.0 for _ in ns]) == pytest.approx(0.0, abs=1e-9)


def test_fit_exponent_rejects_bad_input():
    with pytest.raises(ValueError, match="positive"):
        cost.fit_exponent([1, 2], [0.0, 1.0])
    with pytest.raises(ValueError, match="at least 2"):
        cost.fit_exponent([1], [1.0])
    with pytest.raises(ValueError, match="equally long"):
        cost.fit_exponent([1, 2, 3], [1.0, 2.0])


def test_score_matrix_bytes_is_n_squared_times_every_factor():
    assert cost.score_matrix_bytes(3000) == 3000 * 3000 * 4 == 36_000_000
    assert cost.score_matrix_bytes(100, batch=2, heads=3, layers=4, bytes_per_entry=12) == 100 * 100 * 2 * 3 * 4 * 12
    assert cost.score_matrix_bytes(2 * 700) == 4 * cost.score_matrix_bytes(700)
    with pytest.raises(ValueError, match="positive"):
        cost.score_matrix_bytes(0)


@pytest.mark.parametrize("heads, layers, per_entry", [(1, 1, 4), (12, 12, 12), (16, 24, 4), (8, 6, 8)])
def test_smallest_batch_over_is_the_first_batch_above_the_limit(heads, layers, per_entry):
    limit = 24 * cost.GiB
    b = cost.smallest_batch_over(limit, 3000, heads, layers, per_entry)
    assert cost.score_matrix_bytes(3000, b, heads, layers, per_entry) > limit
    assert b == 1 or cost.score_matrix_bytes(3000, b - 1, heads, layers, per_entry) <= limit


def test_format_bytes_uses_binary_units():
    assert cost.format_bytes(512) == "512 B"
    assert cost.format_bytes(1536) == "1.5 KiB"
    assert cost.format_bytes(36_000_000) == "34.3 MiB"
    assert cost.format_bytes(24 * cost.GiB) == "24.0 GiB"


def test_random_qkv_shapes_seeding_and_grad():
    Q, K, V = cost.random_qkv(5, d=3, batch=2, heads=4, seed=1, requires_grad=True)
    assert Q.shape == K.shape == V.shape == (2, 4, 5, 3) and Q.requires_grad
    again = cost.random_qkv(5, d=3, batch=2, heads=4, seed=1)
    assert all(torch.equal(a, b) for a, b in zip((Q, K, V), again, strict=False))
    assert not torch.equal(Q, K)
    with pytest.raises(ValueError, match="n=0"):
        cost.random_qkv(0)


def test_peak_tracked_bytes_sees_live_tensors_and_frees():
    n = 1_000_000

    def one_at_a_time():
        for _ in range(3):
            x = torch.ones(n)
            del x

    def three_alive():
        xs = [torch.ones(n) for _ in range(3)]
        return xs

    one, three = cost.peak_tracked_bytes(one_at_a_time), cost.peak_tracked_bytes(three_alive)
    assert 4 * n <= one < 4 * n + 65536
    assert 12 * n <= three < 12 * n + 65536


def test_peak_tracked_bytes_sees_the_n_by_n_matrices_of_attention_but_not_of_the_fused_kernel():
    n = 512
    Q, K, V = cost.random_qkv(n)
    ours = cost.peak_tracked_bytes(lambda: scaled_dot_product_attention(Q, K, V))
    fused = cost.peak_tracked_bytes(lambda: F.scaled_dot_product_attention(Q, K, V))
    assert ours >= 2 * n * n * 4  # at least scores and weights
    assert fused < n * n * 4  # the fused kernel never holds one n x n matrix


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_peak_rss_bytes_sees_a_large_touched_allocation():
    rise = cost.peak_rss_bytes(lambda: torch.ones(16 * 2**20))  # 64 MiB, touched
    assert rise is not None and rise >= 60 * cost.MiB


def test_saved_for_backward_lists_what_autograd_keeps():
    x = torch.randn(10, 3, requires_grad=True)
    w = torch.randn(3, 4, requires_grad=True)
    saved = cost.saved_for_backward(lambda: (x @ w).exp())
    shapes = sorted(shape for shape, _ in saved)
    assert shapes == [(3, 4), (10, 3), (10, 4)]  # x and w for the matmul, exp's output
    assert sum(b for _, b in saved) == (30 + 12 + 40) * 4
    assert cost.saved_for_backward(lambda: x.detach() * 2) == []
    # one storage, two views: counted once
    assert cost.saved_for_backward(lambda: x * x.view(10, 3)) == [((10, 3), 120)]


def test_called_ops_names_the_operators_and_the_fused_kernel():
    x = torch.ones(3)
    assert cost.called_ops(lambda: x.exp(), "exp") == ["aten::exp"]
    assert "aten::mul" not in cost.called_ops(lambda: x.exp())
    Q, K, V = cost.random_qkv(64)
    ours = cost.called_ops(lambda: scaled_dot_product_attention(Q, K, V))
    assert "aten::softmax" not in ours and "aten::exp" in ours  # ours writes softmax out by hand
    fused = cost.called_ops(lambda: F.scaled_dot_product_attention(Q, K, V), "attention")
    assert "aten::scaled_dot_product_attention" in fused and len(fused) == 2  # the entry point and one kernel


def test_time_call_calls_warmup_plus_repeats_and_returns_medians():
    calls = []
    result = cost.time_call(lambda: calls.append(1), repeats=4, warmup=2)
    assert len(calls) == 6
    assert set(result) == {"wall", "cpu"} and all(v >= 0 for v in result.values())
    with pytest.raises(ValueError, match="repeats"):
        cost.time_call(lambda: None, repeats=0)


def test_time_per_call_batches_short_calls_to_last_min_seconds():
    calls = []

    def spin():
        calls.append(1)
        end = time.process_time() + 0.002
        while time.process_time() < end:
            pass

    result = cost.time_per_call(spin, min_seconds=0.02, repeats=3)
    timed = len(calls) - 2  # one warm-up and one calibration call
    assert 3 * 8 <= timed <= 3 * 12  # 0.02 s / 0.002 s = about 10 calls per run
    assert 0.0015 < result["cpu"] < 0.01  # seconds per call, not per run
    with pytest.raises(ValueError, match="min_seconds"):
        cost.time_per_call(spin, min_seconds=0)


def test_time_attention_returns_one_row_per_size_and_function():
    fns = {"ours": lambda Q, K, V: scaled_dot_product_attention(Q, K, V), "fused": F.scaled_dot_product_attention}
    res = cost.time_attention(fns, [8, 16], d=4, repeats=1, min_seconds=0.001)
    for name in fns:
        assert res[name]["n"] == [8, 16] and len(res[name]["cpu"]) == len(res[name]["wall"]) == 2
        assert all(0 < t < 0.1 for t in res[name]["cpu"])


def test_time_attention_sweeps_are_kept_and_their_median_is_the_time(monkeypatch):
    calls = iter([0.003, 0.001, 0.002, 0.003] * 3)          # three sweeps x (two sizes x two functions), in order
    monkeypatch.setattr(cost, "time_per_call", lambda fn, min_seconds, repeats: {"wall": 1.0, "cpu": next(calls)})
    res = cost.time_attention({"a": None, "b": None}, [8, 16], d=4, sweeps=3)
    assert res["a"]["cpu_sweeps"] == [[0.003, 0.002], [0.003, 0.002], [0.003, 0.002]]   # sweep 1: a8, b8, a16, b16...
    assert res["b"]["cpu_sweeps"] == [[0.001, 0.003], [0.001, 0.003], [0.001, 0.003]]
    assert res["a"]["cpu"] == [0.003, 0.002] and res["a"]["wall"] == [1.0, 1.0] and res["a"]["n"] == [8, 16]
    with pytest.raises(ValueError, match="sweeps"):
        cost.time_attention({"a": None}, [8], sweeps=0)


def test_time_attention_takes_the_median_over_sweeps(monkeypatch):
    calls = iter([5.0, 1.0, 3.0])                          # one size, one function, three sweeps: median 3, not mean
    monkeypatch.setattr(cost, "time_per_call", lambda fn, min_seconds, repeats: {"wall": 0.0, "cpu": next(calls)})
    assert cost.time_attention({"a": None}, [8], d=4, sweeps=3)["a"]["cpu"] == [3.0]


def _source_module_inputs(source_doc_bytes):
    per_pair = {("source", 256): 771.0, ("ours", 256): 260.0, ("source", 64): 196.5, ("ours", 64): 69.0}
    at_doc = {("source", 256): source_doc_bytes, ("ours", 256): 8.7 * cost.GiB, ("source", 64): 6.6 * cost.GiB,
              ("ours", 64): 2.3 * cost.GiB}
    first = {("source", 256): 2891, ("ours", 256): 4978, ("source", 64): 5727, ("ours", 64): 9663}
    direct = {("source", 64, 3000): (6.54 * cost.GiB, 6.6 * cost.GiB),
              ("ours", 64, 3000): (2.3 * cost.GiB, 2.3 * cost.GiB)}
    return per_pair, at_doc, first, 1.0 * cost.GiB, 3000, 120, 24 * cost.GiB, direct, 128


def test_source_module_verdict_renders_the_measurements_and_follows_them():
    text = cost.source_module_verdict(*_source_module_inputs(25.8 * cost.GiB))
    for part in ("Fitted to measurements at n ≤ 128",
                 "source chapter 003's module keeps 771 float32 numbers per (query, key) pair at h = 256",
                 "the course's scorer 260, 3.0 times fewer", "(2.8 at h = 64)", "3h = 768 at h = 256",
                 "Measured directly, not extrapolated",
                 "source chapter 003's module at h = 64, n = 3,000: 6.5 GiB, where its fitted curve predicts 6.6 GiB",
                 "the course's scorer at h = 64, n = 3,000: 2.3 GiB",
                 "Extrapolated by the fitted curves, not measured", "needs 25.8 GiB in training", "from n = 2,891 on",
                 "a 120-word summary of the same document, extrapolated by a line", "1.0 GiB",
                 "So if the practitioner's 24 GB came from this module",
                 "the course's scorer stays under 24.0 GiB there"):
        assert part in text, part
    assert "seed" not in text                        # the source chapter, never a "seed" (torch.manual_seed's word)
    under = cost.source_module_verdict(*_source_module_inputs(20.0 * cost.GiB))
    assert "even source chapter 003's module stays under 24.0 GiB" in under and "came from this module" not in under
    with pytest.raises(ValueError, match="two sizes"):
        cost.source_module_verdict({("source", 256): 1.0, ("ours", 256): 1.0}, {}, {}, 0, 3000, 120, cost.GiB, {}, 128)
    with pytest.raises(ValueError, match="direct"):
        cost.source_module_verdict(*_source_module_inputs(25.8 * cost.GiB)[:7], {}, 128)


def test_measure_attention_returns_one_row_per_size_and_function():
    fns = {"ours": lambda Q, K, V: scaled_dot_product_attention(Q, K, V), "fused": F.scaled_dot_product_attention}
    res = cost.measure_attention(fns, [8, 16], d=4, repeats=1)
    for name in fns:
        assert res[name]["n"] == [8, 16]
        assert len(res[name]["wall"]) == len(res[name]["cpu"]) == len(res[name]["peak"]) == 2
        assert res[name]["rss"] == []
    assert res["ours"]["peak"][1] >= 2 * 16 * 16 * 4
    assert math.isfinite(res["fused"]["cpu"][0])


# --- the additive scorer's (batch, n_q, n_k, hidden) tensor, checked against the real module -------------------


def _additive_inputs(batch, n_q, n_k, d_q, d_k, seed=0):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(batch, n_q, d_q, generator=gen, requires_grad=True)
    k = torch.randn(batch, n_k, d_k, generator=gen, requires_grad=True)
    return q, k


def test_additive_attention_bytes_counts_every_factor():
    b = cost.additive_attention_bytes(30, 40, 16, batch=2)
    pairs = 2 * 30 * 40 * 4
    assert b["scores"] == b["weights"] == pairs
    assert b["features"] == 16 * pairs
    assert b["saved"] == 16 * pairs + 3 * pairs
    assert b["forward_peak"] == 32 * pairs and b["training_peak"] == 48 * pairs
    assert cost.additive_attention_bytes(30, 40, 16, batch=2, softmax_saves=1)["saved"] == 17 * pairs
    assert cost.additive_attention_bytes(30, 40, 16, batch=2, bytes_per_entry=2)["features"] == 8 * pairs
    assert cost.additive_attention_bytes(60, 40, 16, batch=2)["features"] == 2 * b["features"]
    with pytest.raises(ValueError, match="hidden=0"):
        cost.additive_attention_bytes(3, 4, 0)


@pytest.mark.parametrize("batch, n_q, n_k, hidden, d_q, d_k", [(2, 40, 60, 32, 16, 24), (4, 30, 50, 64, 128, 256),
                                                               (1, 70, 20, 48, 8, 8)])
def test_additive_attention_bytes_matches_what_the_module_saves_and_peaks_at(batch, n_q, n_k, hidden, d_q, d_k):
    torch.manual_seed(0)
    att = AdditiveAttention(d_q, d_k, hidden)
    q, k = _additive_inputs(batch, n_q, n_k, d_q, d_k)
    model = cost.additive_attention_bytes(n_q, n_k, hidden, batch=batch)
    saved = cost.saved_for_backward(lambda: att(q, k, k))
    pair_sized = sum(nbytes for shape, nbytes in saved if shape[:3] == (batch, n_q, n_k))
    assert pair_sized == model["saved"]  # exactly: the features, scores, exponentials and weights
    forward = cost.peak_tracked_bytes(lambda: att(q, k, k))
    assert model["forward_peak"] <= forward <= 1.05 * model["forward_peak"]

    def step():
        context, _ = att(q, k, k)
        context.sum().backward()

    training = cost.peak_tracked_bytes(step)
    assert model["training_peak"] <= training <= 1.15 * model["training_peak"]


def test_a_decoder_loop_saves_the_same_features_as_one_call_over_all_queries():
    torch.manual_seed(0)
    att = AdditiveAttention(8, 12, 16)
    q, k = _additive_inputs(2, 10, 15, 8, 12)
    loop = cost.saved_for_backward(lambda: [att(q[:, t:t + 1], k, k) for t in range(10)])
    per_step = sum(nbytes for shape, nbytes in loop if shape[:3] == (2, 1, 15))
    assert per_step == cost.additive_attention_bytes(10, 15, 16, batch=2)["saved"]


@pytest.mark.parametrize("limit", [0, 1, 99, 100, 101, 24 * 2**30])
def test_smallest_over_finds_the_first_value_over_the_limit(limit):
    def bytes_of(x):
        return 100 * x * x

    x = cost.smallest_over(limit, bytes_of)
    assert bytes_of(x) > limit and (x == 1 or bytes_of(x - 1) <= limit)
    assert cost.smallest_over(limit, lambda b: 7 * b) == limit // 7 + 1


def test_smallest_over_agrees_with_smallest_batch_over_and_refuses_an_unreachable_limit():
    for heads, layers in [(1, 1), (8, 6), (16, 24)]:
        def bytes_of(b, heads=heads, layers=layers):
            return cost.score_matrix_bytes(3000, b, heads, layers)

        expected = cost.smallest_batch_over(24 * cost.GiB, 3000, heads, layers)
        assert cost.smallest_over(24 * cost.GiB, bytes_of) == expected
    with pytest.raises(ValueError, match="still not over"):
        cost.smallest_over(10, lambda x: 5)


# ---------------------------------------------------------------- source chapter 003's module, the decoder loop
def test_source_bahdanau_attention_is_the_printed_computation():
    """Written out from source chapter 003: v(tanh(W [repeat(s); e])), softmax over the source, dropout, bmm."""
    torch.manual_seed(0)
    m = cost.SeedBahdanauAttention(8, dropout=0.1).eval()
    s, e = torch.randn(3, 8), torch.randn(3, 5, 8)
    context, weights = m(s, e)
    combined = torch.cat([s[:, None].expand(3, 5, 8), e], dim=2)                      # (3, 5, 16)
    energy = (torch.tanh(combined @ m.W.weight.T + m.W.bias) @ m.v.weight.T + m.v.bias)[..., 0]
    expected = torch.softmax(energy, dim=1)
    torch.testing.assert_close(weights, expected)
    torch.testing.assert_close(context, (expected[..., None] * e).sum(1))
    assert context.shape == (3, 8) and weights.shape == (3, 5)
    assert cost.count_parameters(m) == 16 * 8 + 8 + 8 + 1
    m.train()
    assert (m(s, e)[1] == 0).any()                                                    # dropout acts on the weights


def test_decoder_loop_memory_sees_what_each_module_keeps_per_pair():
    """Source chapter 003's module keeps [repeated state; encoder output] (2h) and tanh's output (h) per pair, the
    course's scorer h."""
    h, n = 16, 24
    torch.manual_seed(0)
    source_module, ours = cost.SeedBahdanauAttention(h), AdditiveAttention(h, h, h, dropout=0.1)
    source_run = cost.decoder_loop_memory(source_module, n, n, h, saved=True)
    ours_run = cost.decoder_loop_memory(lambda s, e: ours(s[:, None], e, e), n, n, h, saved=True)
    assert set(source_run) == {"peak", "saved"} and set(cost.decoder_loop_memory(source_module, 2, 3, h)) == {"peak"}
    pairs = n * n * 4
    assert 3 * h <= source_run["saved"] / pairs < 3 * h + 8
    assert h <= ours_run["saved"] / pairs < h + 8
    assert source_run["peak"] >= source_run["saved"] and ours_run["peak"] >= ours_run["saved"]
    with pytest.raises(ValueError, match="positive"):
        cost.decoder_loop_memory(source_module, 0, 3, h)


def test_fit_quadratic_is_exact_on_a_quadratic_and_rejects_short_input():
    ns = [1, 2, 5, 9]
    a, b, c = cost.fit_quadratic(ns, [3 * n * n - 2 * n + 7 for n in ns])
    assert math.isclose(a, 3) and math.isclose(b, -2, abs_tol=1e-9) and math.isclose(c, 7, abs_tol=1e-9)
    with pytest.raises(ValueError, match="at least 3"):
        cost.fit_quadratic([1, 2], [1, 4])
