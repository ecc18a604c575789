"""Chinese typography in what the zh edition shows (issue 34): full-width punctuation after Hanzi and no ASCII space
after it, × between numbers, no bare True/False inside a Chinese sentence (是/否 through `helpers.i18n.truth`, or
`True` as code), no italic Chinese (the CJK fonts have no italic, so a browser slants the glyphs), and labels padded by
display width, a Hanzi taking two columns (`helpers.tables.ljust`, or labels of equal width). Read: the helpers'
Chinese messages, the zh chapters' Markdown, README.zh.md and the Chinese companion pages, and the outputs of every
chapter run in Chinese."""
from __future__ import annotations

import re

import nbformat
import pytest

from helpers import ROOT, course, i18n
from helpers.devtools import zh
from helpers.tables import text_width

HAN = "\u4e00-\u9fff"
FULL = "，。；：！？、（）“”"
RULES = {
    "ASCII punctuation right after Chinese (write ，；：！？)": re.compile(rf"[{HAN}][,;:!?](?=[\s{HAN}]|$)"),
    "a space after Chinese punctuation": re.compile(r"[，。；：！？、](?= (?![|*]))"),
    "x between numbers (write ×)": re.compile(rf"(?<![\w.])\d+(?:\.\d+)?\s?x(?=\s|$|[{HAN}{FULL}])"
                                             r"|(?<![\w])n x n(?![\w])"),
    "True/False in a Chinese sentence (是/否 via helpers.i18n.truth, or `True`)": re.compile(
        rf"[{HAN}{FULL}]\s?(?<![`=])\b(?:True|False)\b(?!`)|(?<![`=])\b(?:True|False)\b(?!`)\s?[{HAN}{FULL}]"),
    "italic Chinese (the CJK font has no italic: bold, “quotes” or none)": re.compile(
        rf"(?<![*A-Za-z0-9_])\*(?![*\s])[^*\n]*[{HAN}][^*\n]*(?<![*\s])\*(?![*A-Za-z0-9_])"),
}


def typography_problems(text: str) -> list[str]:
    """Every breach of the rules above in a Chinese text, with a few characters around it."""
    found = [f"{rule}: …{text[max(0, m.start() - 10):m.end() + 10]}…" for rule, rx in RULES.items()
             for m in rx.finditer(text)]
    return found + misaligned(text)


def misaligned(text: str) -> list[str]:
    """Runs of lines whose labels were padded to put a colon in one column (same character index, some line
    indented) but whose colons land in different display columns: padding that counted a Hanzi as one column."""
    found, run = [], []

    def close():
        if len(run) > 1 and any(line[:1] == " " for line, _ in run):
            columns = {text_width(line[:i]) for line, i in run}
            if len(columns) > 1:
                found.append("labels padded by characters, not columns: " + " / ".join(line for line, _ in run))

    for line in text.splitlines():
        i = min((k for k in (line.find(":"), line.find("：")) if k > 0), default=-1)
        if run and (i < 0 or i != run[-1][1]):
            close()
            run = []
        if i > 0:
            run.append((line, i))
    close()
    return found


def test_each_rule_has_teeth():
    for bad in ("得分: 3", "得分：  3", "得分： [1, 2]", "快 1.5x", "0.98x 的时间", "n x n 矩阵", "3 x 4",
                "输出向量相同：True", "NaN？ False", "*不缩放*的权重", "读数*不*变"):
        assert typography_problems(bad), bad
    for good in ("得分：3", "**要点：** 文字", "快 1.5×", "0x1F", "`True` 表示可以关注", "keepdim=True，这样",
                 "*saw* 和 *le*", "**不缩放**的权重", "| 中文。 | x |", "scale=1.0：不缩放的权重", "x = 1",
                 "是否相同：是"):
        assert not typography_problems(good), (good, typography_problems(good))
    # f"{name:>10}：" pads by characters: 权重 and 换成 -W_V (two Hanzi each) line up, 原来的权重 (five) does not
    assert misaligned("        权重：1\n   换成 -W_V：2\n     原来的权重：3")
    assert not misaligned("        权重：1\n   换成 -W_V：2")
    assert not misaligned("a: 1\nbb: 2") and not misaligned("  权重：1")    # unpadded lines, one line


def _messages() -> dict[str, str]:
    return {f"messages.po {key}": zh_text for key, (_, zh_text) in i18n.MESSAGES.items()}


def _markdown() -> dict[str, str]:
    texts = {}
    for ch in course.CHAPTERS:
        data = zh.load_catalogue(zh.catalogue_path(ch.file))
        texts[f"{zh.catalogue_path(ch.file).name} (Markdown)"] = "\n\n".join(c["zh"] for c in data["cells"])
    texts["README.zh.md"] = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks" / "companion" / "zh").glob("*.md")):
        texts[path.name] = path.read_text(encoding="utf-8")
    return texts


def _outputs() -> dict[str, str]:
    texts = {}
    for ch in course.CHAPTERS:
        path = zh.ZH_DIR / ch.file
        if not zh.runs_in_zh(path):
            continue
        parts = []
        for cell in nbformat.read(path, as_version=4).cells:
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if out.get("output_type") == "stream":
                    parts.append(out["text"])
                elif "image/png" not in data:
                    parts += [data[k] for k in ("text/markdown", "text/plain") if k in data][:1]
        texts[f"{path.stem} (outputs)"] = "\n\n".join(parts)
    return texts


# Texts of chapters that other branches were changing when these rules came in (issue 34): {name: breaches}. The
# count must match (lower it, then remove the entry, as the chapter is fixed); every other text has none.
PENDING = {
    "01_fixed_context_bottleneck (outputs)": 11, "01_fixed_context_bottleneck.po (Markdown)": 1,
    "05_attention_translation.po (Markdown)": 19,
    "06_scoring_functions_and_dropout (outputs)": 5,
    "07_self_attention_and_transformer (outputs)": 16, "07_self_attention_and_transformer.po (Markdown)": 6,
    "08_cost_of_attention (outputs)": 48, "08_cost_of_attention.po (Markdown)": 2,
}

TEXTS = sorted({**_messages(), **_markdown(), **_outputs()}.items())


@pytest.mark.parametrize("name, text", TEXTS, ids=[n for n, _ in TEXTS])
def test_chinese_typography(name, text):
    found = typography_problems(text)
    if name in PENDING:
        assert len(found) == PENDING[name], f"{name}: {len(found)} breaches, PENDING says {PENDING[name]}: {found}"
        return
    assert not found, f"{name}: {found}"
