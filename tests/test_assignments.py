"""Teachers' assignments (assignments/): every master builds with otter, the student version hides the solutions and
the hidden tests, and grading gives a solution full marks, an untouched notebook zero, and notebooks with deliberate
mistakes exactly the points of the tests those mistakes do not break (no cascading from one question to the next)."""
import ast
import html
import re

import nbformat
import pytest
from _classroom import ASSIGNMENTS, built, grade, mutate, scores, solution, student

from assignments.build import masters, question_table, secret_lines

SLOW = pytest.mark.slow

# For each assignment: submission name -> (code replacements in the solution notebook, expected points per question).
# "untouched" is the student notebook as handed out (graded for one assignment only: every submission costs about
# 12 s of CPU, and the mistakes cases already show each test failing).
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
                    ("scores = queries @ states.transpose(1, 2)", "scores = queries @ states.transpose(1, 2) / 2")),
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
        # tanh after v (all of q1); no mask in Bahdanau's step (its public step test and the padded-batch test);
        # Luong's step attends with s_prev (all of q3)
        "mistakes": ((("features = torch.tanh((query @ W_q)[:, :, None, :] + (keys @ W_k)[:, None, :, :])",
                       "features = (query @ W_q)[:, :, None, :] + (keys @ W_k)[:, None, :, :]"),
                      ("return features @ v", "return torch.tanh(features @ v)"),
                      ("enc_outputs, enc_outputs, mask=mask)  # query: s_{t-1}",
                       "enc_outputs, enc_outputs, mask=None)"),
                      ("self.scorer(s[:, None, :], enc_outputs", "self.scorer(s_prev[:, None, :], enc_outputs")),
                     {"q1": 0, "q2": 2, "q3": 0}),
        # the context never reaches Bahdanau's cell: the step and padded-batch tests fail, the rest holds
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
MESSAGES = {  # words the public tests must say for a mistake: submission -> phrases in its feedback
    "bottleneck_and_average": {"mistakes": ["finishes at position lengths-1", "weights summing to 1.5 should raise",
                                            "padding position got weight"],
                               "scaled": ["finishes at position 0", "no division by √d here"]},
    "decoder_attention": {"mistakes": ["the tanh comes before the product with v", "padding positions got weight",
                                       "Luong&#x27;s query is the current state s_t"],
                          "no_context_in_cell": ["the context goes into the cell&#x27;s input"]},
    "transformer_and_cost": {"no_transpose": ["mixes tokens across heads"],
                             "mistakes": ["you divided by √d_model", "keys j &lt;= i", "multiply by layers"]},
