"""The generated translation task: deterministic, length-controlled, with consistent gold alignment sets, every
phenomenon at the promised share, free variation with all references, files that regenerate byte for byte."""
from collections import Counter

import pytest

from helpers import DATA_DIR, toylang
from helpers.toylang import (
    CATEGORY,
    LEXICON,
    PHENOMENA,
    TEST_BUCKETS,
    TRAIN_LENGTHS,
    UNSEEN_BUCKET,
    bucket_name,
    format_alignment,
    is_noun,
    load_split,
    load_test_buckets,
    max_target_length,
    parse_alignment,
    phenomena,
    read_tsv,
    references,
    sample_pairs,
    source_vocab,
    target_vocab,
    translate,
    vocabulary_hint,
    words_by_category,
    write_data,
    write_tsv,
)

MEASURE_OF = {noun: mw for mw, nouns in toylang.rich._MEASURE.items() for noun in nouns}
MEASURE_WORDS = set(toylang.rich._MEASURE)
WORKED = "a man who saw the cat looked after a big dog in the house"


def fresh(n=1500, lo=11, hi=50, seed=7):
    return sample_pairs(n, lo, hi, seed=seed)


# ---------------------------------------------------------------- lengths and seeds (both grammars)
@pytest.mark.parametrize("grammar", ["rich", "simple"])
def test_same_seed_same_pairs_other_seed_other_pairs(grammar):
    assert sample_pairs(50, 4, 40, seed=5, grammar=grammar) == sample_pairs(50, 4, 40, seed=5, grammar=grammar)
    assert sample_pairs(50, 4, 40, seed=5, grammar=grammar) != sample_pairs(50, 4, 40, seed=6, grammar=grammar)


@pytest.mark.parametrize("n", [3, 4, 5, 9, 16, 17, 23, 29, 40, 50, 60])
def test_exact_lengths_are_produced(n):
    for src, tgt, align in sample_pairs(40, n, n, seed=n):
        assert len(src) == n and len(tgt) == len(align)
        assert len(tgt) <= max_target_length(n)
    for src, tgt, align in sample_pairs(20, n, n, seed=n, grammar="simple"):
        assert len(src) == len(tgt) == len(align) == n


def test_lengths_cover_the_range_roughly_uniformly():
    pairs = sample_pairs(3700, 4, 40, seed=0)
    counts = Counter(len(s) for s, _, _ in pairs)
    assert set(counts) == set(range(4, 41))
    assert min(counts.values()) > 0.6 * 100 and max(counts.values()) < 1.4 * 100


def test_bad_lengths_and_grammar_raise():
    with pytest.raises(ValueError, match="min_len"):
        sample_pairs(3, 2, 10)
    with pytest.raises(ValueError, match="min_len"):
        sample_pairs(3, 10, 5)
    with pytest.raises(ValueError, match="grammar must be one of"):
        sample_pairs(3, 4, 10, grammar="mandarin")


# ---------------------------------------------------------------- the rich grammar's rules
def test_worked_example_from_the_docstring():
    tgt, align = translate(WORKED.split())
    assert " ".join(tgt) == "kanjian le mao de yi ge nanren zai fangzi li zhaogu le yi zhi gaoda de gou"
    assert align == [(3,), (), (5,), (2,), (0,), (0, 1), (1,), (11,), (13,), (11,), (6, 7), (), (8,), (8, 10),
                     (9,), (), (10,)]
    assert phenomena((WORKED.split(), tgt, align)) == set(PHENOMENA)


@pytest.mark.parametrize("src, want", [
    ("a cat sleeps", "yi zhi mao shuijiao"),
    ("a book falls", None),                                        # 'falls' is a simple-grammar verb only
    ("this book waits", "zhe ben shu dengdai"),
    ("every red car ran", "mei liang hongse de qiche paobu le"),
    ("the dog slept in the house", "gou zai fangzi li shuijiao le"),
    ("the man looks after the child", "nanren zhaogu haizi"),
    ("the woman who sings sees a knife", "changge de nvren kanjian yi ba daozi"),
    ("the dog sleeps and the bird which saw a fish runs", "gou shuijiao erqie kanjian le yi tiao yu de niao paobu"),
])
def test_rules_on_small_sentences(src, want):
    if want is None:
        with pytest.raises(ValueError, match="unknown source words"):
            translate(src.split())
    else:
        assert " ".join(translate(src.split())[0]) == want


def test_measure_word_is_chosen_by_the_noun_and_aligned_to_determiner_and_noun():
    for src, tgt, align in fresh(400):
        for j, w in enumerate(tgt):
            if w in MEASURE_WORDS:
                det, noun = align[j]
                assert CATEGORY[src[det]] == "det" and src[det] != "the" and is_noun(src[noun])
                assert w == MEASURE_OF[src[noun]], f"{src[noun]!r} takes {MEASURE_OF[src[noun]]!r}, not {w!r}"
                assert noun - det in (1, 2), "the noun follows its determiner (and at most one adjective)"


def test_gold_alignment_sets_are_consistent():
    """Sorted in-range sets; only 'the' and phrasal particles' partners go unaligned by themselves; every
    target word class has the gold set its rule promises."""
    for src, tgt, align in fresh(600, 3, 50, seed=11) + load_split("valid"):
        assert len(tgt) == len(align)
        for w, a in zip(tgt, align, strict=False):
            assert list(a) == sorted(set(a)) and all(0 <= i < len(src) for i in a)
            cats = [CATEGORY[src[i]] for i in a]
            if w == "le":
                assert a == ()
            elif w == "de":
                assert a == () or cats == ["rel"]
            elif w in MEASURE_WORDS:
                assert cats == ["det", "noun"]
            elif len(a) == 2:
                assert cats == ["verb_phrasal", "particle"], f"only a phrasal verb is two words -> one: {w} {a}"
            else:
                assert len(a) == 1, f"{w!r} has gold set {a}"
        used = {i for a in align for i in a}
        assert {i for i in range(len(src)) if i not in used} == {i for i, w in enumerate(src) if w == "the"}
        preps = [i for i, w in enumerate(src) if CATEGORY[w] == "prep"]
        for i in preps:                                   # a circumposition: two target words around the noun
            js = [j for j, a in enumerate(align) if a == (i,)]
            assert len(js) == 2 and js[1] - js[0] >= 2


def test_generated_pairs_are_valid_translations():
    for src, tgt, align in sample_pairs(400, 3, 50, seed=3):
        default_tgt, default_align = translate(src)
        assert tgt in references(src)
        if tgt == default_tgt:
            assert align == default_align
        else:
            assert sorted(map(tuple, align)) == sorted(map(tuple, default_align)), "variants move words, not sets"
    for src, tgt, align in sample_pairs(100, 3, 50, seed=3, grammar="simple"):
        assert translate(src, grammar="simple") == (tgt, align)


# ---------------------------------------------------------------- free variation
def test_free_variation_is_rare_bounded_and_listed():
    pairs = sample_pairs(2000, 11, 40, seed=8)
    counts = [len(references(s)) for s, _, _ in pairs]
    assert max(counts) == 4 and min(counts) >= 1
    non_default = sum(t != translate(s)[0] for s, t, _ in pairs) / len(pairs)
    assert 0.15 < non_default < 0.45, f"about 1 - 0.8**2 of long sentences should vary, got {non_default:.2f}"
    refs = references("the dog sleeps".split())
    assert refs == [translate("the dog sleeps".split())[0]], "nothing to vary: one reference"
    refs = references("the man saw a cat and the dog sleeps".split())
    assert refs[0] == translate("the man saw a cat and the dog sleeps".split())[0]
    assert [" ".join(r) for r in refs] == ["nanren kanjian le yi zhi mao erqie gou shuijiao",
                                           "nanren kanjian yi zhi mao le erqie gou shuijiao",
                                           "nanren kandao le yi zhi mao bingqie gou shuijiao",
                                           "nanren kandao yi zhi mao le bingqie gou shuijiao"]


# ---------------------------------------------------------------- phenomena
def test_phenomena_on_hand_made_alignments():
    src, tgt = ["a", "b", "c", "d", "e"], ["v", "w", "x", "y", "z"]
    assert phenomena((src, tgt, [(0,), (1,), (2,), (3,), (4,)])) == set(), "one-to-one and monotone: nothing"
    assert phenomena((src, tgt, [(0,), (2,), (0,), (3,), (4,)])) == {"one_to_many", "discontinuous",
                                                                   "unaligned_source"}
    assert phenomena((src, tgt[:4], [(0,), (0,), (1, 2), (3, 4)])) == {"one_to_many", "many_to_one"}
    assert phenomena((src, tgt, [(0,), (0, 1), (1,), (), (2, 3, 4)])) == {"context_dependent", "unaligned_target",
                                                                        "many_to_one"}
    assert phenomena((src, tgt, [(3,), (4,), (0,), (1,), (2,)])) == {"long_reordering"}
    assert phenomena((src, tgt, [(2,), (0,), (1,), (3,), (4,)])) == set(), "a jump of 2 is not long-distance"
    with pytest.raises(ValueError, match="2 alignment sets for 5 target words"):
        phenomena((src, tgt, [(0,), (1,)]))


def assert_phenomenon_shares(pairs, where):
    long = [p for p in pairs if len(p[0]) >= 11]
    assert len(long) >= 100
    found = [phenomena(p) for p in long]
    assert all(found), f"{where}: every sentence of 11+ words shows at least one phenomenon"
    for name in PHENOMENA:
        share = sum(name in f for f in found) / len(found)
        assert share >= 0.30, f"{where}: {name} in only {share:.0%} of the 11+ word sentences"


def test_phenomenon_shares_on_fresh_data():
    assert_phenomenon_shares(fresh(1500, 11, 20, seed=21), "fresh 11-20")
    assert_phenomenon_shares(fresh(1500, 11, 50, seed=22), "fresh 11-50")


def test_phenomenon_shares_on_the_data_files():
    assert_phenomenon_shares(load_split("train"), "train.tsv")
    assert_phenomenon_shares(load_split("valid"), "valid.tsv")
    for name, pairs in load_test_buckets().items():
        if name != "4-10":
            assert_phenomenon_shares(pairs, f"test_{name}.tsv")


def test_simple_grammar_is_one_to_one():
    for src, tgt, align in sample_pairs(200, 4, 50, seed=1, grammar="simple"):
        assert sorted(align) == [(i,) for i in range(len(src))], "every source word is used exactly once"
        assert [LEXICON[src[i]] for (i,) in align] == tgt
        assert phenomena((src, tgt, align)) <= {"long_reordering"}


def test_simple_worked_example():
    src = "the old dog near the river sees a red car and the child sleeps".split()
    tgt, align = translate(src, grammar="simple")
    assert " ".join(tgt) == "rivo ka soba hundo veki ka auto rossi na miru kaj kido ka dormu"
    assert [i for (i,) in align] == [5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 10, 12, 11, 13]


# ---------------------------------------------------------------- errors, vocabulary, public API
def test_translate_rejects_unknown_and_ungrammatical():
    with pytest.raises(ValueError, match=r"unknown source words: \['zebra'\]; allowed: .*nouns: cat, dog"):
        translate("the zebra sleeps".split())
    with pytest.raises(ValueError, match="expected a determiner .* at position 0, got 'dog'"):
        translate("dog the sleeps".split())
    with pytest.raises(ValueError, match="'who' after 'man'"):
        translate("the man which sleeps runs".split())
    with pytest.raises(ValueError, match="expected a verb .* at position 2, got the end of the sentence"):
        translate("the dog".split())
    with pytest.raises(ValueError, match="empty sentence"):
        translate([])
    with pytest.raises(ValueError, match="unknown source words for the simple grammar"):
        translate("a man looked after the dog".split(), grammar="simple")


def test_public_word_lists():
    cats = words_by_category()
    assert {"det", "adj", "noun", "prep", "verb_t", "verb_i", "verb_phrasal", "particle", "rel", "conj"} == set(cats)
    assert all(CATEGORY[w] == c for c, ws in cats.items() for w in ws)
    assert is_noun("cat") and is_noun("garden") and not is_noun("sees") and not is_noun("zebra")
    assert set(words_by_category("simple")) == {"det", "adj", "noun", "prep", "verb_t", "verb_i", "conj"}
    hint = vocabulary_hint()
    assert "nouns: cat" in hint and "phrasal verbs: looks after" in hint and len(hint) < 600


def test_vocab_covers_both_grammars():
    sv, tv = source_vocab(), target_vocab()
    assert [sv.itos[i] for i in range(4)] == ["<pad>", "<bos>", "<eos>", "<unk>"]
    for grammar in ("rich", "simple"):
        for src, tgt, _ in sample_pairs(300, 3, 50, seed=9, grammar=grammar):
            assert all(w in sv for w in src) and all(w in tv for w in tgt)
            assert all(w in source_vocab(grammar) for w in src) and all(w in target_vocab(grammar) for w in tgt)
    for ref in references(WORKED.split() + ["and", "the", "dog", "sleeps"]):
        assert all(w in target_vocab("rich") for w in ref)
    assert sv.encode(["the", "zebra"]) == [sv.stoi["the"], sv.unk_id]
    assert "the" in sv and "zebra" not in sv and "<pad>" not in sv
    ids = [tv.bos_id] + tv.encode(["gou", "le"]) + [tv.eos_id, tv.stoi["mao"], tv.pad_id]
    assert tv.decode(ids) == ["gou", "le"]


def test_max_target_length_bounds_every_target():
    for src, tgt, _ in load_split("valid") + load_split(f"test_{UNSEEN_BUCKET}"):
        assert len(tgt) <= max_target_length(len(src))
    assert max(len(t) - len(s) for s, t, _ in load_split(f"test_{UNSEEN_BUCKET}")) > 10, \
        "targets run well past source length + 10: decoders need max_target_length"


# ---------------------------------------------------------------- files
def test_alignment_text_format():
    assert format_alignment([(3,), (0, 2), (), (5,)]) == "3 0,2 - 5"
    assert parse_alignment("3 0,2 - 5") == [(3,), (0, 2), (), (5,)]


def test_tsv_round_trip(tmp_path):
    pairs = sample_pairs(20, 4, 12, seed=4)
    write_tsv(tmp_path / "x.tsv", pairs)
    assert read_tsv(tmp_path / "x.tsv") == pairs
    assert any(() in a for _, _, a in pairs) and any(len(s) > 1 for _, _, a in pairs for s in a)
    (tmp_path / "bad.tsv").write_text("source\ttarget\talignment\na b\tc\n")
    with pytest.raises(ValueError, match="line 2: expected 3 tab-separated fields"):
        read_tsv(tmp_path / "bad.tsv")


def test_regeneration_is_byte_identical(tmp_path):
    (tmp_path / "README.md").write_bytes((DATA_DIR / "README.md").read_bytes())
    written = write_data(tmp_path)
    committed = sorted(p.name for p in DATA_DIR.glob("*.tsv"))
    assert sorted(p.name for p in written) == committed
    for p in written + [tmp_path / "README.md"]:
        assert p.read_bytes() == (DATA_DIR / p.name).read_bytes(), f"{p.name} differs from data/{p.name}"


def test_readme_examples_are_the_translations():
    import re

    text = (DATA_DIR / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"source : (.*)\ntarget : (.*)\nalign  : (.*)\n", text)
    assert len(blocks) >= 6
    shown = set()
    for src, tgt, align in blocks:
        assert translate(src.split()) == (tgt.split(), parse_alignment(align)), src
        shown |= phenomena((src.split(), tgt.split(), parse_alignment(align)))
    assert shown == set(PHENOMENA), "data/README.md shows an example of every phenomenon"


def test_data_files_are_small_split_and_bucketed():
    total = sum(p.stat().st_size for p in DATA_DIR.iterdir() if p.is_file())
    assert total < 4_500_000
    train = load_split("train")
    assert len(train) == toylang.files.N_TRAIN and {len(s) for s, _, _ in train} == set(range(TRAIN_LENGTHS[0],
                                                                                        TRAIN_LENGTHS[1] + 1))
    seen = {" ".join(s) for s, _, _ in train}
    assert list(load_test_buckets()) == ["4-10", "11-20", "21-30", "31-40", "41-50"]
    for lo, hi in TEST_BUCKETS:
        test = load_split(f"test_{bucket_name(lo, hi)}")
        assert len(test) == toylang.files.N_TEST
        assert all(lo <= len(s) <= hi for s, _, _ in test)
        assert not seen & {" ".join(s) for s, _, _ in test}, "test sentences must not appear in training"
    assert bucket_name(4, 10) == "4-10" and UNSEEN_BUCKET == "41-50"
    assert min(len(s) for s, _, _ in load_split(f"test_{UNSEEN_BUCKET}")) > max(len(s) for s, _, _ in train)


def test_missing_split_says_how_to_regenerate(tmp_path):
    with pytest.raises(FileNotFoundError, match="--write"):
        load_split("train", tmp_path)
