"""Answer checkers for the exercises: they say in words what is wrong, and never raise on a wrong answer.

Each checker returns True when the answer is right and False otherwise, and prints one line of feedback.
An answer left as ``None`` gets a friendly "not answered yet" line, so a notebook with open exercises runs clean.
Autograders (tests, assignments) can use the boolean; learners read the sentence.
"""
from __future__ import annotations

import numpy as np
import torch

__all__ = ["feedback", "not_answered", "as_array", "check_close", "check_weights"]


def feedback(ok: bool, message: str) -> bool:
    """Print a one-line verdict ("Correct: ..." / "Not yet: ...") and return `ok`."""
    print(("Correct: " if ok else "Not yet: ") + message)
    return ok


def not_answered(answer, name: str = "answer") -> bool:
    """True (and a friendly line) when the learner has not filled the answer in yet."""
    if answer is None or answer is Ellipsis:
        print(f"Not answered yet: replace the None in `{name}` with your answer, then run this cell again.")
        return True
    return False


def as_array(answer, name: str = "answer") -> np.ndarray | None:
    """The answer as a float NumPy array, or None (with a message) when it is not numbers."""
    try:
        if isinstance(answer, torch.Tensor):
            return answer.detach().cpu().double().numpy()
        return np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        print(f"Not yet: `{name}` should be a list, array or tensor of numbers; got {type(answer).__name__}.")
        return None


def check_close(answer, expected, name: str = "answer", tol: float = 1e-2) -> bool:
    """Compare numbers (a scalar, list or tensor) with the expected ones within `tol`, saying where they differ."""
    if not_answered(answer, name):
        return False
    got, want = as_array(answer, name), as_array(expected, "expected")
    if got is None:
        return False
    if got.shape != want.shape:
        return feedback(False, f"`{name}` has shape {tuple(got.shape)}; expected shape {tuple(want.shape)}.")
    if not np.all(np.isfinite(got)):
        return feedback(False, f"`{name}` contains NaN or infinity.")
    diff = np.abs(got - want)
    if np.all(diff <= tol):
        return feedback(True, f"`{name}` matches within {tol}.")
    i = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
    where = f" at index {tuple(int(k) for k in i)}" if diff.ndim else ""
    return feedback(False, f"`{name}`{where} is {got[i]:.4f} but should be about {want[i]:.4f}.")


def check_weights(weights, expected=None, name: str = "weights", tol: float = 1e-2) -> bool:
    """Check attention weights: numbers in [0, 1] that sum to 1 along the key axis (last), then (optionally) the values."""
    if not_answered(weights, name):
        return False
    w = as_array(weights, name)
    if w is None:
        return False
    if w.ndim == 0:
        return feedback(False, f"`{name}` is a single number; expected one weight per key.")
    if not np.all(np.isfinite(w)):
        return feedback(False, f"`{name}` contains NaN or infinity.")
    if np.any(w < -1e-9) or np.any(w > 1 + 1e-9):
        return feedback(False, f"`{name}` has values outside [0, 1]: weights are probabilities.")
    sums = w.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=tol):
        return feedback(False, f"`{name}` do not sum to 1 along the key axis (the sums are {np.round(sums, 4).tolist()}).")
    if expected is None:
        return feedback(True, f"`{name}` form a probability distribution over the keys.")
    return check_close(w, expected, name=name, tol=tol)


# --- chapters 02-03: weighted averages, queries and hand-computed weights (issue 4) ---------------------------
def _attention_weights(query, keys, scale: bool, temperature: float = 1.0) -> np.ndarray:
    """softmax(keys · query × factor) for one query.  query (d,), keys (n, d) -> (n,)"""
    from helpers.attention import scaled_dot_product_attention

    q = torch.as_tensor(np.asarray(query, dtype=float))[None, :]
    k = torch.as_tensor(np.asarray(keys, dtype=float))
    factor = (1.0 / np.sqrt(k.shape[-1]) if scale else 1.0) / temperature
    return scaled_dot_product_attention(q, k, k, scale=factor)[1][0].numpy()


def _weights_problem(w: np.ndarray, n: int, name: str) -> str | None:
    """Why `w` is not a set of n attention weights (a sentence), or None when it is one."""
    if w.shape != (n,):
        return f"`{name}` has shape {tuple(w.shape)}; expected one weight per input, shape ({n},)."
    if not np.all(np.isfinite(w)):
        return f"`{name}` contains NaN or infinity."
    if np.any(w < -1e-9):
        return f"`{name}` has a negative weight ({w.min():.3f}); attention weights are never negative."
    if abs(w.sum() - 1.0) > 1e-2:
        return f"`{name}` sum to {w.sum():.3f}; attention weights must sum to 1."
    return None


def check_weighted_average(weights, states, target, name: str = "my_weights", tol: float = 2e-2) -> bool:
    """Do hand-set weights (n,) turn `states` (n, d) into the `target` average (d,)? Says what is off."""
    if not_answered(weights, name):
        return False
    w, H, t = as_array(weights, name), as_array(states, "states"), as_array(target, "target")
    if w is None:
        return False
    problem = _weights_problem(w, H.shape[0], name)
    if problem:
        return feedback(False, problem)
    got = w @ H
    if np.max(np.abs(got - t)) <= tol:
        return feedback(True, f"the weighted average is {np.round(got, 3).tolist()}, as wanted.")
    return feedback(False, f"your weights give the average {np.round(got, 3).tolist()}, "
                           f"but the target is {np.round(t, 3).tolist()}.")


def check_query_favours_key(query, keys, key_index: int, threshold: float = 0.5, scale: bool = False,
                            key_names=None, name: str = "my_query") -> bool:
    """Does `query` (d,) give key `key_index` of `keys` (n, d) at least `threshold` of the softmax weight?"""
    if not_answered(query, name):
        return False
    q, K = as_array(query, name), as_array(keys, "keys")
    if q is None:
        return False
    if q.shape != (K.shape[1],):
        return feedback(False, f"`{name}` has shape {tuple(q.shape)}; expected a vector of shape ({K.shape[1]},).")
    names = list(key_names) if key_names is not None else [f"key {i + 1}" for i in range(K.shape[0])]
    w = _attention_weights(q, K, scale)
    if w[key_index] >= threshold:
        return feedback(True, f"'{names[key_index]}' gets {w[key_index]:.2f} of the weight.")
    top = int(np.argmax(w))
    hint = ("point the query the way that key points, and make it longer to sharpen the softmax"
            if top == key_index else f"right now '{names[top]}' gets the most ({w[top]:.2f})")
    return feedback(False, f"'{names[key_index]}' gets only {w[key_index]:.2f} of the weight "
                           f"(needed: {threshold:.2f}); {hint}.")


def check_hand_weights(weights, query, keys, scale: bool = True, temperature: float = 1.0,
                       name: str = "my_weights", tol: float = 1e-2) -> bool:
    """Check weights (n,) computed by hand for one query (d,) against keys (n, d); names the usual slips."""
    if not_answered(weights, name):
        return False
    w, K = as_array(weights, name), as_array(keys, "keys")
    if w is None:
        return False
    if w.shape != (K.shape[0],):
        return feedback(False, f"`{name}` has shape {tuple(w.shape)}; expected one weight per key, shape ({K.shape[0]},).")
    right = _attention_weights(query, K, scale, temperature)
    if np.max(np.abs(w - right)) <= tol:
        return feedback(True, f"{np.round(right, 4).tolist()}, matching the explorer's weights.")
    scores = K @ np.asarray(query, dtype=float)
    if np.allclose(w, scores, atol=tol):
        return feedback(False, "these are the raw scores Q·K; turn them into weights with softmax.")
    problem = _weights_problem(w, K.shape[0], name)
    if problem:
        return feedback(False, problem)
    if scale and np.max(np.abs(w - _attention_weights(query, K, False, temperature))) <= tol:
        return feedback(False, f"these are the weights WITHOUT the scale; divide the scores by √d_k = √{K.shape[1]} first.")
    if not scale and np.max(np.abs(w - _attention_weights(query, K, True, temperature))) <= tol:
        return feedback(False, "these are the scaled weights; this exercise asks for the unscaled ones.")
    i = int(np.argmax(np.abs(w - right)))
    return feedback(False, f"the weight of key {i + 1} is {w[i]:.4f} but should be about {right[i]:.4f}.")


__all__ += ["check_weighted_average", "check_query_favours_key", "check_hand_weights"]


# --- chapters 04 and 07: softmax, masks, self-attention ---------------------------------------------------------


def check_stable_softmax(fn, name: str = "my_softmax") -> bool:
    """Check a learner's softmax function fn(scores (..., n)) -> weights (..., n): a distribution, exact, overflow-safe."""
    if not_answered(fn, name):
        return False
    if not callable(fn):
        return feedback(False, f"`{name}` should be a function that takes a tensor of scores; got {type(fn).__name__}.")
    cases = [("small scores", torch.tensor([2.0, -1.0, 0.5, 3.0])),
             ("a batch of rows", torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])),
             ("large scores like [1000, 999, 998]", torch.tensor([1000.0, 999.0, 998.0])),
             ("very negative scores like [-1000, -1001]", torch.tensor([-1000.0, -1001.0]))]
    for label, scores in cases:
        try:
            got = torch.as_tensor(fn(scores.clone()), dtype=torch.float32)
        except Exception as e:  # noqa: BLE001 - a learner's error becomes feedback
            return feedback(False, f"`{name}` raised {type(e).__name__}: {e} on {label}.")
        if got.shape != scores.shape:
            return feedback(False, f"on {label} `{name}` returned shape {tuple(got.shape)}; expected {tuple(scores.shape)}.")
        if not torch.isfinite(got).all():
            return feedback(False, f"`{name}` gives NaN or infinity on {label}: subtract each row's maximum before exp.")
        if not torch.allclose(got.sum(-1), torch.ones(got.shape[:-1]), atol=1e-5):
            return feedback(False, f"on {label} the weights do not sum to 1 along the last axis "
                                   f"(sums {[round(float(s), 4) for s in got.sum(-1).reshape(-1)]}).")
        if not torch.allclose(got, torch.softmax(scores, -1), atol=1e-5):
            return feedback(False, f"on {label} the weights differ from softmax's: exp(x - max) / sum(exp(x - max)).")
    return feedback(True, "a distribution on every row, the right values, and no overflow on large scores.")


def check_causal_mask(mask, n: int, name: str = "my_mask") -> bool:
    """Check a causal mask (n, n): True (may attend) on and below the diagonal, False above it."""
    if not_answered(mask, name):
        return False
    m = as_array(mask, name)
    if m is None:
        return False
    if m.shape != (n, n):
        return feedback(False, f"`{name}` has shape {tuple(m.shape)}; expected ({n}, {n}): one row per query, one column per key.")
    if not np.all((m == 0) | (m == 1)):
        return feedback(False, f"`{name}` should hold only True/False (or 1/0).")
    m = m.astype(bool)
    if not np.all(np.diag(m)):
        return feedback(False, "some position cannot see itself: the diagonal must be True.")
    if np.any(np.triu(m, 1)):
        i, j = np.argwhere(np.triu(m, 1))[0]
        return feedback(False, f"query {i} may see key {j}, a later position: everything above the diagonal must be False.")
    if not np.all(np.tril(m)[np.tril_indices(n)]):
        i, j = np.argwhere(~m & np.tril(np.ones((n, n), dtype=bool)))[0]
        return feedback(False, f"query {i} cannot see key {j}, an earlier position: everything below the diagonal must be True.")
    return feedback(True, f"each of the {n} positions sees itself and everything before it, nothing after.")


def check_self_attention(fn, name: str = "self_attention") -> bool:
    """Check fn(X (n, d)) -> (context (n, d), weights (n, n)) is scaled dot-product self-attention with Q = K = V = X."""
    if not_answered(fn, name):
        return False
    if not callable(fn):
        return feedback(False, f"`{name}` should be a function of X; got {type(fn).__name__}.")
    X = torch.randn(6, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    try:
        out = fn(X.clone())
        context, weights = out
    except Exception as e:  # noqa: BLE001 - a learner's error becomes feedback
        return feedback(False, f"`{name}` should return (context, weights); calling it raised {type(e).__name__}: {e}.")
    context, weights = torch.as_tensor(context, dtype=torch.float64), torch.as_tensor(weights, dtype=torch.float64)
    if weights.shape != (6, 6):
        return feedback(False, f"for X of shape (6, 4) the weights have shape {tuple(weights.shape)}; "
                               "expected (6, 6): every word of the sequence against every word.")
    if not torch.isfinite(weights).all() or (weights < 0).any():
        return feedback(False, "the weights contain NaN, infinity or negative numbers.")
    if not torch.allclose(weights.sum(-1), torch.ones(6, dtype=torch.float64), atol=1e-6):
        return feedback(False, "the weights do not sum to 1 along the key axis (each row is one query's distribution).")
    right = torch.softmax(X @ X.T / 2.0, dim=-1)
    if not torch.allclose(weights, right, atol=1e-6):
        if torch.allclose(weights, torch.softmax(X @ X.T, dim=-1), atol=1e-6):
            return feedback(False, "the weights are not scaled: divide the scores X Xᵀ by √d first.")
        return feedback(False, "the weights differ from softmax(X Xᵀ / √d) along each row.")
    if context.shape != (6, 4) or not torch.allclose(context, right @ X, atol=1e-6):
        return feedback(False, "the weights are right but the context is not weights @ X (shape (n, d)).")
    return feedback(True, "every position attends to every position of the same sequence, Q = K = V = X.")


__all__ += ["check_stable_softmax", "check_causal_mask", "check_self_attention"]


# ---------------------------------------------------------------- chapters 01 and 06: the toy translation task
def _as_tokens(answer) -> list[str] | None:
    if isinstance(answer, str):
        return answer.split()
    if isinstance(answer, (list, tuple)) and all(isinstance(t, str) for t in answer):
        return list(answer)
    return None


def check_translation(answer, source, name: str = "my_translation") -> bool:
    """Check a hand translation of a toy-language source sentence (a string or a list of target words)."""
    from helpers.toylang import LEXICON, translate

    if not_answered(answer, name):
        return False
    got = _as_tokens(answer)
    if got is None:
        return feedback(False, f"`{name}` should be a string of target words or a list of them; got {type(answer).__name__}.")
    src = source.split() if isinstance(source, str) else list(source)
    want, align = translate(src)
    strangers = [w for w in got if w not in want]
    if strangers:
        return feedback(False, f"'{strangers[0]}' is not the translation of any word of this sentence; "
                               f"use the lexicon, e.g. {src[0]} -> {LEXICON[src[0]]}.")
    if len(got) != len(want) or sorted(got) != sorted(want):
        return feedback(False, f"every source word has exactly one target word: expected {len(want)} words, "
                               f"each used once; you have {len(got)}.")
    if got == want:
        return feedback(True, "head-final order: nouns before their adjectives and determiners, verbs last.")
    j = next(k for k, (a, b) in enumerate(zip(got, want)) if a != b)
    return feedback(False, f"the words are right but the order is not: target position {j} should be '{want[j]}' "
                           f"(the translation of '{src[align[j]]}'), not '{got[j]}'. Remember: a modifier phrase "
                           "comes before its noun, the noun before its adjectives and determiner, the verb last.")


def check_alignment(answer, source, name: str = "my_alignment") -> bool:
    """Check a hand alignment: for each target word, the position (0-based) of its source word."""
    from helpers.toylang import translate

    if not_answered(answer, name):
        return False
    src = source.split() if isinstance(source, str) else list(source)
    tgt, gold = translate(src)
    try:
        got = [int(a) for a in answer]
    except (TypeError, ValueError):
        return feedback(False, f"`{name}` should be a list of source positions (whole numbers), one per target word.")
    if len(got) != len(gold):
        return feedback(False, f"`{name}` has {len(got)} positions but the translation has {len(gold)} words "
                               f"({' '.join(tgt)}); give one source position per target word.")
    if any(not 0 <= a < len(src) for a in got):
        return feedback(False, f"source positions run from 0 to {len(src) - 1}; `{name}` has {max(got)} or a negative one.")
    if got == gold:
        return feedback(True, "this is the permutation the attention map should trace out.")
    j = next(k for k, (a, b) in enumerate(zip(got, gold)) if a != b)
    return feedback(False, f"target word {j} ('{tgt[j]}') translates source word {gold[j]} ('{src[gold[j]]}'), "
                           f"not {got[j]} ('{src[got[j]]}').")


__all__ += ["check_translation", "check_alignment"]


# --- chapter 05: scoring functions and dropout ------------------------------------------------------------------


def check_most_parameters(scorer, count, d: int = 64, names=("most_params_scorer", "most_params_count")) -> bool:
    """Which scorer has the most parameters when d_q = d_k = h = d, and how many? Checked against the built modules."""
    from helpers.attention import SCORERS, AdditiveAttention, MultiplicativeAttention

    if not_answered(scorer, names[0]):
        return False
    if scorer not in SCORERS:
        return feedback(False, f"`{names[0]}` is {scorer!r}; expected one of {sorted(SCORERS)}.")
    counts = {"additive": sum(p.numel() for p in AdditiveAttention(d, d, d).parameters()),
              "multiplicative": sum(p.numel() for p in MultiplicativeAttention(d, d).parameters()),
              "dot": 0, "scaled_dot": 0}
    best = max(counts, key=counts.get)
    if scorer != best:
        why = ("it has no parameters at all: it only multiplies the vectors it is given" if counts[scorer] == 0 else
               f"its W has d_q·d_k = {counts[scorer]} numbers, fewer than the additive score's W and v")
        return feedback(False, f"not {scorer!r}: {why}.")
    if not_answered(count, names[1]):
        return False
    right = counts[best]
    if count == right:
        return feedback(True, f"'{best}' has h·(d_q + d_k) + h = {right} parameters at d = {d}.")
    hints = {2 * d * d: "that is W alone; v adds h more numbers",
             2 * d * d + 2 * d: "the course's W has no bias; only W (h × (d_q + d_k)) and v (h) count",
             d * d: "that is the multiplicative score's W (d_q × d_k)"}
    return feedback(False, f"`{names[1]}` is {count} but should be {right}: "
                           f"{hints.get(count, 'count W (h × (d_q + d_k)) and v (h)')}.")


def check_dropout_row_sum(answer, p: float, name: str = "expected_row_sum") -> bool:
    """The expected sum of one row of attention weights after nn.Dropout(p) in training mode (it is 1)."""
    if not_answered(answer, name):
        return False
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return feedback(False, f"`{name}` should be one number; got {type(answer).__name__}.")
    if abs(value - 1.0) <= 1e-2:
        return feedback(True, "on average a row still sums to 1: (1 - p) of the weights survive, each × 1/(1 - p).")
    if abs(value - (1 - p)) <= 1e-2:
        return feedback(False, f"{1 - p:.2f} is the share of weights that survive, but nn.Dropout also multiplies "
                               f"each survivor by 1/(1 - p) = {1 / (1 - p):.3f}.")
    if abs(value - 1 / (1 - p)) <= 1e-2:
        return feedback(False, "every survivor is scaled by 1/(1 - p), but on average only (1 - p) of them survive.")
    return feedback(False, f"`{name}` is {value:.3f}; think of which share of weights survives and how they are scaled.")


__all__ += ["check_most_parameters", "check_dropout_row_sum"]
