"""The notebook mutation suite: every chapter that teaches a helper must notice when that helper is broken.

Each case patches a deliberately wrong version of a helper in before the chapter's first cell and runs the
chapter (helpers.devtools.mutations). The run must stop at one of the chapter's own asserts (AssertionError),
not run to the end and not die of an unrelated error. The broken versions are the mistakes a learner or an
author would plausibly make.
"""
import pytest

from helpers import NOTEBOOKS_DIR
from helpers.devtools.mutations import run_mutated

pytestmark = pytest.mark.slow

SOFTMAX_WRONG_AXIS = '''
import helpers.attention as A
_right = A.softmax
def softmax(scores, dim=-1):
    """Broken: always normalises over the first axis."""
    return _right(scores, dim=0)
A.softmax = softmax
'''

NO_SQRT_DK = '''
import helpers.attention as A
_right = A.scaled_dot_product_attention
def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, dropout_p=0.0):
    """Broken: forgets the default 1/sqrt(d_k)."""
    return _right(Q, K, V, mask=mask, scale=1.0 if scale is None else scale, dropout_p=dropout_p)
A.scaled_dot_product_attention = scaled_dot_product_attention
'''

NO_MAX_SHIFT = '''
import torch
import helpers.attention as A
def softmax(scores, dim=-1):
    """Broken: exp without subtracting the maximum (overflows on large scores)."""
    e = torch.exp(scores)
    return e / e.sum(dim=dim, keepdim=True)
A.softmax = softmax
'''

MASK_IGNORED = '''
import helpers.attention as A
def masked_softmax(scores, mask=None):
    """Broken: ignores the mask."""
    return A.softmax(scores, dim=-1)
A.masked_softmax = masked_softmax
'''

DECODER_IGNORES_PADDING = '''
import torch
import helpers.seq2seq as S
def update(self, y_prev, state, keys, enc, prepared=None):
    """Broken: Bahdanau's step attends to the padding too."""
    e = self.embedding(y_prev)
    context, weights = self.scorer(state[:, None, :], keys, enc.outputs, mask=None, prepared=prepared)
    context = self.context_dropout(context[:, 0])
    state = self.cell(torch.cat([e, context], dim=-1), state)
    return e, context, weights[:, 0], state
S.BahdanauDecoder.update = update
'''

ADDITIVE_WITHOUT_TANH = '''
import helpers.attention as A
def score_prepared(self, query, prepared):
    """Broken: the additive score without its tanh (then it is just a linear function)."""
    return self.v(self.W_q(query).unsqueeze(2) + prepared.unsqueeze(1)).squeeze(-1)
A.AdditiveAttention.score_prepared = score_prepared
'''

HEADS_SPLIT_WRONG = '''
import helpers.attention as A
def split_heads(self, x):
    """Broken: reshapes (batch, n, d) straight into (batch, heads, n, d_head), mixing positions across heads."""
    b, n, d = x.shape
    return x.reshape(b, self.n_heads, n, d // self.n_heads)
A.MultiHeadAttention.split_heads = split_heads
'''

MATRIX_BYTES_IGNORE_HEADS = '''
import helpers.cost as C
def score_matrix_bytes(n, batch=1, heads=1, layers=1, bytes_per_entry=4):
    """Broken: forgets the heads."""
    return int(round(n * n * batch * layers * bytes_per_entry))
C.score_matrix_bytes = score_matrix_bytes
'''

T_FROM_THE_NORMAL = '''
import scipy.stats
import helpers.experiments as E
def t_quantile(prob, df):
    """Broken: the normal quantile instead of Student's t (too narrow an interval for a handful of seeds)."""
    return float(scipy.stats.norm.ppf(prob))
E.t_quantile = t_quantile
'''

KV_CACHE_NOT_APPENDED = '''
import helpers.transformer as T
_right = T.LayerCache.append
def append(self, key, value):
    """Broken: keeps the first position's K, V and never appends the newer ones (a stale cache)."""
    return _right(self, key, value) if self.keys.shape[2] == 0 else self
T.LayerCache.append = append
'''

CASES = {
    "02 softmax over the wrong axis": ("02_attention_as_weighted_average.ipynb", SOFTMAX_WRONG_AXIS),
    "03 no 1/sqrt(d_k)": ("03_qkv_by_hand.ipynb", NO_SQRT_DK),
    "04 softmax without the max shift": ("04_scaled_dot_product_softmax_masking.ipynb", NO_MAX_SHIFT),
    "04 mask ignored": ("04_scaled_dot_product_softmax_masking.ipynb", MASK_IGNORED),
    "05 decoder step attends to padding": ("05_attention_translation.ipynb", DECODER_IGNORES_PADDING),
    "06 additive score without tanh": ("06_scoring_functions_and_dropout.ipynb", ADDITIVE_WITHOUT_TANH),
    "06 intervals from the normal, not Student's t": ("06_scoring_functions_and_dropout.ipynb", T_FROM_THE_NORMAL),
    "07 heads split wrongly": ("07_self_attention_and_transformer.ipynb", HEADS_SPLIT_WRONG),
    "08 score matrices without heads": ("08_cost_of_attention.ipynb", MATRIX_BYTES_IGNORE_HEADS),
    "08 KV cache never appended": ("08_cost_of_attention.ipynb", KV_CACHE_NOT_APPENDED),
}


@pytest.mark.parametrize("case", list(CASES))
def test_chapter_asserts_catch_a_broken_helper(case):
    notebook, patch = CASES[case]
    result = run_mutated(NOTEBOOKS_DIR / notebook, patch)
    assert result.ename is not None, f"{notebook} ran to the end with the broken helper ({case})"
    assert result.caught_by_assert, (f"{notebook} stopped at cell {result.cell} with {result.ename}: "
                                     f"{result.evalue}, not at one of its asserts")
