"""A generated translation task: an English-like source language and two target languages.

**The rich grammar (the default)** is a *toy grammar inspired by Mandarin word order*, written in ASCII
pinyin without tones. It is not a Chinese lesson: the words are real pinyin, the rules are simplified, and
many sentences would sound odd to a Mandarin speaker. It has the phenomena that make real alignment hard::

    source : a man who saw the cat looked after a big dog in the house
    target : kanjian le mao de yi ge nanren zai fangzi li zhaogu le yi zhi gaoda de gou

* articles are dropped: ``the`` has no target word (an *unaligned source word*);
* a determiner takes a **measure word chosen by the noun**: ``a cat`` -> ``yi zhi mao``, ``a book`` ->
  ``yi ben shu``; the measure word translates {determiner, noun} (*context-dependent choice*);
* an adjective takes ``de`` before the noun (``de`` has no source word: an *unaligned target word*);
* a relative clause goes *before* its noun, closed by ``de`` (``who``/``which`` -> ``de``), and a place
  phrase goes *before* the verb (*long-distance reordering*);
* a place preposition becomes a circumposition around its noun: ``in the house`` -> ``zai fangzi li``
  (*one-to-many*, *discontinuous*);
* a phrasal verb becomes one word: ``looked after`` -> ``zhaogu`` (*many-to-one*);
* a past-tense verb is followed by the aspect particle ``le`` (no source word of its own);
* clauses are joined by ``and`` -> ``erqie`` or ``but`` -> ``danshi``.

**Free variation.** Two choices have two valid forms, each drawn once per sentence with probability
``VARIATION_P`` (0.2): ``le`` after the verb or at the end of its (main) clause, and three synonyms
(``kanjian``/``kandao``, ``erqie``/``bingqie``, ``danshi``/``keshi``). ``references(src)`` lists every valid
translation (at most 4); training targets carry one sampled form; evaluation scores against all.

**The simple grammar** (``grammar="simple"``) is the course's first, one-to-one head-final language (every
source word has exactly one target word; only the order changes), kept for small early examples and for
comparison: ``the small cat under a table sleeps`` -> ``tablo na shita kato peti ka dormu``.

**Gold alignments are sets.** ``alignment[j]`` is the sorted tuple of source positions that target word ``j``
translates; ``()`` means none (``de``, ``le``). In TSV files a set is written as comma-separated positions,
``-`` for the empty set, sets separated by spaces: ``1 0,2 - 2``.

Everything is deterministic from a seed and sentence lengths are exact (uniform over a range).
``python -m helpers.toylang --write`` regenerates ``data/`` byte for byte; ``--stats`` prints the counts.

One idea per module, each importing only the ones before it: ``common`` (what the grammars share, the vocabulary
hint's format among it), ``simple`` and ``rich`` (the grammars, each with public functions: ``rich_translate``,
``simple_words``, ...), ``task`` (the public functions over both, built on those), ``vocab`` (vocabularies),
``buckets`` (length buckets), ``files`` (data files and splits). Everything in ``__all__`` is importable from
``helpers.toylang``.
"""
from helpers.toylang.buckets import TEST_BUCKETS, TRAIN_LENGTHS, UNSEEN_BUCKET, bucket_name
from helpers.toylang.common import GRAMMARS
from helpers.toylang.files import (
    format_alignment,
    load_split,
    load_test_buckets,
    parse_alignment,
    read_tsv,
    split_stats,
    stats_markdown,
    write_data,
    write_tsv,
)
from helpers.toylang.rich import TARGET_ROLE, VARIATION_P
from helpers.toylang.simple import LEXICON
from helpers.toylang.task import (
    CATEGORY,
    PHENOMENA,
    is_noun,
    max_target_length,
    phenomena,
    references,
    sample_pairs,
    translate,
    vocabulary_hint,
    words_by_category,
)
from helpers.toylang.vocab import BOS, EOS, PAD, UNK, Vocab, source_vocab, target_vocab

__all__ = [
    "GRAMMARS", "LEXICON", "CATEGORY", "TARGET_ROLE", "PHENOMENA", "VARIATION_P", "sample_pairs", "translate",
    "references",
    "phenomena", "words_by_category", "is_noun", "vocabulary_hint", "max_target_length", "Vocab", "source_vocab",
    "target_vocab", "read_tsv", "write_tsv", "format_alignment", "parse_alignment", "load_split", "load_test_buckets",
    "TEST_BUCKETS", "TRAIN_LENGTHS", "UNSEEN_BUCKET", "write_data", "bucket_name", "split_stats", "stats_markdown",
    "PAD", "BOS", "EOS", "UNK",
]
