"""decoder_attention: the grader's checks (teachers only; run outside the sandbox, see assignments/judge.py).

The decoders' step checks send the weights (a state dict of plain arrays) into the sandbox, where the submission's
class is built and loaded with them; the expected outputs are computed here with the same weights. The training
check asks the sandbox to train a small version of the course's translator with the submission's BahdanauDecoder
on short sentences and to return the trained weights as arrays; here they are loaded (strictly) into the course's
own Bahdanau architecture, which translates longer sentences drawn afresh from the task's generator (never seen in
the sandbox); the BLEU is computed here. Budget and threshold below (GRADING_A3_STEPS, GRADING_A3_MIN_BLEU,
GRADING_A3_SEED, GRADING_A3_SENTENCES); `python -m assignments.calibrate_a3` measures their margins.
"""
import os

import torch
import torch.nn as nn

from assignments.judge import close, failure, is_tensor
from helpers.attention import AdditiveAttention

RULES = {
    "q1": {"defines": ["additive_scores"], "banned": ["AdditiveAttention", "Scorer", "SCORERS"]},
    "q2": {"defines": ["BahdanauDecoder"], "banned": ["kw:wiring", "WIRINGS", "bahdanau", "luong"]},
    "q3": {"defines": ["LuongDecoder"], "banned": ["kw:wiring", "WIRINGS", "bahdanau", "luong"]},
}
# The training check (calibrated by `python -m assignments.calibrate_a3`; assignments/README.md): a small translator
# trained briefly on sentences of at most 10 words, then judged on fresh sentences of 11-20 words, longer than any
# it trained on, which a decoder whose attention does not work cannot translate. Small and brief so that 30
# submissions grade within 5 minutes on 2 cores: the student's decoder runs one Python step per target word, so a
# training step costs about the same at batch 32 as at 64, and short sentences are what make it cheap.
STEPS = int(os.environ.get("GRADING_A3_STEPS", "250"))
MIN_BLEU = float(os.environ.get("GRADING_A3_MIN_BLEU", "20"))
SEED = int(os.environ.get("GRADING_A3_SEED", "0"))
MODEL = {"emb": 32, "hidden": 64, "attn_hidden": 32}   # make_model's sizes, inside the sandbox and outside
BATCH, LR, MAX_TRAIN_LEN, TEST_LENGTHS = 32, 0.01, 10, (11, 20)
SENTENCES = int(os.environ.get("GRADING_A3_SENTENCES", "60"))  # fresh long sentences translated outside


class Parts(nn.Module):
    """The parameters both decoders share, named as in the assignment's classes (the weights sent in)."""

    def __init__(self, vocab, emb, hidden, ctx, attn_hidden, cell_input, embedding=True):
        super().__init__()
        if embedding:
            self.embedding = nn.Embedding(vocab, emb, padding_idx=0)
            self.init = nn.Linear(ctx, hidden)
        self.scorer = AdditiveAttention(hidden, ctx, attn_hidden)
        self.cell = nn.GRUCell(cell_input, hidden)
        self.pre_output = nn.Linear(hidden + ctx + emb, hidden)
        self.output = nn.Linear(hidden, vocab)

    def readout(self, s, context, y):
        return self.output(torch.tanh(self.pre_output(torch.cat([s, context, y], dim=-1))))

    def bahdanau(self, y, s_prev, enc_out, mask):
        context, weights = self.scorer(s_prev[:, None], enc_out, enc_out, mask=mask)
        context, weights = context[:, 0], weights[:, 0]
        s = self.cell(torch.cat([y, context], dim=-1), s_prev)
        return self.readout(s, context, y), s, weights

    def luong(self, y, s_prev, enc_out, mask):
        s = self.cell(y, s_prev)
        context, weights = self.scorer(s[:, None], enc_out, enc_out, mask=mask)
        return self.readout(s, context[:, 0], y), s, weights[:, 0]


def randn(p, *shape, dtype=torch.float32):
    return torch.from_numpy(p.rng.standard_normal(shape)).to(dtype)


def step_matches(got, ref, atol):
    if not isinstance(got, tuple) or len(got) != 3:
        return False
    return all(close(g, r, atol) for g, r in zip(got, ref, strict=True))


def plan(p):
    # q1
    # The example-shaped checks draw their values for this run too: a copied known output earns nothing.
    q, k = randn(p, 2, 3, 4), randn(p, 2, 5, 6)
    W_q, W_k, v = randn(p, 4, 7), randn(p, 6, 7), randn(p, 7)
    with p.apart("q1"):   # where the course's additive scorer, which the decoders below use, computes nothing
        c = p.call("additive_scores", q, k, W_q, W_k, v)
    pre = (q @ W_q)[:, :, None] + (k @ W_k)[:, None]

    def q1_example(R, c=c, pre=pre, v=v):
        got = R[c]
        if failure(got, "additive_scores"):
            return failure(got, "additive_scores")
        if not is_tensor(got, (2, 3, 5)):
            return "for 3 queries and 5 keys the scores should be (batch, T, S) = (2, 3, 5)"
        if close(got, pre @ v):
            return "the tanh is missing: v . tanh(q W_q + k W_k)"
        if close(got, torch.tanh(pre @ v)):
            return "the tanh comes before the product with v, not after"
        return None if close(got, torch.tanh(pre) @ v) else "the scores differ from the course's AdditiveAttention"
    p.check("q1", "test_q1_matches_the_course_scorer", q1_example, public=True)
    b, t, dq, dk, h = (int(x) for x in p.rng.integers(2, 9, size=5))
    s = t + int(p.rng.integers(1, 4))  # n_q ≠ n_k, so swapped query and key axes cannot pass
    q, k = randn(p, b, t, dq, dtype=torch.float64), randn(p, b, s, dk, dtype=torch.float64)
    W_q, W_k, v = (randn(p, dq, h, dtype=torch.float64), randn(p, dk, h, dtype=torch.float64),
                   randn(p, h, dtype=torch.float64))
    with p.apart("q1"):
        c = p.call("additive_scores", q, k, W_q, W_k, v)
    expected = torch.tanh((q @ W_q)[:, :, None] + (k @ W_k)[:, None]) @ v
    p.check("q1", "test_q1_other_sizes", lambda R, c=c, e=expected: None if close(R[c], e, 1e-10) else "wrong")

    # q2: Bahdanau's step on the example sizes, then a padded batch in float64 through forward, then training
    torch.manual_seed(int(p.rng.integers(1 << 30)))
    ref = Parts(12, 6, 8, 10, 5, 6 + 10)
    y, s_prev, enc_out = randn(p, 3, 6), randn(p, 3, 8), randn(p, 3, 4, 10)
    mask = (torch.arange(4)[None, :] < torch.tensor([4, 2, 3])[:, None])[:, None, :]
    c = p.method("BahdanauDecoder", (12, 6, 8, 10), {"attn_hidden": 5}, ref.state_dict(), "step",
                 y, s_prev, enc_out, mask)
    with torch.no_grad():
        expected = ref.bahdanau(y, s_prev, enc_out, mask)
        new_state_w = ref.scorer(expected[1][:, None], enc_out, enc_out, mask=mask)[1][:, 0]

    def q2_step(R, c=c, e=expected, new_state_w=new_state_w):
        got = R[c]
        if not isinstance(got, tuple) or len(got) != 3:
            return failure(got, "BahdanauDecoder") or "step should return (logits, s, weights)"
        logits, s, w = got
        if not is_tensor(w, (3, 4)):
            return "the weights should be (batch, S) = (3, 4): drop the query axis of the scorer's output"
        if not (bool((w[1, 2:] == 0).all()) and bool((w[2, 3:] == 0).all())):
            return "padding positions got weight: pass mask=mask to the scorer"
        if close(w, new_state_w):
            return ("you attended with the new state s_t: in Bahdanau's wiring the query is the previous state "
                    "s_{t-1} (s_prev)")
        if not close(w, e[2]):
            return "the weights are not the scorer's attention of s_prev over the encoder outputs"
        if not close(s, e[1]):
            return ("the new state is not self.cell([y_emb; context], s_prev): in Bahdanau's wiring the context goes "
                    "into the cell's input, after the embedding")
        return None if close(logits, e[0]) else \
            "the logits are not self.output(tanh(self.pre_output([s_t; context; y_emb])))"
    p.check("q2", "test_q2_step_wiring", q2_step, public=True)

    torch.manual_seed(int(p.rng.integers(1 << 30)))
    ref = Parts(9, 5, 7, 6, 4, 5 + 6).double()
    n = 7
    enc_out = randn(p, 5, n, 6, dtype=torch.float64)
    lengths = torch.from_numpy(p.rng.integers(1, n, size=5))  # some padding in every draw
    lengths[0] = n
    pad = torch.arange(n)[None, :] < lengths[:, None]
    summary = randn(p, 5, 6, dtype=torch.float64)
    tgt = torch.from_numpy(p.rng.integers(1, 9, size=(5, 6)))
    with torch.no_grad():
        s = torch.tanh(ref.init(summary))
        state0 = s[None].clone()
        logits, weights = [], []
        for i in range(6):
            lo, s, w = ref.bahdanau(ref.embedding(tgt[:, i]), s, enc_out, pad[:, None, :])
            logits.append(lo)
            weights.append(w)
        expected = (torch.stack(logits, 1), torch.stack(weights, 1), s[None])
    enc = {"outputs": enc_out, "mask": pad, "summary": summary}
    c = p.method("BahdanauDecoder", (9, 5, 7, 6), {"attn_hidden": 4}, ref.state_dict(), "forward",
                    tgt, enc, state0, double=True)
    p.check("q2", "test_q2_forward_over_a_padded_batch", lambda R, c=c, e=expected: None if step_matches(R[c], e, 1e-6)
            else "wrong")

    pairs = long_sentences(int(p.rng.integers(1 << 30)))       # drawn here; the sandbox sees the sources only
    c, first = p.train("BahdanauDecoder", STEPS, SEED, model=MODEL, batch_size=BATCH, lr=LR, max_len=MAX_TRAIN_LEN,
                       translate=[list(pair[0]) for pair in pairs])

    def q2_runs(R, c=c):
        got = R[c]
        state = got.get("state") if isinstance(got, dict) else got
        if not isinstance(state, dict):
            return failure(got, "BahdanauDecoder") or "the course's training loop could not train your decoder"
        trained = fitted(state)
        initial = course_translator(SEED).encoder.state_dict()
        if not all(bool(torch.isfinite(v).all()) for v in trained.values()):
            return "training your decoder in the course's translator gave weights that are not finite"
        if all(torch.equal(trained[f"encoder.{k}"], v) for k, v in initial.items()):
            return "the course's training loop did not change the translator's weights: does the loss reach your step?"
        return None
    p.check("q2", "test_q2_runs_in_the_translator", q2_runs, public=True)

    def q2_trains(R, c=c, pairs=pairs, first=first):
        got = R[c]
        ids = got.get("translations") if isinstance(got, dict) else None
        if not is_tensor(ids) or ids.dim() != 2 or ids.dtype != torch.int64 or ids.shape[0] < first + len(pairs):
            return failure(got, "BahdanauDecoder") or "training did not return the translations"
        bleu = translation_bleu(ids[first:first + len(pairs)], pairs)
        return None if bleu >= MIN_BLEU else \
            f"BLEU {bleu:.1f} on longer sentences than it trained on, after {STEPS} steps ({MIN_BLEU:g} needed)"
    p.check("q2", "test_q2_learns_long_sentences", q2_trains)

    # q3: Luong's step
    for i, (b, s_len, dtype, atol) in enumerate([(2, 3, torch.float32, 1e-5), (4, 6, torch.float64, 1e-10)]):
        torch.manual_seed(int(p.rng.integers(1 << 30)))
        vocab, emb, hidden, ctx, ah = (11, 5, 7, 9, 4) if i == 0 else (6, 4, 3, 5, 2)
        ref = Parts(vocab, emb, hidden, ctx, ah, emb, embedding=False)
        y, s_prev, enc_out = randn(p, b, emb), randn(p, b, hidden), randn(p, b, s_len, ctx)
        lengths = torch.from_numpy(p.rng.integers(1, s_len, size=b))  # some padding in every draw
        lengths[0] = s_len
        mask = (torch.arange(s_len)[None, :] < lengths[:, None])[:, None, :]
        state = ref.state_dict()
        if dtype == torch.float64:
            ref, y, s_prev, enc_out = ref.double(), y.double(), s_prev.double(), enc_out.double()
        with torch.no_grad():
            expected = ref.luong(y, s_prev, enc_out, mask)
            prev_w = ref.scorer(s_prev[:, None], enc_out, enc_out, mask=mask)[1][:, 0]
        c = p.method("LuongDecoder", (vocab, emb, hidden, ctx), {"attn_hidden": ah}, state, "step",
                        y, s_prev, enc_out, mask, double=dtype == torch.float64)

        def q3_step(R, c=c, e=expected, prev_w=prev_w, atol=atol):
            got = R[c]
            if not isinstance(got, tuple) or len(got) != 3:
                return failure(got, "LuongDecoder") or "step should return (logits, s, weights)"
            if not close(got[1], e[1], atol):
                return ("the new state should be self.cell(y_emb, s_prev): in Luong's wiring the cell reads the "
                        "embedding only")
            if close(got[2], prev_w, atol):
                return "you attended with s_prev: Luong's query is the current state s_t (run the cell first)"
            return None if step_matches(got, e, atol) else "the weights or the logits differ from Luong's wiring"
        p.check("q3", "test_q3_step_wiring" if i == 0 else "test_q3_other_sizes", q3_step, public=i == 0)


def course_translator(seed: int = 0):
    """The course's own Bahdanau translator at the training check's sizes (`MODEL`)."""
    from helpers.seq2seq import make_model

    return make_model(seed=seed, wiring="bahdanau", **MODEL)


def fitted(state: dict) -> dict:
    """The returned weights as the course's translator's state dict (names and shapes checked); raises ValueError."""
    expected = course_translator().state_dict()
    tensors = {k: v for k, v in state.items() if is_tensor(v)}
    if set(tensors) != set(expected) or any(tuple(v.shape) != tuple(expected[k].shape) for k, v in tensors.items()):
        raise ValueError("the returned weights do not fit the course's translator")
    return {k: v.to(expected[k].dtype) for k, v in tensors.items()}


def long_sentences(seed: int, n: int = SENTENCES) -> list:
    """`n` fresh pairs of `TEST_LENGTHS` words from the task's generator (here, outside the sandbox)."""
    from helpers.toylang import sample_pairs

    return sample_pairs(n, min_len=TEST_LENGTHS[0], max_len=TEST_LENGTHS[1], seed=seed)


def translation_bleu(ids: torch.Tensor, pairs: list) -> float:
    """Corpus BLEU of the translations the sandbox returned (target ids, made by the submission's own decoder
    with its trained weights) against the references of `pairs`, computed here."""
    from helpers.metrics import corpus_bleu
    from helpers.toylang import target_vocab

    vocab = target_vocab()
    hyps = [vocab.decode(row.tolist()) for row in ids]
    return corpus_bleu(hyps, [pair[1] for pair in pairs])
