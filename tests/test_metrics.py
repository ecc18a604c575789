"""corpus_bleu against sacreBLEU on many random corpora (one and several references); exact match, alignment
accuracy and attention mass on gold sets against hand examples."""
import random

import pytest
import sacrebleu
import torch

from helpers.metrics import alignment_accuracy, attention_mass_on_gold, corpus_bleu, exact_match


def sacre(hyps, refs, smooth="exp"):
    return sacrebleu.corpus_bleu([" ".join(h) for h in hyps], [[" ".join(r) for r in refs]],
                                 tokenize="none", smooth_method=smooth, force=True).score


def random_corpus(rng):
    vocab = [f"w{i}" for i in range(rng.choice([3, 6, 15, 40]))]
    hyps, refs = [], []
    for _ in range(rng.randint(1, 12)):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 25))]
        kind = rng.random()
        if kind < 0.3:                                   # a noisy copy: substitutions, drops, insertions
            hyp = [w if rng.random() < 0.8 else rng.choice(vocab) for w in ref if rng.random() < 0.9]
            hyp += [rng.choice(vocab) for _ in range(rng.randint(0, 3))]
        elif kind < 0.4:
            hyp = list(ref)
        elif kind < 0.45:
            hyp = []
        else:
            hyp = [rng.choice(vocab) for _ in range(rng.randint(0, 30))]
        hyps.append(hyp)
        refs.append(ref)
    return hyps, refs


@pytest.mark.parametrize("smooth", ["exp", "none"])
def test_matches_sacrebleu_on_many_random_corpora(smooth):
    rng = random.Random(0)
    nonzero = 0
    for _ in range(400):
        hyps, refs = random_corpus(rng)
        ours, theirs = corpus_bleu(hyps, refs, smooth=smooth), sacre(hyps, refs, smooth)
        assert ours == pytest.approx(theirs, rel=1e-6, abs=1e-9), (hyps, refs)
        nonzero += theirs > 0
    assert nonzero > 100, "the random cases should exercise non-trivial scores"


def test_perfect_match_is_100_and_empty_hypothesis_is_0():
    refs = [["a", "b", "c", "d", "e"], ["f", "g", "h", "i"]]
    assert corpus_bleu(refs, refs) == 100.0, "a perfect set scores 100 exactly (not 100.00000000000004)"
    assert corpus_bleu([[], []], refs) == 0.0
    assert sacre([[], []], refs) == 0.0


def test_brevity_penalty():
    ref = [list("abcdefghij")]
    hyp = [list("abcdefgh")]                      # all n-grams correct, 8 of 10 words
    assert corpus_bleu(hyp, ref) == pytest.approx(100 * 2.718281828459045 ** (1 - 10 / 8))
    assert corpus_bleu(hyp, ref) == pytest.approx(sacre(hyp, ref))


def test_short_sentences_without_4grams():
    hyps, refs = [["a", "b"]], [["a", "b"]]
    assert corpus_bleu(hyps, refs) == pytest.approx(sacre(hyps, refs), abs=1e-9)


def test_bleu_input_errors():
    with pytest.raises(ValueError, match="1 hypotheses but 2 references"):
        corpus_bleu([["a"]], [["a"], ["b"]])
    with pytest.raises(ValueError, match="mixes tokens and token lists"):
        corpus_bleu([["a"]], [["a", ["b"]]])
    with pytest.raises(ValueError, match="smooth"):
        corpus_bleu([["a"]], [["a"]], smooth="add-k")


def test_exact_match():
    assert exact_match([["a", "b"], ["c"]], [["a", "b"], ["d"]]) == 50.0
    assert exact_match([], []) == 0.0


def sacre_multi(hyps, ref_sets, smooth="exp"):
    """sacreBLEU with several references per hypothesis: stream k holds each sentence's k-th reference or None."""
    width = max(len(r) for r in ref_sets)
    streams = [[" ".join(r[k]) if k < len(r) else None for r in ref_sets] for k in range(width)]
    return sacrebleu.corpus_bleu([" ".join(h) for h in hyps], streams, tokenize="none", smooth_method=smooth,
                                 force=True).score


@pytest.mark.parametrize("smooth", ["exp", "none"])
def test_several_references_match_sacrebleu(smooth):
    rng = random.Random(1)
    differs_from_first = 0
    for _ in range(300):
        hyps, refs = random_corpus(rng)
        ref_sets = []
        for ref in refs:                      # 1-4 references: the first plus edited copies of it
            alts = [ref]
            for _ in range(rng.randint(0, 3)):
                alt = [w if rng.random() < 0.8 else "x" + w for w in ref if rng.random() < 0.9]
                alts.append(alt + ["y"] * rng.randint(0, 2))
            ref_sets.append(alts)
        ours, theirs = corpus_bleu(hyps, ref_sets, smooth=smooth), sacre_multi(hyps, ref_sets, smooth)
        assert ours == pytest.approx(theirs, rel=1e-6, abs=1e-9), (hyps, ref_sets)
        differs_from_first += abs(theirs - sacre(hyps, refs, smooth)) > 1e-6
    assert differs_from_first > 50, "the extra references should change many scores"


def test_any_reference_counts():
    refs = [[["wo", "kanjian", "le", "ta"], ["wo", "kanjian", "ta", "le"]]]
    assert corpus_bleu([["wo", "kanjian", "ta", "le"]], refs) == pytest.approx(100.0)
    assert corpus_bleu([["wo", "kanjian", "ta", "le"]], [refs[0][0]]) < 100.0
    assert exact_match([["wo", "kanjian", "ta", "le"], ["ta"]], refs + [["ni"]]) == 50.0
    assert exact_match([["wo", "kanjian", "ta"]], refs) == 0.0


def test_alignment_accuracy_hand_example():
    w1 = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.5, 0.5]])      # third row (<eos>) is ignored
    w2 = torch.tensor([[0.2, 0.3, 0.5]])
    # sentence 1: argmax 1, 0 vs gold 1, 1 -> 1 of 2; sentence 2: argmax 2 vs gold 2 -> 1 of 1
    assert alignment_accuracy([w1, w2], [[(1,), (1,)], [(2,)]]) == pytest.approx(100 * 2 / 3)
    assert alignment_accuracy([w1[:2]], [[(1,), (0,)]]) == 100.0
    assert alignment_accuracy([w1[:2]], [[1, 0]]) == 100.0, "a bare int is a one-position set"


def test_alignment_accuracy_with_sets_and_empty_sets():
    w = torch.tensor([[0.1, 0.5, 0.4],       # gold {1, 2}: argmax 1 is in the set -> hit
                      [0.6, 0.2, 0.2],       # gold {}: not counted, whatever it attends to
                      [0.1, 0.1, 0.8],       # gold {0, 1}: argmax 2 is not in the set -> miss
                      [0.3, 0.3, 0.4]])      # gold {2} -> hit
    gold = [(1, 2), (), (0, 1), (2,)]
    assert alignment_accuracy([w], [gold]) == pytest.approx(100 * 2 / 3)
    assert alignment_accuracy([w[:2]], [[(), ()]]) == 0.0, "no target word with a gold set: nothing to count"


def test_attention_mass_on_gold_hand_example():
    w = torch.tensor([[0.1, 0.5, 0.4],       # gold {1, 2}: mass 0.9, although no single position has it all
                      [0.6, 0.2, 0.2],       # gold {}: not counted
                      [0.1, 0.1, 0.8],       # gold {0, 1}: 0.2
                      [0.3, 0.3, 0.4]])      # gold {2}: 0.4
    gold = [(1, 2), (), (0, 1), (2,)]
    assert attention_mass_on_gold([w], [gold]) == pytest.approx((0.9 + 0.2 + 0.4) / 3)
    # a row split evenly over a two-position gold set: full mass, while argmax-accuracy only sees one position
    split = torch.tensor([[0.5, 0.5, 0.0]])
    assert attention_mass_on_gold([split], [[(0, 1)]]) == pytest.approx(1.0)
    assert attention_mass_on_gold([split], [[(2,)]]) == pytest.approx(0.0)


def test_gold_positions_outside_the_weights_are_rejected():
    with pytest.raises(ValueError, match="gold source position 3 is outside the 3 source positions"):
        attention_mass_on_gold([torch.ones(1, 3) / 3], [[(0, 3)]])
    with pytest.raises(ValueError, match="2 weight matrices but 1 alignments"):
        alignment_accuracy([torch.ones(1, 3), torch.ones(1, 3)], [[(0,)]])


def test_alignment_accuracy_rejects_short_weights():
    with pytest.raises(ValueError, match="do not cover"):
        alignment_accuracy([torch.ones(1, 3)], [[0, 1]])
