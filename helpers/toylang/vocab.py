"""Vocabularies: token <-> id maps of either grammar or both, with the special tokens."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from helpers.toylang.rich import RICH_CATEGORY, rich_target_words
from helpers.toylang.simple import LEXICON, SIMPLE_CATEGORY
from helpers.toylang.task import CATEGORY

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)


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
    words = {"rich": RICH_CATEGORY, "simple": SIMPLE_CATEGORY, None: CATEGORY}[grammar]
    return Vocab(SPECIALS + tuple(sorted(words)))


def target_vocab(grammar: str | None = None) -> Vocab:
    """Target words of one grammar, or of both (default)."""
    rich, simple = set(rich_target_words()), set(LEXICON.values())
    words = {"rich": rich, "simple": simple, None: rich | simple}[grammar]
    return Vocab(SPECIALS + tuple(sorted(words)))
