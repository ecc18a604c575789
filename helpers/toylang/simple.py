"""The simple grammar: one-to-one and head-final (every source word has exactly one target word; only the
order changes): ``the small cat under a table sleeps`` -> ``tablo na shita kato peti ka dormu``."""
from __future__ import annotations

import random

from helpers.toylang.common import format_hint, split_clauses

_SIMPLE_WORDS = {
    "det": {"the": "ka", "a": "na", "this": "ti", "that": "ta", "every": "vo", "some": "se"},
    "adj": {"big": "grani", "small": "peti", "red": "rossi", "old": "veki", "young": "yuni", "happy": "feli",
            "quiet": "kalmi", "brave": "kuri", "green": "verdi", "tall": "alti", "clever": "saji", "lazy": "pigri"},
    "noun": {"dog": "hundo", "cat": "kato", "bird": "fogo", "man": "viro", "woman": "femo", "child": "kido",
             "teacher": "dokto", "farmer": "bauro", "king": "rego", "queen": "kwino", "horse": "hipo",
             "fox": "vulpo", "house": "domo", "garden": "gardo", "river": "rivo", "tree": "arbo", "table": "tablo",
             "book": "libro", "car": "auto", "road": "vojo", "city": "urbo", "village": "vilo", "boat": "boto",
             "field": "kampo", "hill": "monto", "box": "kesto", "lamp": "lampo", "door": "pordo",
             "window": "fenestro", "bridge": "ponto"},
    "prep": {"on": "ue", "in": "naka", "near": "soba", "under": "shita", "behind": "ushiro", "with": "tomo",
             "from": "kara", "of": "no"},
    "verb_t": {"sees": "miru", "likes": "amu", "finds": "trovu", "follows": "sekvu", "watches": "rigardu",
               "helps": "helpu", "carries": "portu", "paints": "pentru", "visits": "vizitu", "pushes": "pusu"},
    "verb_i": {"sleeps": "dormu", "runs": "kuru", "sings": "kantu", "waits": "atendu", "laughs": "ridu",
               "falls": "falu"},
    "conj": {"and": "kaj"},
}
#: The simple grammar's word-for-word lexicon (source word -> its one target word).
LEXICON: dict[str, str] = {s: t for group in _SIMPLE_WORDS.values() for s, t in group.items()}
#: Category of every source word of the simple grammar (see helpers.toylang.task.CATEGORY).
SIMPLE_CATEGORY: dict[str, str] = {w: c for c, group in _SIMPLE_WORDS.items() for w in group}
_SIMPLE_LISTS = {cat: sorted(group) for cat, group in _SIMPLE_WORDS.items()}

MAX_ADJ = 2          # adjectives per noun phrase (simple grammar)
MAX_PP_DEPTH = 2     # prepositional phrases nested inside one noun phrase (simple grammar)
MIN_CLAUSE, MAX_CLAUSE = 3, 16


def _np_max(depth: int) -> int:
    """Longest simple noun phrase that may start at PP nesting depth `depth`."""
    return 2 + MAX_ADJ + (MAX_PP_DEPTH - depth) * (3 + MAX_ADJ)


def _np_options(n: int, depth: int) -> list[tuple[int, bool]]:
    """Ways (n_adjectives, has_pp) to build a simple noun phrase of exactly n words."""
    opts = [(n - 2, False)] if 0 <= n - 2 <= MAX_ADJ else []
    if depth < MAX_PP_DEPTH:
        opts += [(a, True) for a in range(MAX_ADJ + 1) if 2 <= n - 3 - a <= _np_max(depth + 1)]
    return opts


class _SimpleBuilder:
    """Emits source words left to right and returns target-order (word, source index) lists."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.src: list[str] = []

    def word(self, cat: str, w: str | None = None) -> tuple[str, int]:
        w = w or self.rng.choice(_SIMPLE_LISTS[cat])
        self.src.append(w)
        return LEXICON[w], len(self.src) - 1

    def noun_phrase(self, n: int, depth: int = 0) -> list[tuple[str, int]]:
        n_adj, has_pp = self.rng.choice(_np_options(n, depth))
        det = self.word("det")
        adjs = [self.word("adj", w) for w in self.rng.sample(_SIMPLE_LISTS["adj"], n_adj)]
        noun = self.word("noun")
        pp: list[tuple[str, int]] = []
        if has_pp:
            prep = self.word("prep")
            pp = self.noun_phrase(n - 3 - n_adj, depth + 1) + [prep]
        return pp + [noun] + adjs + [det]

    def clause(self, n: int) -> list[tuple[str, int]]:
        splits = [s for s in range(2, n - 2) if 2 <= n - 1 - s <= _np_max(0) and s <= _np_max(0)]
        if splits and (n - 1 > _np_max(0) or self.rng.random() < 0.8):
            s = self.rng.choice(splits)
            subj = self.noun_phrase(s)
            verb = self.word("verb_t")
            obj = self.noun_phrase(n - 1 - s)
            return subj + obj + [verb]
        subj = self.noun_phrase(n - 1)
        return subj + [self.word("verb_i")]


def simple_words() -> dict[str, list[str]]:
    """The simple grammar's source words by category (fresh lists, each sorted)."""
    return {c: list(ws) for c, ws in _SIMPLE_LISTS.items()}


def simple_hint(per_category: int = 5) -> str:
    """The simple grammar's allowed source words, a few per category."""
    return format_hint(simple_words(), per_category)


def simple_sample(rng: random.Random, n: int):
    """One (src, tgt, alignment) pair of the simple grammar with exactly n source words, drawn from `rng`."""
    b = _SimpleBuilder(rng)
    out: list[tuple[str, int]] = []
    for i, size in enumerate(split_clauses(rng, n, MIN_CLAUSE, MAX_CLAUSE)):
        if i:
            out.append(b.word("conj"))
        out += b.clause(size)
    return b.src, [w for w, _ in out], [(i,) for _, i in out]


def simple_translate(words: list[str]) -> tuple[list[str], list[tuple[int, ...]]]:
    """The one translation of a simple-grammar source sentence and its gold alignment (one source position per
    target word); ValueError if the sentence has an unknown word or does not parse."""
    cat = SIMPLE_CATEGORY
    unknown = [w for w in words if w not in cat]
    if unknown:
        raise ValueError(f"unknown source words for the simple grammar: {unknown}; allowed: {simple_hint()}")
    pos = 0

    def expect(c: str) -> tuple[str, int]:
        nonlocal pos
        if pos >= len(words) or cat[words[pos]] != c:
            got = words[pos] if pos < len(words) else "end of sentence"
            raise ValueError(f"expected a {c} at position {pos}, got {got!r}")
        pos += 1
        return LEXICON[words[pos - 1]], pos - 1

    def peek() -> str | None:
        return cat[words[pos]] if pos < len(words) else None

    def noun_phrase():
        det = expect("det")
        adjs = []
        while peek() == "adj":
            adjs.append(expect("adj"))
        noun = expect("noun")
        pp = []
        if peek() == "prep":
            prep = expect("prep")
            pp = noun_phrase() + [prep]
        return pp + [noun] + adjs + [det]

    def clause():
        subj = noun_phrase()
        if peek() == "verb_i":
            return subj + [expect("verb_i")]
        verb = expect("verb_t")
        return subj + noun_phrase() + [verb]

    out = clause()
    while peek() == "conj":
        out.append(expect("conj"))
        out += clause()
    if pos != len(words):
        raise ValueError(f"could not parse the sentence after position {pos} ({words[pos]!r})")
    return [w for w, _ in out], [(i,) for _, i in out]
