"""attention_by_hand: the grader's checks (teachers only; run outside the sandbox, see assignments/judge.py)."""
import math

import torch
import torch.nn.functional as F

from assignments.judge import ATTENTION_FAMILY, SOFTMAX_FAMILY, close, equal, failure, is_tensor, pair

RULES = {
    "q1": {"defines": ["attention_scores"]},
    "q2": {"defines": ["stable_softmax"], "banned": [*SOFTMAX_FAMILY]},
    "q3": {"defines": ["attend"], "banned": [*ATTENTION_FAMILY]},
    "q4": {"defines": ["causal_mask", "masked_attend"], "banned": [*ATTENTION_FAMILY, "tril_indices"]},
}
REFS = {"attention_scores": "scores", "stable_softmax": "softmax"}  # earlier questions graded on their own


def randn(p, *shape):
    return torch.from_numpy(p.rng.standard_normal(shape))


def plan(p):
    # The example-shaped checks draw their values for this run too: a copied known output earns nothing.
    # q1
    Q, K = randn(p, 1, 2), randn(p, 3, 2)
    c = p.call("attention_scores", Q, K)

    def q1_example(R, c=c, Q=Q, K=K):
        got = R[c]
        if failure(got, "attention_scores"):
            return failure(got, "attention_scores")
        if not is_tensor(got, (1, 3)):
            return "for 1 query and 3 keys the scores should have shape (n_q, n_k) = (1, 3)"
        return None if close(got.double(), (Q @ K.T).double()) else "the example scores should be Q·K₁, Q·K₂, Q·K₃"
    p.check("q1", "test_q1_example", q1_example, public=True)

    n_q, d = (int(v) for v in p.rng.integers(3, 9, size=2))
    n_k = n_q + int(p.rng.integers(1, 4))  # n_q ≠ n_k: a transposed score matrix cannot have the right shape
    Q, K = randn(p, n_q, d), randn(p, n_k, d)
    c = p.call("attention_scores", Q, K)
    p.check("q1", "test_q1_general", lambda R, c=c, Q=Q, K=K: None if close(R[c], Q @ K.T, 1e-10) else "wrong")

    # q2
    x = randn(p, 2, 3)
    c = p.call("stable_softmax", x)
    p.check("q2", "test_q2_small_rows", lambda R, c=c, x=x: failure(R[c], "stable_softmax") or (
        None if close(R[c], torch.softmax(x, -1), 1e-6) else
        "the weights differ from the softmax along the last axis (normalise with dim=-1)"), public=True)
    x = randn(p, 2, 2) + torch.tensor([[1000.0], [-1000.0]])
    c = p.call("stable_softmax", x)
    p.check("q2", "test_q2_large_scores", lambda R, c=c, x=x: failure(R[c], "stable_softmax") or (
        None if close(R[c], torch.softmax(x, -1), 1e-6) else
        "exp overflows to inf (or underflows to 0) on scores of ±1000. Subtract each row's maximum before "
        "torch.exp"), public=True)
    x = randn(p, 2, 3, 5) * 500
    x[0, 1, 2] = 2000.0                     # exp overflows in float64 without the max shift, whatever the draw
    x[0, 0, 1] = float("-inf")
    x[1, 2, :4] = float("-inf")
    x[1, 2, 4] = -2000.0                    # the row's one finite score: exp underflows to 0 without the shift
    c = p.call("stable_softmax", x)
    p.check("q2", "test_q2_any_shape_and_minus_inf", lambda R, c=c, x=x: None if close(R[c], torch.softmax(x, -1),
                                                                                       1e-12)
            and bool((R[c][1, 2, :4] == 0).all()) else "wrong")

    # q3
    Q, K, V = randn(p, 1, 2), randn(p, 3, 2), randn(p, 3, 2)
    c = p.call("attend", Q, K, V, patch=REFS)
    scores = Q @ K.T
    expected = torch.softmax(scores / math.sqrt(2), -1)

    def q3_weights(R, c=c):
        out = pair(R[c])
        if out is None:
            return failure(R[c], "attend") or "attend should return a pair (context, weights)"
        w = out[1]
        if not is_tensor(w, (1, 3)):
            return "the weights should be a tensor of shape (n_q, n_k) = (1, 3)"
        if close(w, torch.softmax(scores, -1), 1e-4):
            return "these are the weights of the unscaled scores: divide the scores by √d_k before the softmax"
        return None if close(w, expected, 1e-4) else "the weights should be softmax(Q·Kᵀ / √d_k)"
    p.check("q3", "test_q3_example_weights", q3_weights, public=True)

    def q3_context(R, c=c, V=V):
        out = pair(R[c])
        if out is None:
            return failure(R[c], "attend") or "attend should return a pair (context, weights)"
        return None if close(out[0], expected @ V, 1e-4) else "the context is weights @ V"
    p.check("q3", "test_q3_example_context", q3_context, public=True)

    n_q, d_v = (int(v) for v in p.rng.integers(3, 9, size=2))
    n_k = n_q + int(p.rng.integers(1, 4))  # n_q ≠ n_k ≠ d_k = 16 ≠ d_v: no swapped axis or wrong √ passes
    Q, K, V = randn(p, n_q, 16), randn(p, n_k, 16), randn(p, n_k, d_v)
    c = p.call("attend", Q, K, V, patch=REFS)
    p.check("q3", "test_q3_general", lambda R, c=c, Q=Q, K=K, V=V: None if pair(R[c]) and
            close(R[c][1], torch.softmax(Q @ K.T / 4.0, -1), 1e-10) and
            close(R[c][0], F.scaled_dot_product_attention(Q, K, V), 1e-10) else "wrong")

    # q4
    m = int(p.rng.integers(3, 7))
    c = p.call("causal_mask", m)
    causal_m = torch.ones(m, m, dtype=torch.bool).tril()
    causal4 = torch.ones(4, 4, dtype=torch.bool).tril()

    def q4_mask(R, c=c, m=m, causal_m=causal_m):
        got = R[c]
        if failure(got, "causal_mask"):
            return failure(got, "causal_mask")
        if not is_tensor(got, (m, m)) or got.dtype != torch.bool:
            return f"causal_mask({m}) should be a ({m}, {m}) bool tensor (True = may attend)"
        if equal(got, ~causal_m):
            return "the mask is inverted: True must mean may attend, so True on and below the diagonal"
        return None if equal(got, causal_m) else f"causal_mask({m}) should be True on and below the diagonal"
    p.check("q4", "test_q4_causal_mask", q4_mask, public=True)
    sizes = [1, int(p.rng.integers(5, 10))]
    cs = [p.call("causal_mask", n) for n in sizes]
    p.check("q4", "test_q4_causal_mask_sizes", lambda R, cs=cs: None if all(
        equal(R[c], torch.ones(n, n, dtype=torch.bool).tril()) for c, n in zip(cs, sizes, strict=True)) else "wrong")

    X = randn(p, 4, 6)
    c = p.call("masked_attend", X, X, X, causal4, patch=REFS)
    w_ref = torch.softmax((X @ X.T / math.sqrt(6)).masked_fill(~causal4, float("-inf")), -1)

    def q4_weights(R, c=c, X=X):
        out = pair(R[c])
        if out is None:
            return failure(R[c], "masked_attend") or "masked_attend should return a pair (context, weights)"
        w = out[1]
        if not is_tensor(w, (4, 4)):
            return "for 4 words the weights should be a (4, 4) tensor"
        if float(torch.nan_to_num(w, nan=0.0).triu(1).abs().max()) > 1e-6:
            return ("hidden keys must get zero weight: set hidden scores to -inf before the softmax "
                    "(and remember that True means may attend)")
        if not close(w, w_ref, 1e-5):
            return "the visible keys get the wrong shares: use the scaled scores (÷ √d_k), masked, then the softmax"
        return None if close(out[0], w_ref @ X, 1e-5) else "the weights are right but the context is not weights @ V"
    p.check("q4", "test_q4_causal_weights", q4_weights, public=True)

    n_k = int(p.rng.integers(5, 9))
    Q, K, V = randn(p, 3, 8), randn(p, n_k, 8), randn(p, n_k, 4)
    mask = torch.ones(1, n_k, dtype=torch.bool)
    mask[0, -2:] = False
    c = p.call("masked_attend", Q, K, V, mask, patch=REFS)
    p.check("q4", "test_q4_padding_mask", lambda R, c=c, Q=Q, K=K, V=V, mask=mask: None if pair(R[c]) and
            close(R[c][0], F.scaled_dot_product_attention(Q, K, V, attn_mask=mask), 1e-10) and
            bool((R[c][1][:, -2:] == 0).all()) else "wrong")
    n = int(p.rng.integers(5, 9))
    X = randn(p, n, 32)
    c = p.call("masked_attend", X, X, X, torch.ones(n, n, dtype=torch.bool).tril(), patch=REFS)
    p.check("q4", "test_q4_causal_general", lambda R, c=c, X=X: None if pair(R[c]) and
            close(R[c][0], F.scaled_dot_product_attention(X, X, X, is_causal=True), 1e-10) and
            bool((R[c][1].triu(1) == 0).all()) else "wrong")
