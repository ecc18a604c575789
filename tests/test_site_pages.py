"""The website's page preparation (helpers/devtools/site.py) without building anything: run links, widget
outputs, links between the editions. The build itself and the pages in a browser: tests/test_site.py."""
import json
import re

import pytest

from helpers import ROOT
from helpers.course import CHAPTERS
from helpers.devtools import site
from helpers.widgets import SEED_KEYS


def test_run_links_are_the_readme_templates_filled_from_one_setting():
    readme = (ROOT / "README.md").read_text()
    links = site.run_links("notebooks/00_start_here.ipynb")  # the README's placeholders: ORG/class-repo, HUB
    assert f"`{links['binder']}`" in readme and f"`{links['jupyterhub']}`" in readme
    mine = site.run_links("notebooks/zh/03_qkv_by_hand.ipynb", repo="my-school/attend", hub="hub.example.edu")
    assert mine["binder"] == ("https://mybinder.org/v2/gh/my-school/attend/main?urlpath=lab/tree/"
                              "notebooks/zh/03_qkv_by_hand.ipynb")
    assert "repo=https%3A%2F%2Fgithub.com%2Fmy-school%2Fattend&" in mine["jupyterhub"]
    assert mine["jupyterhub"].startswith("https://hub.example.edu/hub/user-redirect/git-pull?")
    assert mine["jupyterhub"].endswith("urlpath=lab%2Ftree%2Fattend%2Fnotebooks%2Fzh%2F03_qkv_by_hand.ipynb")
    with pytest.raises(ValueError, match="owner/name"):
        site.run_links("x.ipynb", repo="just-a-name")


def test_every_page_has_its_counterpart_in_the_other_edition():
    en, zh = site.docnames("en"), site.docnames("zh")
    assert en[0] == "README" and zh[0] == "README.zh"
    assert [d for d in en if "/companion/" not in d][1:] == [d.replace("/zh/", "/") for d in zh
                                                              if "/companion/" not in d][1:]
    assert len([d for d in en if re.search(r"/\d\d_", d)]) == len(CHAPTERS)   # the sidebar: tests/test_course.py
    for doc in zh:
        back = site.other_docname(doc, "zh")
        assert back in en and site.other_docname(back, "en") == doc
    assert site.other_docname("notebooks/companion/references", "en") == "notebooks/companion/zh/references"


def test_tqdm_bars_are_dropped_and_raw_reprs_give_only_a_note():
    assert site.widget_output("training (none):   0%|          | 0/350 [00:00<?, ?it/s]", "en") is None
    raw = site.widget_output("VBox(children=(Dropdown(description='test sentence'),))", "zh")
    html = raw["data"]["text/html"]
    assert "children=" not in html and "JupyterLab" in html and "探索器" in html
    readable = site.widget_output("DecodingStepViewer(step 1 of 11: 'mei')", "en")["data"]["text/html"]
    assert "DecodingStepViewer(step 1 of 11: &#x27;mei&#x27;)" in readable and "widget-note" in readable


def test_the_qk_explorer_becomes_the_live_one_with_the_notebooks_numbers():
    from helpers.widgets import QKExplorer

    explorer = QKExplorer(query=[0.8, -0.6], values=[[0.9, 0.1], [0.6, 0.8], [0.1, 0.5]])
    summary = repr(explorer)
    html = site.widget_output(summary, "zh")["data"]["text/html"]
    config = json.loads(re.search(r'data-config="([^"]*)"', html).group(1).replace("&quot;", '"'))
    assert config["keys"] == [list(k) for k in SEED_KEYS] and config["values"] == [[0.9, 0.1], [0.6, 0.8], [0.1, 0.5]]
    assert config["query"] == [0.8, -0.6] and config["scale"] is True and config["labels"]["keys"] == "键"
    with pytest.raises(ValueError, match="explorer_state gives"):
        site.widget_output(summary.replace("weights=[0.", "weights=[0.1"), "en")
    old = "QKExplorer(Q=[1.00, 0.00], scale=on, T=1.00, weights=[0.4011, 0.4011, 0.1978])"  # before keys and values
    fallback = site.widget_output(old, "en")["data"]["text/html"]
    assert "qk-live" not in fallback and "widget-summary" in fallback
    explorer.close()


def test_links_that_leave_the_edition_go_to_the_other_site_or_the_repository():
    settings = {"repo": "me/attend", "branch": "main", "hub": "HUB"}
    text = "[en](../cheatsheet.md) [zh](glossary.md) [data](../../../data/README.md) [web](https://x.org)"
    out = site.rewrite_links(text, "notebooks/companion/zh/cheatsheet", "zh", settings)
    assert '<a href="../../../../en/notebooks/companion/cheatsheet.html">en</a>' in out
    assert "[zh](glossary.md)" in out and "[web](https://x.org)" in out
    assert '<a href="https://github.com/me/attend/blob/main/data/README.md">data</a>' in out


def test_a_chapter_gets_a_run_box_after_its_title_and_keeps_its_cells():
    path = ROOT / "notebooks" / "03_qkv_by_hand.ipynb"
    before = json.loads(path.read_text())
    after = json.loads(site.prepare_notebook(path.read_text(), "notebooks/03_qkv_by_hand", "en",
                                             {"repo": "ORG/class-repo", "branch": "main", "hub": "HUB"}))
    assert len(after["cells"]) == len(before["cells"]) + 1
    assert after["cells"][0]["source"] == "".join(before["cells"][0]["source"])
    assert 'class="run-this"' in after["cells"][1]["source"]
    widget = [o for c in after["cells"] for o in c.get("outputs", []) if site.WIDGET_MIME in o.get("data", {})]
    assert not widget and "widget-fallback" in json.dumps(after)


# ---------------------------------------------------------------- issue 35: search, spacing, figures, links, home, zip
def test_chinese_search_keeps_the_courses_compounds_and_their_parts():
    pytest.importorskip("jieba")
    pytest.importorskip("sphinx")
    words = site.zh_search_words()
    assert {"自注意力", "因果掩码", "位置编码", "多头注意力", "缩放点积注意力", "头", "熵"} <= words
    language = site._chinese_search_language()({"dict": ""})
    split = language.split("自注意力与 Transformer 的因果掩码")
    assert {"自注意力", "注意力", "注意", "因果掩码", "因果", "掩码", "Transformer"} <= set(split)
    assert language.word_filter("头") and not language.word_filter("的")
    assert language.language_name == "English"   # names the stemmer Sphinx ships for zh (EnglishStemmer)


def _doctree(text: str):
    from docutils.core import publish_doctree

    return publish_doctree(text, settings_overrides={"report_level": 5, "doctitle_xform": False})


def test_no_white_space_is_left_between_two_cjk_characters():
    tree = _doctree("解法：\n用查询的 *点积*\n算得分，\n``code``\n看 `x` 中\n文，English\n词\n\n::\n\n  中\n  文\n")
    assert site.close_cjk_gaps(tree) == 4
    paragraph = tree.children[0].astext()
    assert "解法：用查询的点积算得分，\ncode" in paragraph        # before code: the line break stays
    assert "看 x 中文，English\n词" in paragraph                  # beside Latin letters and code: spaces stay
    assert tree.children[-1].astext() == "中\n文"                # a code block is left alone
    assert site.close_cjk_gaps(tree) == 0


def test_a_figure_gets_its_stored_alt_text_and_a_caption():
    import base64
    import hashlib

    from docutils import nodes

    png = base64.b64encode(b"\x89PNG fake").decode()
    titled = {"output_type": "display_data", "data": {"image/png": png},
              "metadata": {"image/png": {"alt": "BLEU by\nlength"}}}
    untitled = {"output_type": "display_data", "data": {"image/png": png[:-4] + "AAAA"}, "metadata": {}}
    nb = {"cells": [{"cell_type": "code", "outputs": [titled, untitled]}]}
    alts = site.figure_alts(nb)
    digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
    assert alts == {digest: "BLEU by length"}
    tree = _doctree("Losses\n======\n\ntext\n")
    section = tree.children[0]
    for name in (digest, "f" * 64):
        output = nodes.container(classes=["cell_output"])
        output += nodes.image(uri=f"_images/{name}.png")
        section += output
    assert site.caption_figures(tree, alts, "zh") == 1
    figures = list(tree.findall(nodes.figure))
    assert [f[0]["alt"] for f in figures] == ["图 1：BLEU by length", "图 2：Losses"]
    assert [f[1].astext() for f in figures] == ["图 1：BLEU by length", "图 2：Losses"]


def test_figures_carry_their_titles_in_the_notebook_output():
    """helpers.setup (show_alt_text) wraps IPython's PNG formatter: a figure's output metadata names its titles."""
    from types import SimpleNamespace

    import matplotlib.pyplot as plt
    from IPython.core.formatters import DisplayFormatter
    from IPython.core.pylabtools import select_figure_formats

    from helpers.plotting import figure_alt, show_alt_text

    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    assert not show_alt_text(shell)                      # no PNG formatter for figures yet
    select_figure_formats(shell, {"png"})
    assert show_alt_text(shell) and show_alt_text(shell)
    fig, (a, b) = plt.subplots(1, 2)
    fig.suptitle("Attention")
    a.set_title("before training")
    b.set_title("after\ntraining")
    data, meta = shell.display_formatter.format(fig)
    assert data["image/png"] and meta["image/png"]["alt"] == "Attention; before training; after training"
    fig2, ax = plt.subplots()
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    assert figure_alt(fig2) == "loss against step"
    plt.close("all")
    assert not show_alt_text(None) or True               # outside IPython: False (inside a kernel: True)


def test_run_box_without_a_class_repository_has_no_placeholder_links():
    box = site._run_box("notebooks/03_qkv_by_hand.ipynb", "en", {"repo": "", "zip": "x.zip"}, "../x.zip")
    assert "Binder" not in box and "HUB" not in box and 'href="../x.zip"' in box
    box = site._run_box("notebooks/03_qkv_by_hand.ipynb", "en", {"repo": "me/attend", "hub": ""})
    assert "mybinder.org/v2/gh/me/attend/main" in box and "JupyterHub" not in box
    box = site._run_box("notebooks/03_qkv_by_hand.ipynb", "zh", {"repo": "me/attend", "hub": "hub.example.edu"})
    assert "https://hub.example.edu/hub/user-redirect/git-pull" in box and "运行本章" in box
    assert "SITE_REPO" in site.placeholder_warnings("", "")[0]
    assert "SITE_HUB" in site.placeholder_warnings("me/attend", "")[0]
    assert site.placeholder_warnings("me/attend", "hub.example.edu") == []


def test_links_in_chinese_words_go_to_the_chinese_page_and_readme_anchors_to_the_repository():
    text = "[参考文献](../companion/references.md) [references.md](../companion/references.md)"
    out = site.rewrite_links(text, "notebooks/zh/03_qkv_by_hand", "zh", {"repo": "", "branch": "main"})
    assert "[参考文献](../companion/zh/references.md)" in out                 # the zh page
    assert '<a href="../../../en/notebooks/companion/references.html">references.md</a>' in out  # said in English
    readme = "[seeds](../README.md#training-chapters-with-other-seeds) [data](../data/README.md)"
    plain = site.rewrite_links(readme, "notebooks/05_attention_translation", "en", {"repo": "", "branch": "main"})
    assert plain == "seeds data"                                               # nothing to link to
    linked = site.rewrite_links(readme, "notebooks/05_attention_translation", "en", {"repo": "me/a", "branch": "main"})
    assert 'href="https://github.com/me/a/blob/main/README.md#training-chapters-with-other-seeds"' in linked


def test_home_page_is_made_from_the_course_table():
    home = site.home_page("en", {"repo": "", "zip": "learning-to-attend-en.zip", "zip_size": "4.0 MB"})
    for ch in CHAPTERS:
        assert f"| {ch.number} | [{ch.title}](notebooks/{ch.file}) | {ch.question} | {ch.learner_minutes} min |" in home
    assert "{{" not in home and "Binder" not in home and 'href="learning-to-attend-en.zip"' in home
    zh = site.home_page("zh", {"repo": "me/a", "hub": "", "zip": "learning-to-attend-zh.zip", "zip_size": "4.0 MB"})
    assert f"[{CHAPTERS[7].title_zh}](notebooks/zh/{CHAPTERS[7].file})" in zh and "mybinder.org" in zh
    minutes = sum(ch.learner_minutes for ch in CHAPTERS)
    assert f"（{minutes} 分钟" in zh


def test_an_empty_table_header_gets_a_name_for_screen_readers():
    tree = _doctree("+---+-----+\n|   | Q   |\n+===+=====+\n| a | b   |\n+---+-----+\n")
    assert site.name_empty_headers(tree, "en") == 1
    assert "Row" in tree.astext() and site.name_empty_headers(tree, "en") == 0


def test_the_static_files_lose_source_maps_and_other_languages(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "a.js").write_text("x()\n//# sourceMappingURL=a.js.map\n")
    (tmp_path / "scripts" / "a.js.map").write_text("{}")
    for lang in ("de", "zh_CN"):
        (tmp_path / "locales" / lang).mkdir(parents=True)
    site.trim_static(tmp_path, "zh")
    assert (tmp_path / "scripts" / "a.js").read_text() == "x()\n" and not (tmp_path / "scripts" / "a.js.map").exists()
    assert sorted(p.name for p in (tmp_path / "locales").iterdir()) == ["zh_CN"]


def test_an_explorer_that_stored_its_states_becomes_a_live_one():
    from helpers import widgets

    states = {"view": "bars", "dims": [{"name": "step", "label": "step", "control": "range", "options": ["1"],
                                        "value": 0}],
              "states": {"0": {"weights": widgets._weights_for_site([[0.25, 0.75]]), "keys": ["a", "b"]}}}
    out = {"output_type": "display_data", "metadata": {widgets.SITE_STATES: states},
           "data": {site.WIDGET_MIME: {"model_id": "x"}, "text/plain": "DecodingStepViewer(step 1 of 1: 'a')"}}
    nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": [out]}], "metadata": {}}
    cells = json.loads(site.prepare_notebook(json.dumps(nb), "notebooks/x", "zh", {"repo": ""}))["cells"]
    html = next(c for c in cells if c.get("outputs"))["outputs"][0]["data"]["text/html"]
    config = json.loads(re.search(r'data-config="([^"]*)"', html).group(1).replace("&quot;", '"'))
    assert config["states"]["0"]["weights"] == "250,750" and "网页里运行" in html
    np = pytest.importorskip("numpy")
    assert np.allclose(widgets.site_weights("250,750;1000,0"), [[0.25, 0.75], [1.0, 0.0]])


def test_equal_text_nodes_are_each_closed_in_their_own_place():
    """Two line breaks of one paragraph are equal strings: each is judged by its own neighbours."""
    from docutils import nodes

    # as MyST builds it: each soft line break its own Text node
    paragraph = nodes.paragraph("", "", nodes.Text("ICLR 2015."), nodes.Text("\n"),
                                nodes.reference("", "arXiv", refuri="https://arxiv.org"), nodes.Text("。加性注意力；"),
                                nodes.Text("\n"), nodes.Text("它的图"))
    tree = nodes.document(None, None)
    tree += paragraph
    assert site.close_cjk_gaps(tree) == 1
    assert paragraph.astext() == "ICLR 2015.\narXiv。加性注意力；它的图"
