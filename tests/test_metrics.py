"""corpus_bleu against sacreBLEU on many random corpora; exact match and alignment accuracy against hand examples."""
import random

import pytest
import sacrebleu
import torch

from helpers.metrics import alignment_accuracy, corpus_bleu, exact_match


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
    assert corpus_bleu(refs, refs) == pytest.approx(100.0)
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
    with pytest.raises(ValueError, match="one reference each"):
        corpus_bleu([["a"]], [["a"], ["b"]])
    with pytest.raises(ValueError, match="smooth"):
        corpus_bleu([["a"]], [["a"]], smooth="add-k")


def test_exact_match():
    assert exact_match([["a", "b"], ["c"]], [["a", "b"], ["d"]]) == 50.0
    assert exact_match([], []) == 0.0


def test_alignment_accuracy_hand_example():
    w1 = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.5, 0.5]])      # third row (<eos>) is ignored
    w2 = torch.tensor([[0.2, 0.3, 0.5]])
    # sentence 1: argmax 1, 0 vs gold 1, 1 -> 1 of 2; sentence 2: argmax 2 vs gold 2 -> 1 of 1
    assert alignment_accuracy([w1, w2], [[1, 1], [2]]) == pytest.approx(100 * 2 / 3)
    assert alignment_accuracy([w1[:2]], [[1, 0]]) == 100.0


def test_alignment_accuracy_rejects_short_weights():
    with pytest.raises(ValueError, match="do not cover"):
        alignment_accuracy([torch.ones(1, 3)], [[0, 1]])
