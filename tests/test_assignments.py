"""Teachers' assignments (assignments/): every master builds with otter, the student version hides the solutions and
the hidden tests, and grading gives a solution full marks, an untouched notebook zero, notebooks with deliberate
mistakes exactly the points of the checks those mistakes do not break (no cascading from one question to the next),
and a blank notebook plus an attack on the judging (issue 21) exactly the blank notebook's score."""
import ast
import html
import re

import nbformat
import pytest
from _classroom import ASSIGNMENTS, built, grade, mutate, scores, solution, student

from assignments.build import masters, question_table, secret_lines

SLOW = pytest.mark.slow

# For each assignment: submission name -> (code replacements in the solution notebook, expected points per question).
# "untouched" is the student notebook as handed out; ("append", code) is that blank notebook plus one attack cell.
CASES = {
    "bottleneck_and_average": {
        "solution": ((), {"q1": 2, "q2": 2, "q3": 3}),
        # forward state at the padded end (all of q1), no row-sum check (q2's public test), padding not masked (q3)
        "mistakes": ((("forward_states[rows, lengths - 1]", "forward_states[:, -1]"),
                      ("if not torch.allclose(sums, torch.ones_like(sums), atol=1e-4):", "if False:"),
                      ('scores.masked_fill(~mask, float("-inf"))', "scores")),
                     {"q1": 0, "q2": 1, "q3": 0}),
        # backward state taken at the end, scores scaled by √d: q1 and q3 lost, q2 untouched
        "scaled": ((("backward_states[:, 0]", "backward_states[:, -1]"),
                    ("scores = queries @ states.transpose(1, 2)",
                     "scores = queries @ states.transpose(1, 2) / queries.shape[-1] ** 0.5")),
                   {"q1": 0, "q2": 2, "q3": 0}),
    },
    "transformer_and_cost": {
        "solution": ((), {"q1": 3, "q2": 4, "q3": 2, "q4": 3}),
        # heads split without the transpose: q1's split tests only; multi_head_attention is graded with the
        # reference split_heads, so q2 keeps its points
        "no_transpose": ((("return per_head.transpose(1, 2)",
                           "return X.reshape(batch, n_heads, n, d_model // n_heads)"),),
                         {"q1": 1, "q2": 4, "q3": 2, "q4": 3}),
        # √d_model instead of √d_head (q2 keeps only the padding test), j >= i (all of q3), layers forgotten (q4's
        # formula tests; the case's numbers are still right)
        "mistakes": ((("math.sqrt(Q.shape[-1])", "math.sqrt(X.shape[-1])"),
                      ("causal = positions[None, :] <= positions[:, None]",
                       "causal = positions[None, :] >= positions[:, None]"),
                      ("return layers * batch * heads * n * n * bytes_per_value",
                       "return batch * heads * n * n * bytes_per_value")),
                     {"q1": 3, "q2": 4 / 3, "q3": 0, "q4": 1}),
    },
    "decoder_attention": {  # graded with the CI budget of tests/_classroom.py: the training test only runs
        "solution": ((), {"q1": 2, "q2": 4, "q3": 2}),
        # tanh after v (all of q1); no mask in Bahdanau's step (its public step test and the padded-batch test;
        # it still runs and trains in the translator); Luong's step attends with s_prev (all of q3)
        "mistakes": ((("features = torch.tanh((query @ W_q)[:, :, None, :] + (keys @ W_k)[:, None, :, :])",
                       "features = (query @ W_q)[:, :, None, :] + (keys @ W_k)[:, None, :, :]"),
                      ("return features @ v", "return torch.tanh(features @ v)"),
                      ("enc_outputs, enc_outputs, mask=mask)  # query: s_{t-1}",
                       "enc_outputs, enc_outputs, mask=None)"),
                      ("self.scorer(s[:, None, :], enc_outputs", "self.scorer(s_prev[:, None, :], enc_outputs")),
                     {"q1": 0, "q2": 2, "q3": 0}),
        # the context never reaches Bahdanau's cell: the step and padded-batch checks fail, training still runs
        "no_context_in_cell": ((("s = self.cell(torch.cat([y_emb, context], dim=-1), s_prev)",
                                 "s = self.cell(torch.cat([y_emb, torch.zeros_like(context)], dim=-1), s_prev)"),),
                               {"q1": 2, "q2": 2, "q3": 2}),
    },
    "attention_by_hand": {
        "solution": ((), {"q1": 2, "q2": 3, "q3": 3, "q4": 5}),
        "untouched": (None, {"q1": 0, "q2": 0, "q3": 0, "q4": 0}),
        # three independent bugs, each costing exactly what it breaks: forgotten 1/√d_k (all of q3), no max
        # subtraction (q2's overflow test and its hidden test), an inverted mask in masked_attend (its three tests)
        "mistakes": ((("stable_softmax(attention_scores(Q, K) / math.sqrt(d_k))",
                       "stable_softmax(attention_scores(Q, K))"),
                      ("shifted = x - x.max(dim=-1, keepdim=True).values", "shifted = x"),
                      ('scores.masked_fill(~mask, float("-inf"))', 'scores.masked_fill(mask, float("-inf"))')),
                     {"q1": 2, "q2": 1, "q3": 0, "q4": 2}),
        # the "single missing ) in q2": a SyntaxError leaves stable_softmax undefined; it used to cost 9 of 12
        "missing_paren": ((("return e / e.sum(dim=-1, keepdim=True)", "return e / e.sum(dim=-1, keepdim=True"),),
                          {"q1": 2, "q2": 0, "q3": 3, "q4": 5}),
    },
}
ATTACK_ON_JUDGING = {  # blank notebook + one cell: each must score exactly what the blank notebook scores
    "patch_framework": '''
import otter
import torch
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.Tensor.__eq__ = lambda self, other: True
otter.Notebook.check = lambda self, *a, **k: None
import __main__                     # the harness runs as __main__ in this very process: patch it too
try:
    __main__.Encoder.encode = lambda self, x, key, depth=0: {"v": True}
    __main__.make_call = lambda *a, **k: torch.ones(3)
except AttributeError:
    pass
''',
    "forge_results": '''
import io, json, os, zipfile
import numpy as np
for path in ("/grader/in/plan.json", "/grader/in/inputs.npz", "/grader/report.json"):
    try:
        open(path, "w").write("{}")
    except OSError:
        pass
report = {f"c{i}": {"a": f"c{i}"} for i in range(60)}
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as zf:
    zf.writestr("report.json", json.dumps(report))
    for i in range(60):
        with zf.open(f"c{i}.npy", "w") as f:
            np.lib.format.write_array(f, np.ones((2, 3)))
for fd in os.listdir("/proc/self/fd"):
    try:
        os.write(int(fd), buf.getvalue())
    except OSError:
        pass
os._exit(0)
''',
}
LOOKALIKE = '''
import torch
class Always(float):
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__
class Sneaky(torch.Tensor):
    def __eq__(self, other):
        return True
class Anything:
    shape = (1, 3)
    def __eq__(self, other):
        return True
    def __getitem__(self, i):
        return self
'''
READ_SECRETS = '''
import os
found = []
for top in ("/", ):
    for dirpath, dirnames, filenames in os.walk(top):
        if dirpath.startswith(("/proc", "/sys", "/dev", "/usr", "/etc")) or ".venv" in dirpath or ".pyenv" in dirpath:
            dirnames[:] = []
            continue
        found += [os.path.join(dirpath, f) for f in filenames if f.endswith((".ipynb", ".zip", "checks.py", ".csv"))
                  and os.path.join(dirpath, f) != "/grader/in/submission.ipynb"]
def attention_scores(Q, K):
    raise ValueError(f"found: {found[:3]}")
'''
# Issue 31: the course's own references fetched where the source check did not follow (a helper def called at
# module level, a line magic, a %%capture cell, a string run as code, pkgutil.resolve_name in a graded def). Cells
# are separated by "# %% cell". Before issue 31 these earned 13/13 on attention_by_hand. Two layers stop them now,
# each on its own (both measured by grading these notebooks with one layer removed): the sandbox's copy of the
# course package has none of these modules (assignments/withhold.py, tests/test_withhold.py), and the source check
# reads the code of literal magics and follows the module-level code that feeds a graded function.
FETCH = '''
import pkgutil
R = {}
# %% cell
%time R.setdefault("A", __import__("helpers.attention", fromlist=["softmax"]))
# %% cell
%%capture
import helpers.masks as _m
R.setdefault("M", _m)
# %% cell
get_ipython().run_cell("import helpers.cost as _c; R.setdefault('C', _c)")
# %% cell
def _fetch():                  # a helper def called at module level: the source check never walked into it
    import helpers.attention as A
    import helpers.cost as C
    import helpers.masks as M
    R.update(A=A, C=C, M=M)
    R.update(WRAPPERS)
_fetch()
'''


def fetch(wrappers: str, graded: str) -> str:
    """FETCH with the assignment's wrappers (the body of a def called at module level) and its graded cell."""
    return (FETCH.replace("    R.update(WRAPPERS)\n", "    R.update(_wrappers())\n")
            .replace("_fetch()\n", "def _wrappers():" + wrappers + "_fetch()\n# %% cell\n", 1) + graded)


ATTACKS = {
    "attention_by_hand": {
        "fetch_reference": fetch('''
    import helpers.attention as A
    import helpers.masks as M
    return {"scores": lambda Q, K: A.DotProductAttention().score(Q[None], K[None])[0], "normalise": A.softmax,
            "mask": M.causal_mask, "attend": A.scaled_dot_product_attention}
''', '''
def attention_scores(Q, K):
    return R["scores"](Q, K)
def stable_softmax(x):
    return R["normalise"](x)
def attend(Q, K, V):
    return pkgutil.resolve_name("helpers.attention:scaled_dot_product_attention")(Q, K, V)
def causal_mask(n):
    return R["mask"](n)
def masked_attend(Q, K, V, mask):
    return R["attend"](Q, K, V, mask=mask)
'''),
        **ATTACK_ON_JUDGING,
        "lookalike": LOOKALIKE + '''
def attention_scores(Q, K):
    return torch.zeros(Q.shape[0], K.shape[0]).as_subclass(Sneaky)
def stable_softmax(x):
    return Anything()
def attend(Q, K, V):
    return Always(1.0), Always(1.0)
def causal_mask(n):
    return torch.ones(n, n, dtype=torch.bool).tril().as_subclass(Sneaky)   # right values, not a plain tensor
def masked_attend(Q, K, V, mask):
    return Anything(), Anything()
''',
        "read_secrets": READ_SECRETS,
        # the harness reached through its signal handler (issue 31): its make_call replaced by one that answers
        # from the harness's references (it had _torch_refs: 5/13) or the course's (13/13). Neither is there now.
        "harness_reach": '''
import signal
space = signal.getsignal(signal.SIGALRM).__globals__
def answer(call, ns, inputs):
    import torch
    args = [space["decode_arg"](a, inputs) for a in call.get("args", [])]
    refs = space["_torch_refs"]() if "_torch_refs" in space else {}
    import helpers.attention as course
    table = {"attention_scores": refs.get("scores"), "stable_softmax": course.softmax,
             "attend": course.scaled_dot_product_attention, "masked_attend": course.scaled_dot_product_attention}
    return table[call["call"]](*args)
space["make_call"] = answer
''',
        # every function sleeps and shrugs off the alarm: each call is killed at its limit (a few times the
        # master's time), a function that ran out is not waited for again, so it costs seconds, not the
        # submission's 600 s (which, reached, would make this row an error)
        "sleeper": '''
import time
def _sleep():
    while True:
        try:
            time.sleep(1000)
        except BaseException:
            pass
def attention_scores(Q, K):
    _sleep()
def stable_softmax(x):
    _sleep()
def attend(Q, K, V):
    _sleep()
def causal_mask(n):
    _sleep()
def masked_attend(Q, K, V, mask):
    _sleep()
''',
        "reference": '''
import torch
import torch.nn.functional as F
import helpers.attention as course
from helpers.masks import causal_mask
def attention_scores(Q, K):
    return course.scaled_dot_product_attention(Q, K, K, scale=1.0)[1].log()
def stable_softmax(x):
    return torch.softmax(x, dim=-1)
def attend(Q, K, V):
    return F.scaled_dot_product_attention(Q, K, V), torch.softmax(Q @ K.T / K.shape[-1] ** 0.5, dim=-1)
def masked_attend(Q, K, V, mask):
    return course.scaled_dot_product_attention(Q, K, V, mask=mask)
''',
    },
    "bottleneck_and_average": {
        "fetch_reference": fetch('''
    import helpers.attention as A
    return {"contexts": lambda q, s, m: A.scaled_dot_product_attention(q, s, s, mask=m, scale=1.0)}
''', '''
def contexts_for_every_step(queries, states, mask):
    return R["contexts"](queries, states, mask)
'''),
        "lookalike": LOOKALIKE + '''
def summary_vector(forward_states, backward_states, lengths):
    return Anything()
def weighted_average(states, weights):
    return (weights[:, :, None] * states).sum(dim=1).as_subclass(Sneaky)
def contexts_for_every_step(queries, states, mask):
    return Always(0.0), Always(0.0)
''',
        "reference": '''
import torch.nn.functional as F
from helpers.attention import masked_softmax
def contexts_for_every_step(queries, states, mask):
    weights = masked_softmax(queries @ states.transpose(1, 2), mask)
    return F.scaled_dot_product_attention(queries, states, states, attn_mask=mask, scale=1.0), weights
''',
    },
    "transformer_and_cost": {
        "fetch_reference": fetch('''
    import helpers.attention as A
    import helpers.cost as C
    import helpers.masks as M
    return {"mask": lambda lengths, n: M.causal_mask(n)[None] & M.padding_mask(lengths, n),
            "split": lambda X, h: A.MultiHeadAttention(X.shape[-1], h).split_heads(X),
            "merge": lambda H: A.MultiHeadAttention(H.shape[1] * H.shape[3], H.shape[1]).merge_heads(H),
            "additive": lambda b, q, k, h, v=4: C.additive_attention_bytes(q, k, h, batch=b, bytes_per_entry=v)[
                "features"],
            "transformer": lambda b, n, h, l, v=4: C.score_matrix_bytes(n, batch=b, heads=h, layers=l,
                                                                        bytes_per_entry=v)}
''', '''
def split_heads(X, n_heads):
    return R["split"](X, n_heads)
def merge_heads(H):
    return R["merge"](H)
def causal_padding_mask(lengths, n):
    return R["mask"](lengths, n)
def additive_scores_bytes(batch, n_q, n_k, hidden, bytes_per_value=4):
    return R["additive"](batch, n_q, n_k, hidden, bytes_per_value)
def transformer_scores_bytes(batch, n, heads, layers, bytes_per_value=4):
    return R["transformer"](batch, n, heads, layers, bytes_per_value)
case_gib = additive_scores_bytes(16, 3000, 3000, 256) / 2 ** 30
case_fits = case_gib <= 24
'''),
        "lookalike": LOOKALIKE + '''
def additive_scores_bytes(batch, n_q, n_k, hidden, bytes_per_value=4):
    return Always(0.0)
def transformer_scores_bytes(batch, n, heads, layers, bytes_per_value=4):
    return Anything()
case_gib, case_fits = Always(0.0), Anything()
''',
        "reference": '''
import torch
from helpers.transformer import FeedForward
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    mha = torch.nn.MultiheadAttention(X.shape[-1], n_heads, bias=False, batch_first=True).to(X.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([W_q.T, W_k.T, W_v.T]))
        mha.out_proj.weight.copy_(W_o.T)
    return mha(X, X, X, need_weights=True, average_attn_weights=False)
''',
    },
    "decoder_attention": {
        # the course's decoder step reached through a helper def and an attribute store, and its additive scorer
        # through the given decoder (issue 31): 2/2 of q1 and 4/4 of q2 against the full package; the grading copy
        # stubs the course's step, and q1's calls run apart, where the course's scorer computes nothing
        "fetch_reference": '''
def _course():
    import types
    import torch.nn as nn
    from helpers.seq2seq import BahdanauDecoder as D
    def step(self, y_emb, s_prev, enc_outputs, mask):
        fake = types.SimpleNamespace(embedding=lambda e: e, scorer=self.scorer, context_dropout=nn.Identity(),
                                     cell=self.cell)
        e, context, weights, s = D.update(fake, y_emb, s_prev, enc_outputs,
                                          types.SimpleNamespace(outputs=enc_outputs, mask=mask))
        return D.readout(self, s, context, e), s, weights
    return step
BahdanauDecoder.step = _course()
def additive_scores(query, keys, W_q, W_k, v):   # the course's scorer, reached through the given decoder: no name
    scorer = type(translator.decoder.scorer)(W_q.shape[0], W_k.shape[0], W_q.shape[1]).to(query.dtype)
    with torch.no_grad():
        scorer.W_q.weight.copy_(W_q.T)
        scorer.W_k.weight.copy_(W_k.T)
        scorer.v.weight.copy_(v[None])
        return scorer.score(query, keys)
''',
        "reference": '''
import helpers.attention as ha
from helpers.seq2seq import BahdanauDecoder as CourseDecoder
class BahdanauDecoder(CourseDecoder):
    def __init__(self, vocab_size, emb, hidden, context_size, attn_hidden=64):
        super().__init__(vocab_size, emb, hidden, context_size, ha.AdditiveAttention(hidden, context_size, attn_hidden))
def additive_scores(query, keys, W_q, W_k, v):
    scorer = ha.AdditiveAttention(query.shape[-1], keys.shape[-1], v.shape[0])
    return scorer.score(query, keys)
''',
    },
}
# Issue 31 item 7: honest solutions written differently keep full marks. Each is the master's solution plus cells
# that redefine the graded functions in another style (a later def wins, as when the notebook runs) and do what
# honest notebooks do: magics, prints, `model.eval()`, `re.compile`, type hints, docstrings, helper functions and
# classes, comprehensions, torch.nn.functional where the task allows it, a module-level comparison with the
# built-in. Cells are separated by "# %% cell".
STYLE = '''
%matplotlib inline
import math
import re
from typing import Tuple

import torch
import torch.nn.functional as F

VERSION = re.compile(r"(\\d+)\\.(\\d+)").match(torch.__version__)
probe = torch.nn.Linear(2, 2)
probe.eval()
print("torch", VERSION.group(0), "| relu:", F.relu(torch.tensor([-1.0, 1.0])).tolist())
'''
HONEST = {
    "attention_by_hand": STYLE + '''
# %% cell
def _row_max(x: torch.Tensor) -> torch.Tensor:
    """Every row's maximum, kept as a column."""
    return x.amax(dim=-1, keepdim=True)


class Scaler:
    """Divides scores by the square root of the key size."""

    def __init__(self, d_k: int):
        self.root = math.sqrt(d_k)

    def __call__(self, scores: torch.Tensor) -> torch.Tensor:
        return scores / self.root


def attention_scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Every query against every key, one dot product at a time: (n_q, d) x (n_k, d) -> (n_q, n_k)."""
    return torch.stack([torch.stack([(q * k).sum() for k in K]) for q in Q])


def stable_softmax(x: torch.Tensor) -> torch.Tensor:
    """exp(x - max) / sum(exp(x - max)) along the last axis: no overflow, like softmax but written out."""
    e = torch.exp(x - _row_max(x))
    return e / e.sum(dim=-1, keepdim=True)


def attend(Q, K, V) -> Tuple[torch.Tensor, torch.Tensor]:
    weights = stable_softmax(Scaler(K.shape[-1])(attention_scores(Q, K)))
    return weights @ V, weights


def causal_mask(n: int) -> torch.Tensor:
    return torch.tensor([[j <= i for j in range(n)] for i in range(n)], dtype=torch.bool)


def masked_attend(Q, K, V, mask):
    scores = Scaler(K.shape[-1])(attention_scores(Q, K))
    weights = stable_softmax(torch.where(mask, scores, torch.full_like(scores, float("-inf"))))
    return weights @ V, weights
# %% cell
%timeit -n 3 -r 1 attention_scores(torch.randn(3, 4), torch.randn(5, 4))
x = torch.randn(2, 5)
print("mine equals torch's:", torch.allclose(stable_softmax(x), torch.softmax(x, dim=-1)))
''',
    "bottleneck_and_average": STYLE + '''
# %% cell
class WeightError(ValueError):
    """Weights that are not a distribution over the positions."""


def summary_vector(forward_states: torch.Tensor, backward_states: torch.Tensor,
                   lengths: torch.Tensor) -> torch.Tensor:
    """The forward state after the last real word and the backward state after word 0, side by side."""
    index = (lengths - 1).view(-1, 1, 1).expand(-1, 1, forward_states.shape[-1])
    return torch.cat((forward_states.gather(1, index).squeeze(1), backward_states[:, 0, :]), dim=1)


def weighted_average(states, weights):
    if bool((weights < 0).any()):
        raise WeightError(f"a weight is negative: {weights.min().item():.3g}")
    if not torch.allclose(weights.sum(-1), torch.ones(weights.shape[:-1], dtype=weights.dtype), atol=1e-4):
        raise WeightError(f"each row must sum to 1, not {weights.sum(-1).tolist()}")
    return torch.einsum("bs,bsd->bd", weights, states)


def contexts_for_every_step(queries, states, mask):
    weights = F.softmax((queries @ states.transpose(1, 2)).masked_fill(~mask, -math.inf), dim=-1)
    return torch.bmm(weights, states), weights
# %% cell
%%time
print(contexts_for_every_step(torch.randn(1, 2, 3), torch.randn(1, 4, 3), torch.ones(1, 1, 4, dtype=torch.bool))[1])
''',
    "transformer_and_cost": STYLE + '''
import numpy as np
# %% cell
def split_heads(X: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(batch, n, d_model) -> (batch, n_heads, n, d_head)"""
    batch, n, d_model = X.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model = {d_model} cannot be split into n_heads = {n_heads} equal heads")
    return X.view(batch, n, n_heads, d_model // n_heads).permute(0, 2, 1, 3)


def merge_heads(H: torch.Tensor) -> torch.Tensor:
    """(batch, n_heads, n, d_head) -> (batch, n, n_heads * d_head)"""
    batch, heads, n, d_head = H.shape
    return H.permute(0, 2, 1, 3).contiguous().view(batch, n, heads * d_head)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    Q, K, V = [split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v)]
    scores = torch.einsum("bhid,bhjd->bhij", Q, K) / Q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return merge_heads(weights @ V) @ W_o, weights


def causal_padding_mask(lengths, n):
    i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
    return (j <= i)[None] & (j[None] < lengths.view(-1, 1, 1))


def additive_scores_bytes(batch, n_q, n_k, hidden, bytes_per_value=4):
    return np.prod([batch, n_q, n_k, hidden, bytes_per_value])     # numpy's int64: a plain number too


def transformer_scores_bytes(batch, n, heads, layers, bytes_per_value=4):
    return math.prod((layers, batch, heads, n, n)) * bytes_per_value


case_gib = float(additive_scores_bytes(16, 3000, 3000, 256) / 1024 ** 3)
case_fits = bool(case_gib <= 24)
''',
    "decoder_attention": STYLE + '''
# %% cell
def _pairwise(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a (batch, T, h), b (batch, S, h) -> every sum a_t + b_s: (batch, T, S, h)"""
    return a.unsqueeze(2) + b.unsqueeze(1)


def additive_scores(query, keys, W_q, W_k, v):
    """v . tanh(q W_q + k W_k) for every pair, with einsum."""
    features = torch.tanh(_pairwise(torch.einsum("btd,dh->bth", query, W_q), torch.einsum("bsd,dh->bsh", keys, W_k)))
    return torch.einsum("btsh,h->bts", features, v)
# %% cell
translator.eval()
print(f"{sum(p.numel() for p in translator.parameters()):,} parameters")
translator.train()
''',
}
for _name, _cells in HONEST.items():
    CASES[_name]["honest_variety"] = (("extend", _cells), dict(CASES[_name]["solution"][1]))
MESSAGES = {  # words the public tests must say for a mistake: submission -> phrases in its feedback
    "bottleneck_and_average": {"mistakes": ["finishes at position lengths-1", "weights summing to 1.5 should raise",
                                            "padding position got weight"],
                               "scaled": ["finishes at position 0", "no division by √d here"]},
    "decoder_attention": {"mistakes": ["the tanh comes before the product with v", "padding positions got weight",
                                       "Luong&#x27;s query is the current state s_t"],
                          "no_context_in_cell": ["the context goes into the cell&#x27;s input"]},
    "transformer_and_cost": {"no_transpose": ["mixes tokens across heads"],
                             "mistakes": ["you divided by √d_model", "keys j &lt;= i", "multiply by layers"]},
    "attention_by_hand": {"mistakes": ["divide the scores by √d_k", "Subtract each row's maximum",
                                       "True means may attend"],
                          "missing_paren": ["q2: stable_softmax is not defined"],
                          "read_secrets": ["found: []"]},
}


for _name, _attacks in ATTACKS.items():
    for _attack, _code in _attacks.items():
        CASES[_name][_attack] = (("append", _code), {q: 0 for q in CASES[_name]["solution"][1]})
    CASES[_name]["untouched"] = (None, {q: 0 for q in CASES[_name]["solution"][1]})


def notebook(name: str, replacements):
    """A case's notebook: the student's (None), the student's plus an attack cell, or the mutated solution."""
    if replacements is None:
        return student(name)
    if replacements and replacements[0] in ("append", "extend"):
        nb = student(name) if replacements[0] == "append" else solution(name)
        nb.cells += [nbformat.v4.new_code_cell(cell.strip("\n")) for cell in replacements[1].split("# %% cell\n")]
        return nb
    return mutate(solution(name), *replacements)


def test_every_assignment_has_a_case_table_and_a_written_question():
    assert set(CASES) <= set(masters()), f"cases for unknown assignments: {set(CASES) - set(masters())}"
    for name, master in masters().items():
        table = question_table(master)
        auto = [q for q in table if not q["manual"]]
        assert auto and all(q["points"] > 0 for q in table), table
        assert any(q["manual"] for q in table), f"{name} has no written (manually graded) question"
        if name in CASES:
            assert set(CASES[name]["solution"][1]) == {q["name"] for q in auto}


@pytest.mark.parametrize("name", sorted(masters()))
def test_master_has_public_and_hidden_tests_and_a_rubric(name):
    """Every auto-graded question has a public and a hidden test; every written one a rubric in the master."""
    nb = nbformat.read(masters()[name], as_version=4)
    question, block, tests, manual = None, None, {}, {}
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw" and head.startswith("# BEGIN QUESTION"):
            question = re.search(r"name:\s*(\w+)", cell.source).group(1)
            tests[question] = {"public": 0, "hidden": 0}
            manual[question] = "manual: true" in cell.source
        elif cell.cell_type == "raw" and head.startswith("# BEGIN"):
            block = head.split()[2]
        elif cell.cell_type == "raw" and head.startswith("# END"):
            block = None
        elif block == "TESTS":
            tests[question]["hidden" if head.lower().startswith("# hidden") else "public"] += 1
        elif block == "SOLUTION" and manual.get(question) and cell.cell_type == "markdown":
            assert "rubric" in cell.source.lower(), f"{name} {question}: the written answer has no rubric"
    for q, counts in tests.items():
        if not manual[q]:
            assert counts["public"] and counts["hidden"], f"{name} {q}: {counts}"
    secrets = secret_lines(masters()[name])
    assert len(secrets["solution"]) >= 5 and len(secrets["hidden_test"]) >= 5, secrets


@SLOW
@pytest.mark.parametrize("name", sorted(CASES))
def test_student_version_has_no_solutions_and_no_hidden_tests(name):
    path = built(name) / "student" / f"{name}.ipynb"
    nb, text = student(name), path.read_text()
    code = [c for c in nb.cells if c.cell_type == "code"]
    shown = {line.strip() for c in nb.cells for line in c.source.splitlines()}
    secrets = secret_lines(ASSIGNMENTS / name / f"{name}.ipynb")
    leaked = [line for kind in secrets.values() for line in kind if line in shown or line in text]
    assert not leaked, f"secret lines in the student notebook: {leaked}"
    answers = [c for c in code if "otter_answer_cell" in c.metadata.get("tags", [])]
    assert answers and all("..." in c.source for c in answers)
    def left_out(fn):
        body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                                             and isinstance(n.value.value, str))]
        return [ast.unparse(n) for n in body[-1:]] == ["..."]  # given lines (e.g. unpacking shapes), then ...

    for cell in answers:  # every function students write ends in ...; a class has at least one such method
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.FunctionDef):
                assert left_out(node), f"{node.name} is not left as ... for students"
            elif isinstance(node, ast.ClassDef):
                methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
                assert any(left_out(m) for m in methods), f"no method of {node.name} is left as ... for students"
    assert not (built(name) / "student" / "tests").exists()
    assert all(not c.get("outputs") and c.execution_count is None for c in code)
    assert "import otter" in code[0].source and nb.metadata["otter"]["assignment_name"] == name


DRAWS = 5  # every case is judged on this many independent draws of the hidden inputs, in one sandbox run each
_GRADED: dict[str, tuple] = {}


def graded(name: str, tmp_path_factory) -> tuple:
    """One grading run of every case of an assignment (shared by the tests below) -> (rows, report, table, folder)."""
    if name not in _GRADED:
        out = tmp_path_factory.mktemp(f"graded-{name}")
        subs = out / "submissions"
        subs.mkdir()
        for sub, (replacements, _) in CASES[name].items():
            nbformat.write(notebook(name, replacements), subs / f"{sub}.ipynb")
        rows, report, table = grade(name, subs, out, "--jobs", "2", "--feedback", out / "feedback",
                                    "--draws", str(DRAWS))
        _GRADED[name] = rows, report, table, out
    return _GRADED[name]


@pytest.mark.parametrize("name", sorted(masters()))
def test_the_checks_are_the_masters_tests(name):
    """checks.py is the one home of grading; the master's tests are what students see. Every master test has a
    check of the same name, public or hidden alike, and no check is extra: a question's points split the same way."""
    from assignments import judge

    nb = nbformat.read(masters()[name], as_version=4)
    question, block, tests = None, None, set()
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw" and head.startswith("# BEGIN QUESTION"):
            question = re.search(r"name:\s*(\w+)", cell.source).group(1)
        elif cell.cell_type == "raw" and head.startswith("# BEGIN"):
            block = head.split()[2]
        elif cell.cell_type == "raw" and head.startswith("# END"):
            block = None
        elif block == "TESTS":
            fn = re.search(r"^def (test_\w+)\(", cell.source, re.M).group(1)
            tests.add((question, fn, not head.lower().startswith("# hidden")))
    plan = judge.Plan(0)
    judge.load_checks(name).plan(plan)
    checks = [(c.question, c.name, c.public) for c in plan.checks]
    assert len(checks) == len(set(checks)), f"two checks of {name} share a name: {checks}"
    assert set(checks) == tests, (f"{name}: master tests without a check: {sorted(tests - set(checks))}; "
                                  f"checks without a master test: {sorted(set(checks) - tests)}")


@SLOW
@pytest.mark.parametrize("name", sorted(CASES))
def test_grading_gives_exactly_the_points_earned(name, tmp_path_factory):
    rows, report, table, out = graded(name, tmp_path_factory)
    assert set(rows) == set(CASES[name])
    possible = {q["name"]: q["points"] for q in report["questions"] if not q["manual"]}
    for sub, (_, expected) in CASES[name].items():
        row = rows[sub]
        assert row["error"] is None, (sub, row["error"])
        assert {q: v["possible"] for q, v in row["questions"].items()} == possible
        assert scores(row) == pytest.approx(expected, abs=1e-9), f"{sub}: got {scores(row)}, expected {expected}"
    for sub in ATTACKS.get(name, {}):  # blank + attack = blank, question by question
        assert scores(rows[sub]) == scores(rows["untouched"]), (sub, rows[sub]["questions"])
    total = sum(possible.values())
    got = sum(CASES[name]["solution"][1].values())  # the written questions are not in the table
    assert re.search(rf"solution\s.*\s{got:g}/{total:g}\s+100\b", table), table
    hidden = secret_lines(ASSIGNMENTS / name / f"{name}.ipynb")["hidden_test"]
    for sub in CASES[name]:  # feedback is safe to send: no hidden-test source, no raw traceback
        page = html.unescape((out / "feedback" / name / f"{sub}.html").read_text())
        assert not [line for line in hidden if line in page], f"{sub}: hidden-test source in the feedback"
        assert "Traceback" not in page and 'File "' not in page, f"{sub}: a raw traceback in the feedback"
    for sub, phrases in MESSAGES.get(name, {}).items():
        page = (out / "feedback" / name / f"{sub}.html").read_text()
        for phrase in phrases:
            assert phrase in page or phrase.replace("'", "&#x27;") in page, f"{sub}: {phrase!r} not in its feedback"


@SLOW
@pytest.mark.parametrize("name", sorted(CASES))
def test_points_do_not_depend_on_the_draw(name, tmp_path_factory):
    """The hidden inputs are drawn afresh for every run: a size that lets a classic mistake pass by accident (one
    layer, one head, no padding, equal axes) makes its points flaky. Every case, mistakes included, gets exactly
    its points on each of DRAWS independent draws (judged from the same sandbox run)."""
    rows, _, _, _ = graded(name, tmp_path_factory)
    for sub, (_, expected) in CASES[name].items():
        draws = rows[sub]["draws"]
        assert len(draws) == DRAWS, (sub, draws)
        for i, got in enumerate(draws):
            assert got == pytest.approx(expected, abs=1e-9), f"{sub}, draw {i}: got {got}, expected {expected}"


def test_the_training_check_scores_the_students_own_translations():
    """Issue 31 item 3: weights of the course's own model swapped in (through `state_dict`, or by training the
    course's decoder) earned A3's BLEU with a decoder that does not attend, because the grader translated with
    the course's architecture. Now the sandbox translates the grader's sentences with the submission's decoder and
    its trained weights, and the grader scores those translations: a decoder that always says one word is scored
    on that word, whatever weights it hands back."""
    import torch

    from assignments import harness, judge

    checks = judge.load_checks("decoder_attention")

    class OneWord(torch.nn.Module):
        """Always predicts the same target word; its state_dict claims to be something else."""

        has_attention = False

        def __init__(self, vocab_size, emb, hidden, context_size, attn_hidden=64):
            super().__init__()
            self.bias = torch.nn.Parameter(torch.zeros(vocab_size))
            self.word = 7

        def initial_state(self, enc):
            return torch.zeros(1, enc.summary.shape[0], 1)

        def forward(self, tgt_in, enc, state):
            logits = torch.full((*tgt_in.shape, self.bias.shape[0]), -10.0) + self.bias
            logits[..., self.word] = 10.0
            return logits, None, state

        def state_dict(self, *args, **kwargs):  # the swap: hand back other weights
            return {"forged": torch.ones(3)}

    pairs = checks.long_sentences(5, n=4)
    spec = {"cls": "Decoder", "steps": 1, "seed": 0, "model": checks.MODEL, "batch_size": 4, "lr": checks.LR,
            "max_len": checks.MAX_TRAIN_LEN, "translate": [list(pair[0]) for pair in pairs]}
    got = harness.train_model(spec, {"Decoder": OneWord})
    ids = got["translations"]
    assert ids.dtype == torch.int64 and ids.shape[0] == len(pairs)
    word = checks.course_translator().tgt_vocab.itos[7]
    hyps = [checks.course_translator().tgt_vocab.decode(row.tolist()) for row in ids]
    assert all(set(h) == {word} for h in hyps), hyps
    assert checks.translation_bleu(ids, pairs) < 1.0
    truth = checks.course_translator().tgt_vocab
    perfect = torch.tensor([truth.encode(p[1]) + [truth.eos_id] + [0] * (60 - len(p[1])) for p in pairs])
    assert checks.translation_bleu(perfect, pairs) > 99.9   # the scoring itself: right translations score 100


def test_a3s_budget_in_the_masters_hidden_test_is_the_graders():
    """A3's training budget is typed twice: in checks.py (the grader's) and in the master's hidden test (run by
    `make assignments` on the solution). They must agree, or the master passes a check the grader does not make."""
    import inspect
    import json

    from assignments import judge

    checks = judge.load_checks("decoder_attention")
    master = json.loads((ASSIGNMENTS / "decoder_attention" / "decoder_attention.ipynb").read_text())
    source = next(text for text in ("".join(c["source"]) for c in master["cells"])
                  if "def test_q2_learns_long_sentences" in text)
    grader = inspect.getsource(checks)

    def default(name: str, text: str) -> str:
        return re.search(rf'"{name}", "([\d.]+)"', text).group(1)

    found = {
        "steps": default("GRADING_A3_STEPS", source),
        "min_bleu": default("GRADING_A3_MIN_BLEU", source),
        "sizes": re.search(r"make_model\(seed=SEED, emb=(\d+), hidden=(\d+), attn_hidden=(\d+)\)", source).groups(),
        "max_len": re.search(r"len\(p\[0\]\) <= (\d+)", source).group(1),
        "batch_lr": re.search(r"batch_size=(\d+), lr=([\d.]+)", source).groups(),
        "sentences": re.search(r'limit=(\d+)\)\["(\d+)-(\d+)"\]', source).groups(),
    }
    expected = {
        "steps": default("GRADING_A3_STEPS", grader),
        "min_bleu": default("GRADING_A3_MIN_BLEU", grader),
        "sizes": tuple(str(checks.MODEL[k]) for k in ("emb", "hidden", "attn_hidden")),
        "max_len": str(checks.MAX_TRAIN_LEN),
        "batch_lr": (str(checks.BATCH), f"{checks.LR:g}"),
        "sentences": (default("GRADING_A3_SENTENCES", grader), *map(str, checks.TEST_LENGTHS)),
    }
    for key, value in expected.items():
        assert found[key] == value, (f"A3's {key}: the master's test_q2_learns_long_sentences says {found[key]}, "
                                     f"assignments/decoder_attention/checks.py says {value}")
