"""What the two grammars share: their names, the shortest sentence, splitting a length into clauses, and how a
vocabulary hint lists a grammar's words (below both grammars: it imports neither)."""
from __future__ import annotations

import random

from helpers import i18n

GRAMMARS = ("rich", "simple")
MIN_LEN = 3          # "the dog sleeps"


def check_grammar(grammar: str) -> None:
    """Raise ValueError unless `grammar` is one of GRAMMARS."""
    if grammar not in GRAMMARS:
        raise ValueError(f"grammar must be one of {GRAMMARS}, got {grammar!r}")


def split_clauses(rng: random.Random, n: int, lo: int, hi: int) -> list[int]:
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


# the category names of the hint, in the current language
_HINT_LABELS = i18n.Labels({"det": "toylang.det", "adj": "toylang.adj", "noun": "toylang.noun", "prep": "toylang.prep",
                       "verb_t": "toylang.verb_t", "verb_i": "toylang.verb_i", "verb_phrasal": "toylang.verb_phrasal",
                       "rel": "toylang.rel", "conj": "toylang.conj"})


def format_hint(categories: dict[str, list[str]], per_category: int = 5) -> str:
    """A short human-readable list of words ({category: words}), the first `per_category` of each, in the current
    language."""
    parts = []
    for c, ws in categories.items():
        more = ", ..." if len(ws) > per_category else ""
        words = ", ".join(ws[:per_category]) + more
        parts.append(i18n.t("toylang.hint_part", label=_HINT_LABELS.get(c, c), words=words))
    return i18n.t("toylang.hint_sep").join(parts)
