"""Answer checkers for the exercises: they say in words what is wrong, and never raise on a wrong answer.

Each checker returns True when the answer is right and False otherwise, and prints one line of feedback.
An answer left as ``None`` gets a friendly "not answered yet" line, so a notebook with open exercises runs clean.
A first wrong try names the likely slip or gives a hint; the expected value appears on a second wrong try of the
same exercise, with ``show_answer=True``, and the worked solution with ``solution("04.2")`` (chapter.exercise).

One module per chapter over a shared core (``core``: feedback, coercion, try counting, solutions):

=====  ======================  ===========================================================================
00     ``start``               check_start_weights
01     ``bottleneck``          check_context_size (and check_translation from ``translation``)
02     ``weighted_average``    check_weighted_average, check_query_favours_key
03     ``qkv``                 check_hand_weights
04     ``softmax_masks``       check_std_scaling, check_stable_softmax, check_causal_mask
05     ``translation``         check_translation, check_alignment, check_most_attended, check_attention_step,
                               check_decoder_step
06     ``scorers``             check_most_parameters, check_dropout_row_sum
07     ``self_attention``      check_self_attention, check_shuffle_prediction, check_multihead_parameters
08     ``cost``                check_attention_mib, check_smallest_batch
=====  ======================  ===========================================================================
"""
from __future__ import annotations

from .bottleneck import check_context_size
from .core import (
                   CHECKERS,
                   as_array,
                   as_number,
                   as_whole_number,
                   check_close,
                   check_weights,
                   exercise_ids,
                   feedback,
                   not_answered,
                   reset_tries,
                   solution,
                   tries,
)
from .cost import check_attention_mib, check_smallest_batch
from .qkv import check_hand_weights
from .scorers import check_dropout_row_sum, check_most_parameters
from .self_attention import check_multihead_parameters, check_self_attention, check_shuffle_prediction
from .softmax_masks import check_causal_mask, check_stable_softmax, check_std_scaling
from .start import check_start_weights
from .translation import (
                   check_alignment,
                   check_attention_step,
                   check_decoder_step,
                   check_most_attended,
                   check_translation,
)
from .weighted_average import check_query_favours_key, check_weighted_average

__all__ = [
    # core
    "feedback", "not_answered", "as_array", "as_number", "as_whole_number", "check_close", "check_weights",
    "solution", "exercise_ids", "tries", "reset_tries", "CHECKERS",
    # chapters
    "check_start_weights", "check_context_size", "check_weighted_average", "check_query_favours_key",
    "check_hand_weights", "check_std_scaling", "check_stable_softmax", "check_causal_mask", "check_translation",
    "check_alignment", "check_most_attended", "check_attention_step", "check_decoder_step", "check_most_parameters",
    "check_dropout_row_sum", "check_self_attention", "check_shuffle_prediction", "check_multihead_parameters",
    "check_attention_mib", "check_smallest_batch",
]
