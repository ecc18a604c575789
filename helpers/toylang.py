"""A generated translation task: an English-like source language and a head-final target language.

Source (English-like word order)::

    the old dog near the river sees a red car and the child sleeps

Target (head-final; every source word has exactly one target word, so a gold word alignment exists)::

    rivo ka soba hundo veki ka auto rossi na miru kaj kido ka dormu

Rules that turn a source sentence into its target:

* a noun comes before its adjectives and its determiner: ``the old dog`` -> ``hundo veki ka``;
* a prepositional phrase becomes a postpositional phrase placed *before* the noun it modifies:
  ``the dog near the river`` -> ``rivo ka soba hundo ka``;
* the verb goes to the end of its clause (subject, object, verb): ``the dog sees a car`` -> ``hundo ka auto na miru``;
* clauses joined by ``and`` keep their order.

Everything is deterministic from a seed; sentence lengths are chosen exactly (uniform over a range).
``python -m helpers.toylang --write`` regenerates the files in ``data/`` byte for byte.
"""
from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

__all__ = [
    "LEXICON", "CATEGORY", "sample_pairs", "translate", "Vocab", "source_vocab", "target_vocab",
    "read_tsv", "write_tsv", "load_split", "load_test_buckets", "TEST_BUCKETS", "write_data", "bucket_name",
    "PAD", "BOS", "EOS", "UNK",
]

# ---------------------------------------------------------------- lexicon (source word -> target word)
_WORDS = {
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
LEXICON: dict[str, str] = {s: t for group in _WORDS.values() for s, t in group.items()}
CATEGORY: dict[str, str] = {s: cat for cat, group in _WORDS.items() for s in group}
_LISTS = {cat: sorted(group) for cat, group in _WORDS.items()}

MAX_ADJ = 2          # adjectives per noun phrase
MAX_PP_DEPTH = 2     # prepositional phrases nested inside one noun phrase
MIN_CLAUSE, MAX_CLAUSE = 3, 16
MIN_LEN = 3          # "the dog sleeps"

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)


# ---------------------------------------------------------------- generation
# A phrase is a list of (word, src_index) in *target* order; source order is the order we emit words in.

def _np_max(depth: int) -> int:
    """Longest noun phrase that may start at PP nesting depth `depth`."""
    return 2 + MAX_ADJ + (MAX_PP_DEPTH - depth) * (3 + MAX_ADJ)


def _np_options(n: int, depth: int) -> list[tuple[int, bool]]:
    """Ways (n_adjectives, has_pp) to build a noun phrase of exactly n words."""
    opts = [(n - 2, False)] if 0 <= n - 2 <= MAX_ADJ else []
    if depth < MAX_PP_DEPTH:
        opts += [(a, True) for a in range(MAX_ADJ + 1) if 2 <= n - 3 - a <= _np_max(depth + 1)]
    return opts


class _Builder:
    """Emits source words left to right and returns target-order (word, source index) lists."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.src: list[str] = []

    def word(self, cat: str, w: str | None = None) -> tuple[str, int]:
        w = w or self.rng.choice(_LISTS[cat])
        self.src.append(w)
        return LEXICON[w], len(self.src) - 1

    def noun_phrase(self, n: int, depth: int = 0) -> list[tuple[str, int]]:
        n_adj, has_pp = self.rng.choice(_np_options(n, depth))
        det = self.word("det")
        adjs = [self.word("adj", w) for w in self.rng.sample(_LISTS["adj"], n_adj)]  # no "old old dog"
        noun = self.word("noun")
        pp: list[tuple[str, int]] = []
        if has_pp:
            prep = self.word("prep")
            pp = self.noun_phrase(n - 3 - n_adj, depth + 1) + [prep]   # object first, then the postposition
        return pp + [noun] + adjs + [det]                               # modifier, noun, adjectives, determiner

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

    def sentence(self, n: int) -> list[tuple[str, int]]:
        ks = [k for k in range(1, n) if k * MIN_CLAUSE + k - 1 <= n <= k * MAX_CLAUSE + k - 1]
        k = self.rng.choice(ks[:2])               # the fewest clauses that fit, or one more
        left = n - (k - 1)
        out: list[tuple[str, int]] = []
        for i in range(k):
            rest = k - 1 - i
            lo, hi = max(MIN_CLAUSE, left - rest * MAX_CLAUSE), min(MAX_CLAUSE, left - rest * MIN_CLAUSE)
            size = self.rng.randint(lo, hi)
            if i:
                out.append(self.word("conj"))
            out += self.clause(size)
            left -= size
        return out


def _sample_one(rng: random.Random, n: int) -> tuple[list[str], list[str], list[int]]:
    b = _Builder(rng)
    tgt = b.sentence(n)
    return b.src, [w for w, _ in tgt], [i for _, i in tgt]


def sample_pairs(n: int, min_len: int = 4, max_len: int = 40, seed: int = 0):
    """n sentence pairs with source lengths uniform over [min_len, max_len], deterministic from `seed`.

    Returns a list of (src_tokens, tgt_tokens, alignment); alignment[j] is the source position of target word j.
    """
    if min_len < MIN_LEN or max_len < min_len:
        raise ValueError(f"lengths must satisfy {MIN_LEN} <= min_len <= max_len; got min_len={min_len}, max_len={max_len}")
    rng = random.Random(seed)
    return [_sample_one(rng, rng.randint(min_len, max_len)) for _ in range(n)]


def translate(src_tokens: Sequence[str]) -> tuple[list[str], list[int]]:
    """Parse a (grammatical) source sentence and return its reference (target tokens, alignment).

    Raises ValueError for an unknown word or a sentence the grammar cannot parse.
    """
    words = list(src_tokens)
    unknown = [w for w in words if w not in LEXICON]
    if unknown:
        raise ValueError(f"unknown source words: {unknown}")
    pos = 0

    def expect(cat: str) -> tuple[str, int]:
        nonlocal pos
        if pos >= len(words) or CATEGORY[words[pos]] != cat:
            got = words[pos] if pos < len(words) else "end of sentence"
            raise ValueError(f"expected a {cat} at position {pos}, got {got!r}")
        pos += 1
        return LEXICON[words[pos - 1]], pos - 1

    def peek() -> str | None:
        return CATEGORY[words[pos]] if pos < len(words) else None

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
    return [w for w, _ in out], [i for _, i in out]


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


def source_vocab() -> Vocab:
    """All source words (fixed by the lexicon, so it never depends on the data)."""
    return Vocab(SPECIALS + tuple(sorted(LEXICON)))


def target_vocab() -> Vocab:
    """All target words."""
    return Vocab(SPECIALS + tuple(sorted(LEXICON.values())))


# ---------------------------------------------------------------- files
TEST_BUCKETS: tuple[tuple[int, int], ...] = ((4, 10), (11, 20), (21, 30), (31, 40), (41, 50))
N_TRAIN, N_VALID, N_TEST = 12000, 400, 200
SEED_TRAIN, SEED_VALID, SEED_TEST = 1, 2, 3
HEADER = "source\ttarget\talignment\n"


def bucket_name(lo: int, hi: int) -> str:
    """'04-10' style label of a length bucket."""
    return f"{lo:02d}-{hi:02d}"


def write_tsv(path: Path, pairs) -> None:
    """Write (src, tgt, alignment) triples as TSV: space-separated tokens and alignment indices."""
    lines = [HEADER] + [f"{' '.join(s)}\t{' '.join(t)}\t{' '.join(map(str, a))}\n" for s, t, a in pairs]
    Path(path).write_text("".join(lines), encoding="utf-8", newline="\n")


def read_tsv(path: Path) -> list[tuple[list[str], list[str], list[int]]]:
    """Read a file written by write_tsv."""
    rows = Path(path).read_text(encoding="utf-8").splitlines()
    if not rows or rows[0] + "\n" != HEADER:
        raise ValueError(f"{path} does not start with the header {HEADER!r}")
    out = []
    for line in rows[1:]:
        s, t, a = line.split("\t")
        out.append((s.split(), t.split(), [int(x) for x in a.split()]))
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
    """The course's fixed split: train (4-40 tokens), valid (4-40), one test file per length bucket."""
    seen: set = set()
    splits = {"train": _unique(N_TRAIN, 4, 40, SEED_TRAIN, seen)}
    splits["valid"] = _unique(N_VALID, 4, 40, SEED_VALID, seen)
    for k, (lo, hi) in enumerate(TEST_BUCKETS):
        splits[f"test_{bucket_name(lo, hi)}"] = _unique(N_TEST, lo, hi, SEED_TEST * 100 + k, seen)
    return splits


def write_data(directory: Path | str | None = None) -> list[Path]:
    """(Re)generate every data file into `directory` (default: the course's data/); returns the paths."""
    from helpers import DATA_DIR

    directory = Path(directory) if directory is not None else DATA_DIR
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, pairs in build_splits().items():
        path = directory / f"{name}.tsv"
        write_tsv(path, pairs)
        paths.append(path)
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
    return {f"{lo}-{hi}": load_split(f"test_{bucket_name(lo, hi)}", directory)[:limit] for lo, hi in TEST_BUCKETS}


def _main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Generate the course's translation data.")
    parser.add_argument("--write", action="store_true", help="write the train/valid/test TSV files")
    parser.add_argument("--out", default=None, help="directory (default: the repository's data/)")
    parser.add_argument("--show", type=int, default=0, help="print N example pairs")
    args = parser.parse_args(argv)
    if args.write:
        for p in write_data(args.out):
            print(f"wrote {p.name} ({p.stat().st_size / 1e3:.0f} kB)")
    for src, tgt, _ in sample_pairs(args.show, 4, 20, seed=0):
        print(" ".join(src), "=>", " ".join(tgt))


if __name__ == "__main__":
    _main()
