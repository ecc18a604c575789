"""transformer_and_cost: the grader's checks (teachers only; run outside the sandbox, see assignments/judge.py)."""
import math

import torch

from assignments.judge import ATTENTION_FAMILY, Raised, close, equal, failure, is_tensor, pair

RULES = {
    "q1": {"defines": ["split_heads", "merge_heads"]},
    "q2": {"defines": ["multi_head_attention"],
           "banned": [*ATTENTION_FAMILY]},
    "q3": {"defines": ["causal_padding_mask"]},
    "q4": {"defines": ["additive_scores_bytes", "transformer_scores_bytes"]},
}
REFS = {"split_heads": "split_heads", "merge_heads": "merge_heads"}


def randn(p, *shape):
    return torch.from_numpy(p.rng.standard_normal(shape))


def reference(X, W_q, W_k, W_v, W_o, h, mask=None, scale_by=None):
    b, n, d = X.shape
    Q, K, V = ((X @ W).reshape(b, n, h, d // h).transpose(1, 2) for W in (W_q, W_k, W_v))
    scores = Q @ K.transpose(-2, -1) / math.sqrt(scale_by or d // h)
    if mask is not None:
        scores = scores.masked_fill(~mask[:, None], float("-inf"))
    w = torch.softmax(scores, dim=-1)
    return (w @ V).transpose(1, 2).reshape(b, n, d) @ W_o, w


def plan(p):
    # The example-shaped checks draw their values for this run too: a copied known output earns nothing.
    # q1
    X = randn(p, 1, 3, 8).float()
    c = p.call("split_heads", X, 2)

    def q1_split(R, c=c, X=X):
        got = R[c]
        if failure(got, "split_heads"):
            return failure(got, "split_heads")
        if not is_tensor(got, (1, 2, 3, 4)):
            return "for X (1, 3, 8) and 2 heads the result should be (batch, n_heads, n, d_head) = (1, 2, 3, 4)"
        if equal(got, X.reshape(1, 2, 3, 4)):
            return ("you reshaped straight to (batch, n_heads, n, d_head), which mixes tokens across heads: reshape "
                    "to (batch, n, n_heads, d_head) first, then swap the token and head axes")
        return None if equal(got, torch.stack([X[:, :, :4], X[:, :, 4:]], dim=1)) else \
            "head 1 of token 0 should be columns 4..7 of token 0"
    p.check("q1", "test_q1_split_example", q1_split, public=True)
    H = X.reshape(1, 3, 2, 4).transpose(1, 2)
    c = p.call("merge_heads", H)
    p.check("q1", "test_q1_merge_example", lambda R, c=c, X=X, H=H: failure(R[c], "merge_heads") or (
        "you reshaped without moving the head axis back behind the token axis: transpose first, then reshape"
        if equal(R[c], H.reshape(1, 3, 8)) else None if equal(R[c], X) else
        "merge_heads(split_heads(X)) should give X back, token by token"), public=True)
    cases = []
    for heads in (int(p.rng.integers(2, 5)), 1):
        # n >= 2: with one token (or one head) a reshape without the transpose is right by accident
        batch, n, d_head = int(p.rng.integers(2, 4)), int(p.rng.integers(2, 8)), int(p.rng.integers(2, 6))
        X = randn(p, batch, n, heads * d_head).float()
        ref = X.reshape(batch, n, heads, d_head).transpose(1, 2)
        cases.append((p.call("split_heads", X, heads), p.call("merge_heads", ref), X, ref))
    bad = p.call("split_heads", torch.zeros(1, 2, 10), 4)
    p.check("q1", "test_q1_other_sizes_and_bad_sizes", lambda R, cases=cases, bad=bad: None if all(
        equal(R[s], ref) and equal(R[m], X) for s, m, X, ref in cases) and isinstance(R[bad], Raised)
        and R[bad].is_a("ValueError") and "10" in R[bad].message and "4" in R[bad].message else "wrong")

    # q2
    X = randn(p, 2, 5, 8).float()
    W = [(randn(p, 8, 8) / 8 ** 0.5).float() for _ in range(4)]
    c = p.call("multi_head_attention", X, *W, 2, patch=REFS)
    ref_out, ref_w = reference(X, *W, 2)
    _, wrong_w = reference(X, *W, 2, scale_by=8)

    def q2_example(R, c=c, ref_out=ref_out, ref_w=ref_w, wrong_w=wrong_w):
        out = pair(R[c])
        if out is None:
            return failure(R[c], "multi_head_attention") or "multi_head_attention should return (output, weights)"
        output, weights = out
        if not is_tensor(weights, (2, 2, 5, 5)) or not is_tensor(output, (2, 5, 8)):
            return "the output should be (batch, n, d_model) = (2, 5, 8), the weights (batch, n_heads, n, n)"
        if close(weights, wrong_w):
            return "you divided by √d_model; each head's scores are divided by √d_head = √(d_model / n_heads)"
        if not close(weights, ref_w):
            return "the weights differ from torch.nn.MultiheadAttention with the same projections"
        return None if close(output, ref_out) else \
            "the weights are right but the output is not: weights @ V per head, merge the heads, then @ W_o"
    p.check("q2", "test_q2_matches_torch", q2_example, public=True)
    calls = []
    for b, n, d, h in [(int(p.rng.integers(2, 4)), int(p.rng.integers(3, 7)), 12, 3), (1, 4, 16, 4)]:
        X = randn(p, b, n, d)
        W = [randn(p, d, d) / d ** 0.5 for _ in range(4)]
        causal = torch.ones(n, n, dtype=torch.bool).tril().expand(b, n, n).contiguous()
        for mask in (None, causal):
            calls.append((p.call("multi_head_attention", X, *W, h, mask, patch=REFS), reference(X, *W, h, mask)))
    p.check("q2", "test_q2_masks_and_sizes", lambda R, calls=calls: None if all(
        pair(R[c]) and close(R[c][0], r[0], 1e-10) and close(R[c][1], r[1], 1e-10) for c, r in calls) else "wrong")
    X = randn(p, 2, 5, 8).float()
    W = [(randn(p, 8, 8) / 8 ** 0.5).float() for _ in range(4)]
    keep = int(p.rng.integers(2, 5))
    mask = torch.tensor([[[j < keep for j in range(5)]], [[True] * 5]])
    c = p.call("multi_head_attention", X, *W, 2, mask, patch=REFS)
    p.check("q2", "test_q2_padding_mask", lambda R, c=c, keep=keep: None if pair(R[c])
            and is_tensor(R[c][1], (2, 2, 5, 5))
            and bool((R[c][1][0, :, :, keep:] == 0).all()) and bool(torch.isfinite(R[c][1]).all())
            and close(R[c][1].sum(-1), torch.ones(2, 2, 5)) else "wrong")

    # q3
    m = int(p.rng.integers(3, 7))
    c = p.call("causal_padding_mask", torch.tensor([m, m - 1]), m)
    causal = torch.ones(m, m, dtype=torch.bool).tril()
    expected = torch.stack([causal, causal & (torch.arange(m) < m - 1)])

    def q3_example(R, c=c, causal=causal, expected=expected):
        got = R[c]
        if failure(got, "causal_padding_mask"):
            return failure(got, "causal_padding_mask")
        if not is_tensor(got, tuple(expected.shape)) or got.dtype != torch.bool:
            return "for 2 sentences padded to n the mask should be a (2, n, n) bool tensor (True = may attend)"
        if equal(got, ~expected):
            return "the mask is inverted: True must mean may attend"
        if equal(got, torch.stack([causal, causal])):
            return "the second sentence has one token less: its padding key (the last j) must be False for every query"
        if equal(got, torch.stack([causal.T, causal.T]) & expected.any(1, keepdim=True)):
            return "query i may see keys j <= i (on and below the diagonal), not j >= i"
        return None if equal(got, expected) else "the example mask is wrong"
    p.check("q3", "test_q3_example", q3_example, public=True)
    n = int(p.rng.integers(4, 8))
    lengths = torch.from_numpy(p.rng.integers(1, n, size=5))  # some padding in every draw
    lengths[0] = n
    c = p.call("causal_padding_mask", lengths, n)
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    p.check("q3", "test_q3_random_lengths", lambda R, c=c, e=(j <= i)[None] & (j[None] < lengths[:, None, None]):
            None if equal(R[c], e) else "wrong")

    # q4
    # ≥ 3 and n_q ≠ n_k: n_q·n_q or n_q + n_k for n_q·n_k cannot pass (at 2 and 2, 2 + 2 = 2·2)
    b, nq, hid, n, heads, layers = (int(v) for v in p.rng.integers(3, 12, size=6))
    nk = nq + int(p.rng.integers(1, 5))
    c1 = p.call("additive_scores_bytes", b, nq, nk, hid)
    c2 = p.call("transformer_scores_bytes", b, n, heads, layers)

    def q4_formulas(R, c1=c1, c2=c2, b=b, nq=nq, nk=nk, hid=hid, n=n, heads=heads, layers=layers):
        a, t = R[c1], R[c2]
        if failure(a, "additive_scores_bytes") or failure(t, "transformer_scores_bytes"):
            return failure(a, "additive_scores_bytes") or failure(t, "transformer_scores_bytes")
        if a == b * nq * nk * 4:
            return "the additive scorer keeps a hidden-sized vector per (query, key) pair: multiply by hidden too"
        if a != b * nq * nk * hid * 4 or type(a) not in (int, float):
            return "the additive tensor holds batch · n_q · n_k · hidden float32 values of 4 bytes each"
        if t == b * n * n * heads * 4:
            return "every layer keeps its own score matrices: multiply by layers"
        return None if type(t) in (int, float) and t == b * heads * n * n * layers * 4 else \
            "the Transformer keeps layers · batch · heads · n · n float32 scores of 4 bytes each"
    p.check("q4", "test_q4_formulas", q4_formulas, public=True)
    b, nq, hid = (int(v) for v in p.rng.integers(3, 20, size=3))
    nk = nq + int(p.rng.integers(1, 5))  # n_q ≠ n_k
    heads, layers = (int(v) for v in p.rng.integers(2, 9, size=2))  # ≥ 2, or forgetting heads or layers goes unseen
    c1 = p.call("additive_scores_bytes", b, nq, nk, hid, bytes_per_value=2)
    c2 = p.call("transformer_scores_bytes", b, nq, heads, layers, bytes_per_value=8)
    e1, e2 = b * nq * nk * hid * 2, b * nq * nq * heads * layers * 8
    p.check("q4", "test_q4_other_sizes", lambda R, c1=c1, c2=c2, e1=e1, e2=e2:
            None if type(R[c1]) in (int, float) and R[c1] == e1 and type(R[c2]) in (int, float) and R[c2] == e2
            else "wrong")
    c1, c2 = p.value("case_gib"), p.value("case_fits")
    expected_gib = 16 * 3000 * 3000 * 256 * 4 / 2 ** 30
    p.check("q4", "test_q4_the_case", lambda R, c1=c1, c2=c2: None if type(R[c1]) in (int, float)
            and abs(R[c1] - expected_gib) < 1e-6 * expected_gib and R[c2] is False else "wrong")
