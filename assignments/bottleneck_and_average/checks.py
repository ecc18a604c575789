"""bottleneck_and_average: the grader's checks (teachers only; run outside the sandbox, see assignments/judge.py)."""
import numpy as np
import torch

from assignments.judge import ATTENTION_FAMILY, Raised, close, equal, failure, is_tensor, pair

RULES = {
    "q1": {"defines": ["summary_vector"]},
    "q2": {"defines": ["weighted_average"]},
    "q3": {"defines": ["contexts_for_every_step"], "banned": [*ATTENTION_FAMILY]},
}


def randn(p, *shape):
    return torch.from_numpy(p.rng.standard_normal(shape))


def plan(p):
    # q1
    # The example-shaped checks draw their values for this run too: a copied known output earns nothing.
    fwd, bwd, lengths = randn(p, 2, 4, 3).float(), randn(p, 2, 4, 3).float(), torch.tensor([4, 2])
    c = p.call("summary_vector", fwd, bwd, lengths)
    expected = torch.cat([fwd[[0, 1], [3, 1]], bwd[:, 0]], dim=-1)

    def q1_example(R, c=c, fwd=fwd, bwd=bwd, expected=expected):
        got = R[c]
        if failure(got, "summary_vector"):
            return failure(got, "summary_vector")
        if not is_tensor(got, (2, 6)):
            return "for hidden size 3 the summary should be (batch, 2*hidden) = (2, 6)"
        if equal(got[1, :3], fwd[1, 3]):
            return ("sentence 2 has 2 real words: the forward GRU finishes at position lengths-1 = 1, not at the "
                    "last padded position")
        if not equal(got[:, :3], expected[:, :3]):
            return "the forward half should be the forward states at positions lengths-1"
        return None if equal(got[:, 3:], bwd[:, 0]) else \
            "the right-to-left GRU finishes at position 0 (it reads the sentence backwards): take backward_states[:, 0]"
    p.check("q1", "test_q1_example", q1_example, public=True)
    b, s, h = int(p.rng.integers(3, 7)), 7, int(p.rng.integers(2, 6))
    fwd, bwd = randn(p, b, s, h), randn(p, b, s, h)
    lengths = torch.from_numpy(p.rng.integers(1, s, size=b))  # all shorter than s: position -1 is padding
    lengths[0] = s
    c = p.call("summary_vector", fwd, bwd, lengths)
    expected = torch.cat([fwd[torch.arange(b), lengths - 1], bwd[:, 0]], dim=-1)
    p.check("q1", "test_q1_random", lambda R, c=c, e=expected: None if equal(R[c], e) else "wrong")

    # q2
    states = randn(p, 1, 3, 2).float()
    w = torch.softmax(randn(p, 1, 3), -1).float()
    c1 = p.call("weighted_average", states, w)
    c2 = p.call("weighted_average", states, torch.tensor([[0.5, 0.5, 0.5]]))

    def q2_example(R, c1=c1, c2=c2, states=states, w=w):
        got = R[c1]
        if failure(got, "weighted_average"):
            return failure(got, "weighted_average")
        if not is_tensor(got, (1, 2)):
            return "for states (1, 3, 2) the average should be (batch, d) = (1, 2)"
        if close(got, states.mean(dim=1)):
            return "that is the plain mean: multiply each state by its weight before summing"
        if not close(got, (w[:, :, None] * states).sum(1)):
            return "the average should be Σ_t weights[b, t] · states[b, t]"
        refusal = R[c2]
        if not isinstance(refusal, Raised) or not refusal.is_a("ValueError"):
            return "weights summing to 1.5 should raise a ValueError"
        return None if "1.5" in refusal.message else "the error should show the row sum 1.5"
    p.check("q2", "test_q2_example_and_refusal", q2_example, public=True)
    b, s, d = (int(v) for v in p.rng.choice(np.arange(3, 9), size=3, replace=False))  # distinct: no swapped axis
    states = randn(p, b, s, d)
    w = torch.softmax(randn(p, b, s), dim=-1)
    c1 = p.call("weighted_average", states, w)
    c2 = p.call("weighted_average", states[:1, :2].clone(), torch.tensor([[1.5, -0.5]], dtype=torch.float64))
    e = torch.einsum("bs,bsd->bd", w, states)
    p.check("q2", "test_q2_random_and_negative", lambda R, c1=c1, c2=c2, e=e:
            None if close(R[c1], e, 1e-10) and isinstance(R[c2], Raised) and R[c2].is_a("ValueError") else "wrong")

    # q3
    q, s = randn(p, 1, 2, 2).float(), randn(p, 1, 3, 2).float()
    mask = torch.tensor([[[True, True, False]]])
    c = p.call("contexts_for_every_step", q, s, mask)
    raw = torch.softmax((q @ s.transpose(1, 2)).masked_fill(~mask, float("-inf")), dim=-1)
    scaled = torch.softmax((q @ s.transpose(1, 2) / 2 ** 0.5).masked_fill(~mask, float("-inf")), dim=-1)

    def q3_example(R, c=c, raw=raw, scaled=scaled, s=s):
        out = pair(R[c])
        if out is None:
            return failure(R[c], "contexts_for_every_step") or "return the pair (contexts, weights)"
        contexts, weights = out
        if not is_tensor(weights, (1, 2, 3)):
            return "the weights should be (batch, T, S) = (1, 2, 3)"
        if not bool((weights[..., 2] == 0).all()):
            return "the padding position got weight: set its scores to -inf where the mask is False, before the softmax"
        if close(weights, scaled):
            return "chapter 02's recipe uses the raw dot product: no division by √d here"
        if not close(weights, raw):
            return "each step's weights should be the softmax of its raw dot products with the states"
        return None if close(contexts, raw @ s) else \
            "the weights are right but the contexts are not each step's weighted average of the states"
    p.check("q3", "test_q3_example", q3_example, public=True)
    b, t, n, d = 3, int(p.rng.choice([2, 5])), 6, 4  # t ≠ b, n, d: no swapped axis has the right shape
    q, s = randn(p, b, t, d), randn(p, b, n, d)
    lengths = torch.tensor([6, 1, int(p.rng.integers(2, 6))])
    mask = (torch.arange(n)[None, :] < lengths[:, None])[:, None, :]
    c = p.call("contexts_for_every_step", q, s, mask)
    ref = torch.softmax((q @ s.transpose(1, 2)).masked_fill(~mask, float("-inf")), dim=-1)
    p.check("q3", "test_q3_random", lambda R, c=c, ref=ref, s=s: None if pair(R[c]) and
            close(R[c][1], ref, 1e-10) and close(R[c][0], ref @ s, 1e-10) else "wrong")
