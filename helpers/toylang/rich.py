"""The rich grammar, inspired by Mandarin word order (see the package docstring): its words, its trees, how a
tree renders into the target with gold alignment sets, the parser of the source language and the generator."""
from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass
from typing import Sequence

from helpers.toylang.common import MIN_LEN, format_hint, split_clauses

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


#: Category of every source word of the rich grammar (see helpers.toylang.task.CATEGORY).
RICH_CATEGORY: dict[str, str] = {w: c for c, ws in _RICH_WORDS.items() for w in ws}


def rich_words() -> dict[str, list[str]]:
    """The rich grammar's source words by category (fresh lists; phrasal verbs as their verb and particle)."""
    return {c: list(ws) for c, ws in _RICH_WORDS.items()}


def rich_hint(per_category: int = 5) -> str:
    """The rich grammar's allowed source words, a few per category (a phrasal verb as its two words)."""
    cats = rich_words()
    cats["verb_phrasal"] = [" ".join((p[0], p[2])) for p in (*_PHRASAL_T, *_PHRASAL_I)]
    cats.pop("particle")
    return format_hint(cats, per_category)


def rich_target_words() -> list[str]:
    """Every target word of the rich grammar, once each, in a fixed order."""
    words = [t for t in _DETS.values() if t] + list(_MEASURE) + list(_NOUNS.values()) + list(_ADJS.values())
    words += [w for pair in _PREPS.values() for w in pair] + [t for t, _, _ in _VERB_FORMS.values()]
    words += list(_CONJS.values()) + list(_SYNONYMS.values()) + [DE, LE]
    return list(dict.fromkeys(words))


#: Role of every target word of the rich grammar: "det", "measure", "noun", "adj", "de", "pre" (zai, gen: before
#: the noun phrase), "post" (li, xia, ...: after its noun), "verb", "le", "conj" (for the word-order hints).
TARGET_ROLE: dict[str, str] = {
    **{t: "det" for t in _DETS.values() if t}, **{mw: "measure" for mw in _MEASURE},
    **{t: "noun" for t in _NOUNS.values()}, **{t: "adj" for t in _ADJS.values()},
    **{pre: "pre" for pre, _ in _PREPS.values()}, **{post: "post" for _, post in _PREPS.values()},
    **{t: "verb" for t, _, _ in _VERB_FORMS.values()}, **{t: "conj" for t in _CONJS.values()}, DE: "de", LE: "le",
}
TARGET_ROLE.update({alt: TARGET_ROLE[default] for default, alt in _SYNONYMS.items()})


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
    unknown = [w for w in words if w not in RICH_CATEGORY]
    if unknown:
        raise ValueError(f"unknown source words: {list(dict.fromkeys(unknown))}; allowed: {rich_hint()}")
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
        if peek() is None or RICH_CATEGORY[peek()] != cat:
            fail(what)
        pos += 1
        return pos - 1

    def noun_phrase(allow_rel: bool) -> _NP:
        det = take("det", "a determiner (the, a, this, that, every)")
        adj = take("adj", "an adjective") if peek() is not None and RICH_CATEGORY[peek()] == "adj" else None
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
        if peek() is not None and RICH_CATEGORY[peek()] == "prep":
            prep = take("prep", "a preposition")
            pp = _PP(prep, noun_phrase(allow_rel=False))
        return _Clause(subj, vp, pp, conj)

    clauses = [clause(None)]
    while peek() is not None and RICH_CATEGORY[peek()] == "conj":
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


def rich_sample(rng: random.Random, n: int):
    """One (src, tgt, alignment) pair of the rich grammar with exactly n source words, drawn from `rng`."""
    b = _RichBuilder(rng)
    for i, size in enumerate(split_clauses(rng, n, MIN_LEN, MAX_RICH_CLAUSE)):
        if i:
            b.emit(rng.choice(_RICH_WORDS["conj"]))
        b.clause(size)
    tgt, align = _render(b.src, _parse_rich(b.src), _flags(rng))
    return b.src, tgt, align


def rich_translate(words: list[str]) -> tuple[list[str], list[tuple[int, ...]]]:
    """The default translation of a rich-grammar source sentence and its gold alignment sets (ValueError if the
    sentence has an unknown word or does not parse)."""
    return _render(words, _parse_rich(words), _Flags())


def rich_references(words: list[str]) -> list[list[str]]:
    """Every valid translation of a rich-grammar source sentence: the default first, at most 4, no duplicates."""
    tree = _parse_rich(words)
    out: list[list[str]] = []
    for le_final, synonyms in ((False, False), (True, False), (False, True), (True, True)):
        tgt = _render(words, tree, _Flags(le_final, synonyms))[0]
        if tgt not in out:
            out.append(tgt)
    return out
