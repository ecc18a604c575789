"""The generated translation task: deterministic, length-controlled, head-final, with a correct gold alignment."""
from collections import Counter

import pytest

from helpers import DATA_DIR
from helpers import toylang
from helpers.toylang import (CATEGORY, LEXICON, TEST_BUCKETS, bucket_name, load_split, read_tsv, sample_pairs,
                             source_vocab, target_vocab, translate, write_data, write_tsv)

TARGET_CATEGORY = {LEXICON[s]: c for s, c in CATEGORY.items()}


def test_same_seed_same_pairs_other_seed_other_pairs():
    assert sample_pairs(50, 4, 40, seed=5) == sample_pairs(50, 4, 40, seed=5)
    assert sample_pairs(50, 4, 40, seed=5) != sample_pairs(50, 4, 40, seed=6)


@pytest.mark.parametrize("n", [3, 4, 5, 9, 16, 17, 29, 40, 50, 60])
def test_exact_lengths_are_produced(n):
    for src, tgt, align in sample_pairs(40, n, n, seed=n):
        assert len(src) == len(tgt) == len(align) == n


def test_lengths_cover_the_range_roughly_uniformly():
    pairs = sample_pairs(3700, 4, 40, seed=0)
    counts = Counter(len(s) for s, _, _ in pairs)
    assert set(counts) == set(range(4, 41))
    assert min(counts.values()) > 0.6 * 100 and max(counts.values()) < 1.4 * 100


def test_bad_lengths_raise():
    with pytest.raises(ValueError, match="min_len"):
        sample_pairs(3, 2, 10)
    with pytest.raises(ValueError, match="min_len"):
        sample_pairs(3, 10, 5)


def test_alignment_and_lexicon_reconstruct_the_target():
    for src, tgt, align in sample_pairs(500, 4, 50, seed=1):
        assert sorted(align) == list(range(len(src))), "every source word is used exactly once"
        assert [LEXICON[src[i]] for i in align] == tgt


def test_worked_example_from_the_docstring():
    src = "the old dog near the river sees a red car and the child sleeps".split()
    tgt, align = translate(src)
    assert " ".join(tgt) == "rivo ka soba hundo veki ka auto rossi na miru kaj kido ka dormu"
    assert align == [5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 10, 12, 11, 13]


def test_target_is_head_final():
    """Verb last in each clause; determiner last in its noun phrase (after noun and adjectives); postpositions."""
    for src, tgt, align in sample_pairs(300, 4, 50, seed=2):
        cats = [TARGET_CATEGORY[w] for w in tgt]
        clauses = " ".join(cats).split(" conj ")
        assert all(c.split()[-1] in ("verb_t", "verb_i") for c in clauses)
        for j, c in enumerate(cats):
            if c == "det":
                assert cats[j - 1] in ("noun", "adj")
            if c == "adj":
                assert cats[j - 1] in ("noun", "adj")
            if c == "prep":                      # a postposition follows the determiner closing its noun phrase
                assert cats[j - 1] == "det"
        assert cats[0] == "noun", "a target sentence opens with the innermost noun of its subject"
        assert CATEGORY[src[0]] == "det", "a source sentence opens with a determiner"


def test_generated_pairs_parse_back():
    for src, tgt, align in sample_pairs(300, 3, 50, seed=3):
        assert translate(src) == (tgt, align)


def test_translate_rejects_unknown_and_ungrammatical():
    with pytest.raises(ValueError, match="unknown"):
        translate("the zebra sleeps".split())
    with pytest.raises(ValueError, match="expected"):
        translate("dog the sleeps".split())


def test_vocab_specials_encode_decode():
    sv, tv = source_vocab(), target_vocab()
    assert [sv.itos[i] for i in range(4)] == ["<pad>", "<bos>", "<eos>", "<unk>"]
    assert len(sv) == len(tv) == len(LEXICON) + 4
    assert sv.encode(["the", "zebra"]) == [sv.stoi["the"], sv.unk_id]
    assert "the" in sv and "zebra" not in sv and "<pad>" not in sv
    ids = [tv.bos_id] + tv.encode(["hundo", "ka"]) + [tv.eos_id, tv.stoi["kato"], tv.pad_id]
    assert tv.decode(ids) == ["hundo", "ka"]


def test_tsv_round_trip(tmp_path):
    pairs = sample_pairs(20, 4, 12, seed=4)
    write_tsv(tmp_path / "x.tsv", pairs)
    assert read_tsv(tmp_path / "x.tsv") == pairs


def test_regeneration_is_byte_identical(tmp_path):
    written = write_data(tmp_path)
    committed = sorted(p.name for p in DATA_DIR.glob("*.tsv"))
    assert sorted(p.name for p in written) == committed
    for p in written:
        assert p.read_bytes() == (DATA_DIR / p.name).read_bytes(), f"{p.name} differs from data/{p.name}"


def test_data_files_are_small_split_and_bucketed():
    total = sum(p.stat().st_size for p in DATA_DIR.iterdir() if p.is_file())
    assert total < 5_000_000
    train = load_split("train")
    assert len(train) == toylang.N_TRAIN and {len(s) for s, _, _ in train} == set(range(4, 41))
    seen = {" ".join(s) for s, _, _ in train}
    for lo, hi in TEST_BUCKETS:
        test = load_split(f"test_{bucket_name(lo, hi)}")
        assert len(test) == toylang.N_TEST
        assert all(lo <= len(s) <= hi for s, _, _ in test)
        assert not seen & {" ".join(s) for s, _, _ in test}, "test sentences must not appear in training"
        for src, tgt, align in test[:50]:
            assert [LEXICON[src[i]] for i in align] == tgt


def test_missing_split_says_how_to_regenerate(tmp_path):
    with pytest.raises(FileNotFoundError, match="--write"):
        load_split("train", tmp_path)


def test_exercise_checkers_for_translation_and_alignment(capsys):
    from helpers.exercises import check_alignment, check_translation

    s = "the small cat under a table sleeps"
    assert check_translation(None, s) is False and "Not answered yet" in capsys.readouterr().out
    assert check_translation("tablo na shita kato peti ka dormu", s)
    assert not check_translation("kato peti ka tablo na shita dormu", s)
    assert "order is not" in capsys.readouterr().out
    assert not check_translation("kato peti", s) and "exactly one target word" in capsys.readouterr().out
    assert check_alignment([5, 4, 3, 2, 1, 0, 6], s)
    assert not check_alignment([5, 4, 3, 2, 0, 1, 6], s)
    assert "translates source word 1 ('small')" in capsys.readouterr().out
    assert not check_alignment([1, 2], s) and "one source position per target word" in capsys.readouterr().out
