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
"""
from __future__ import annotations

import argparse
import functools
import itertools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

__all__ = [
    "GRAMMARS", "LEXICON", "CATEGORY", "PHENOMENA", "VARIATION_P", "sample_pairs", "translate", "references",
    "phenomena", "words_by_category", "is_noun", "vocabulary_hint", "max_target_length", "Vocab", "source_vocab",
    "target_vocab", "read_tsv", "write_tsv", "format_alignment", "parse_alignment", "load_split", "load_test_buckets",
    "TEST_BUCKETS", "TRAIN_LENGTHS", "UNSEEN_BUCKET", "write_data", "bucket_name", "split_stats", "stats_markdown",
    "PAD", "BOS", "EOS", "UNK",
]

GRAMMARS = ("rich", "simple")
PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)
MIN_LEN = 3          # "the dog sleeps"

# ================================================================ the simple grammar (one-to-one, head-final)
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


def _split_clauses(rng: random.Random, n: int, lo: int, hi: int) -> list[int]:
    """Clause sizes for a sentence of exactly n words (clauses of lo..hi words joined by one-word conjunctions)."""
    ks = [k for k in range(1, n + 1) if k * lo + k - 1 <= n <= k * hi + k - 1]
    k = rng.choice(ks[:2])                      # the fewest clauses that fit, or one more
    left, sizes = n - (k - 1), []
    for i in range(k):
        rest = k - 1 - i
        size = rng.randint(max(lo, left - rest * hi), min(hi, left - rest * lo))
        sizes.append(size)
        left -= size
    return sizes


def _sample_simple(rng: random.Random, n: int):
    b = _SimpleBuilder(rng)
    out: list[tuple[str, int]] = []
    for i, size in enumerate(_split_clauses(rng, n, MIN_CLAUSE, MAX_CLAUSE)):
        if i:
            out.append(b.word("conj"))
        out += b.clause(size)
    return b.src, [w for w, _ in out], [(i,) for _, i in out]


def _translate_simple(words: list[str]) -> tuple[list[str], list[tuple[int, ...]]]:
    cat = {s: c for c, group in _SIMPLE_WORDS.items() for s in group}
    unknown = [w for w in words if w not in cat]
    if unknown:
        raise ValueError(f"unknown source words for the simple grammar: {unknown}; "
                         f"allowed: {vocabulary_hint('simple')}")
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


# ================================================================ the rich grammar (inspired by Mandarin)
_DETS = {"the": None, "a": "yi", "this": "zhe", "that": "na", "every": "mei"}
_MEASURE = {   # measure word -> the nouns that take it (source noun: target noun)
    "zhi": {"cat": "mao", "dog": "gou", "bird": "niao", "horse": "ma", "fox": "huli"},
    "ge": {"man": "nanren", "woman": "nvren", "child": "haizi", "teacher": "laoshi", "farmer": "nongmin",
           "student": "xuesheng"},
    "ben": {"book": "shu", "magazine": "zazhi"},
    "liang": {"car": "qiche", "bus": "gongche", "bicycle": "zixingche"},
    "zhang": {"table": "zhuozi", "bed": "chuang", "map": "ditu", "picture": "tupian"},
    "ba": {"chair": "yizi", "knife": "daozi", "umbrella": "yusan", "key": "yaoshi"},
    "zuo": {"house": "fangzi", "bridge": "qiao", "hill": "shan"},
    "tiao": {"river": "he", "road": "lu", "fish": "yu", "boat": "chuan"},
}
_NOUNS = {s: t for group in _MEASURE.values() for s, t in group.items()}
_MW_OF = {s: mw for mw, group in _MEASURE.items() for s in group}
_PEOPLE = frozenset(_MEASURE["ge"])           # take "who"; every other noun takes "which"
_ADJS = {"big": "gaoda", "small": "xiaoxiao", "red": "hongse", "green": "lvse", "old": "gulao",
         "young": "nianqing", "happy": "kuaile", "quiet": "anjing", "clever": "congming", "brave": "yonggan"}
_PREPS = {"in": ("zai", "li"), "on": ("zai", "shang"), "under": ("zai", "xia"), "behind": ("zai", "houmian"),
          "near": ("zai", "pangbian"), "with": ("gen", "yiqi")}
# verbs: (present, past) source forms -> target; phrasal verbs are two source words
_VERBS_T = {("sees", "saw"): "kanjian", ("likes", "liked"): "xihuan", ("finds", "found"): "zhaodao",
            ("follows", "followed"): "gensui", ("helps", "helped"): "bangzhu", ("carries", "carried"): "banyun",
            ("visits", "visited"): "baifang", ("chases", "chased"): "zhuigan"}
_VERBS_I = {("sleeps", "slept"): "shuijiao", ("sings", "sang"): "changge", ("waits", "waited"): "dengdai",
            ("laughs", "laughed"): "daxiao", ("runs", "ran"): "paobu"}
_PHRASAL_T = {("looks", "looked", "after"): "zhaogu", ("looks", "looked", "for"): "xunzhao",
              ("picks", "picked", "up"): "jianqi", ("takes", "took", "away"): "nazou"}
_PHRASAL_I = {("wakes", "woke", "up"): "xinglai", ("sits", "sat", "down"): "zuoxia", ("goes", "went", "out"): "chuqu"}
_CONJS = {"and": "erqie", "but": "danshi"}
_RELS = ("who", "which")
_SYNONYMS = {"kanjian": "kandao", "erqie": "bingqie", "danshi": "keshi"}   # default -> alternative form
DE, LE = "de", "le"

#: Probability of each free-variation choice (drawn once per sentence).
VARIATION_P = 0.2

# verb lookup: source word(s) -> (target, transitive, past, n_words)
_VERB_FORMS: dict[tuple[str, ...], tuple[str, bool, bool]] = {}
for _table, _trans in ((_VERBS_T, True), (_VERBS_I, False)):
    for (_pres, _past), _t in _table.items():
        _VERB_FORMS[(_pres,)] = (_t, _trans, False)
        _VERB_FORMS[(_past,)] = (_t, _trans, True)
for _table, _trans in ((_PHRASAL_T, True), (_PHRASAL_I, False)):
    for (_pres, _past, _part), _t in _table.items():
        _VERB_FORMS[(_pres, _part)] = (_t, _trans, False)
        _VERB_FORMS[(_past, _part)] = (_t, _trans, True)

_RICH_WORDS: dict[str, list[str]] = {
    "det": list(_DETS), "adj": list(_ADJS), "noun": list(_NOUNS), "prep": list(_PREPS),
    "verb_t": [w for p in _VERBS_T for w in p], "verb_i": [w for p in _VERBS_I for w in p],
    "verb_phrasal": list(dict.fromkeys(w for p in (*_PHRASAL_T, *_PHRASAL_I) for w in p[:2])),
    "particle": list(dict.fromkeys(p[2] for p in (*_PHRASAL_T, *_PHRASAL_I))),
    "rel": list(_RELS), "conj": list(_CONJS),
}

_RICH_CATEGORY = {w: c for c, ws in _RICH_WORDS.items() for w in ws}
_SIMPLE_CATEGORY = {w: c for c, group in _SIMPLE_WORDS.items() for w in group}
#: Category of every source word of either grammar ("det", "adj", "noun", "prep", "verb_t", "verb_i",
#: "verb_phrasal" (first word of a phrasal verb), "particle", "rel", "conj"); the grammars agree on shared words.
CATEGORY: dict[str, str] = {**_SIMPLE_CATEGORY, **_RICH_CATEGORY}
assert all(_SIMPLE_CATEGORY[w] == c for w, c in _RICH_CATEGORY.items() if w in _SIMPLE_CATEGORY)


def _rich_target_words() -> list[str]:
    words = [t for t in _DETS.values() if t] + list(_MEASURE) + list(_NOUNS.values()) + list(_ADJS.values())
    words += [w for pair in _PREPS.values() for w in pair] + [t for t, _, _ in _VERB_FORMS.values()]
    words += list(_CONJS.values()) + list(_SYNONYMS.values()) + [DE, LE]
    return list(dict.fromkeys(words))


# ---------------------------------------------------------------- the rich grammar's trees
@dataclass
class _NP:
    det: int
    noun: int
    adj: int | None = None
    rel: "_Rel | None" = None


@dataclass
class _VP:
    verb: tuple[int, ...]            # one or two source positions (a phrasal verb)
    past: bool
    obj: _NP | None = None


@dataclass
class _Rel:
    pron: int
    vp: _VP


@dataclass
class _PP:
    prep: int
    np: _NP


@dataclass
class _Clause:
    subj: _NP
    vp: _VP
    pp: _PP | None = None
    conj: int | None = None          # the conjunction before this clause (None for the first)


@dataclass
class _Flags:
    le_final: bool = False           # main-clause "le" at the end of the clause instead of after the verb
    synonyms: bool = False           # the alternative form of every word in _SYNONYMS


# ---------------------------------------------------------------- rendering a tree into the target
def _render(src: Sequence[str], clauses: list[_Clause], flags: _Flags) -> tuple[list[str], list[tuple[int, ...]]]:
    """Target words and gold alignment sets of a parsed rich-grammar sentence."""
    out: list[tuple[str, tuple[int, ...]]] = []

    def word(w: str) -> str:
        return _SYNONYMS.get(w, w) if flags.synonyms else w

    def np(x: _NP) -> None:
        if x.rel is not None:
            vp(x.rel.vp, le_final=False)
            out.append((DE, (x.rel.pron,)))
        det = _DETS[src[x.det]]
        if det is not None:
            out.append((det, (x.det,)))
            out.append((_MW_OF[src[x.noun]], (x.det, x.noun)))
        if x.adj is not None:
            out.append((_ADJS[src[x.adj]], (x.adj,)))
            out.append((DE, ()))
        out.append((_NOUNS[src[x.noun]], (x.noun,)))

    def vp(x: _VP, le_final: bool) -> None:
        target = _VERB_FORMS[tuple(src[i] for i in x.verb)][0]
        out.append((word(target), x.verb))
        if x.past and not (le_final and x.obj is not None):
            out.append((LE, ()))
        if x.obj is not None:
            np(x.obj)
            if x.past and le_final:
                out.append((LE, ()))

    for c in clauses:
        if c.conj is not None:
            out.append((word(_CONJS[src[c.conj]]), (c.conj,)))
        np(c.subj)
        if c.pp is not None:
            pre, post = _PREPS[src[c.pp.prep]]
            out.append((pre, (c.pp.prep,)))
            np(c.pp.np)
            out.append((post, (c.pp.prep,)))
        vp(c.vp, le_final=flags.le_final)
    return [w for w, _ in out], [a for _, a in out]


# ---------------------------------------------------------------- parsing the rich source language
def _parse_rich(words: list[str]) -> list[_Clause]:
    """Parse a rich-grammar source sentence (raises ValueError naming the position and what was expected)."""
    unknown = [w for w in words if w not in _RICH_CATEGORY]
    if unknown:
        raise ValueError(f"unknown source words: {list(dict.fromkeys(unknown))}; allowed: {vocabulary_hint()}")
    if not words:
        raise ValueError("cannot translate an empty sentence; expected at least 3 words, e.g. 'the dog sleeps'")
    pos = 0

    def peek(k: int = 0) -> str | None:
        return words[pos + k] if pos + k < len(words) else None

    def fail(what: str):
        got = repr(words[pos]) if pos < len(words) else "the end of the sentence"
        raise ValueError(f"expected {what} at position {pos}, got {got}")

    def take(cat: str, what: str) -> int:
        nonlocal pos
        if peek() is None or _RICH_CATEGORY[peek()] != cat:
            fail(what)
        pos += 1
        return pos - 1

    def noun_phrase(allow_rel: bool) -> _NP:
        det = take("det", "a determiner (the, a, this, that, every)")
        adj = take("adj", "an adjective") if peek() is not None and _RICH_CATEGORY[peek()] == "adj" else None
        noun = take("noun", "a noun")
        rel = None
        if allow_rel and peek() in _RELS:
            want = "who" if words[noun] in _PEOPLE else "which"
            if peek() != want:
                fail(f"'{want}' after '{words[noun]}' (who for people, which for everything else)")
            pron = take("rel", "who/which")
            rel = _Rel(pron, verb_phrase(allow_rel=False))
        return _NP(det, noun, adj, rel)

    def verb_phrase(allow_rel: bool) -> _VP:
        nonlocal pos
        two, one = tuple(words[pos:pos + 2]), tuple(words[pos:pos + 1])
        if len(two) == 2 and two in _VERB_FORMS:
            span = (pos, pos + 1)
        elif len(one) == 1 and one in _VERB_FORMS:
            span = (pos,)
        else:
            fail("a verb (e.g. sees, slept, looked after)")
        _, transitive, past = _VERB_FORMS[tuple(words[i] for i in span)]
        pos += len(span)
        obj = noun_phrase(allow_rel) if transitive else None
        return _VP(span, past, obj)

    def clause(conj: int | None) -> _Clause:
        subj = noun_phrase(allow_rel=True)
        vp = verb_phrase(allow_rel=True)
        pp = None
        if peek() is not None and _RICH_CATEGORY[peek()] == "prep":
            prep = take("prep", "a preposition")
            pp = _PP(prep, noun_phrase(allow_rel=False))
        return _Clause(subj, vp, pp, conj)

    clauses = [clause(None)]
    while peek() is not None and _RICH_CATEGORY[peek()] == "conj":
        conj = take("conj", "and/but")
        clauses.append(clause(conj))
    if pos != len(words):
        fail("'and', 'but' or the end of the sentence")
    return clauses


# ---------------------------------------------------------------- generating rich source sentences
# Length budgets: every constituent is built to an exact number of source words.
# Verb kinds: (words, transitive, table)
_VERB_KINDS = {"vi": (1, False), "vi2": (2, False), "vt": (1, True), "vt2": (2, True)}
# Prior weights (relative) of the structural choices; the exact-length constraint renormalises them.
_W_VERB = {"vi": 1.0, "vi2": 0.6, "vt": 2.0, "vt2": 1.5}
_W_NP = {2: 1.0, 3: 0.6}             # det noun / det adj noun; a relative clause adds its own weight
_W_REL = 0.35
_W_PP = {0: 1.0, 3: 0.45, 4: 0.45}   # no place phrase / prep det noun / prep det adj noun
MAX_RICH_CLAUSE = 22
PAST_P = 0.4                         # share of verbs in the past tense (followed by "le")
_DET_WEIGHTS = {"the": 4.0, "a": 1.5, "this": 1.0, "that": 1.0, "every": 0.5}


@functools.lru_cache(maxsize=None)
def _np_lengths(allow_rel: bool) -> dict[int, float]:
    """{length: total prior weight} of the noun phrases a rel-allowed / rel-free slot can hold."""
    out = dict(_W_NP)
    if allow_rel:
        for base, verb_kind in itertools.product(_W_NP, _VERB_KINDS):
            words, transitive = _VERB_KINDS[verb_kind]
            w = _W_NP[base] * _W_REL * _W_VERB[verb_kind]
            objs = _np_lengths(False) if transitive else {0: 1.0}
            for o, wo in objs.items():
                n = base + 1 + words + o
                out[n] = out.get(n, 0.0) + w * wo
    return out


@functools.lru_cache(maxsize=None)
def _clause_options(n: int) -> tuple[list[tuple[int, str, int, int]], list[float]]:
    """Every (subject, verb kind, object, place phrase) length split of an n-word clause, with its weight."""
    opts, weights = [], []
    subj_lengths = _np_lengths(True)
    for s, ws in subj_lengths.items():
        for vk, (words, transitive) in _VERB_KINDS.items():
            for p, wp in _W_PP.items():
                o = n - s - words - p
                objs = subj_lengths if transitive else {0: 1.0}
                if o in objs:
                    opts.append((s, vk, o, p))
                    weights.append(ws * _W_VERB[vk] * wp * objs[o])
    return opts, weights


def _choose(rng: random.Random, options: Sequence, weights: Sequence[float]):
    return options[rng.choices(range(len(options)), weights=weights)[0]]


class _RichBuilder:
    """Emits rich-grammar source words left to right, each constituent of an exact length."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.src: list[str] = []

    def emit(self, *ws: str) -> None:
        self.src.extend(ws)

    def noun_phrase(self, n: int, allow_rel: bool) -> None:
        rng = self.rng
        if n in _W_NP:
            base, rel = n, None
        else:
            opts, weights = [], []
            for base, verb_kind in itertools.product(_W_NP, _VERB_KINDS):
                words, transitive = _VERB_KINDS[verb_kind]
                o = n - base - 1 - words
                objs = _np_lengths(False) if transitive else {0: 1.0}
                if o in objs:
                    opts.append((base, verb_kind, o))
                    weights.append(_W_NP[base] * _W_VERB[verb_kind] * objs[o])
            base, *rel = _choose(rng, opts, weights)
        self.emit(_choose(rng, list(_DET_WEIGHTS), list(_DET_WEIGHTS.values())))
        if base == 3:
            self.emit(rng.choice(_RICH_WORDS["adj"]))
        noun = rng.choice(_RICH_WORDS["noun"])
        self.emit(noun)
        if rel:
            self.emit("who" if noun in _PEOPLE else "which")
            self.verb_phrase(*rel)

    def verb_phrase(self, verb_kind: str, obj_len: int, allow_rel: bool = False) -> None:
        rng = self.rng
        past = rng.random() < PAST_P
        table = {"vi": _VERBS_I, "vi2": _PHRASAL_I, "vt": _VERBS_T, "vt2": _PHRASAL_T}[verb_kind]
        forms = rng.choice(sorted(table))
        self.emit(forms[1] if past else forms[0])
        if len(forms) == 3:
            self.emit(forms[2])
        if obj_len:
            self.noun_phrase(obj_len, allow_rel)

    def clause(self, n: int) -> None:
        s, verb_kind, o, p = _choose(self.rng, *_clause_options(n))
        self.noun_phrase(s, allow_rel=True)
        self.verb_phrase(verb_kind, o, allow_rel=True)
        if p:
            self.emit(self.rng.choice(_RICH_WORDS["prep"]))
            self.noun_phrase(p - 1, allow_rel=False)


def _flags(rng: random.Random) -> _Flags:
    return _Flags(le_final=rng.random() < VARIATION_P, synonyms=rng.random() < VARIATION_P)


def _sample_rich(rng: random.Random, n: int):
    b = _RichBuilder(rng)
    for i, size in enumerate(_split_clauses(rng, n, MIN_LEN, MAX_RICH_CLAUSE)):
        if i:
            b.emit(rng.choice(_RICH_WORDS["conj"]))
        b.clause(size)
    tgt, align = _render(b.src, _parse_rich(b.src), _flags(rng))
    return b.src, tgt, align


def _check_grammar(grammar: str) -> None:
    if grammar not in GRAMMARS:
        raise ValueError(f"grammar must be one of {GRAMMARS}, got {grammar!r}")


def _sample_one(rng: random.Random, n: int, grammar: str = "rich"):
    return _sample_rich(rng, n) if grammar == "rich" else _sample_simple(rng, n)


# ================================================================ public API
def sample_pairs(n: int, min_len: int = 4, max_len: int = 40, seed: int = 0, grammar: str = "rich"):
    """n sentence pairs with source lengths uniform over [min_len, max_len], deterministic from `seed`.

    Returns a list of (src_tokens, tgt_tokens, alignment) tuples; alignment[j] is the sorted tuple of source
    positions that target word j translates (empty: none). grammar="rich" (default) or "simple".
    """
    _check_grammar(grammar)
    if min_len < MIN_LEN or max_len < min_len:
        raise ValueError(f"lengths must satisfy {MIN_LEN} <= min_len <= max_len; "
                         f"got min_len={min_len}, max_len={max_len}")
    rng = random.Random(seed)
    return [_sample_one(rng, rng.randint(min_len, max_len), grammar) for _ in range(n)]


def translate(src_tokens: Sequence[str], grammar: str = "rich") -> tuple[list[str], list[tuple[int, ...]]]:
    """Parse a source sentence; return its default reference translation and gold alignment sets.

    Raises ValueError for an unknown word (the message lists the allowed words) or a sentence the grammar
    cannot parse (the message names the position and what was expected there).
    """
    _check_grammar(grammar)
    words = [str(w) for w in src_tokens]
    if grammar == "simple":
        return _translate_simple(words)
    return _render(words, _parse_rich(words), _Flags())


def references(src_tokens: Sequence[str], grammar: str = "rich") -> list[list[str]]:
    """Every valid translation of a source sentence (the default first; at most 4, no duplicates)."""
    _check_grammar(grammar)
    words = [str(w) for w in src_tokens]
    if grammar == "simple":
        return [_translate_simple(words)[0]]
    tree = _parse_rich(words)
    out: list[list[str]] = []
    for le_final, synonyms in ((False, False), (True, False), (False, True), (True, True)):
        tgt = _render(words, tree, _Flags(le_final, synonyms))[0]
        if tgt not in out:
            out.append(tgt)
    return out


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
    _check_grammar(grammar)
    if grammar == "simple":
        return {c: list(ws) for c, ws in _SIMPLE_LISTS.items()}
    return {c: list(ws) for c, ws in _RICH_WORDS.items()}


# Deprecated: helpers/seq2seq.py imported this private name before words_by_category() existed; kept until it
# switches to words_by_category() / vocabulary_hint().


def is_noun(word: str) -> bool:
    """True for a noun of either grammar."""
    return CATEGORY.get(word) == "noun"


_HINT_LABELS = {"det": "determiners", "adj": "adjectives", "noun": "nouns", "prep": "prepositions",
                "verb_t": "verbs with an object", "verb_i": "verbs without one", "verb_phrasal": "phrasal verbs",
                "rel": "relative words", "conj": "joining words"}


def vocabulary_hint(grammar: str = "rich", per_category: int = 5) -> str:
    """A short human-readable list of the allowed source words, a few per category."""
    if grammar == "rich":
        cats = words_by_category("rich")
        phrasal = [" ".join((p[0], p[2])) for p in (*_PHRASAL_T, *_PHRASAL_I)]
        cats = {**cats, "verb_phrasal": phrasal}
        cats.pop("particle")
    else:
        cats = words_by_category(grammar)
    parts = []
    for c, ws in cats.items():
        more = ", ..." if len(ws) > per_category else ""
        parts.append(f"{_HINT_LABELS.get(c, c)}: {', '.join(ws[:per_category])}{more}")
    return "; ".join(parts)


def max_target_length(n_src: int, grammar: str = "rich") -> int:
    """A safe upper bound on the number of target words for an n_src-word source (a decoder's max_len).

    Rich grammar: every source word yields at most two target words (a + measure word, adjective + de,
    verb + le, the two halves of a circumposition), so 2 * n_src. Simple grammar: n_src.
    """
    _check_grammar(grammar)
    return 2 * n_src if grammar == "rich" else n_src


# ---------------------------------------------------------------- vocabularies
@dataclass(frozen=True)
class Vocab:
    """Token <-> id mapping with <pad>=0, <bos>=1, <eos>=2, <unk>=3."""

    itos: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "stoi", {t: i for i, t in enumerate(self.itos)})

    pad_id, bos_id, eos_id, unk_id = 0, 1, 2, 3

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi and token not in SPECIALS

    def encode(self, tokens: Iterable[str]) -> list[int]:
        """Token ids (unknown words -> <unk>), no <bos>/<eos> added."""
        return [self.stoi.get(t, self.unk_id) for t in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens up to the first <eos>, skipping <pad>/<bos>."""
        out = []
        for i in ids:
            i = int(i)
            if i == self.eos_id:
                break
            if i not in (self.pad_id, self.bos_id):
                out.append(self.itos[i])
        return out


def source_vocab(grammar: str | None = None) -> Vocab:
    """Source words of one grammar, or of both (default, so one model can read either); fixed, data-independent."""
    words = {"rich": _RICH_CATEGORY, "simple": _SIMPLE_CATEGORY, None: CATEGORY}[grammar]
    return Vocab(SPECIALS + tuple(sorted(words)))


def target_vocab(grammar: str | None = None) -> Vocab:
    """Target words of one grammar, or of both (default)."""
    rich, simple = set(_rich_target_words()), set(LEXICON.values())
    words = {"rich": rich, "simple": simple, None: rich | simple}[grammar]
    return Vocab(SPECIALS + tuple(sorted(words)))


# ---------------------------------------------------------------- files
TEST_BUCKETS: tuple[tuple[int, int], ...] = ((4, 10), (11, 20), (21, 30), (31, 40), (41, 50))
TRAIN_LENGTHS: tuple[int, int] = (4, 40)
N_TRAIN, N_VALID, N_TEST = 10000, 400, 200
SEED_TRAIN, SEED_VALID, SEED_TEST = 1, 2, 3
HEADER = "source\ttarget\talignment\n"


def bucket_name(lo: int, hi: int) -> str:
    """Label of a length bucket: bucket_name(4, 10) == '4-10'."""
    return f"{lo}-{hi}"


#: The test bucket whose sentences are all longer than any training sentence.
UNSEEN_BUCKET: str = next(bucket_name(lo, hi) for lo, hi in TEST_BUCKETS if lo > TRAIN_LENGTHS[1])


def format_alignment(alignment: Sequence[Sequence[int]]) -> str:
    """Alignment sets as text: '1 0,2 - 2' (one field per target word, '-' = empty set)."""
    return " ".join(",".join(map(str, a)) if len(a) else "-" for a in alignment)


def parse_alignment(text: str) -> list[tuple[int, ...]]:
    """Inverse of format_alignment."""
    return [() if f == "-" else tuple(int(x) for x in f.split(",")) for f in text.split()]


def write_tsv(path: Path, pairs) -> None:
    """Write (src, tgt, alignment) triples as TSV: space-separated tokens; alignment sets as format_alignment."""
    lines = [HEADER] + [f"{' '.join(s)}\t{' '.join(t)}\t{format_alignment(a)}\n" for s, t, a, *_ in pairs]
    Path(path).write_text("".join(lines), encoding="utf-8", newline="\n")


def read_tsv(path: Path) -> list[tuple[list[str], list[str], list[tuple[int, ...]]]]:
    """Read a file written by write_tsv."""
    rows = Path(path).read_text(encoding="utf-8").splitlines()
    if not rows or rows[0] + "\n" != HEADER:
        raise ValueError(f"{path} does not start with the header {HEADER!r}")
    out = []
    for k, line in enumerate(rows[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"{path}, line {k}: expected 3 tab-separated fields (source, target, alignment), "
                             f"got {len(fields)}")
        s, t, a = fields
        out.append((s.split(), t.split(), parse_alignment(a)))
    return out


def _unique(n: int, min_len: int, max_len: int, seed: int, seen: set) -> list:
    """n pairs whose source sentences are not in `seen` (and are added to it)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pair = _sample_one(rng, rng.randint(min_len, max_len))
        key = " ".join(pair[0])
        if key not in seen:
            seen.add(key)
            out.append(pair)
    return out


def build_splits() -> dict[str, list]:
    """The course's fixed split: train (4-40 words), valid (4-40), one test file per length bucket."""
    seen: set = set()
    splits = {"train": _unique(N_TRAIN, *TRAIN_LENGTHS, SEED_TRAIN, seen)}
    splits["valid"] = _unique(N_VALID, *TRAIN_LENGTHS, SEED_VALID, seen)
    for k, (lo, hi) in enumerate(TEST_BUCKETS):
        splits[f"test_{bucket_name(lo, hi)}"] = _unique(N_TEST, lo, hi, SEED_TEST * 100 + k, seen)
    return splits


def split_stats(pairs) -> dict:
    """Counts of one split: sentences, source/target words, longest target, share (%) of each phenomenon
    among the sentences of 11+ source words, and the share with none."""
    long = [p for p in pairs if len(p[0]) >= 11]
    found = [phenomena(p) for p in long]
    out = {"sentences": len(pairs), "source words": sum(len(p[0]) for p in pairs),
           "target words": sum(len(p[1]) for p in pairs), "longest target": max((len(p[1]) for p in pairs), default=0),
           "11+ words": len(long)}
    for name in PHENOMENA:
        out[name] = 100.0 * sum(name in f for f in found) / max(len(long), 1)
    out["none"] = 100.0 * sum(not f for f in found) / max(len(long), 1)
    return out


def stats_markdown(splits: dict[str, list]) -> str:
    """A Markdown table of split_stats for every split (what `--stats` prints and data/README.md embeds)."""
    rows = {name: split_stats(pairs) for name, pairs in splits.items()}
    cols = list(next(iter(rows.values())))
    lines = ["| file | " + " | ".join(c.replace("_", " ") for c in cols) + " |",
             "|---|" + "---|" * len(cols)]
    for name, r in rows.items():
        share = (lambda v: f"{v:.0f}%") if r["11+ words"] else (lambda v: "–")     # no 11+ sentences: no share
        cells = [share(r[c]) if c in PHENOMENA or c == "none" else f"{r[c]:,}" for c in cols]
        lines.append(f"| `{name}.tsv` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


_STATS_START, _STATS_END = "<!-- stats: generated by `python -m helpers.toylang --write` -->", "<!-- end stats -->"


def _readme_with_stats(text: str, table: str) -> str:
    head, sep, rest = text.partition(_STATS_START)
    if not sep:
        raise ValueError(f"data/README.md has no {_STATS_START!r} marker")
    _, sep2, tail = rest.partition(_STATS_END)
    if not sep2:
        raise ValueError(f"data/README.md has no {_STATS_END!r} marker")
    return f"{head}{_STATS_START}\n{table}\n{_STATS_END}{tail}"


def write_data(directory: Path | str | None = None) -> list[Path]:
    """(Re)generate every data file into `directory` (default: the course's data/) and the README's counts."""
    from helpers import DATA_DIR

    directory = Path(directory) if directory is not None else DATA_DIR
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    splits = build_splits()
    for name, pairs in splits.items():
        path = directory / f"{name}.tsv"
        write_tsv(path, pairs)
        paths.append(path)
    readme = directory / "README.md"
    source = readme if readme.exists() else DATA_DIR / "README.md"
    if source.exists():
        readme.write_text(_readme_with_stats(source.read_text(encoding="utf-8"), stats_markdown(splits)),
                          encoding="utf-8", newline="\n")
    return paths


def load_split(name: str, directory: Path | str | None = None):
    """Read data/<name>.tsv, e.g. load_split('train') or load_split('test_31-40')."""
    from helpers import DATA_DIR

    path = Path(directory or DATA_DIR) / f"{name}.tsv"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; run `python -m helpers.toylang --write` to generate it")
    return read_tsv(path)


def load_test_buckets(limit: int | None = None, directory: Path | str | None = None) -> dict[str, list]:
    """The test files by source-length bucket: {"4-10": pairs, ..., "41-50": pairs}, `limit` pairs each."""
    names = [bucket_name(lo, hi) for lo, hi in TEST_BUCKETS]
    return {name: load_split(f"test_{name}", directory)[:limit] for name in names}


def _main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Generate the course's translation data.")
    parser.add_argument("--write", action="store_true", help="write the train/valid/test TSV files")
    parser.add_argument("--out", default=None, help="directory (default: the repository's data/)")
    parser.add_argument("--stats", action="store_true", help="print counts and phenomenon shares per split")
    parser.add_argument("--show", type=int, default=0, help="print N example pairs with their alignments")
    parser.add_argument("--grammar", default="rich", choices=GRAMMARS, help="grammar for --show")
    args = parser.parse_args(argv)
    if args.write:
        for p in write_data(args.out):
            print(f"wrote {p.name} ({p.stat().st_size / 1e3:.0f} kB)")
    if args.stats:
        print(stats_markdown(build_splits()))
    for src, tgt, align in sample_pairs(args.show, 4, 20, seed=0, grammar=args.grammar):
        print(" ".join(src), "=>", " ".join(tgt), "|", format_alignment(align))


if __name__ == "__main__":
    _main()
