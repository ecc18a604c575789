"""The translation task's public functions over both grammars: sample, translate, references, phenomena, words."""
from __future__ import annotations

import random
from typing import Sequence

from helpers.toylang.common import MIN_LEN, check_grammar
from helpers.toylang.rich import RICH_CATEGORY, rich_hint, rich_references, rich_sample, rich_translate, rich_words
from helpers.toylang.simple import SIMPLE_CATEGORY, simple_hint, simple_sample, simple_translate, simple_words

#: Category of every source word of either grammar ("det", "adj", "noun", "prep", "verb_t", "verb_i",
#: "verb_phrasal" (first word of a phrasal verb), "particle", "rel", "conj"); the grammars agree on shared words.
CATEGORY: dict[str, str] = {**SIMPLE_CATEGORY, **RICH_CATEGORY}
assert all(SIMPLE_CATEGORY[w] == c for w, c in RICH_CATEGORY.items() if w in SIMPLE_CATEGORY)


def sample_pair(rng: random.Random, n: int, grammar: str = "rich"):
    """One (src, tgt, alignment) pair of exactly n source words from one grammar, drawn from `rng`."""
    return rich_sample(rng, n) if grammar == "rich" else simple_sample(rng, n)


def sample_pairs(n: int, min_len: int = 4, max_len: int = 40, seed: int = 0, grammar: str = "rich"):
    """n sentence pairs with source lengths uniform over [min_len, max_len], deterministic from `seed`.

    Returns a list of (src_tokens, tgt_tokens, alignment) tuples; alignment[j] is the sorted tuple of source
    positions that target word j translates (empty: none). grammar="rich" (default) or "simple".
    """
    check_grammar(grammar)
    if min_len < MIN_LEN or max_len < min_len:
        raise ValueError(f"lengths must satisfy {MIN_LEN} <= min_len <= max_len; "
                         f"got min_len={min_len}, max_len={max_len}")
    rng = random.Random(seed)
    return [sample_pair(rng, rng.randint(min_len, max_len), grammar) for _ in range(n)]


def translate(src_tokens: Sequence[str], grammar: str = "rich") -> tuple[list[str], list[tuple[int, ...]]]:
    """Parse a source sentence; return its default reference translation and gold alignment sets.

    Raises ValueError for an unknown word (the message lists the allowed words) or a sentence the grammar
    cannot parse (the message names the position and what was expected there).
    """
    check_grammar(grammar)
    words = [str(w) for w in src_tokens]
    return simple_translate(words) if grammar == "simple" else rich_translate(words)


def references(src_tokens: Sequence[str], grammar: str = "rich") -> list[list[str]]:
    """Every valid translation of a source sentence (the default first; at most 4, no duplicates)."""
    check_grammar(grammar)
    words = [str(w) for w in src_tokens]
    return [simple_translate(words)[0]] if grammar == "simple" else rich_references(words)


#: The phenomena `phenomena()` reads off a gold alignment, in a fixed order.
PHENOMENA = ("one_to_many", "discontinuous", "many_to_one", "unaligned_source", "unaligned_target",
             "context_dependent", "long_reordering")


def phenomena(pair) -> set[str]:
    """Which alignment phenomena a (src, tgt, alignment) pair shows, read off its gold alignment sets alone.

    * one_to_many: a source word translated by 2+ target words that translate nothing else (``in`` -> zai, li);
    * discontinuous: such a source word whose target words are not adjacent (``zai fangzi li``);
    * many_to_one: a target word translating 2+ source words that nothing else translates (``looked after``);
    * unaligned_source / unaligned_target: a source word in no gold set / a target word with an empty set;
    * context_dependent: a target word translating 2+ source words of which one is also translated by another
      target word (a measure word: its form depends on the noun, which has its own target word);
    * long_reordering: target words j < k whose source words lie the other way round, 3+ positions apart.
    """
    src, tgt, align = pair[0], pair[1], pair[2]
    sets = [tuple(a) for a in align]
    if len(sets) != len(tgt):
        raise ValueError(f"got {len(sets)} alignment sets for {len(tgt)} target words; expected one per target word")
    users: dict[int, list[int]] = {}
    for j, a in enumerate(sets):
        for i in a:
            users.setdefault(i, []).append(j)
    found = set()
    for js in users.values():
        if len(js) >= 2 and all(len(sets[j]) == 1 for j in js):
            found.add("one_to_many")
            if js[-1] - js[0] != len(js) - 1:
                found.add("discontinuous")
    for a in sets:
        if len(a) >= 2:
            shared = [len(users[i]) > 1 for i in a]
            found.add("context_dependent" if any(shared) else "many_to_one")
    if len(users) < len(src):
        found.add("unaligned_source")
    if any(not a for a in sets):
        found.add("unaligned_target")
    lowest_later = float("inf")           # min over k > j of max(a_k)
    for a in reversed([a for a in sets if a]):
        if min(a) - lowest_later >= 3:
            found.add("long_reordering")
            break
        lowest_later = min(lowest_later, max(a))
    return found


def words_by_category(grammar: str = "rich") -> dict[str, list[str]]:
    """The source words of a grammar by category, e.g. {"det": ["the", "a", ...], "noun": [...], ...}."""
    check_grammar(grammar)
    return simple_words() if grammar == "simple" else rich_words()


def is_noun(word: str) -> bool:
    """True for a noun of either grammar."""
    return CATEGORY.get(word) == "noun"


def vocabulary_hint(grammar: str = "rich", per_category: int = 5) -> str:
    """A short human-readable list of the allowed source words, a few per category."""
    check_grammar(grammar)
    return rich_hint(per_category) if grammar == "rich" else simple_hint(per_category)


def max_target_length(n_src: int, grammar: str = "rich") -> int:
    """A safe upper bound on the number of target words for an n_src-word source (a decoder's max_len).

    Rich grammar: every source word yields at most two target words (a + measure word, adjective + de,
    verb + le, the two halves of a circumposition), so 2 * n_src. Simple grammar: n_src.
    """
    check_grammar(grammar)
    return 2 * n_src if grammar == "rich" else n_src
