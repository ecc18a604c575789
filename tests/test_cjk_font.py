"""Chinese in plots on a fresh clone, without apt: the font comes from a pinned PyPI package, setup(lang="zh")
registers it, and every character the Chinese edition can draw has a glyph in it (no boxes).

"Every character it can draw" is taken generously: every non-ASCII character of the message catalogue's Chinese
texts and of the zh chapters (Markdown and code), since plot titles, labels and legends come from those.
"""
from __future__ import annotations

import warnings

import matplotlib
import nbformat
import pytest
from fontTools.ttLib import TTFont

import helpers
from helpers import NOTEBOOKS_DIR, i18n
from helpers.plotting import cjk_font_path


@pytest.fixture(scope="module")
def cmap() -> set[int]:
    """The code points the course's Chinese font has glyphs for."""
    return set(TTFont(cjk_font_path(), lazy=True).getBestCmap())


def _drawable_text() -> str:
    """Every Chinese text the edition shows: catalogue messages and the zh notebooks' cells."""
    texts = [zh for _, zh in i18n.MESSAGES.values()]
    for path in sorted((NOTEBOOKS_DIR / "zh").glob("*.ipynb")):
        texts += [cell.source for cell in nbformat.read(path, as_version=4).cells]
    return "\n".join(texts)


def test_the_font_is_a_file_of_the_pinned_package():
    path = cjk_font_path()
    assert path.is_file() and path.stat().st_size > 1_000_000, path


def test_every_character_of_the_chinese_edition_has_a_glyph(cmap):
    chars = {c for c in _drawable_text() if ord(c) > 0x2E7F}       # CJK and full-width ranges and beyond
    assert len(chars) > 300, "the edition should hold hundreds of distinct Chinese characters"
    missing = sorted(c for c in chars if ord(c) not in cmap and not c.isspace() and ord(c) not in range(0xFE00, 0xFE10))
    assert not missing, f"characters without a glyph in {cjk_font_path().name}: {''.join(missing)}"


def test_the_detector_sees_a_missing_glyph(cmap):
    assert ord("注") in cmap and ord("意") in cmap
    assert 0x1F600 not in cmap                                       # an emoji: the font has none


def test_setup_in_chinese_draws_chinese_without_missing_glyph_warnings(tmp_path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        helpers.setup(seed=0, quiet=True, lang="zh")
        fig, ax = plt.subplots()
        ax.set_title("每个长度桶的 BLEU（0–100）")
        ax.set_xlabel("源句长度（词）")
        ax.plot([0, 1], [0, 1], label="注意力 attention")
        ax.legend()
        with warnings.catch_warnings():
            warnings.simplefilter("error")                           # "Glyph ... missing from font(s)" is a warning
            fig.savefig(tmp_path / "zh.png")
        plt.close(fig)
    finally:
        helpers.setup(seed=0, quiet=True, lang="en")
    assert matplotlib.rcParams["font.family"] == matplotlib.rcParamsDefault["font.family"]


def test_english_setup_does_not_draw_chinese(tmp_path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    helpers.setup(seed=0, quiet=True, lang="en")
    fig, ax = plt.subplots()
    ax.set_title("注意")
    with pytest.warns(UserWarning, match="missing from font"):
        fig.savefig(tmp_path / "en.png")
    plt.close(fig)
