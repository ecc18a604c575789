"""The learner-facing language: one message catalogue for checker messages, hints and widget labels.

    import helpers
    helpers.setup(seed=0, lang="zh")       # or helpers.i18n.set_lang("zh")
    helpers.i18n.t("core.not_answered", name="my_weights")

Every message has a key, an English template in ``helpers.messages`` (``ENGLISH``, the source, as the notebooks are
for the chapters) and a Chinese one in the gettext catalogue ``helpers/locale/zh/messages.po`` (msgctxt = the key,
msgid = the English, msgstr = the Chinese), which Poedit and the other PO tools edit. At import the Chinese is read
(Babel) into ``MESSAGES = {key: (English, Chinese)}``, in ``LANGUAGES`` order; a key without a current translation
(none, fuzzy, or made from other English) shows its English. Templates are ``str.format`` strings; a Chinese template
uses a subset of its English template's fields (English plurals such as ``{s}`` need no counterpart). ``t(key,
**fields)`` fills the template of the current language. Adding a message: add a key to ``helpers.messages.ENGLISH``,
run ``python -m helpers.devtools.zh extract`` and write its msgstr in messages.po; ``tests/test_i18n.py`` checks that
every key has every language, that the fields agree, and that every key used in ``helpers/`` exists and is used.
"""
from __future__ import annotations

import string
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from babel.messages.pofile import read_po

from helpers.messages import ENGLISH  # the English templates, the source text

__all__ = ["LANGUAGES", "MESSAGES", "MESSAGES_PO", "with_chinese", "set_lang", "get_lang", "language", "t",
           "ordinal", "and_list", "truth", "template_fields", "Labels"]

LANGUAGES = ("en", "zh")
MESSAGES_PO = Path(__file__).parent / "locale" / "zh" / "messages.po"   # travels with helpers/ (release, sandbox)
_STATE = {"lang": "en"}


def set_lang(lang: str) -> None:
    """Make `lang` ("en" or "zh") the language of every later message and widget label in this kernel."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang is {lang!r}; expected one of {', '.join(repr(x) for x in LANGUAGES)}")
    _STATE["lang"] = lang


def get_lang() -> str:
    """The current learner-facing language ("en" unless `set_lang` or `helpers.setup(lang=...)` changed it)."""
    return _STATE["lang"]


@contextmanager
def language(lang: str) -> Iterator[None]:
    """Use `lang` inside a `with` block and restore the previous language afterwards (tests, one-off messages)."""
    previous = get_lang()
    set_lang(lang)
    try:
        yield
    finally:
        set_lang(previous)


def t(key: str, /, lang: str | None = None, **fields) -> str:
    """The message `key` in the current language (or `lang`), its template filled with `fields`."""
    if key not in MESSAGES:
        raise KeyError(f"no message {key!r} in helpers.i18n.MESSAGES")
    lang = lang or get_lang()
    if lang not in LANGUAGES:
        raise ValueError(f"lang is {lang!r}; expected one of {', '.join(repr(x) for x in LANGUAGES)}")
    return MESSAGES[key][LANGUAGES.index(lang)].format(**fields)


def template_fields(template: str) -> set[str]:
    """The names of the fields of a format template: "{n} of {total:.2f}" -> {"n", "total"}."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def ordinal(index: int) -> str:
    """A 0-based position as words in the current language: 0 -> "first" / "第 1 个"."""
    if get_lang() == "zh":   # 第一个 ... 第四个 for "first" ... "fourth", so no number appears that English lacks
        return {0: "第一个", 1: "第二个", 2: "第三个", 3: "第四个"}.get(index, f"第 {index + 1} 个")
    return {0: "first", 1: "second", 2: "third", 3: "fourth"}.get(index, f"number {index + 1}")


def truth(flag) -> str:
    """A yes-or-no result as the current language prints it: True -> "True" / "是", False -> "False" / "否"
    (a Chinese sentence says 是 or 否, not Python's True)."""
    if get_lang() == "zh":
        return "是" if flag else "否"
    return str(bool(flag))


def and_list(items: list[str]) -> str:
    """Words joined as a list in the current language: ["a", "b", "c"] -> "a, b and c" / "a、b 和 c"."""
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    if get_lang() == "zh":   # a space around 和 only between Latin words ('K₁' 和 'K₃', 第一个键和第三个键)
        space = " " if items[-1][:1].isascii() else ""
        return "、".join(items[:-1]) + f"{space}和{space}" + items[-1]
    return ", ".join(items[:-1]) + " and " + items[-1]


class Labels(Mapping):
    """A read-only {name: label} mapping whose labels are catalogue messages in the current language.

    Labels({"bleu": "plots.metric_bleu"})["bleu"] -> "BLEU (0-100)" in English, "BLEU（0-100）" in Chinese.
    """

    def __init__(self, keys: dict[str, str]):
        self._keys = dict(keys)

    def __getitem__(self, name: str) -> str:
        return t(self._keys[name])

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"Labels({dict(self)!r})"


def with_chinese(english: dict[str, str], path: Path = MESSAGES_PO) -> dict[str, tuple[str, str]]:
    """{key: (English, Chinese)}: the msgstr of each current entry of a PO catalogue (msgctxt = the key, msgid =
    the key's English, not fuzzy, not empty), else the English again."""
    chinese = {}
    if path.exists():
        with path.open("rb") as f:
            for m in read_po(f):
                if m.id and m.string and not m.fuzzy and english.get(m.context) == m.id:
                    chinese[m.context] = m.string
    return {key: (text, chinese.get(key, text)) for key, text in english.items()}


# {key: (English, Chinese)}, the Chinese read from helpers/locale/zh/messages.po
MESSAGES: dict[str, tuple[str, str]] = with_chinese(ENGLISH)
