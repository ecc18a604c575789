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
