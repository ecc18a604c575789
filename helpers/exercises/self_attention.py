"""Chapters 04 and 07 (masking; self-attention and the Transformer): self-attention by hand, a causal mask,
shuffling, heads' parameters."""
from __future__ import annotations

import numpy as np
import torch

from helpers.i18n import t

from .core import (
    Example,
    as_array,
    as_tensor,
    as_whole_number,
    call_learner,
    checker,
    describe,
    feedback,
    not_answered,
    register_solution,
    returned,
    unreadable,
    wrong,
)

__all__ = ["check_self_attention", "check_causal_mask", "check_shuffle_prediction", "check_multihead_parameters"]


def _self_attention(X):
    """The reference answer of 07.1.  X (n, d) -> context (n, d), weights (n, n)"""
    w = torch.softmax(X @ X.T / X.shape[-1] ** 0.5, dim=-1)
    return w @ X, w


def _unscaled_self_attention(X):
    """The classic slip of 07.1: no √d scale."""
    w = torch.softmax(X @ X.T, dim=-1)
    return w @ X, w


def _self_attention_example() -> Example:
    """Exercise 07.1; the slip leaves out the √d scale."""
    return Example(lambda a: check_self_attention(a), _self_attention, _unscaled_self_attention)


@checker(exercises=("07.1",), example=_self_attention_example)
def check_self_attention(fn, name: str = "self_attention", exercise: str = "07.1", show_answer: bool = False) -> bool:
    """Check fn(X (n, d)) -> (context (n, d), weights (n, n)) is scaled dot-product self-attention, Q = K = V = X."""
    if not_answered(fn, name):
        return False
    if not callable(fn) or isinstance(fn, torch.Tensor):
        return unreadable(t("ch07.not_function", name=name, what=describe(fn)))
    X = torch.randn(6, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    ok, out = call_learner(fn, X.clone(), name=name)
    if not ok:
        return wrong(exercise, out + ".", None, show_answer)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        return wrong(exercise, t("ch07.not_pair", name=name, what=returned(out)), None, show_answer)
    context, weights = as_tensor(out[0]), as_tensor(out[1])
    if weights is None:
        return wrong(exercise, t("ch07.weights_none", name=name, what=returned(out[1])), None, show_answer)
    if weights.shape != (6, 6):
        return wrong(exercise, t("ch07.weights_shape", shape=tuple(weights.shape)), None, show_answer)
    scores = X @ X.T / 2.0                                              # (n, n), scaled by sqrt(d) = 2
    if torch.allclose(weights, scores / scores.sum(-1, keepdim=True), atol=1e-6, equal_nan=True):
        return wrong(exercise, t("ch07.no_exp"), None, show_answer)     # normalised without exp
    if not torch.isfinite(weights).all() or (weights < 0).any():
        return wrong(exercise, t("ch07.weights_nan"), None, show_answer)
    right = torch.softmax(scores, dim=-1)
    if not torch.allclose(weights.sum(-1), torch.ones(6, dtype=torch.float64), atol=1e-6):
        columns = torch.allclose(weights, right.T, atol=1e-6)
        return wrong(exercise, t("ch07.softmax_columns" if columns else "ch07.weights_sum"), None, show_answer)
    if not torch.allclose(weights, right, atol=1e-6):
        slips = [(torch.softmax(X @ X.T, dim=-1), t("ch07.not_scaled")),
                 (torch.softmax(X @ X.T / 4.0, dim=-1), t("ch07.divided_by_d")),
                 (torch.softmax(X @ X.T / 6 ** 0.5, dim=-1), t("ch07.divided_by_n")),
                 (torch.softmax(X @ X.T * 2.0, dim=-1), t("ch07.multiplied_by_root_d"))]
        shifted = torch.exp(scores - scores.amax(0))                    # the max over the wrong axis, then rows
        slips.append((shifted / shifted.sum(-1, keepdim=True), t("ch07.max_wrong_axis")))
        for candidate, sentence in slips:
            if torch.allclose(weights, candidate, atol=1e-6):
                return wrong(exercise, sentence, None, show_answer)
        return wrong(exercise, t("ch07.weights_differ"), None, show_answer)
    if context is not None and context.shape == (6, 4) and torch.allclose(context, right.T @ X, atol=1e-6):
        return wrong(exercise, t("ch07.context_transposed"), None, show_answer)
    if context is not None and context.shape == (6, 4) and torch.allclose(context, X, atol=1e-6):
        return wrong(exercise, t("ch07.context_is_x"), None, show_answer)
    if context is None or context.shape != (6, 4) or not torch.allclose(context, right @ X, atol=1e-6):
        return wrong(exercise, t("ch07.context_wrong"), None, show_answer)
    return feedback(True, t("ch07.self_attention_ok"))


# What an answer says happens to the outputs: reordered (equivariant), left as they were (invariant) or changed.
# Checked in this order, so "not just shuffled" is a change and "unchanged except for the order" a reordering.
_NOT_REORDERED = ("not the same way", "not shuffled the same", "not just shuffled", "not only shuffled",
                  "not permuted", "n't permuted", "not just permuted", "not just reordered", "not reordered",
                  "n't reordered", "differently",
                  "不只是打乱", "不仅仅是打乱", "不只是换了顺序")
_REORDERED = ("same way", "shuffled", "permuted", "reordered", "rearranged", "different order", "new order",
              "other order", "the order", "order chang", "order differ", "change order", "changed order",
              "changes order", "change place", "changed place", "changes place", "only moved", "just moved",
              "equivariant",
              "打乱", "置换", "重新排列", "换了顺序", "顺序变", "顺序不同", "等变")
_NOT_CHANGED = ("unchanged", "not change", "n't change", "no change", "nothing chang", "not differ", "n't differ",
                "not different",
                "invariant", "identical",
                "不改变", "没有改变", "没改变", "不变", "没变", "不会变", "没有变", "没有不同")
_CHANGED = ("not the same", "not same", "n't the same", "changed", "change", "different", "differ", "改变", "变了",
            "变化", "不同", "不一样", "不相同")
_SAME = ("same", "一样", "相同")


def _shuffle_reading(text: str) -> str | None:
    """"reordered", "unchanged" or "changed": what an answer says the shuffle does to the outputs (None: unclear)."""
    for words, reading in ((_NOT_REORDERED, "changed"), (_REORDERED, "reordered"), (_NOT_CHANGED, "unchanged"),
                           (_CHANGED, "changed"), (_SAME, "unchanged")):
        if any(w in text for w in words):
            return reading
    return None


def _shuffle_example() -> Example:
    """Exercise 07.4a (no positions); the slip expects the outputs to change."""
    return Example(lambda a: check_shuffle_prediction(a, with_positions=False), "shuffled the same way", "changed")


@checker(exercises=("07.4a", "07.4b"), example=_shuffle_example)
def check_shuffle_prediction(answer, with_positions: bool, name: str = "my_prediction", exercise: str | None = None,
                             show_answer: bool = False) -> bool:
    """What happens to self-attention's outputs when the input sequence is shuffled? Answer "shuffled the same way"
    or "changed". Without positional encodings: shuffled the same way; with them: changed."""
    if not_answered(answer, name):
        return False
    exercise = exercise or ("07.4b" if with_positions else "07.4a")
    if not isinstance(answer, str):
        return unreadable(t("ch07.shuffle_type", name=name, what=describe(answer)))
    text = " ".join(answer.lower().replace("’", "'").split())
    reading = _shuffle_reading(text)
    if reading is None:
        return unreadable(t("ch07.shuffle_unclear", name=name, answer=repr(answer)))
    expected = "changed" if with_positions else "shuffled the same way"  # the answer words stay English
    if reading == ("changed" if with_positions else "reordered"):
        return feedback(True, t("ch07.shuffle_ok_positions") if with_positions else t("ch07.shuffle_ok_set"))
    if reading == "unchanged" and not with_positions:   # invariance: the classic slip (outputs move with their words)
        message = t("ch07.shuffle_not_invariant")
    else:
        message = t("ch07.shuffle_hint_positions") if with_positions else t("ch07.shuffle_hint_set")
    return wrong(exercise, message, repr(expected), show_answer)


def _heads_example() -> Example:
    """Exercise 07.3 at d_model 64, 8 heads; the slip multiplies by the number of heads."""
    return Example(lambda a: check_multihead_parameters(a, 64, 8), 4 * 64 * 64 + 4 * 64, 8 * (4 * 64 * 64 + 4 * 64))


@checker(exercises=("07.3",), example=_heads_example)
def check_multihead_parameters(answer, d_model: int, n_heads: int, bias: bool = True,
                               name: str = "my_parameters", exercise: str = "07.3", show_answer: bool = False) -> bool:
    """Parameters of multi-head attention (W_Q, W_K, W_V, W_O, each d_model × d_model, plus biases if `bias`):
    4·d² + 4·d, whatever the number of heads (torch.nn.MultiheadAttention counts the same)."""
    if not_answered(answer, name):
        return False
    got = as_whole_number(answer, name)
    if got is None:
        return False
    d, h = d_model, n_heads
    weights, biases = 4 * d * d, 4 * d if bias else 0
    right = weights + biases
    if got == right:
        return feedback(True, t("ch07.heads_ok", count=right, h=h, d=d, slice=d // h))
    slips = {h * right: t("ch07.heads_share"),
             h * weights: t("ch07.heads_do_not_multiply"),
             3 * d * d + (3 * d if bias else 0): t("ch07.no_output_projection"),
             3 * d * d + 3 * d: t("ch07.no_output_projection"),
             4 * d * (d // h) + (4 * d // h if bias else 0): t("ch07.one_head")}
    if bias:
        slips.setdefault(weights, t("ch07.biases"))
    else:
        slips.setdefault(weights + 4 * d, t("ch07.no_biases"))
    message = slips.get(got, t("ch07.count_hint_bias" if bias else "ch07.count_hint"))
    return wrong(exercise, t("core.is_value", name=name, value=got, sentence=message), str(right), show_answer)


def _mask_example() -> Example:
    """Exercise 07.2 with n = 6; the slip is the transposed mask (upper triangle)."""
    return Example(lambda a: check_causal_mask(a, 6), torch.ones(6, 6, dtype=torch.bool).tril(),
                   torch.ones(6, 6, dtype=torch.bool).triu())


def _is_bool(mask) -> bool:
    """Is `mask` of a boolean dtype (a bool tensor or array, or nested lists of True/False)?"""
    if isinstance(mask, torch.Tensor):
        return mask.dtype == torch.bool
    try:
        return np.asarray(mask).dtype == bool
    except Exception:
        return False


@checker(exercises=("07.2", "04.3"), example=_mask_example)
def check_causal_mask(mask, n: int, name: str = "my_mask", exercise: str = "07.2", show_answer: bool = False) -> bool:
    """Check a causal mask (n, n): True (may attend) on and below the diagonal, False above it."""
    if not_answered(mask, name):
        return False
    m = as_array(mask, name)
    if m is None:
        return False
    answer = f"torch.ones({n}, {n}, dtype=torch.bool).tril()"
    if m.shape != (n, n):
        squeezed = tuple(k for k in m.shape if k != 1)
        key = "ch07.mask_extra_axis" if m.ndim > 2 and squeezed == (n, n) else "ch07.mask_shape"
        return wrong(exercise, t(key, name=name, shape=tuple(m.shape), n=n), answer, show_answer)
    if np.all((m == 0) | np.isneginf(m)) and np.any(np.isneginf(m)):
        return wrong(exercise, t("ch07.mask_additive", name=name), answer, show_answer)
    if not np.all((m == 0) | (m == 1)):
        return wrong(exercise, t("ch07.mask_bool", name=name), answer, show_answer)
    if not _is_bool(mask):
        return wrong(exercise, t("ch07.mask_not_bool", name=name), answer, show_answer)
    m = m.astype(bool)
    right = np.tril(np.ones((n, n), dtype=bool))
    if np.array_equal(m, right):
        return feedback(True, t("ch07.mask_ok", n=n))
    if n > 1 and np.array_equal(m, right.T):
        return wrong(exercise, t("ch07.mask_transposed"), answer, show_answer)
    if n > 1 and np.array_equal(m, ~right):
        return wrong(exercise, t("ch07.mask_inverted"), answer, show_answer)
    if n > 1 and np.array_equal(m, np.tril(right, -1)):
        return wrong(exercise, t("ch07.mask_no_diagonal"), answer, show_answer)
    if np.any(np.triu(m, 1)):
        i, j = np.argwhere(np.triu(m, 1))[0]
        return wrong(exercise, t("ch07.mask_sees_later", i=i, j=j), answer, show_answer)
    if not np.all(np.diag(m)):
        return wrong(exercise, t("ch07.mask_some_diagonal"), answer, show_answer)
    i, j = np.argwhere(~m & right)[0]
    return wrong(exercise, t("ch07.mask_misses_earlier", i=i, j=j), answer, show_answer)



register_solution("07.2", "a causal mask", """
Rows are queries, columns keys; True means "may attend". Query i may see keys 0..i: on and below the diagonal.

    my_mask = torch.tril(torch.ones(6, 6, dtype=torch.bool))
""", zh_title="因果掩码", zh_text="""
行是查询，列是键；True 表示“可以关注”。查询 i 可以看到键 0..i：对角线及其下方。

    my_mask = torch.tril(torch.ones(6, 6, dtype=torch.bool))
""")

register_solution("04.3", "a mask that hides later words", """
Rows are queries, columns keys; True means "may attend". Word i may see words 0..i, itself and the ones before
it: True on and below the diagonal, False above it. Make it bool, so that `~mask` flips it:

    my_mask = torch.ones(4, 4, dtype=torch.bool).tril()
""", zh_title="遮住后面词的掩码", zh_text="""
行是查询，列是键；True 表示“可以关注”。第 i 个词能看到第 0..i 个词，也就是它自己和它前面的词：
对角线及其下方为 True，上方为 False。要用布尔型，这样 `~mask` 才能把它取反：

    my_mask = torch.ones(4, 4, dtype=torch.bool).tril()
""")

register_solution("07.4a", "shuffling without positions", """
Self-attention sees a set: the score of query i and key j is qᵢ·kⱼ, whatever their places. Shuffle the inputs
and each word still meets the same words with the same scores, so the outputs are shuffled the same way
(self-attention is permutation equivariant). Check it:

    perm = torch.randperm(n)
    print(torch.allclose(attend(X[perm])[0], attend(X)[0][perm]))
""", zh_title="没有位置信息时打乱", zh_text="""
自注意力看到的是一个集合：查询 i 与键 j 的得分是 qᵢ·kⱼ，与它们所在的位置无关。
打乱输入之后，每个词遇到的仍是同样的词、同样的得分，所以输出以同样的方式被打乱
（自注意力是置换等变的）。验证一下：

    perm = torch.randperm(n)
    print(torch.allclose(attend(X[perm])[0], attend(X)[0][perm]))
""")
register_solution("07.4b", "shuffling with positional encodings", """
With positional encodings, the input at place i is word + P[i]. Shuffling moves the words but not the
positions, so each word becomes a different vector: the outputs change (not just their order).
""", zh_title="有位置编码时打乱", zh_text="""
有了位置编码，位置 i 上的输入是 word + P[i]。打乱移动的是词而不是位置，
所以每个词都变成了另一个向量：输出改变了（而不只是顺序变了）。
""")
register_solution("07.1", "self-attention with Q = K = V = X", """
    def my_self_attention(X):
        scores = X @ X.T / math.sqrt(X.shape[-1])     # (n, n)
        weights = torch.softmax(scores, dim=-1)       # each row sums to 1
        return weights @ X, weights                   # (n, d), (n, n)
""", zh_title="Q = K = V = X 的自注意力", zh_text="""
    def my_self_attention(X):
        scores = X @ X.T / math.sqrt(X.shape[-1])     # (n, n)
        weights = torch.softmax(scores, dim=-1)       # 每行之和为 1
        return weights @ X, weights                   # (n, d), (n, n)
""")
register_solution("07.3", "parameters of multi-head attention", """
Four projections W_Q, W_K, W_V, W_O, each d_model × d_model, plus a bias of d_model each. The heads cut the
projected vectors into n_heads slices; they do not add parameters:

    my_parameters = 4 * d_model * d_model + 4 * d_model
    print(sum(p.numel() for p in torch.nn.MultiheadAttention(d_model, n_heads).parameters()))
""", zh_title="多头注意力的参数", zh_text="""
四个投影 W_Q、W_K、W_V、W_O，每个都是 d_model × d_model，另外每个还有 d_model 个偏置。
各个头只是把投影后的向量切成 n_heads 份，并不增加参数：

    my_parameters = 4 * d_model * d_model + 4 * d_model
    print(sum(p.numel() for p in torch.nn.MultiheadAttention(d_model, n_heads).parameters()))
""")
