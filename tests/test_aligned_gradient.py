"""The gold-alignment gradient probe (helpers.training.aligned_gradients and its pooling in helpers.experiments).

A model whose target word j is wired straight to one source word must get a larger gradient from j's loss at that
word than at a scrambled one; the batched probe must equal one backward pass per target word; the distance must
be the one a fresh model without attention fades along.
"""
import math
import statistics

import pytest
import torch
import torch.nn as nn

from helpers.experiments import aligned_gradient_rows, compare_ratio, pool_aligned
from helpers.seq2seq import make_batch, make_model
from helpers.toylang import sample_pairs
from helpers.training import TrainLog, aligned_gradient_cells, aligned_gradients, chain_distance


class OracleScorer(nn.Module):
    """A scorer that puts all of target position t's weight on source position `positions[t]` (0 past the end)."""

    def __init__(self):
        super().__init__()
        self.positions: list[int] = []

    def forward(self, query, keys, values, mask):
        B, T, S = query.shape[0], query.shape[1], keys.shape[1]
        weights = torch.zeros(B, T, S)
        for t in range(T):
            weights[:, t, self.positions[t] if t < len(self.positions) else 0] = 1.0
        return torch.bmm(weights, values), weights


def random_alignment(pairs, seed=0):
    """The pairs with one random gold source position per target word (neighbouring words far apart in the source)."""
    g = torch.Generator().manual_seed(seed)
    return [(s, t, [[int(torch.randint(len(s), (1,), generator=g))] for _ in t]) for s, t, _ in pairs]


def shifted(pairs, k):
    """The same pairs with every gold position moved k source words (half a sentence: a scrambled alignment)."""
    return [(s, t, [[(i + k(len(s))) % len(s) for i in a] for a in align]) for s, t, align in pairs]


def mean_grad(model, pairs):
    return statistics.fmean(r["grad"] for r in aligned_gradients(model, pairs))


def test_a_word_wired_to_its_aligned_source_word_gets_more_gradient_there_than_at_a_scrambled_one():
    """A probe that read another target word's loss (one position off) or another source word fails here."""
    pairs = random_alignment(sample_pairs(6, 16, 24, seed=3))
    model = make_model("attention", scorer=OracleScorer(), emb=16, hidden=24, seed=0)
    alignments = {"true": lambda n: 0, "next": lambda n: 1, "previous": lambda n: -1, "scrambled": lambda n: n // 2}
    grads = {name: [] for name in alignments}
    for p in pairs:                                   # the oracle follows each sentence's own alignment
        model.decoder.scorer.positions = [a[0] for a in p[2]]
        for name, k in alignments.items():
            grads[name].append(mean_grad(model, shifted([p], k)))
    mean = {name: statistics.fmean(g) for name, g in grads.items()}
    assert mean["true"] > 50 * mean["scrambled"], mean
    assert mean["true"] > 1.8 * max(mean["next"], mean["previous"]), mean   # one step of a GRU away: less


def test_the_batched_probe_equals_one_backward_pass_per_target_word():
    pair = sample_pairs(1, 9, 9, seed=5)[0]
    model = make_model("attention", emb=16, hidden=24, seed=2)
    rows = aligned_gradients(model, [pair])
    src, tgt, align = pair
    batch = make_batch([pair], model.src_vocab, model.tgt_vocab)
    want = []
    for j, gold in enumerate(align):
        if not gold:
            continue
        x = model.encoder.embedding(batch.src).detach().requires_grad_(True)
        enc = model.encoder.encode_embedded(x, x, batch.src_lengths, batch.src_mask)
        logits, _, _ = model.decoder(batch.tgt_in, enc, model.decoder.initial_state(enc))
        out = logits[0, j].detach().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(logits[0, j][None], batch.tgt_out[0, j][None])
        loss.backward()
        err = (torch.softmax(out, -1) - torch.nn.functional.one_hot(batch.tgt_out[0, j], out.shape[-1])).detach()
        norms = x.grad[0].norm(dim=-1).detach()
        want += [(j, i, float(norms[i]), float(err.norm()), float(norms[i] / norms.sum()), float(loss.detach()))
                 for i in gold]
    got = [(r["j"], r["i"], r["grad"], r["error"], r["share"], r["loss"]) for r in rows]
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for g, w in zip(got, want, strict=True):
        assert g[2:] == pytest.approx(w[2:], rel=1e-4), (g, w)
    assert all(r["length"] == len(src) and r["distance"] == min(r["i"], len(src) - 1 - r["i"]) for r in rows)


def test_words_without_a_gold_set_are_left_out():
    pair = next(p for p in sample_pairs(20, 6, 12, seed=1) if any(not a for a in p[2]))
    rows = aligned_gradients(make_model("none", emb=16, hidden=24, seed=0), [pair])
    assert len(rows) == sum(len(a) for a in pair[2])
    assert {r["j"] for r in rows} == {j for j, a in enumerate(pair[2]) if a}


def test_chain_distance_counts_encoder_steps_to_the_nearer_reading_end():
    assert [chain_distance(i, 7) for i in range(7)] == [0, 1, 2, 3, 2, 1, 0]
    assert [chain_distance(i, 4, bidirectional=False) for i in range(4)] == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="outside"):
        chain_distance(7, 7)


def test_a_fresh_model_without_attention_fades_along_that_distance_and_the_share_is_a_share():
    pairs = sample_pairs(8, 30, 34, seed=6)
    rows = aligned_gradients(make_model("none", emb=16, hidden=24, seed=0), pairs)
    near = statistics.fmean(r["grad"] for r in rows if r["distance"] == 0)
    far = statistics.fmean(r["grad"] for r in rows if r["distance"] >= 8)
    assert near > 100 * far, (near, far)
    assert all(0 < r["share"] <= 1 and r["error"] > 0 and r["loss"] > 0 for r in rows)


def test_cells_pool_by_bucket_and_distance_and_pool_aligned_weights_cells_by_their_pairs():
    model = make_model("none", emb=16, hidden=24, seed=0)
    buckets = {"a": sample_pairs(3, 5, 8, seed=1), "b": sample_pairs(3, 14, 16, seed=2)}
    cells = aligned_gradient_cells(model, buckets)
    flat = {name: aligned_gradients(model, pairs) for name, pairs in buckets.items()}
    assert sum(c["n"] for c in cells if c["set"] == "b") == len(flat["b"])
    log = TrainLog(steps=3, losses=[3.0, 2.0, 1.0], cpu_seconds=0.5)
    rows = [{"config": "m", "seed": 0, **r} for r in aligned_gradient_rows({"init": cells}, log)]
    assert rows[-1] == {"config": "m", "seed": 0, "measure": "training", "stage": "trained", "steps": 3,
                        "loss_end": 2.0, "cpu_seconds": 0.5}
    by_set = {r["set"]: r for r in pool_aligned(rows)}
    assert by_set["b"]["grad"] == pytest.approx(statistics.fmean(r["grad"] for r in flat["b"]))
    assert by_set["b"]["per_error"] == pytest.approx(statistics.fmean(r["grad"] / r["error"] for r in flat["b"]))
    near = pool_aligned(rows, bins={"0-1": (0, 1), "2+": (2, 99)}, sets=["b"])
    want = [r["grad"] for r in flat["b"] if r["distance"] <= 1]
    assert [r["set"] for r in near] == ["0-1", "2+"] and near[0]["n"] == len(want)
    assert near[0]["grad"] == pytest.approx(statistics.fmean(want))


def test_compare_ratio_is_the_paired_interval_of_log_ratios():
    values = {"a": (10.0, 20.0, 40.0), "b": (1.0, 2.0, 8.0)}
    rows = [{"config": c, "seed": s, "set": "x", "v": v} for c, vs in values.items() for s, v in enumerate(vs)]
    got = compare_ratio(rows, "a", "b", "x", "v")
    assert got["ratio"] == pytest.approx(10 ** statistics.fmean([1.0, 1.0, math.log10(5.0)]))
    assert got["ratio_low"] < got["ratio"] < got["ratio_high"] and got["verdict"] == "a better"
    with pytest.raises(ValueError, match="positive"):
        compare_ratio([{**r, "v": 0.0} for r in rows], "a", "b", "x", "v")


def test_log_intervals_are_geometric_means_with_t_intervals_of_the_logs():
    from helpers.experiments import log_intervals, t_half_width

    rows = [{"config": "a", "stage": "init", "set": "x", "v": v} for v in (1.0, 10.0, 100.0)]
    got = log_intervals(rows, "v")[("a", "init", "x")]
    half = t_half_width(1.0, 3)
    assert got["gmean"] == pytest.approx(10.0) and got["n"] == 3
    assert got["low"] == pytest.approx(10 ** (1 - half)) and got["high"] == pytest.approx(10 ** (1 + half))
