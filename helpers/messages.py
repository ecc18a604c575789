"""The English of every learner-facing message of the helpers: `ENGLISH = {key: template}`, the source text.

Where the English lives (issue 33): here, a keyed dict in a module of its own, and not a gettext POT/PO pair with the
English as msgids nor strings at the call sites, because
- a key names what a message is for (`ch04.softmax_ok`), so an English rewording keeps the key, and the Chinese
  entry of `helpers/locale/zh/messages.po` (msgctxt = the key, msgid = this English) goes fuzzy for a translator to
  review instead of being orphaned;
- the English is the source, as the notebooks are for the chapters: the PO catalogue is made from it
  (`python -m helpers.devtools.zh extract`), and translators edit only the PO file (Poedit reads it);
- the templates are `str.format` strings whose fields tests compare across languages, and tests find every key
  used in `helpers/` in this one dict;
- in one module of text, the mechanism (`helpers.i18n`: `t`, `set_lang`, the PO reader) is short enough to read.

Keys are grouped by the module that uses them: core.*, describe.*, ch01.* ... ch08.*, widgets.*, plots.*, tables.*,
training.*, experiments.*, toylang.*, setup.*. Adding a message: a key here, then `zh extract` and its msgstr.
"""
from __future__ import annotations

__all__ = ["ENGLISH"]

ENGLISH: dict[str, str] = {
    # ---------------------------------------------------------------------- setup and the shared checker core
    "setup.line": ("Learning to Attend | python {python} | torch {torch} | device {device} | threads {threads} | seed "
                   "{seed}"),
    "setup.lang": " | lang {code}",
    "setup.pinned": "CPU kernels AVX2 (pinned)",  # helpers.pinning.status()'s phrase when pinned (tests check)
    "setup.not_pinned": (
        "Numbers in this run may differ from the committed outputs, in their last digits and, after training, by "
        "more (README, 'Same numbers on every machine'); every assert still checks the claims."),
    # ---------------------------------------------------------------------- attention's shape checks (_check_qkv)
    "attention.not_tensor": "{name} must be a torch.Tensor, got {kind}",
    "attention.too_few_dims": "{name} has shape {shape}; expected at least 2 dimensions (..., {n}, d)",
    "attention.d_k_mismatch": ("Q has shape {q} and K has shape {k}: the last dimension (d_k) must match; expected K "
                               "of shape (..., n_keys, {d})"),
    "attention.n_keys_mismatch": ("K has shape {k} and V has shape {v}: they need the same number of keys; expected V "
                                  "of shape (..., {n}, d_v)"),
    "attention.batch_mismatch": "the batch dimensions of Q {q}, K {k} and V {v} do not match or broadcast",
    "core.correct": "Correct: ",
    "core.not_yet": "Not yet: ",
    "core.not_answered": (
        "Not answered yet: replace the None in `{name}` with your answer, then run this cell again."),
    "core.fallback": "the checker could not read this answer",
    "core.fallback_detail": (
        "{fallback} ({error}: {detail}); check its type and shape."),
    "core.text_not_numbers": (
        "`{name}` is {what}; expected numbers (write them without quotes)."),
    "core.contains_text": (
        "`{name}` contains text; expected numbers (write them without quotes)."),
    "core.not_numbers": (
        "`{name}` is {what}; expected a number, or a list, array or tensor of numbers."),
    "core.unreadable_numbers": (
        "`{name}` is {what} that cannot be read as numbers; expected a number, or a (rectangular) list, array or "
        "tensor of numbers."),
    "core.bool_not_number": "`{name}` is {what}; expected a number.",
    "core.string_not_number": (
        "`{name}` is {what}, not a number; write the number without quotes."),
    "core.not_one_number": "`{name}` is {what}; expected one number.",
    "core.not_finite": (
        "`{name}` is {value}; expected a finite number."),
    "core.not_whole": "`{name}` is {value}; expected a whole number.",
    "core.returned_none": "None (did you forget `return`?)",
    "core.raised": "calling `{name}` raised {error}: {detail}",
    "core.expected": " Expected: {answer}.",
    "core.worked_solution": (
        " Worked solution: helpers.exercises.solution({exercise})."),
    "core.try_again": " Try again (a second wrong try shows the answer).",
    "core.no_solution": (
        "No worked solution for {exercise}; exercise ids are {ids} (chapter.exercise, e.g. '04.2')."),
    "core.solution_head": "Exercise {exercise}: {title}",
    "core.expected_not_number": (
        "the expected value for `{name}` is not a number; this is a mistake in the notebook."),
    "core.wrong_shape": (
        "`{name}` has shape {shape}; expected shape {want}."),
    "core.nan": "`{name}` contains NaN or infinity.",
    "core.close_within": "`{name}` is {value} (within {tol}).",
    "core.close_exact": "`{name}` is {value}.",
    "core.is_value": "`{name}` is {value}: {sentence}",
    "core.at_index": " at index {index}",
    "core.too_high": "`{name}`{where} is {value:.4g}, too high.",
    "core.too_low": "`{name}`{where} is {value:.4g}, too low.",
    "core.single_number": (
        "`{name}` is a single number; expected one weight per key."),
    "core.outside_01": (
        "`{name}` has values outside [0, 1]: weights are probabilities."),
    "core.not_sum_1": (
        "`{name}` do not sum to 1 along the key axis (the sums are {sums})."),
    "core.no_such_key": (
        "`{name}` has shape {shape}; expected a list of weights with a {ordinal} key."),
    "core.most_on_ok": (
        "a distribution with {share:.2f} of the weight on the {ordinal} key."),
    "core.most_on_other": (
        "most of the weight is on the {place} key (position {top} counting from 0); the exercise asks for the "
        "{ordinal} key (position {position})."),
    "core.most_on_not_half": (
        "the {ordinal} key has the largest weight ({share:.2f}) but not most of it: give it more than half."),
    "core.most_on_tie": (
        "the {ordinal} key ties with {others} for the largest weight ({share:.2f}): a tie is not most of the "
        "weight; give it more than half."),
    "core.most_on_others_tie": (
        "{places} tie for the largest weight ({share:.2f}); the exercise asks for the {ordinal} key (position "
        "{position})."),
    "core.key_place": "the {place} key",
    "core.most_on_answer": (
        "any weights, non-negative and summing to 1, with more than 0.5 at position {position} (counting from 0)"),
    "core.distribution_ok": (
        "`{name}` form a probability distribution over the keys."),
    # ---------------------------------------------------------------------- describe(): what a learner passed
    "describe.string": "the string {text!r}",
    "describe.empty_string": "an empty string",
    "describe.bool": "the truth value {value}",
    "describe.tensor": "a tensor of shape {shape}",
    "describe.tensor_grad": "a tensor of shape {shape} that requires grad",
    "describe.array": "an array of shape {shape}",
    "describe.empty": "an empty {kind}",
    "describe.items": "a {kind} of {n} item{s}",
    "describe.number": "the number {value}",
    "describe.function": "a function",
    "describe.object": "a {kind}",
    # ----------------------------------------------------------------------------- chapter 01: the bottleneck
    "ch01.width_tally": (
        "From `{first_set}` to `{last_set}` ({k} buckets), **{wide} minus {narrow}**, paired by seed ({n} seeds, 95% "
        "t-intervals). In absolute BLEU, {wide} is higher on {abs_higher} buckets, lower on {abs_lower}, and not told "
        "apart on {abs_same}; the difference is {first:+.1f} on `{first_set}` and {last:+.1f} on `{last_set}`. Of its "
        "own `{reference}` BLEU it keeps more on {rel_more} buckets, less on {rel_less}, and not told apart on "
        "{rel_same}. "),
    "ch01.width_helps": "So the wider vector **helps**: it scores higher on the buckets that are decided",
    "ch01.width_no_help": "So absolute BLEU does not show the wider vector helping",
    "ch01.width_postpones": (
        ", and it **postpones** the fall: it keeps more of its own short-sentence quality on longer sentences. "),
    "ch01.width_not_postponed": (
        ", but it does **not postpone** the fall: it keeps no more of its own short-sentence quality on any "
        "decided bucket. "),
    "ch01.width_lead_smaller": (
        "Its lead is smaller on `{last_set}` than on `{first_set}`: a curve that sits higher, not a fall moved to "
        "longer sentences. "),
    "ch01.width_interval_scope": (
        "(The intervals are over training seeds on the same test sentences: they say how far the seed moves a "
        "difference, not how another draw of sentences would.)"),
    "ch01.size_ok": (
        "{size} numbers, whatever the length of the sentence: that is the bottleneck."),
    "ch01.one_direction": (
        "that is one GRU's state; the encoder has two (left-to-right and right-to-left), concatenated."),
    "ch01.embedding": (
        "that is the size of one word's embedding, not of the encoder's final state."),
    "ch01.vectors": (
        "count numbers, not vectors: how long is each GRU's final state?"),
    "ch01.too_big": (
        "that is more than the encoder's final states hold: count the numbers in the two GRUs' final states."),
    "ch01.plus_embedding": (
        "that adds a word's embedding ({emb} numbers); the embeddings go into the GRUs, and only the GRUs' final "
        "states reach the decoder."),
    "ch01.plus_embedding_each": (
        "that adds a word's embedding ({emb} numbers) to each GRU's state, {extra} numbers in all; the embeddings go "
        "into the GRUs, and only the GRUs' final states reach the decoder."),
    "ch01.one_direction_plus_embedding": (
        "that is one GRU's state plus an embedding ({emb}); the decoder gets the final states of both GRUs, "
        "concatenated, and no embedding."),
    "ch01.gates": (
        "a GRU has gates inside, but its state has `hidden` numbers: count the final states, not the gates."),
    "ch01.times_length": (
        "that grows with the sentence ({n} × the final states); the decoder gets the final states once, whatever "
        "the length."),
    "ch01.counted_twice": (
        "that counts the context vector twice: the decoder starts from it and gets it again at every step, but it "
        "is one vector, the two GRUs' final states concatenated (each has `hidden` numbers, not 2 × hidden)."),
    "ch01.rule_measure": (
        "a measure word comes right after its determiner (`yi zhi`), before any adjective."),
    "ch01.rule_adj_de": (
        "an adjective is followed by `de`, and the two stand right before their noun."),
    "ch01.rule_le": (
        "`le` comes right after its verb (or at the end of its clause), never before it."),
    "ch01.rule_circumposition": (
        "a place preposition becomes two words around its noun phrase: `zai` before it, the second word right after "
        "the noun."),
    "ch01.rule_place": (
        "a place phrase moves right before its verb: the whole `zai …` phrase, then the verb."),
    "ch01.size_hint": (
        "look at the encoder: how many GRUs, and how many numbers in each final state?"),
    # -------------------------------------------------------------------------- chapter 00: start here
    "ch00.n_weights": (
        "`{name}` has shape {shape}; expected {n} weights, one per key."),
    "ch00.extra_axis": (
        "`{name}` has shape {shape}: an extra axis of length 1. Give a flat list of {n} weights, one per key, "
        "shape ({n},)."),
    # -------------------------------------------------------------------------- chapter 02: weighted averages
    "ch02.weights_shape": (
        "`{name}` has shape {shape}; expected one weight per input, shape ({n},)."),
    "ch02.negative": (
        "`{name}` has a negative weight ({value:.3f}); attention weights are never negative."),
    "ch02.sum": (
        "`{name}` sum to {total:.3f}; attention weights must sum to 1."),
    "ch02.average_ok": "the weighted average is {average}, as wanted.",
    "ch02.average_wrong": (
        "your weights give the average {average}, but the target is {target}: which inputs does the target mix, and "
        "in what shares?"),
    "ch02.query_shape": (
        "`{name}` has shape {shape}; expected a vector of shape ({d},)."),
    "ch02.query_nan": (
        "`{name}` contains NaN or infinity; use finite numbers (a longer query already sharpens the softmax)."),
    "ch02.key_name": "key {n}",
    "ch02.overflow": (
        "`{name}` is so long that the scores overflow; use smaller numbers."),
    "ch02.favours_ok": "'{key}' gets {share:.2f} of the weight.",
    "ch02.point_query": (
        "point the query the way that key points, and make it longer to sharpen the softmax"),
    "ch02.make_longer": (
        "the query already points the right way; make it longer (multiply it by a number) to sharpen the softmax"),
    "ch02.top_key": "right now '{key}' gets the most ({share:.2f})",
    "ch02.top_tie": (
        "right now '{key}' ties with {others} for the most ({share:.2f}), and a longer query keeps the tie: turn "
        "the query towards '{key}'"),
    "ch02.top_keys_tie": "right now {others} tie for the most ({share:.2f})",
    "ch02.query_answer": (
        "for example {name} = {query}, which gives '{key}' {share:.2f} of the weight"),
    "ch02.favours_wrong": (
        "'{key}' gets only {share:.2f} of the weight (needed: {needed:.2f}); {hint}."),
    # ---------------------------------------------------------------------------- chapter 03: Q, K, V by hand
    "ch03.weights_shape": (
        "`{name}` has shape {shape}; expected one weight per key, shape ({n},)."),
    "ch03.ok": "{answer}, matching the explorer's weights.",
    "ch03.raw_scores": (
        "these are the raw scores Q·K; turn them into weights with softmax."),
    "ch03.scaled_scores": (
        "these are the scaled scores, before the softmax; turn them into weights with softmax."),
    "ch03.unscaled": (
        "these are the weights WITHOUT the scale; divide the scores by √d_k = √{d} first."),
    "ch03.scaled": (
        "these are the scaled weights; this exercise asks for the unscaled ones."),
    "ch03.not_normalised": (
        "these are exp of the scores, not yet divided by their sum: weights must sum to 1."),
    "ch03.no_exp": (
        "these are the scores divided by their sum: softmax takes exp of each score first, then divides by the "
        "sum of the exps."),
    "ch03.or_rounded": (
        " (Or the right weights rounded to two decimals: give three.)"),
    "ch03.divided_by_d": (
        "these divide the scores by d_k = {d}; the scale is √d_k = √{d}."),
    "ch03.multiplied": (
        "these multiply the scores by √d_k; divide by √d_k = √{d} instead."),
    "ch03.too_high": (
        "the weight of key {n} is {value:.4f}, too high: scores Q·Kᵢ, divide by √d_k, then exp(sᵢ) / Σ exp(sⱼ)."),
    "ch03.too_low": (
        "the weight of key {n} is {value:.4f}, too low: scores Q·Kᵢ, divide by √d_k, then exp(sᵢ) / Σ exp(sⱼ)."),
    # ------------------------------------------------------------------------ chapter 04: scaling, softmax
    "ch04.variance_first": (
        "the first number is the variance of q·k (d_k); the question asks for the standard deviation, its square "
        "root."),
    "ch04.variances": (
        "{d_k} is the variance of q·k; dividing q·k by √d_k divides its variance by d_k, not by √d_k, and the "
        "question asks for standard deviations, the square roots of the variances."),
    "ch04.divide_std": (
        "dividing q·k by √d_k divides its standard deviation by √d_k too."),
    "ch04.variance_and_divide": (
        "the first is the variance, and dividing by √d_k divides the standard deviation by √d_k."),
    "ch04.grows": (
        "q·k sums d_k products of variance 1 each: its variance grows with d_k."),
    "ch04.swapped_order": (
        "the two numbers are in the wrong order: first the standard deviation of q·k, then that of q·k / √d_k."),
    "ch04.divided_by_dk": (
        "the first number is right; the second divides q·k by d_k instead of √d_k: dividing by √d_k divides the "
        "standard deviation by √d_k."),
    "ch04.variance_by_root": (
        "the first number is right; the second is √(d_k / √d_k), as if dividing q·k by √d_k divided its variance "
        "by √d_k: it divides the variance by d_k, so the standard deviation by √d_k."),
    "ch04.longer": "longer",
    "ch04.two_numbers": (
        "`{name}` is {value}; expected a list of two numbers: [std of q·k, std of q·k / √d_k]."),
    "ch04.std_hint": (
        "the variance of a sum of d_k independent products of variance 1 is d_k; the standard deviation is its "
        "square root."),
    "ch04.second_hint": (
        "the first number is right; for the second, dividing q·k by √d_k divides its standard deviation by √d_k."),
    "ch04.case_small": "small scores",
    "ch04.case_batch": "a batch of rows",
    "ch04.case_large": "large scores like [1000, 999, 998]",
    "ch04.case_negative": "very negative scores like [-1000, -1001]",
    "ch04.case_rows_apart": (
        "two rows hundreds apart, [[0, 1, 2], [800, 801, 802]]"),
    "ch04.case_3d": (
        "a (2, 2, 3) tensor, two batches of two rows hundreds apart, [[[0, 1, 2], [800, 801, 802]], "
        "[[1600, 1601, 1602], [2400, 2401, 2402]]]"),
    "ch04.case_wide": "a row with a wide spread, [-1000, 0, 1000]",
    "ch04.row_min": (
        "each row's minimum is subtracted: the largest score then becomes exp(2000) = inf, and inf/inf is NaN; "
        "subtract each row's maximum instead, so the largest exponent is exp(0) = 1"),
    "ch04.row_mean": (
        "each row's mean is subtracted: a score far above the mean still gives exp(1000) = inf, and inf/inf is NaN; "
        "subtract each row's maximum instead, so the largest exponent is exp(0) = 1"),
    "ch04.low_precision": (
        "on {label} `{name}` returns {dtype}, which keeps only 2 or 3 significant digits, too coarse for weights "
        "checked to 1e-5; compute in the scores' own dtype (float32)."),
    "ch04.global_max": (
        "one maximum of the whole tensor is subtracted: the first row becomes exp(-800) = 0 everywhere, and 0/0 is "
        "NaN; subtract each row's own maximum, x.amax(dim=-1, keepdim=True)"),
    "ch04.column_max": (
        "each column's maximum is subtracted (dim={dim}); the shift must be the same along a row: each row's "
        "maximum, dim=-1"),
    "ch04.axis_max": (
        "the maximum is taken along dim={dim}, across the batch, not along each row; the shift must be the same "
        "along a row: each row's maximum, dim=-1"),
    "ch04.wrong_axis": (
        "the weights sum to 1 along dim={dim}, not along each row: normalise along the last axis, dim=-1 (the "
        "last axis of a 2-D tensor is dim=1, of a 3-D one dim=2)"),
    "ch04.whole_sum": (
        "the weights are divided by one sum over the whole tensor (e.sum()), so only all of them together sum to "
        "1; divide each row by its own sum, e.sum(dim=-1, keepdim=True)"),
    "ch04.index_error": (
        "`{name}` raised IndexError ({detail}): it probably uses an axis that this {ndim}-D tensor does not have, "
        "such as dim=1 on a single row; normalise along the last axis, dim=-1, which every tensor has"),
    "ch04.no_exp": (
        "the scores are divided by their sum, with no exp: softmax takes exp of each score first"),
    "ch04.not_divided": (
        "these are exp(x - max) not yet divided by their sum along the row"),
    "ch04.not_function": (
        "`{name}` should be a function that takes a tensor of scores; got {kind}."),
    "ch04.on_case": "on {label}, {problem}.",
    "ch04.keepdim": (
        "`{name}` raised a RuntimeError: the sizes do not match. Take each row's max and sum with keepdim=True, so "
        "each row's max broadcasts against its row: x.amax(dim=-1, keepdim=True)"),
    "ch04.softmax_answer": (
        "for example {name} = lambda x: torch.exp(x - x.amax(dim=-1, keepdim=True)) / torch.exp(x - x.amax(dim=-1, "
        "keepdim=True)).sum(dim=-1, keepdim=True)"),
    "ch04.returned": (
        "on {label} `{name}` returned {what}; expected a tensor of weights."),
    "ch04.shape": (
        "on {label} `{name}` returned shape {shape}; expected {want}."),
    "ch04.overflow": (
        "`{name}` gives NaN or infinity on {label}: subtract each row's maximum before exp."),
    "ch04.sums": (
        "on {label} the weights do not sum to 1 along the last axis (sums {sums})."),
    "ch04.values": (
        "on {label} the weights differ from softmax's: exp(x - max) / sum(exp(x - max))."),
    "ch04.softmax_ok": (
        "a distribution on every row, the right values, and no overflow on large scores."),
    # ------------------------------------------------------------------------ chapter 06: scorers and dropout
    "ch06.not_a_scorer": (
        "`{name}` is {what}; expected one of the names {names}."),
    "ch06.no_parameters": (
        "it has no parameters at all: it only multiplies the vectors it is given"),
    "ch06.another_has_more": (
        "another scorer has more: write each score's formula and count the numbers in its matrices and vectors"),
    "ch06.not_this_scorer": "not {scorer}: {why}.",
    "ch06.count_ok": "{scorer} has {count} parameters at d = {d}.",
    "ch06.count_of_other": "that is the count of {scorer}",
    "ch06.count_at_size": (
        "that is the count at d = {size}; here d_q = d_k = h = {d}"),
    "ch06.counts_only": (
        "that counts only {counted}; the score also uses {missing}"),
    "ch06.no_bias": (
        "that is {extra} more than the weights: the course's layers have no bias (count_parameters counts none); "
        "count only the weights"),
    "ch06.v_is_not_a_bias": (
        "that leaves out v: the + h in h·(d_q + d_k) + h is v's {h} numbers, not a bias"),
    "ch06.count_everything": (
        "count every matrix and vector of the score's formula at this size"),
    "ch06.count_wrong": "`{name}` is {value}: {slip}.",
    "ch06.dropout_ok": (
        "on average a row still sums to 1: (1 - p) of the weights survive, each × 1/(1 - p)."),
    "ch06.survive_share": (
        "{share:.2f} is the share of weights that survive, but nn.Dropout also multiplies each survivor by 1/(1 - p)."),
    "ch06.only_survivors": (
        "every survivor is scaled by 1/(1 - p), but on average only (1 - p) of them survive."),
    "ch06.dropped_share": (
        "p is the share of weights dropped, not what the row sums to."),
    "ch06.dropout_hint": (
        "`{name}` is {value:.3f}; think of which share of weights survives and how they are scaled."),
    # ---------------------------------------------------------------------- chapter 07: verdicts budget by budget
    "ch07.comma": ", ",
    "ch07.end": ".",
    "ch07.between_sentences": ". ",
    "ch07.transformer_ahead": "the Transformer is ahead",
    "ch07.rnn_ahead": "the RNN with attention is ahead",
    "ch07.no_difference": "no difference is detectable",
    "ch07.budget_item": (
        "- **Budget {k}** ({steps_a} against {steps_b} steps): {verdict} (mean difference {diff:+.1f} BLEU, "
        "{level:.0%} interval {low:+.2f} to {high:+.2f})"),
    "ch07.holds_without_any_seed": "; it stays so with any one seed left out",
    "ch07.hangs_on_one_seed": "; but without seed {seeds} the other seeds would {other}",
    "ch07.hangs_on_seeds": "; but without any one of seeds {seeds} the other seeds would {other}",
    "ch07.flip_undecided": "leave it undecided",
    "ch07.flip_reversed": "reverse it",
    "ch07.same_sign": " (every seed's difference has the same sign)",
    "ch07.mixed_sign": " (the seeds' differences have both signs)",
    "ch07.below_floor": (
        "; the RNN with attention has not learned long sentences yet ({mean:.1f} BLEU, below {floor:.0f}), so this "
        "budget says only which model learns them in fewer steps"),
    "ch07.mid_transition": (
        "; at least one model is still learning (at the next budget the Transformer's mean rises by {rise_a:+.1f} "
        "BLEU and the RNN's by {rise_b:+.1f}, and the RNN's seeds range here from {low:.1f} to {high:.1f}), so this "
        "budget too says only which model learns long sentences in fewer steps, not where either ends up"),
    "ch07.last_budget": (
        "; whether either model would still rise beyond these steps is not measured (there is no larger budget)"),
    "ch07.sinusoidal_ahead": (
        "sinusoidal positions are ahead by {diff:+.1f} BLEU ({level:.0%} interval {low:+.2f} to {high:+.2f})"),
    "ch07.learned_ahead": (
        "learned positions are ahead ({diff:+.1f} BLEU, {level:.0%} interval {low:+.2f} to {high:+.2f})"),
    "ch07.positions_no_difference": (
        "no difference is detectable ({diff:+.1f} BLEU, {level:.0%} interval {low:+.2f} to {high:+.2f})"),
    "ch07.positions_item": (
        "- **{steps} steps.** On {seen_set} words (lengths training saw), {seen}. On the unseen {unseen_set} words, "
        "{unseen}. The growth of the gap from {seen_set} to {unseen_set}: {growth}."),
    "ch07.growth_larger": (
        "{diff:+.1f} BLEU ({level:.0%} interval {low:+.2f} to {high:+.2f}), so the gap is larger on the unseen "
        "lengths"),
    "ch07.growth_smaller": (
        "{diff:+.1f} BLEU ({level:.0%} interval {low:+.2f} to {high:+.2f}), so the gap is smaller on the unseen "
        "lengths"),
    "ch07.growth_undecided": (
        "{diff:+.1f} BLEU ({level:.0%} interval {low:+.2f} to {high:+.2f}): not decided at this budget, the interval "
        "contains 0"),
    "ch07.summary_behind_seen": (
        "At {steps} steps the learned table is behind on {seen_set} words, whose positions training did update: "
        "what holds it back there is not positions it never trained"),
    "ch07.summary_level_seen": "At {steps} steps no gap is detectable on {seen_set} words",
    "ch07.summary_seen_closes": (
        "At {steps} steps no gap is detectable on {seen_set} words any more: on lengths training saw, the data fit a "
        "learned table that learns more slowly"),
    "ch07.summary_grows": (
        "At {steps} steps the learned table loses more on the unseen {unseen_set} words than on lengths training "
        "saw, as rows left at their initial values would make it"),
    "ch07.summary_growth_undecided": (
        "At {steps} steps, whether the never-trained positions add a gap of their own is not decided: the interval "
        "of the growth contains 0 (more seeds would narrow it)"),
    # ---------------------------------------------------------------------- chapter 08: the cost of attention
    "ch08.bytes": "that is bytes; divide by 2²⁰ for MiB.",
    "ch08.megabytes": (
        "that is megabytes (10⁶ bytes); a MiB is 2²⁰ bytes."),
    "ch08.kib": "that is KiB; divide by 2¹⁰ once more for MiB.",
    "ch08.gib": "that is GiB; multiply by 2¹⁰ for MiB.",
    "ch08.bits": "that counts bits; a float32 is 4 bytes.",
    "ch08.entries": (
        "that is the number of entries in Mi; each takes {bytes} bytes."),
    "ch08.float64": (
        "that is float64 (8 bytes); the matrix is float32, {bytes} bytes an entry."),
    "ch08.one_row": "that is one row; the matrix has n rows.",
    "ch08.mib_hint": (
        "entries × bytes per entry, then bytes → MiB."),
    "ch08.not_over": (
        "at batch {batch} the matrices take {gib:.1f} GiB, still not over the limit (did you round down, or use GB = "
        "10⁹ bytes?)."),
    "ch08.layers": (
        "every layer keeps its own attention matrices: multiply by the layers too."),
    "ch08.heads": (
        "every head keeps its own attention matrix: multiply by the heads too."),
    "ch08.heads_and_layers": "count every head of every layer.",
    "ch08.bytes_per_entry": "each entry takes {bytes} bytes.",
    "ch08.batch_hint": (
        "bytes per sentence = n² × heads × layers × bytes per entry; how many sentences go over the limit?"),
    # ---------------------------------------------- chapters 01 and 05: translation, alignment, decoder steps
    "ch05.cannot_translate": (
        "the toy language cannot translate the exercise's sentence {source} ({error}); the notebook needs a sentence "
        "of the current grammar."),
    "ch05.not_words": (
        "`{name}` is {what}; expected a string of target words, e.g. \"word word word\", or a list of words."),
    "ch05.valid": "a valid translation.",
    "ch05.one_of_valid": (
        "a valid translation (one of {n} valid translations)."),
    "ch05.no_words": "`{name}` has no words.",
    "ch05.stranger": (
        "'{word}' is in no valid translation of this sentence; look each source word up in the lexicon (some have no "
        "counterpart at all)."),
    "ch05.too_often": "'{word}' appears more often than the translation needs",
    "ch05.missing": "{n} word(s) are missing: {words}",
    "ch05.a_word_missing": "{words} is missing ({n} differ)",
    "ch05.word_count": "you have {n} words and {what}.",
    "ch05.order": (
        "the words are right but the order is not, from target position {position} (0-based, '{word}') on: {rule}"),
    "ch05.order_rules": "re-read the word-order rules.",
    "ch05.alignment_type": (
        "`{name}` is {what}; expected a list with one entry per target word: a source position (a whole number), or "
        "a list of them ([] for none)."),
    "ch05.entry_not_whole": (
        "entry {k} of `{name}` is {what}; source positions are whole numbers (0-based)."),
    "ch05.entry_range": (
        "entry {k} of `{name}` is {value}; source positions run from 0 to {last}."),
    "ch05.word_name": "word {k}",
    "ch05.entries": (
        "`{name}` has {n} entries but the translation has {words} words ({target}); give one entry per target word."),
    "ch05.permutation_ok": (
        "this is the permutation the attention map should trace out."),
    "ch05.sets_ok": (
        "every target word with its source words, gaps included: the map an ideal decoder traces."),
    "ch05.one_based": (
        "every position is one too high: positions count from 0, the first source word is 0."),
    "ch05.translates_nothing": (
        "entry {j} of `{name}` (target word '{word}') translates no source word: give [] for it."),
    "ch05.translates_something": (
        "entry {j} of `{name}` (target word '{word}') does translate something in the source."),
    "ch05.depends_on_more": (
        "entry {j} of `{name}` (target word '{word}') depends on more source words than {sources}."),
    "ch05.not_all_of": (
        "entry {j} of `{name}` (target word '{word}') does not translate all of {sources}."),
    "ch05.not_source": (
        "entry {j} of `{name}` (target word '{word}') does not translate source word {sources}."),
    "ch05.bad_map": (
        "the attention map given to the checker is not (n_target, n_source); this is a mistake in the notebook."),
    "ch05.looks_hardest": (
        "writing output word {word} (row {row} of the map), the decoder looks hardest at source position {position}."),
    "ch05.map_one_based": (
        "that is the 1-based position; count the x-axis labels from 0."),
    "ch05.map_range": "source positions run from 0 to {last}.",
    "ch05.neighbour": (
        "that is where the decoder looks at a neighbouring output word; output word {word} is row {row} counting "
        "from 0."),
    "ch05.column": (
        "you read a column; each output word is a row of the map (y-axis), each source position a column."),
    "ch05.find_row": (
        "find row {row} (0-based) of the map and its darkest cell."),
    "ch05.not_pair": (
        "returned {what}; expected a pair ({first}, {second})."),
    "ch05.pair_part": (
        "returned a pair whose {label} is {what}; expected a tensor."),
    "ch05.step_not_function": (
        "`{name}` should be a function (query, encoder_states, mask, score_fn); got {what}."),
    "ch05.swapped": (
        "context and weights are swapped: return (context, weights)."),
    "ch05.mask_extra_axis": (
        "the weights have shape ({B}, {B}, {S}): the mask is (B, 1, S), with an axis for the query, and masking "
        "scores (B, S) with it broadcasts to (B, B, S). Drop that axis first: mask[:, 0] is (B, S)."),
    "ch05.query_axis_broadcast": (
        "the weights have shape ({B}, {B}, {S}): an axis of length 1 was added to the mask or the scores, and "
        "(B, 1, S) against (B, S) broadcasts to (B, B, S). Keep both (B, S)."),
    "ch05.weights_shape": (
        "for {B} sentences of {S} source positions the weights have shape {shape}; expected (B, S) = ({B}, {S})."),
    "ch05.no_score_fn": (
        "`score_fn` was never called: get the scores from score_fn(query, encoder_states)."),
    "ch05.raw_scores": (
        "these are the raw scores; turn them into weights with a (masked) softmax over the source positions."),
    "ch05.batch_axis": (
        "the softmax ran over the batch axis (dim 0); each sentence's weights must sum to 1 over its source "
        "positions (dim -1)."),
    "ch05.batch_axis_unmasked": (
        "the softmax ran over the batch axis (dim 0) and the padding is not masked."),
    "ch05.length_one_axis": (
        "every weight is 1: the softmax ran over an axis of length 1 (a feature axis?); normalise over the source "
        "positions (dim -1)."),
    "ch05.unmasked": (
        "the padding is not masked: padded positions get weight. Set their scores to -inf (masked_fill(~mask, "
        "float('-inf'))) before the softmax."),
    "ch05.mask_inverted": (
        "the mask is used the wrong way round: True means a real token that may be attended."),
    "ch05.zeroed_after": (
        "the padded weights were zeroed after the softmax, so the rest no longer sum to 1: mask the scores before "
        "the softmax."),
    "ch05.not_normalised": (
        "the weights are not normalised: divide exp(scores) by their sum over the source positions (that is the "
        "softmax)."),
    "ch05.neither": (
        "the weights are neither normalised nor masked: use a masked softmax."),
    "ch05.divided_by_sum": (
        "the scores are divided by their sum, with no exp: a softmax takes exp of each (masked) score first, then "
        "divides by the sum."),
    "ch05.filled_zero": (
        "the padded scores were set to 0, not -inf: exp(0) = 1, so padding still gets weight. Fill them with "
        "float('-inf') (masked_fill(~mask, float('-inf'))), so that exp gives exactly 0."),
    "ch05.log_softmax": (
        "these are log-weights (log_softmax): they are negative and do not sum to 1. Use torch.softmax, the weights "
        "themselves."),
    "ch05.extra_scale": (
        "the scores were divided by a square root before the softmax: score_fn already returns the scores, and any "
        "scale belongs inside the score function, not in the attention step."),
    "ch05.no_max_shift": (
        "on scores near +1000 and -1000 the weights are NaN: exp(1000) overflows to inf and inf/inf is NaN, and "
        "exp(-1000) underflows to 0 and 0/0 is NaN. The max shift is missing: subtract each sentence's maximum "
        "score before exp, as in chapter 04 (torch.softmax(scores, dim=-1) does it for you)."),
    "ch05.global_max_shift": (
        "on sentences whose scores lie a thousand apart the weights are NaN: one maximum of the whole batch was "
        "subtracted (scores.max()), so a sentence far below it gets exp(-2000) = 0 everywhere, and 0/0 is NaN. "
        "Subtract each sentence's own maximum: scores.amax(dim=-1, keepdim=True)."),
    "ch05.extreme_problem": (
        "on scores near +1000 and -1000, {problem}"),
    "ch05.extreme_differ": (
        "on scores near +1000 and -1000 the weights or the context differ from the masked softmax's: a softmax does "
        "not change when a sentence's scores all move by the same amount, so neither may yours."),
    "ch05.context_broadcast": (
        "the context has shape ({B}, {B}, {C}): weights (B, S) @ encoder_states (B, S, C) multiplies every sentence's "
        "weights with every sentence's states. Give the weights an axis first: (weights.unsqueeze(1) @ "
        "encoder_states)[:, 0], or torch.bmm."),
    "ch05.weights_nan": (
        "the weights contain NaN or infinity on sentences that have real tokens."),
    "ch05.weights_sum": (
        "each sentence's weights must sum to 1 over its source positions; yours sum to {sums}."),
    "ch05.weights_differ": (
        "the weights differ from softmax(score_fn(query, encoder_states)) with the padding masked."),
    "ch05.context_per_sentence": (
        "the context is one number per sentence, as if the weights multiplied the scores; the context is Σₛ weights "
        "· encoder_states, shape (B, C)."),
    "ch05.context_per_position": (
        "the context has one number per source position, like the weights; the context is Σₛ weights · "
        "encoder_states, shape (B, C)."),
    "ch05.context_shape": (
        "the context has shape {shape}; expected (B, C) = ({B}, {C}): one weighted average of the encoder states per "
        "sentence."),
    "ch05.context_unnormalised": (
        "the context is not a weighted average: its weights were not normalised (divide by their sum)."),
    "ch05.context_raw_scores": (
        "the context weights the states by the raw scores; use the softmax weights."),
    "ch05.context_sum": (
        "the context is the plain sum of the states: it ignores the weights."),
    "ch05.context_mean": (
        "the context is the plain mean of the states: it ignores the weights and the mask."),
    "ch05.context_unmasked": (
        "the weights are right but the context was computed with unmasked weights."),
    "ch05.context_wrong": (
        "the weights are right but the context is not Σₛ weights[b, s] · encoder_states[b, s] (shape (B, C))."),
    "ch05.all_padding_problem": (
        "with a sentence that is all padding, {problem}"),
    "ch05.all_padding_shapes": (
        "with a sentence that is all padding the shapes change; they must not."),
    "ch05.all_padding_nan": (
        "a sentence whose every position is padding gets NaN: every score is -inf and softmax computes 0/0. Give "
        "such a row zero weights (helpers.attention.masked_softmax does)."),
    "ch05.all_padding_zeros": (
        "a sentence that is all padding has nothing to attend to: its weights and context should be all zeros, not a "
        "spread over padding."),
    "ch05.step_ok": (
        "masked softmax over the source positions, a weighted average of the encoder states, and no NaN on an "
        "all-padding sentence."),
    "ch05.decoder_not_function": (
        "`{name}` should be a decoder step function; got {what}."),
    "ch05.decoder_count": (
        "`{name}` returned {what}; the step returns {n} value(s)."),
    "ch05.decoder_ok": (
        "your step gives the same outputs as the reference step."),
    "ch05.context_unused": (
        "the output does not change when the encoder states do: the context vector never reaches the output."),
    "ch05.decoder_differs": (
        "{what} differs from the reference step: compare each line with the step on the page{order}."),
    "ch05.order_luong": (
        " (Luong's wiring: embedding, recurrent update, query with the new state, scores, masked softmax, context, "
        "readout)"),
    "ch05.order_bahdanau": (
        " (Bahdanau's wiring: embedding, query with the previous state, scores, masked softmax, context, recurrent "
        "update, readout)"),
    "ch05.luong_previous_query": (
        "the query is the previous state s_{{t-1}} (Bahdanau's wiring); Luong's wiring runs the GRU first and "
        "queries with the new state s_t."),
    "ch05.step_unmasked": (
        "padding gets weight: pass the mask (enc.mask) to the softmax, so that padded positions get 0."),
    "ch05.step_summary": (
        "the context is the encoder's summary (chapter 01's fixed vector), not the weighted average of the encoder "
        "states."),
    "ch05.step_old_state": (
        "the step returns the old state s_{{t-1}}; return the new state s_t, the next step's input."),
    "ch05.step_mask_inverted": (
        "the mask is used the wrong way round: enc.mask is True at real words, so padding gets the weight and the "
        "real words get none. Pass enc.mask as it is."),
    "ch05.step_no_tanh": (
        "the readout leaves out its tanh: the logits are decoder.output(tanh(decoder.pre_output([s_t; c_t; e]))) "
        "(decoder.readout does it)."),
    "ch05.step_probabilities": (
        "these are probabilities (the softmax of the logits): the step returns the logits, the scores before the "
        "softmax; the loss and greedy decoding take them from there."),
    "ch05.step_log_probabilities": (
        "these are log-probabilities (log_softmax of the logits): return the logits themselves."),
    "ch05.step_readout_order": (
        "the readout's input is {order}; the readout was trained on [s_t; c_t; e], in that order (torch.cat([s_t, "
        "context, e], dim=-1))."),
    "ch05.output_k": "output {k} of {n}",
    "ch05.output_named": "output {k} of {n} ({name})",
    "ch05.output_logits": "logits",
    "ch05.output_weights": "weights",
    "ch05.output_state": "state",
    "ch05.decoder_axis": (
        "{what} has shape {shape}; expected {want}: the values are right, but an axis of length 1 is extra or "
        "missing. Index it away (x[:, 0] drops the query axis of the scorer's (B, 1, S) weights, x[0] the layer "
        "axis of an nn.GRU state) or add it (x[:, None])."),
    "ch05.decoder_shape": (
        "{what} has shape {shape}; expected {want}."),
    "ch07.divided_by_d": (
        "the scores are divided by d = 4; the scale is √d = 2."),
    "ch07.softmax_columns": (
        "the softmax runs down the columns (dim=0): each query's row of weights must sum to 1, so use dim=-1. "
        "(Dividing by the row sums without keepdim=True does the same: they broadcast along the wrong axis.)"),
    "ch07.max_wrong_axis": (
        "the maximum was subtracted along the wrong axis (dim=0, one per column): subtract each row's own maximum, "
        "scores.amax(-1, keepdim=True)."),
    "ch07.context_transposed": (
        "the weights are right, but the context uses them transposed (weights.T @ X): row i of the context is "
        "Σⱼ weights[i, j] · X[j], that is weights @ X."),
    "ch07.mask_shape": (
        "`{name}` has shape {shape}; expected ({n}, {n}): one row per query, one column per key."),
    "ch07.mask_extra_axis": (
        "`{name}` has shape {shape}: an extra axis of length 1. The mask of this exercise is ({n}, {n}), one row per "
        "query and one column per key; drop the extra axis (the batch axis is added where a batch is masked)."),
    "ch07.mask_additive": (
        "`{name}` is an additive float mask (0 where allowed, -inf where hidden, as torch's attn_mask); the course's "
        "masks are bool, True = may attend."),
    "ch07.mask_bool": "`{name}` should hold only True/False.",
    "ch07.mask_not_bool": (
        "`{name}` is a float/int mask of 1s and 0s: use dtype=torch.bool (the course's `attention` flips a mask "
        "with `~mask`, which needs bool)."),
    "ch07.mask_ok": (
        "each of the {n} positions sees itself and everything before it, nothing after."),
    "ch07.mask_transposed": (
        "the mask is transposed: rows are queries and columns keys, so query i may see keys j ≤ i, below the "
        "diagonal."),
    "ch07.mask_inverted": (
        "the mask is inverted: True means MAY attend, so the allowed part (on and below the diagonal) is True."),
    "ch07.mask_no_diagonal": (
        "no position can see itself: the diagonal must be True."),
    "ch07.mask_sees_later": (
        "query {i} may see key {j}, a later position: everything above the diagonal must be False."),
    "ch07.mask_some_diagonal": (
        "some position cannot see itself: the diagonal must be True."),
    "ch07.mask_misses_earlier": (
        "query {i} cannot see key {j}, an earlier position: everything below the diagonal must be True."),
    "ch07.not_function": (
        "`{name}` should be a function of X; got {what}."),
    "ch07.not_pair": (
        "`{name}` returned {what}; it should return (context, weights)."),
    "ch07.weights_none": (
        "`{name}` returned weights that are {what}; expected an (n, n) tensor."),
    "ch07.weights_shape": (
        "for X of shape (6, 4) the weights have shape {shape}; expected (6, 6): every word of the sequence against "
        "every word."),
    "ch07.weights_nan": "the weights contain NaN, infinity or negative numbers.",
    "ch07.weights_sum": (
        "the weights do not sum to 1 along the key axis (each row is one query's distribution)."),
    "ch07.not_scaled": (
        "the weights are not scaled: divide the scores X Xᵀ by √d first."),
    "ch07.weights_differ": (
        "the weights differ from softmax(X Xᵀ / √d) along each row. Check the three steps: the scores are X @ X.T "
        "(n, n), with Q = K = X and no other projection; divide them by √d, d = X.shape[-1]; softmax along the last "
        "axis."),
    "ch07.divided_by_n": (
        "you divided the scores by √n, the square root of the number of words; the scale is √d, d = X.shape[-1] "
        "(the features of one word)."),
    "ch07.multiplied_by_root_d": (
        "you multiplied the scores by √d; divide them by √d instead."),
    "ch07.context_is_x": (
        "the weights are right but the context is X itself: each output should be the weighted average of the "
        "rows of X, weights @ X."),
    "ch07.context_wrong": (
        "the weights are right but the context is not weights @ X (shape (n, d)): multiply the (n, n) weights by the "
        "(n, d) values X, in that order."),
    "ch07.self_attention_ok": (
        "every position attends to every position of the same sequence, Q = K = V = X."),
    "ch07.no_exp": (
        "the weights are the scores divided by their sum, with no exp: softmax takes exp of every score first, so "
        "every weight is positive and the rows sum to 1 whatever the scores' signs."),
    "ch07.shuffle_type": (
        "`{name}` is {what}; answer with a sentence: \"shuffled the same way\" or \"changed\"."),
    "ch07.shuffle_unclear": (
        "`{name}` is {answer}; answer \"shuffled the same way\" or \"changed\"."),
    "ch07.shuffle_ok_positions": (
        "changed: the positional encodings are added to the words, so a word in a new place is a different vector."),
    "ch07.shuffle_ok_set": (
        "shuffled the same way: each output depends only on its own input and the set of all inputs."),
    "ch07.shuffle_hint_positions": (
        "the positional encodings tie each vector to its place: after the shuffle, a word carries a different "
        "position. What does that do to its scores?"),
    "ch07.shuffle_not_invariant": (
        "\"unchanged\" would mean every output stays where it was. Does it? Each word's output moves with its word, so "
        "the outputs come out in the new order (equivariant, not invariant). Which is it, then: \"shuffled the same "
        "way\" or \"changed\"?"),
    "ch07.shuffle_hint_set": (
        "without positions, does any score qᵢ·kⱼ depend on where word j stands? Follow one word through the shuffle."),
    "ch07.heads_ok": (
        "{count} parameters: the {h} heads split d_model = {d} into {h} slices of {slice}, they do not multiply the "
        "projections."),
    "ch07.heads_share": (
        "the heads share d_model: each head projects to d_model / n_heads numbers, so the heads do not multiply the "
        "parameter count."),
    "ch07.heads_do_not_multiply": (
        "the heads do not multiply the count (each projects to d_model / n_heads numbers)."),
    "ch07.no_output_projection": (
        "that is Q, K and V; the output projection W_O counts too."),
    "ch07.one_head": (
        "that is one head's slice; the heads together span d_model."),
    "ch07.biases": (
        "the four projections also have a bias each (d_model numbers)."),
    "ch07.no_biases": "these projections have no bias; count only the weights.",
    "ch07.count_hint_bias": (
        "count the four projections W_Q, W_K, W_V, W_O and their biases."),
    "ch07.count_hint": "count the four projections W_Q, W_K, W_V, W_O.",
    # ------------------------------------------------------------------ plots: default labels (helpers.plotting)
    "plots.attention_title": "Attention weights",
    "plots.attention_xlabel": "keys (attended positions)",
    "plots.queries": "queries",
    "plots.keys": "keys",
    "plots.weight_01": "weight (0-1)",
    "plots.mask_title": "Mask",
    "plots.mask_legend": "(blue: visible, grey: hidden)",
    "plots.lookback_title": "The decoder looks back at every input word",
    "plots.lookback_encoder": "encoder\n(input words)",
    "plots.lookback_decoder": "decoder\n(output steps)",
    "plots.lookback_step": "{token}\n(step {step})",
    "plots.lookback_legend": "line width = attention weight",
    "plots.explorer_vectors": "Q and the keys",
    "plots.explorer_scores": "raw scores Q·K",
    "plots.explorer_score": "score",
    "plots.explorer_weights": "softmax weights",
    "plots.explorer_value_dim": "value dimension {n}",
    "plots.explorer_context": "context = Σ weight·V",
    "plots.explorer_unscaled": "no √d_k",
    "plots.explorer_softmax": (
        "softmax(score × {factor:.3f}): {how}, T = {temperature:.2f}"),
    "plots.metric_bleu": "BLEU (0-100)",
    "plots.metric_exact": "exact match (%)",
    "plots.metric_align": "alignment accuracy (%)",
    "plots.metric_mass": "attention mass on the gold words (%)",
    "plots.metric_retained": "share kept of own 4-10 BLEU (%)",
    "plots.unseen_length": "{bucket}\n(unseen length)",
    "plots.source_length": "source sentence length (words)",
    "plots.by_length_title": "{metric} by sentence length",
    "plots.budget_xlabel": (
        "training CPU seconds (one thread; numbers: steps)"),
    "plots.chance": "chance ({chance:.0f}%)",
    "plots.probe_accuracy": "probe accuracy (%)",
    "plots.gradient_ylabel": "|d loss / d first word| (log scale)",
    "plots.aligned_gradient_ylabel": "gradient / output error (log scale)",
    "plots.chain_distance": "distance through the chain (encoder steps to the nearer end)",
    "plots.seed": "seed {seed}",
    "plots.mean_std": "mean ± 1 std",
    "plots.mean_t_interval": "mean, {level:.0%} t-interval",
    "plots.seed_points_title": "{value} on {set_name}, one dot per seed",
    "plots.variant": "variant",
    "plots.one_seed": "one seed",
    "plots.mean_interval": "mean, {level:.0%} interval",
    "plots.mean": "mean",
    "plots.paired_title": "Paired differences, {a} - {b}",
    "plots.seed_axis": "seed",
    "plots.paired_ylabel": "{value} difference on {set}",
    "plots.step_weight": "attention weight (0-1)",
    "plots.step_xlabel": "source words (orange: most attended)",
    "plots.step_title": "step {step} of {n}: chose '{word}'",
    "plots.step_so_far": "output so far: {so_far} [{word}]",
    "plots.head_encoder": "encoder self-attention",
    "plots.head_decoder_self": "decoder self-attention",
    "plots.head_decoder_cross": "cross-attention (decoder → encoder)",
    "plots.head_source_keys": "source words (keys)",
    "plots.head_read_keys": "target words read so far (keys)",
    "plots.head_source_queries": "source words (queries)",
    "plots.head_written_queries": "word being written (queries)",
    "plots.head_title": (
        "{kind}\nlayer {layer} of {n_layers}, head {head} of {n_heads}"),
    "plots.head_of": "head {head} of {n_heads}",
    "plots.every_head": "{kind}, layer {layer}: every head",
    "plots.loss_title": "Training loss",
    "plots.training_step": "training step (batches)",
    "plots.loss_ylabel": "cross-entropy (mean of {smooth} steps, log)",
    "plots.snapshots_title": "The attention map of one sentence during training",
    "plots.after_steps": "after {step} steps",
    "plots.source_words": "source words",
    "plots.target_words": "target words",
    "plots.alignment_title": "Alignment emerges during training",
    "plots.mass_on_gold": "mass on gold (0-1)",
    "plots.uniform_baseline": "no-information baseline (uniform attention)",
    "plots.mass_ylabel": "attention mass on gold (0-1)",
    "plots.translating_title": "Attention while translating {n} words",
    "plots.translation_rows": "translation (one row per output word)",
    # ------------------------------------------------------------------ chapters 06 and 08: the story renderers
    "ch06.needs_equal_sizes": (
        "{cls} needs query and key vectors of the same size: query has shape {query}, keys {keys}; expected keys of "
        "shape (batch, n_k, {d}). Use MultiplicativeAttention or AdditiveAttention when the sizes differ."),
    "ch06.crossed": "{name} crossed in {crossed} of {runs} runs",
    "ch06.crossed_at": ", on average at step {step:.0f}",
    "ch06.not_available": "n/a",
    # a scorer's name in a sentence (its registry key in English; the glossary's name in Chinese)
    "ch06.semicolon": "; ",
    "ch06.comma": ", ",
    "ch06.crossing_pooled": (
        "{per_config}. Across all {runs} runs the rank correlation between the crossing step and the final BLEU on "
        "{set_name} words is **{rho:+.2f}** (p = {p:.2g}): "),
    "ch06.crossing_earlier_better": (
        "pooled over the scorers, earlier crossings go with better ends. "),
    "ch06.crossing_within_weaker": (
        "Within one scorer the link is weaker (rank correlations {within}), so the pooled figure mostly says which "
        "scorer a run used"),
    "ch06.crossing_same_best": (
        " ({earliest} crosses earliest on average and ends best). "),
    "ch06.crossing_other_best": (
        " ({earliest} crosses earliest on average, {best} ends best). "),
    "ch06.crossing_within_stronger": (
        "Within one scorer the link is as strong or stronger (rank correlations {within}). "),
    "ch06.crossing_no_link": (
        "no clear link between when a run crosses and where it ends (within each scorer: {within}). "),
    "ch06.crossing_all_crossed": (
        "Every run crossed within the budget (the latest at step {latest}), so no final score belongs to a run that "
        "had not yet crossed. "),
    "ch06.crossing_never": (
        "{never} of {runs} runs never crossed within the budget. "),
    "ch06.crossing_too_few_early": (
        "Fewer than two scorers have a run that crossed by step {half} (the first half of the budget), so their "
        "means among early runs cannot be compared."),
    "ch06.crossing_spread": (
        "Among the runs that crossed by step {half} (the first half of the budget), the scorers' means span "
        "{early:.1f} BLEU, against {overall:.1f} over all runs: "),
    "ch06.crossing_gap_when": (
        "the gap narrows among early crossers, as it would if it went with *when* the runs crossed; but those runs "
        "still crossed at different steps, so this subset cannot separate the scorer from when its runs crossed."),
    "ch06.crossing_gap_not_only": (
        "the gap stays about as wide among early crossers, but those runs still crossed at different steps (one "
        "scorer may cross before any other), so this subset cannot separate the scorer from when its runs crossed."),
    # chapter 06's rendered verdicts (helpers.experiments: variant_name ... dropout_verdict)
    "ch06.name_additive": "additive",
    "ch06.name_multiplicative": "multiplicative",
    "ch06.name_dot": "dot",
    "ch06.name_scaled_dot": "scaled dot",
    "ch06.name_no_attention": "no attention",
    "ch06.name_no_dropout": "no dropout",
    "ch06.name_weights": "weights {p}",
    "ch06.name_context": "context {p}",
    "ch06.wins": "{name} wins",
    "ch06.list_comma": ", ",
    "ch06.none": "none",
    "ch06.none_variant": "no variant",
    "ch06.no_scorer": "no scorer",
    "ch06.never": "never",
    "ch06.period": ". ",
    "ch06.seed_range": " (seeds from {low:.0%} to {high:.0%})",
    "ch06.flat_head": (
        "**Does every scorer keep chapter 05's long-sentence quality?** Chapter 05's yardstick: measured against its "
        "own BLEU on `{reference}` words, a run keeps its quality on a bucket when it scores at least {floor:.0%} "
        "there. On `{set_name}` words, the longest training bucket ({n} seeds, {steps} steps, {level:.0%} "
        "t-intervals of the mean share): "),
    "ch06.flat_keeps": "kept by {items}",
    "ch06.flat_loses": "lost by {items}",
    "ch06.flat_undecided": "not decided by these seeds for {items}",
    "ch06.flat_every": ". So yes: at this budget every scorer is shown to keep it.",
    "ch06.flat_only": ". So not every scorer: at this budget the seeds show only {names} keeping it.",
    "ch06.flat_none": ". So no: at this budget no scorer is shown to keep it.",
    "ch06.where_head": (
        "**Where quality stops being flat.** The mean share first falls below {floor:.0%} {places} (the longest "
        "training sentence has {longest} words). "),
    "ch06.below_at": "on `{set_name}` words for {names}, {where}",
    "ch06.below_nowhere": "on none of these buckets",
    "ch06.within_training": "within the training lengths",
    "ch06.beyond_training": "beyond the training lengths",
    "ch06.never_below": (
        "{name} never falls below it (its lowest share is {lowest:.1%}, on `{lowest_set}` words), but its "
        "steepest fall is from `{previous}` to `{set_name}` words, {where}: {mean:+.1f} percentage points [{low:+.1f}, "
        "{high:+.1f}], while no other step between neighbouring buckets falls more than {others:.1f} points. "),
    "ch06.ranking_head": "BLEU on {set_name} words, {n} seeds: ",
    "ch06.pair_header": "| pair | mean difference | {level:.0%} interval | verdict |\n|---|---|---|---|",
    "ch06.pair_better": "**{name} better**",
    "ch06.pair_untold": "not told apart",
    "ch06.ranking_beaten": "**At this budget** these scorers beat no attention: {beaten} ({k} of {m}). ",
    "ch06.ranking_told": "Pairs told apart: {told}. Not told apart: {untold}. ",
    "ch06.same_function": (
        "In this translator {a} and {b} are one function: {a} − {b} = {diff:+.1f} BLEU on average (interval "
        "[{low:+.1f}, {high:+.1f}]), "),
    "ch06.same_untold": "no difference detectable once the seeds are pooled.",
    "ch06.same_told": "a difference the interval detects, so something other than the function differs between them.",
    "ch06.sat_start": (
        "At step 0 {unscaled} and {scaled} are the same network, so their scores differ by exactly $\\sqrt{{d_k}}$ = "
        "{root_d:g} (checked for every seed): {unscaled}'s score std is {std0:.2f}, and even its softmax starts far "
        "from saturation (max weight {max0:.2f}, entropy {entropy0:.2f} of uniform). By step {step} {unscaled}'s "
        "scores have a std of {std:.1f} against {scaled}'s {std_scaled:.2f}; its rows put {weight:.2f} of their weight "
        "on one word on average ({scaled} {weight_scaled:.2f}). At that checkpoint "),
    "ch06.sat_all_below": "every scorer's alignment is below uniform attention's {uniform:.1f}% ({aligns})",
    "ch06.sat_some_below": "the alignment of {names} is below uniform attention's {uniform:.1f}% ({aligns})",
    "ch06.sat_all_wrong": (
        ": for every scorer at least {share:.1f}% of the target words that have a source word look hardest at a "
        "wrong one, so looking at wrong words early does not set {unscaled} apart"),
    "ch06.sat_apart": "; what sets {names} apart is how much weight sits there. ",
    "ch06.sat_bound": (
        "A row's largest weight is on a wrong word unless the row looks hardest at a right one, so the mean largest "
        "weight minus the alignment (as a share) is a lower bound on the weight on a wrong word: {bounds}; {scaled}'s "
        "rows put at most {weight_scaled:.2f} (its mean largest weight) on any one word, on average. "),
    "ch06.at_least": "{name} at least {value:.2f}",
    "ch06.sat_peaked": (
        "The softmax of {unscaled} is already sharply peaked early, on wrong words (mean largest weight {weight:.2f}; "
        "peaked, not yet one-hot); the more peaked a softmax, the smaller the gradient that would move the weight to "
        "other words (chapter 04), a plausible reason why its alignment climbs slowly and stays lower (this chapter "
        "does not measure that gradient). "),
    "ch06.sat_not_peaked": "The softmax of {unscaled} is not sharply peaked on wrong words at that point. ",
    "ch06.sat_end": "Alignment at the end of the budget, per seed: {ranges}.",
    "ch06.sat_first_peaked": " First checkpoint at which a run's mean max weight passes {peak:g}: {steps}.",
    "ch06.rule_half_width": (
        "The rule names a winner only when the mean difference is further from zero than the interval's half-width; "
        "for {a} − {b} that half-width is {half:.1f} BLEU ({n} seeds, this budget: {steps} steps)."),
    "ch06.drop_control": (
        "**Against the control** (validation BLEU after one budget of {steps} steps, {n} seeds, {level:.0%} "
        "intervals): dropout helps for {helps}; it hurts for {hurts}; no difference is detectable for {neither}. "),
    "ch06.drop_placement": "**Weights against context:** {each}. ",
    "ch06.drop_at_rate": "at p = {p}, {said} ({diff:+.1f} BLEU, [{low:+.1f}, {high:+.1f}])",
    "ch06.weights_win": "the weights placement wins",
    "ch06.context_wins": "the context placement wins",
    "ch06.drop_none_helps": (
        "So in this setting no dropout variant beats training without dropout, and the placement that \"wins\" does so "
        "by hurting less, or, where no difference from the control is detectable, by not hurting: without the "
        "control, the comparison of placements would have read as a remedy. "),
    "ch06.drop_tip_contradicted": (
        "The practitioner's tip, weights before context, is contradicted here at every rate tried, at this budget. "),
    "ch06.drop_tip_supported": (
        "The practitioner's tip, weights before context, is supported here at every rate tried, at this budget. "),
    "ch06.drop_mechanism": (
        "A plausible mechanism for the weights placement's loss: dropping an attention weight removes that source "
        "word for one step; the validation alignment is {control:.1f}% without dropout; {others}. "),
    "ch06.percent_for": "{name}: {value:.1f}%",
    "ch06.drop_limits": (
        "This is one small, overfitting task with sharp alignments and one training budget ({steps} steps), not a "
        "law: a longer or shorter run, or a task with softer alignments (summaries, real language), may behave "
        "differently."),
    "ch08.source_module": (
        "Fitted to measurements at n ≤ {n_fit}: trained as a decoder uses it, source chapter 003's module keeps "
        "{src_big:.0f} float32 numbers per (query, key) pair at h = {big} and the course's scorer {ours_big:.0f}, "
        "{ratio_big:.1f} times fewer ({ratio_small:.1f} at h = {small}). Its `Linear` keeps its input, the repeated "
        "decoder state concatenated with the encoder output (2h numbers per pair), and its tanh its output (h more): "
        "3h = {three_h} at h = {big}. The course's scorer projects the state and the encoder outputs first and adds "
        "them, so only the tanh's output (h) grows with n_q × n_k. "),
    "ch08.module_source": "source chapter 003's module",
    "ch08.module_ours": "the course's scorer",
    "ch08.list_separator": "; ",
    "ch08.source_module_direct_item": "{module} at h = {h}, n = {n:,}: {measured}, where its fitted curve predicts "
                                      "{predicted}",
    "ch08.source_module_direct": "Measured directly, not extrapolated (n_q = n_k = n, training peak): {measured}. ",
    "ch08.source_module_extrapolated": (
        "Extrapolated by the fitted curves, not measured: translating a {n_doc:,}-word document (n_q = n_k) at "
        "h = {big} needs {src_doc} in training with source chapter 003's module (over {limit} from n = {src_over:,} "
        "on) and {ours_doc} with the course's scorer (over {limit} from n = {ours_over:,} on); a {n_summary}-word "
        "summary of the same document, extrapolated by a line, needs {summary} with source chapter 003's module at "
        "h = {big}. "),
    "ch08.source_module_over": (
        "So if the practitioner's 24 GB came from this module (source chapter 003 prints it as the version its author "
        "often uses, but does not say that it was the one that filled the memory), that is what it costs when trained "
        "on one {n_doc:,}-word document, batch {batch}, at h = {big}, if the decoder writes about as many words as it "
        "reads"),
    "ch08.source_module_ours_under": "; the course's scorer stays under {limit} there.",
    "ch08.source_module_ours_over": "; the course's scorer passes {limit} too.",
    "ch08.source_module_under": (
        "So at these sizes even source chapter 003's module stays under {limit} for one {n_doc:,}-word document, "
        "batch {batch}: the practitioner's 24 GB needs a larger batch, hidden size or document, or another model."),
    # ------------------------------------------------------------------ tables, progress bars, the vocabulary hint
    "tables.bleu": "bleu",
    "tables.exact": "exact",
    "training.progress": "training ({kind})",
    # a model's name in a progress bar's label (make_model's and make_transformer's config["kind"])
    "training.kind_none": "RNN without attention",
    "training.kind_attention": "RNN with attention",
    "training.kind_transformer": "Transformer",
    "training.runs": "training runs",
    "training.not_comparable": (
        "{recipe}: this live run of {unit} differs from the stored one ({first}), as expected on this machine "
        "({why}); the chapter goes on with this run's numbers, and every assert still checks its claims"),
    "training.not_compared": (
        "{recipe}: {unit} is not among the {n} stored runs, so this live run was not compared with a stored one "
        "(the stored runs are {seeds} by seed)"),
    "toylang.det": "determiners",
    "toylang.adj": "adjectives",
    "toylang.noun": "nouns",
    "toylang.prep": "prepositions",
    "toylang.verb_t": "verbs with an object",
    "toylang.verb_i": "verbs without one",
    "toylang.verb_phrasal": "phrasal verbs",
    "toylang.rel": "relative words",
    "toylang.conj": "joining words",
    "toylang.hint_part": "{label}: {words}",
    "toylang.hint_sep": "; ",
    # --------------------------------------------------------------------------- widgets: labels and readouts
    "widgets.qk_readout": (
        "weights: {parts}<br>context: [{context}]"),
    "widgets.move_key": "move key",
    "widgets.slider_check": (
        "SliderCheck(a slider x = {value} and its square: {square})"),
    "widgets.divide_scores": "divide scores by √d_k",
    "widgets.temperature": "temperature",
    "widgets.query": "Query",
    "widgets.keys": "Keys",
    "widgets.type_a_sentence": (
        "Type a sentence in the source language, e.g. 'the old dog sees a red car'."),
    "widgets.unknown_words": (
        "Unknown word(s): {words}. The toy source language has only {n} words ({hint}). Try another word."),
    "widgets.no_reference": (
        "(no reference: the grammar cannot parse this sentence, {error})"),
    "widgets.matches": "(matches a reference)",
    "widgets.reference": "(reference: {reference})",
    "widgets.empty": "(empty)",
    "widgets.no_attention": (
        "  [this model has no attention, so there is no map to draw]"),
    "widgets.test_sentence": "test sentence",
    "widgets.type_placeholder": "...or type a source sentence and press Enter",
    "widgets.your_sentence": "your sentence",
    "widgets.cannot_step": "cannot step through this sentence: {message}",
    "widgets.step": "step",
    "widgets.step_readout": (
        "step {step} of {n}: output so far <b>{so_far}</b>; most attended source word: <b>{top}</b>"),
    "widgets.step_repr": "step {step} of {n}: {word!r}",
    "widgets.head_readout": (
        "{kind} · layer {layer} of {n_layers} · head {head} of {n_heads} · sentence {sentence}: strongest link "
        "<b>{query}</b> → <b>{key}</b> ({weight:.4f})"),
    "widgets.head_attention": "attention",
    "widgets.head_layer": "layer",
    "widgets.head_head": "head",
    "widgets.head_sentence": "sentence",
    "widgets.head_repr": (
        "{kind}, layer {layer} of {n_layers}, head {head} of {n_heads}, sentence {sentence} of {n}"),
    # --------------------------------------------------------------------------- the course website (make site)
    "widgets.site_run_title": "Run this chapter:",
    "widgets.site_run_local": "or on your computer:",
    "widgets.site_weights": "weights",
    "widgets.site_context": "context",
    "widgets.site_widget_note": (
        "An interactive explorer: it moves when the chapter runs in JupyterLab (links at the top of the page)."),
    "widgets.site_live_note": (
        "This explorer runs in your browser: the same arithmetic as helpers.widgets.explorer_state."),
    "widgets.site_chapters": "Chapters",
    "widgets.site_companion": "Companion pages",
    "widgets.site_states_note": (
        "This explorer runs in your browser, from every state the chapter computed when it ran (in JupyterLab it "
        "is the live widget)."),
    "widgets.site_row_header": "Row",
    "widgets.site_home_clone": (
        "**From a clone of the course's repository**: <code>make lab</code> sets everything up and starts "
        "JupyterLab."),
    "widgets.site_home_zip": (
        "**On your computer** (Python 3.11): download {zip}, unzip it, and in its folder run <code>pip install -r "
        "requirements.txt</code>, then <code>jupyter lab</code>, and open <code>{first}</code>. Its README.txt says "
        "the same."),
    "widgets.site_home_online": (
        "**In your browser**, nothing to install: {links} (chapter 00 opens; the others are beside it)."),
    "widgets.site_zip_readme": (
        "Learning to Attend: an interactive course on attention, in Jupyter notebooks.\n\n"
        "To run it (Python 3.11; no GPU needed), in this folder:\n\n"
        "    python3.11 -m venv .venv\n"
        "    . .venv/bin/activate        (Windows: .venv\\Scripts\\activate)\n"
        "    pip install -r requirements.txt\n"
        "    jupyter lab\n\n"
        "Then open {first} and run it from top to bottom. requirements.txt holds the course's exact versions and, "
        "last, `-e .`, which makes helpers/ (the course's small library) importable from every notebook. data/ holds "
        "the translation data the course generated; nothing is downloaded while a chapter runs."),
    "widgets.site_zip_then": ": unzip it, then pip install -r requirements.txt and jupyter lab in its folder.",
    "widgets.site_zip": "the course as a zip ({size})",
    "widgets.site_figure_caption": "Figure {n}: {alt}",
    "widgets.site_figure": "Figure {n}",
    "plots.alt_axes": "{y} against {x}",
    "widgets.site_top_label": "Course",
    # chapter 07
    "tables.align": "align",
    # --------------------------------------------------------------------------- chapter 05
    "widgets.explorer_repr": "{n} test sentences; showing: {showing}",
    "training.class_no_source": "no source",
    "training.class_measure_word": "measure word",
    "training.class_phrasal_verb": "phrasal verb",
    "training.class_two_source_words": "two source words",
    "training.class_circumposition_1": "circumposition, 1st half",
    "training.class_circumposition_2": "circumposition, 2nd half",
    "training.class_clause_joiner": "clause joiner",
    "training.class_relative_de": "relative de",
    "training.class_determiner": "determiner",
    "training.class_adjective": "adjective",
    "training.class_noun": "noun",
    "training.class_verb": "verb",
    # --------------------------------------------------------------------------- chapter 01
    "training.noun_first": "first",
    "training.noun_middle": "middle",
    "training.noun_last": "last",
    # --------------------------------------------------------------------------- chapters 06, 07: compare_variants
    "experiments.semicolon": "; ",
    "experiments.comma": ", ",
    "experiments.interval_of_set": "`{set}` {diff:+.1f} [{low:+.1f}, {high:+.1f}]",
    "experiments.verdict_count": "{verdict} in {k}",
    "experiments.a_better": "a better",
    "experiments.b_better": "b better",
    "experiments.no_difference": "no difference detectable",
}
