"""What the two grammars share: their names, the shortest sentence, and splitting a length into clauses."""
from __future__ import annotations

import random

GRAMMARS = ("rich", "simple")
MIN_LEN = 3          # "the dog sleeps"


def _check_grammar(grammar: str) -> None:
    if grammar not in GRAMMARS:
        raise ValueError(f"grammar must be one of {GRAMMARS}, got {grammar!r}")


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


