"""The course as a static website in both languages: Sphinx + myst-nb over the committed notebooks, nothing run.

    python -m helpers.devtools.site            # site/en and site/zh (what `make site` runs)
    python -m helpers.devtools.site --lang zh  # one edition

Sources are the repository's own files, read in place (Sphinx's source dir is the repository root, narrowed by
`include_patterns`): the README, the chapters and the companion pages of one edition. Sphinx's config is
`site_src/conf.py`; `sphinx_setup` here is its extension. On the way in (Sphinx's `source-read` event) each
notebook gets a "Run this chapter" box and readable widget outputs (the notebooks store no widget state, so a
browser without a kernel could only show an empty view): tqdm bars are dropped, chapter 03's Q/K explorer becomes
the live one of `site_src/_static/qk_explorer.js`, every other explorer shows its text summary and a note. Links
into the other edition point at the other site. MathJax comes from the `django-static-mathjax` wheel and a subset
of Noto Sans CJK SC (from `mplfonts`) is cut for the characters the pages use: nothing is fetched from outside.
The site's packages are pinned in requirements-site.txt (learners who only run notebooks never install them).
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import html
import json
import os
import posixpath
import re
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import quote

from helpers import i18n
from helpers.base import ROOT
from helpers.devtools.notebooks import chapter_notebooks

__all__ = ["EDITIONS", "SITE_DIR", "docnames", "other_docname", "run_links", "widget_output", "prepare_notebook",
           "rewrite_links", "live_explorer_config", "build_edition", "sphinx_setup", "cli", "zh_glossary_terms",
           "zh_search_words", "close_cjk_gaps", "figure_alts", "caption_figures", "name_empty_headers", "home_page",
           "course_zip", "zip_name", "trim_static", "placeholder_warnings", "write_root"]

SITE_DIR = ROOT / "site"
SRC_DIR = ROOT / "site_src"
CACHE_DIR = ROOT / "build" / "site"
LANGS = ("en", "zh")
# what each edition is made of: its landing page, its chapters, its companion pages (repository paths)
EDITIONS = {
    "en": {"root": "README", "chapters": "notebooks/[0-9][0-9]_*.ipynb", "companion": "notebooks/companion/*.md",
           "sphinx_language": "en", "title": "Learning to Attend", "other_label": "中文版"},
    "zh": {"root": "README.zh", "chapters": "notebooks/zh/[0-9][0-9]_*.ipynb",
           "companion": "notebooks/companion/zh/*.md", "sphinx_language": "zh_CN",
           "title": "注意力，从零学起", "other_label": "English"},
}
# "Run this chapter" links: the README's templates ("Binder and JupyterHub"), filled from SITE_REPO (owner/name)
BINDER_URL = "https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=lab/tree/{path}"
NBGITPULLER_URL = ("https://{hub}/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2F{owner}%2F{name}"
                   "&branch={branch}&urlpath=lab%2Ftree%2F{name}%2F{quoted_path}")
DEFAULT_REPO, DEFAULT_BRANCH, DEFAULT_HUB = "ORG/class-repo", "main", "HUB"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
TQDM = re.compile(r"\d+%\|")
RAW_WIDGET_REPR = re.compile(r"^\s*(HBox|VBox|Box|GridBox|Tab|Accordion)\(children=")
MATHJAX_FILE = "es5/tex-svg-full.js"  # one file with every TeX extension: nothing is loaded on demand
FONT_OUT = "NotoSansCJKsc-course-subset.woff"


# ----------------------------------------------------------------------------------------------- editions
@functools.lru_cache(maxsize=None)
def _docnames(lang: str) -> tuple[str, ...]:
    ed = EDITIONS[lang]
    # the course table's chapters, in its order; a file on disk the table lacks (or the reverse) is a ValueError
    folder = ROOT / posixpath.dirname(ed["chapters"])
    missing = "run `python -m helpers.devtools.zh build`" if lang == "zh" else "write it, or remove its line"
    chapters = [p.relative_to(ROOT).with_suffix("").as_posix() for p in chapter_notebooks(folder, missing)]
    companion = sorted(p.relative_to(ROOT).with_suffix("").as_posix() for p in ROOT.glob(ed["companion"]))
    return (ed["root"], *chapters, *companion)


def docnames(lang: str) -> list[str]:
    """The edition's documents in reading order (Sphinx docnames = repository paths without suffix)."""
    return list(_docnames(lang))


def _edition_of(docname: str) -> str | None:
    for lang in LANGS:
        if docname in docnames(lang):
            return lang
    return None


def other_docname(docname: str, lang: str) -> str | None:
    """The same page in the other edition ('notebooks/03_x' <-> 'notebooks/zh/03_x'), or None if it has none."""
    if docname in (EDITIONS["en"]["root"], EDITIONS["zh"]["root"]):
        return EDITIONS["zh" if lang == "en" else "en"]["root"]
    head, tail = posixpath.split(docname)
    other = posixpath.join(head, "zh", tail) if lang == "en" else posixpath.join(posixpath.dirname(head), tail)
    return other if other in docnames("zh" if lang == "en" else "en") else None


def _url_from(docname: str, target_lang: str, target_doc: str, anchor: str = "") -> str:
    """Relative URL from page `docname` of one edition to `target_doc` of edition `target_lang` (site/<lang>/...)."""
    up = "../" * (docname.count("/") + 1)
    return f"{up}{target_lang}/{target_doc}.html{anchor}"


def run_links(path: str, repo: str = DEFAULT_REPO, branch: str = DEFAULT_BRANCH, hub: str = DEFAULT_HUB) -> dict:
    """{'binder': url, 'jupyterhub': url, 'local': command} that open repository file `path` (e.g. a chapter)."""
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise ValueError(f"SITE_REPO is {repo!r}; expected owner/name, e.g. my-school/class-repo")
    owner, name = repo.split("/")
    return {"binder": BINDER_URL.format(repo=repo, branch=branch, path=path),
            "jupyterhub": NBGITPULLER_URL.format(hub=hub, owner=owner, name=name, branch=branch,
                                                 quoted_path=quote(path, safe="")),
            "local": "make lab"}


def _run_box(path: str, lang: str, settings: dict, zip_href: str = "") -> str:
    """The "Run this chapter" box (Markdown with HTML) at the top of a chapter page: Binder and JupyterHub links
    when the build names the class repository (SITE_REPO; JupyterHub also needs SITE_HUB), and the course zip."""
    t = lambda key, **kw: html.escape(i18n.t(key, lang=lang, **kw))  # noqa: E731
    links = []
    if settings.get("repo"):
        filled = run_links(path, settings["repo"], settings.get("branch") or DEFAULT_BRANCH,
                           settings.get("hub") or DEFAULT_HUB)
        links.append(f'<a class="run-binder" href="{html.escape(filled["binder"])}">Binder</a>')
        if settings.get("hub"):
            links.append(f'<a class="run-jupyterhub" href="{html.escape(filled["jupyterhub"])}">'
                         'JupyterHub (nbgitpuller)</a>')
    space = "" if lang == "zh" else " "   # Chinese sets no space between its words (or around its links)
    local = t("widgets.site_run_local")
    if zip_href:
        size = settings.get("zip_size", "")
        local += (f'{space}<a class="run-zip" href="{html.escape(zip_href)}" download>'
                  f'{t("widgets.site_zip", size=size)}</a>{t("widgets.site_zip_then")}')
    links.append(local)
    return (f'<div class="run-this" data-path="{html.escape(path)}">\n<p><b>{t("widgets.site_run_title")}</b>'
            f'{space}' + " · ".join(links) + "</p>\n</div>\n")


# ----------------------------------------------------------------------------------------------- widget outputs
_QK_SUMMARY = re.compile(r"QKExplorer\(Q=\[([^\]]*)\], keys=(\[\[.*?\]\]), values=(\[\[.*?\]\]), "
                         r"scale=(on|off), T=([\d.]+), weights=\[([^\]]*)\]\)")


def live_explorer_config(summary: str, lang: str) -> dict | None:
    """The live Q/K explorer's start state and labels, from the notebook's text summary of its QKExplorer.

    The page's JavaScript recomputes `helpers.widgets.explorer_state` from the query, keys and values the summary
    names (colours: KEY_COLOURS). None for a summary without keys and values (written before QKExplorer's repr
    named them: re-execute the chapter). Raises ValueError when explorer_state does not give the summary's weights.
    """
    from helpers.plotting import KEY_COLOURS
    from helpers.widgets import explorer_state

    m = _QK_SUMMARY.match(summary.strip())
    if m is None:
        return None
    q = [float(x) for x in m.group(1).split(",")]
    keys, values = json.loads(m.group(2)), json.loads(m.group(3))
    scale, temperature = m.group(4) == "on", float(m.group(5))
    shown = [float(x) for x in m.group(6).split(",")]
    weights = explorer_state(q, keys, values, scale, temperature)["weights"]
    if any(abs(a - b) > 5.1e-5 for a, b in zip(weights, shown, strict=True)):
        raise ValueError(f"the notebook's explorer shows weights {shown}, explorer_state gives "
                         f"{[round(float(w), 4) for w in weights]} for its Q, keys and values")
    labels = {k: i18n.t(f"widgets.{k}", lang=lang) for k in ("query", "keys", "move_key", "divide_scores",
                                                               "temperature")}
    labels["weights"], labels["context"] = (i18n.t("widgets.site_weights", lang=lang),
                                            i18n.t("widgets.site_context", lang=lang))
    return {"query": q, "keys": keys, "values": values, "scale": scale, "temperature": temperature, "limit": 2.0,
            "step": 0.1, "colours": list(KEY_COLOURS), "labels": labels}


def explorer_output(states: dict, lang: str) -> dict:
    """The live explorer for a widget output that stored its states (helpers.widgets.SITE_STATES: chapter 05's step
    viewer and translation explorer, chapter 07's head explorer): course_explorers.js draws them, no kernel."""
    config = {**states, "labels": {"note": i18n.t("widgets.site_states_note", lang=lang)}}
    body = f'<div class="course-explorer" data-config="{html.escape(json.dumps(config), quote=True)}"></div>'
    note = f'<p class="widget-note">{html.escape(i18n.t("widgets.site_states_note", lang=lang))}</p>'
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": f'<div class="widget-fallback explorer-live">{body}{note}</div>'}}


def widget_output(summary: str, lang: str) -> dict | None:
    """What the site shows instead of one widget output with text fallback `summary`: an output dict, or None (drop).

    tqdm bars are dropped (their fallback is a misleading "0%"); chapter 03's QKExplorer becomes the live explorer;
    any other widget shows its summary (unless it is a raw `HBox(children=...)` repr) and a note.
    """
    if TQDM.search(summary):
        return None
    note = f'<p class="widget-note">{html.escape(i18n.t("widgets.site_widget_note", lang=lang))}</p>'
    config = live_explorer_config(summary, lang) if summary.startswith("QKExplorer(") else None
    if config is not None:
        note = f'<p class="widget-note">{html.escape(i18n.t("widgets.site_live_note", lang=lang))}</p>'
        body = f'<div class="qk-live" data-config="{html.escape(json.dumps(config), quote=True)}"></div>'
    elif RAW_WIDGET_REPR.match(summary):
        body = ""
    else:
        body = f"<pre class='widget-summary'>{html.escape(summary)}</pre>"
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": f'<div class="widget-fallback">{body}{note}</div>'}}


# ----------------------------------------------------------------------------------------------- links
_MD_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")


def rewrite_links(text: str, docname: str, lang: str, settings: dict) -> str:
    """Markdown links of page `docname` that leave the edition: to the other site's page, or to the repository."""
    here = posixpath.dirname(docname)

    def fix(m: re.Match) -> str:
        label, target = m.group(1), m.group(2)
        if re.match(r"^([a-z][a-z0-9+.-]*:|#|/)", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(here, path))
        doc = posixpath.splitext(repo_path)[0]
        readme = doc in (EDITIONS["en"]["root"], EDITIONS["zh"]["root"])  # on the site: the home page, not the README
        if readme and anchor:
            if not settings.get("repo"):
                return label
            href = f"https://github.com/{settings['repo']}/blob/{settings['branch']}/{repo_path}#{anchor}"
            shown = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(label, quote=False))
            return f'<a href="{html.escape(href)}">{shown}</a>'
        if doc in docnames(lang):
            return m.group(0)
        shown = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(label, quote=False))
        other = _edition_of(doc)
        if other is not None:
            mine = other_docname(doc, other)
            if lang == "zh" and mine is not None and re.search(f"[{HAN}]", label):
                # a link in Chinese words to an English page goes to its Chinese edition ([参考文献](../references.md))
                suffix = ".md" if (ROOT / f"{mine}.md").exists() else ".ipynb"
                return f"[{label}]({posixpath.relpath(mine + suffix, here)}{'#' + anchor if anchor else ''})"
            href = _url_from(docname, other, doc, f"#{anchor}" if anchor else "")
        elif (ROOT / repo_path).exists():
            if not settings.get("repo"):
                return label  # no repository to link to (SITE_REPO unset): the words, without a link
            kind = "tree" if (ROOT / repo_path).is_dir() else "blob"
            href = f"https://github.com/{settings['repo']}/{kind}/{settings['branch']}/{repo_path}"
        else:
            return m.group(0)
        return f'<a href="{html.escape(href)}">{shown}</a>'

    return _MD_LINK.sub(fix, text)


def figure_alts(nb: dict) -> dict[str, str]:
    """{sha256 of a PNG output: its alt text} for the figures whose output carries one (helpers.plotting.show_alt_text
    stores figure_alt, the plot's titles, in the output's metadata when the chapter runs)."""
    import binascii

    alts = {}
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            png = out.get("data", {}).get("image/png")
            alt = out.get("metadata", {}).get("image/png", {}).get("alt")
            if png and alt:
                alts[hashlib.sha256(binascii.a2b_base64("".join(png))).hexdigest()] = " ".join(str(alt).split())
    return alts


def caption_figures(doctree, alts: dict[str, str], lang: str) -> int:
    """Each image of a notebook's outputs becomes a figure: alt text and a caption from its stored alt text
    (`figure_alts`), or, for an output stored without one, from the section it is in ("Figure 3: <section>").
    Returns how many figures had a stored alt text."""
    from docutils import nodes

    count, stored = 0, 0
    for image in list(doctree.findall(nodes.image)):
        if not any("cell_output" in a.get("classes", []) for a in _ancestors(image, None)
                   if isinstance(a, nodes.Element)):
            continue
        count += 1
        alt = alts.get(posixpath.splitext(posixpath.basename(image["uri"]))[0])
        stored += alt is not None
        if alt is None:
            section = next((a for a in _ancestors(image, None) if isinstance(a, nodes.section)), None)
            title = section[0].astext() if section is not None and isinstance(section[0], nodes.title) else ""
            alt = " ".join(title.split())
        text = (i18n.t("widgets.site_figure_caption", lang=lang, n=count, alt=alt) if alt
                else i18n.t("widgets.site_figure", lang=lang, n=count))
        text = _CJK_GAP.sub("", text)        # as close_cjk_gaps does to the caption: a title's line break in Chinese
        image["alt"] = text
        figure = nodes.figure("", classes=["course-figure"], ids=[f"figure-{count}"])
        image.replace_self(figure)
        figure += image
        figure += nodes.caption("", text)
    return stored


def name_empty_headers(doctree, lang: str) -> int:
    """A table's empty header cell (chapter 05's wiring table: its column of row names) gets a name a screen reader
    says and the page does not show ("Row"); axe: empty-table-header. Returns how many."""
    from docutils import nodes

    named = 0
    for head in doctree.findall(nodes.thead):
        for entry in head.findall(nodes.entry):
            if not entry.astext().strip():
                entry.children = []
                entry += nodes.paragraph("", "", nodes.inline("", i18n.t("widgets.site_row_header", lang=lang),
                                                              classes=["visually-hidden"]))
                named += 1
    return named


def prepare_notebook(text: str, docname: str, lang: str, settings: dict) -> str:
    """One notebook's JSON as the site reads it: a run box after the title, readable widget outputs, fixed links."""
    from helpers.widgets import SITE_STATES  # where an explorer stores its states (chapters 05 and 07)

    nb = json.loads(text)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            cell["source"] = rewrite_links(source, docname, lang, settings)
        for i, out in reversed(list(enumerate(cell.get("outputs", [])))):
            data = out.get("data", {})
            states = out.get("metadata", {}).get(SITE_STATES)
            if WIDGET_MIME in data and isinstance(states, dict) and states.get("states"):
                cell["outputs"][i] = explorer_output(states, lang)
            elif WIDGET_MIME in data:
                new = widget_output("".join(data.get("text/plain", "")), lang)
                if new is None:
                    del cell["outputs"][i]
                else:
                    cell["outputs"][i] = new
    title = next((i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"), None)
    box = {"cell_type": "markdown", "id": "course-run-this", "metadata": {},
           "source": _run_box(docname + ".ipynb", lang, settings,
                              ("../" * docname.count("/") + settings["zip"]) if settings.get("zip") else "")}
    nb["cells"].insert(0 if title is None else title + 1, box)
    return json.dumps(nb)


HOME_DIR = SRC_DIR / "home"


def home_page(lang: str, settings: dict) -> str:
    """The edition's home page (Markdown): site_src/home/<lang>.md with the course table's chapters (helpers/course.py:
    title, question, a learner's time) and the ways to run the course filled in. The repository's README stays the
    repository's front page, for teachers and authors."""
    from helpers.course import CHAPTERS

    zh = lang == "zh"
    folder = "notebooks/zh/" if zh else "notebooks/"
    head = "| # | 章节 | 本章问题 | 时间 |" if zh else "| # | Chapter | The question | Your time |"
    rows = [head, "|---|---|---|---|"]
    for ch in CHAPTERS:
        title, question = (ch.title_zh, ch.question_zh) if zh else (ch.title, ch.question)
        rows.append(f"| {ch.number} | [{title}]({folder}{ch.file}) | {question} | "
                    f"{ch.learner_minutes} {'分钟' if zh else 'min'} |")
    minutes = sum(ch.learner_minutes for ch in CHAPTERS)
    t = lambda key, **kw: i18n.t(key, lang=lang, **kw)  # noqa: E731
    run = []
    first = f"{folder}{CHAPTERS[0].file}"
    if settings.get("repo"):
        links = run_links(first, settings["repo"], settings.get("branch") or DEFAULT_BRANCH,
                          settings.get("hub") or DEFAULT_HUB)
        online = f'<a class="run-binder" href="{html.escape(links["binder"])}">Binder</a>'
        if settings.get("hub"):
            online += f' · <a class="run-jupyterhub" href="{html.escape(links["jupyterhub"])}">JupyterHub</a>'
        run.append(f"- {t('widgets.site_home_online', links=online)}")
    if settings.get("zip"):
        archive = (f'<a class="run-zip" href="{html.escape(settings["zip"])}" download>'
                   f'{html.escape(t("widgets.site_zip", size=settings.get("zip_size", "")))}</a>')
        run.append(f"- {t('widgets.site_home_zip', zip=archive, first=first)}")
    run.append(f"- {t('widgets.site_home_clone')}")
    text = (HOME_DIR / f"{lang}.md").read_text(encoding="utf-8")
    for key, value in {"n_chapters": str(len(CHAPTERS)), "chapters": "\n".join(rows), "minutes": str(minutes),
                       "hours": f"{minutes / 60:.0f}", "run": "\n".join(run)}.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _toctree(lang: str) -> str:
    """A hidden toctree (the sidebar) of every chapter and companion page, appended to the landing page."""
    docs = docnames(lang)
    root = posixpath.dirname(EDITIONS[lang]["root"])
    rel = lambda d: posixpath.relpath(d, root or ".")  # noqa: E731
    chapters = [rel(d) for d in docs[1:] if "/companion/" not in d]
    companion = [rel(d) for d in docs[1:] if "/companion/" in d]
    block = ""
    for caption, entries in ((i18n.t("widgets.site_chapters", lang=lang), chapters),
                             (i18n.t("widgets.site_companion", lang=lang), companion)):
        block += f"\n\n```{{toctree}}\n:hidden:\n:caption: {caption}\n\n" + "\n".join(entries) + "\n```\n"
    return block


# ----------------------------------------------------------------------------------------------- Chinese text
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# a CJK character for the spacing rule (zh pages): Hanzi, CJK punctuation (。，、：；（）「」), fullwidth forms, and the
# general punctuation Chinese text uses (——, “”, …)
CJK = ("\u2014\u2018\u2019\u201c\u201d\u2026"  # ——, ‘’, “”, …: general punctuation Chinese sets without spaces
       "\u2e80-\u2fff\u3001-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef")
_CJK_GAP = re.compile(f"(?<=[{CJK}])[ \t\r\n]+(?=[{CJK}])")
_IS_CJK = re.compile(f"[{CJK}]")
SPACE = " \t\r\n"
GLOSSARY_ZH = ROOT / "notebooks" / "companion" / "zh" / "glossary.md"


def zh_glossary_terms() -> list[tuple[str, str | None]]:
    """(term, chapter) for every term of the zh glossary: its table's 中文 column with the chapter that introduces
    it ("07"), then the chosen terms of its 统一译名 table (chapter None). A cell's words before any "（"."""
    text = GLOSSARY_ZH.read_text(encoding="utf-8")
    main, _, chosen = text.partition("## 统一译名")
    rows = [(zh, ch) for zh, _, _, ch in re.findall(r"^\| (.+?) \| (.+?) \| (.+?) \| (\d\d) \|$", main, flags=re.M)]
    rows += [(zh, None) for _, zh, _ in re.findall(r"^\| (.+?) \| (.+?) \| (.+?) \|$", chosen, flags=re.M)[1:]]
    return [(cell.split("（")[0].strip(), ch) for cell, ch in rows if cell.split("（")[0].strip()]


@functools.lru_cache(maxsize=1)
def zh_search_words() -> frozenset[str]:
    """The course's Chinese words the search index keeps whole: every run of Hanzi in a zh glossary term."""
    return frozenset(run for term, _ in zh_glossary_terms() for run in re.findall(f"[{HAN}]+", term))


def _chinese_search_language():
    """Sphinx's Chinese search language with the course's words: compounds kept whole, with their parts."""
    import jieba
    from sphinx.search.zh import SearchChinese

    class CourseChinese(SearchChinese):
        # Sphinx 9.0.x ships english-stemmer.js (EnglishStemmer) for zh but names it after language_name
        language_name = "English"

        def __init__(self, options):
            super().__init__(options)
            for word in zh_search_words():
                jieba.add_word(word)

        def split(self, input: str) -> list[str]:
            """jieba's words, each with every shorter word of its dictionary inside it (自注意力: 注意, 注意力)."""
            freq = jieba.dt.FREQ
            words = []
            for word in jieba.cut(input):
                words.append(word)
                n = len(word)
                words += [word[i:i + k] for k in range(2, n) for i in range(n - k + 1) if freq.get(word[i:i + k])]
            latin = [term.strip() for term in self.latin1_letters.findall(input)]
            self.latin_terms.update(latin)
            return words + latin

        def word_filter(self, stemmed_word: str) -> bool:
            # one Hanzi is a word too when the course uses it as a term (头, 键, 值, 层, 熵)
            return len(stemmed_word) > 1 or stemmed_word in zh_search_words()

    return CourseChinese


def close_cjk_gaps(doctree) -> int:
    """Drop the white space between two CJK characters in the prose of a doctree (a source line break inside a
    Chinese sentence renders as a space); code, math and raw HTML are left alone. Returns how many were dropped."""
    from docutils import nodes

    frozen = (nodes.FixedTextElement, nodes.literal, nodes.math, nodes.math_block, nodes.raw, nodes.comment)
    dropped = 0
    for block in doctree.findall(nodes.TextElement):
        if isinstance(block, frozen) or isinstance(block.parent, nodes.TextElement):
            continue
        texts = [t for t in block.findall(nodes.Text)]
        shown = [str(t) for t in texts]
        for i, t in enumerate(texts):
            if any(isinstance(a, frozen) for a in _ancestors(t, block)):
                continue
            new, n = _CJK_GAP.subn("", shown[i])
            before = next((s[-1] for s in reversed(shown[:i]) if s), "")
            after = next((s[0] for s in shown[i + 1:] if s), "")
            core = new.strip(SPACE)
            if not core:
                if new and _IS_CJK.match(before or "x") and _IS_CJK.match(after or "x"):
                    new, n = "", 1
            else:
                if new[0] in SPACE and _IS_CJK.match(before or "x") and _IS_CJK.match(core[0]):
                    new, n = new.lstrip(SPACE), n + 1
                if new[-1] in SPACE and _IS_CJK.match(core[-1]) and _IS_CJK.match(after or "x"):
                    new, n = new.rstrip(SPACE), n + 1
            if n:  # by identity: Element.replace finds a child by ==, and Text nodes are strings ("\n" == "\n")
                parent = t.parent
                parent[next(k for k, child in enumerate(parent.children) if child is t)] = nodes.Text(new)
                shown[i] = new
                dropped += n
    return dropped


def _ancestors(node, stop=None):
    node = node.parent
    while node is not None and node is not stop:
        yield node
        node = node.parent


# ----------------------------------------------------------------------------------------------- vendored files
def _cjk_characters(built: Path, lang: str = "zh") -> str:
    """Every character from U+2E80 up in the built pages and the course's scripts, sorted: for the English edition
    only a few (its "中文版" link), so an English page never loads a font of every Hanzi the course uses."""
    chars = set()
    scripts = [p for p in built.glob("_static/*.js") if lang == "zh" or (SRC_DIR / "_static" / p.name).exists()]
    for path in [*built.rglob("*.html"), *scripts]:
        chars.update(path.read_text(encoding="utf-8", errors="replace"))
    if lang == "zh":
        for texts in i18n.MESSAGES.values():  # the live explorers' labels travel as escaped JSON
            chars.update(texts[1])
    return "".join(sorted(c for c in chars if ord(c) >= 0x2E80))


def font_subset(built: Path, lang: str = "zh") -> Path:
    """Write the CJK font subset (WOFF) for the built site into built/_static/fonts/, with its licence.

    Cached in build/site/ by the character set; the CSS (site_src/_static/course.css) names it.
    """
    import logging

    from fontTools import subset

    from helpers.plotting import CJK_FONT_FILE, cjk_font_path

    logging.getLogger("fontTools").setLevel(logging.WARNING)  # it logs every pruned table at INFO
    chars = _cjk_characters(built, lang)
    out_dir = built / "_static" / "fonts"
    source = cjk_font_path()                      # the plots' font: one file for the pages and the figures
    key = hashlib.sha256((chars + CJK_FONT_FILE).encode()).hexdigest()[:16]
    cached = CACHE_DIR / f"font-{key}.woff"
    if not cached.exists():
        options = subset.Options()
        options.flavor, options.name_IDs, options.name_languages = "woff", ["*"], ["*"]
        font = subset.load_font(str(source), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=chars)
        subsetter.subset(font)
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        subset.save_font(font, str(cached), options)
    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(cached, out_dir / FONT_OUT)
    from fontTools.ttLib import TTFont

    copyright_ = TTFont(str(cached))["name"].getDebugName(0)
    (out_dir / "OFL.txt").write_text(
        f"{FONT_OUT}: a subset of Noto Sans CJK SC Regular ({len(chars)} characters), made by "
        f"helpers/devtools/site.py with fontTools from the copy in the mplfonts package.\n{copyright_}\n"
        "Licensed under the SIL Open Font License, Version 1.1:\n\n" + (SRC_DIR / "OFL-1.1.txt").read_text())
    return out_dir / FONT_OUT


def trim_static(static: Path, lang: str) -> None:
    """Leave out what a reader never loads: source maps (and the comments naming them), the themes' translations
    into languages other than the edition's."""
    keep = {"en": set(), "zh": {"zh_CN", "zh"}}[lang]
    for path in static.rglob("*.map"):
        path.unlink()
    for path in [*static.rglob("*.js"), *static.rglob("*.css")]:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        trimmed = re.sub(r"\n?/[/*][#@] sourceMappingURL=\S+?(\s*\*/)?\s*$", "\n", text)
        if trimmed != text:
            path.write_text(trimmed, encoding="utf-8", errors="surrogateescape")
    locales = static / "locales"
    if locales.is_dir():
        for folder in locales.iterdir():
            if folder.name not in keep:
                shutil.rmtree(folder)


def vendored_static(lang: str) -> Path:
    """A folder of files the pages need that come from packages: MathJax (the font subset is cut after the build)."""
    import mathjax

    out = CACHE_DIR / f"static-{lang}"
    if out.exists():
        shutil.rmtree(out)
    src = Path(mathjax.__file__).parent / "static" / "mathjax"
    (out / "mathjax").mkdir(parents=True)
    shutil.copy(src / MATHJAX_FILE, out / "mathjax" / Path(MATHJAX_FILE).name)
    shutil.copy(src / "LICENSE", out / "mathjax" / "LICENSE")
    return out


# ----------------------------------------------------------------------------------------------- the course zip
def zip_name(lang: str) -> str:
    return f"learning-to-attend-{lang}.zip"


def _zip_files(lang: str) -> list[tuple[str, Path]]:
    """(path in the zip, file) of one edition's course: its chapters and companion pages, helpers/, data/."""
    ed = EDITIONS[lang]
    docs = [d for d in docnames(lang) if d != ed["root"]]
    names = [f"{d}{'.md' if '/companion/' in d else '.ipynb'}" for d in docs]
    files = [(name, ROOT / name) for name in names]
    for folder in ("helpers", "data"):
        files += [(p.relative_to(ROOT).as_posix(), p) for p in sorted((ROOT / folder).rglob("*"))
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    return files


def _zip_readme(lang: str) -> str:
    first = next(d for d in docnames(lang) if re.search(r"/00_", d))
    return i18n.t("widgets.site_zip_readme", lang=lang, first=f"{first}.ipynb") + "\n"


def course_zip(lang: str) -> Path:
    """The edition's course as a zip that runs (build/site/, cached by content): the chapters and companion pages,
    helpers/ and data/, requirements.txt (the course's pins, then `-e .` for helpers), pyproject.toml, README.txt.
    Deterministic: sorted entries, fixed dates."""
    import zipfile

    top = zip_name(lang)[:-4]
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8").rstrip("\n") + (
        "\n\n# The course's own helpers (the folder this file is in), importable from every notebook.\n-e .\n")
    texts = {"README.txt": _zip_readme(lang), "requirements.txt": requirements,
             "pyproject.toml": (ROOT / "pyproject.toml").read_text(encoding="utf-8")}
    files = _zip_files(lang)
    digest = hashlib.sha256(json.dumps(texts, sort_keys=True).encode())
    for name, path in files:
        digest.update(name.encode() + b"\0" + path.read_bytes())
    cached = CACHE_DIR / f"{top}-{digest.hexdigest()[:16]}.zip"
    if not cached.exists():
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            entries = sorted([(n, t.encode("utf-8")) for n, t in texts.items()] +
                             [(n, p.read_bytes()) for n, p in files])
            for name, data in entries:
                info = zipfile.ZipInfo(f"{top}/{name}", date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
                z.writestr(info, data)
        tmp.replace(cached)
        for old in CACHE_DIR.glob(f"{top}-*.zip"):
            if old != cached:
                old.unlink()
    return cached


def _size(nbytes: int) -> str:
    return f"{nbytes / 1e6:.1f} MB"


# ----------------------------------------------------------------------------------------------- Sphinx extension
def _settings(config) -> dict:
    return {"repo": config.course_repo, "branch": config.course_branch, "hub": config.course_hub,
            "zip": config.course_zip, "zip_size": config.course_zip_size}


def _on_source_read(app, docname: str, source: list[str]) -> None:
    lang = app.config.course_lang
    settings = _settings(app.config)
    if Path(app.env.doc2path(docname)).suffix == ".ipynb":
        if not hasattr(app.env, "course_alts"):
            app.env.course_alts = {}
        app.env.course_alts[docname] = figure_alts(json.loads(source[0]))
        source[0] = prepare_notebook(source[0], docname, lang, settings)
        return
    if docname == EDITIONS[lang]["root"]:
        source[0] = rewrite_links(home_page(lang, settings), docname, lang, settings) + _toctree(lang)
        return
    text = rewrite_links(source[0], docname, lang, settings)
    source[0] = text


def _on_page_context(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    lang = app.config.course_lang
    other_lang = "zh" if lang == "en" else "en"
    other = other_docname(pagename, lang) or EDITIONS[other_lang]["root"]
    context["course_other_url"] = _url_from(pagename, other_lang, other)
    context["course_other_label"] = EDITIONS[lang]["other_label"]  # the other language, named in that language
    context["course_lang"] = lang
    context["course_top_label"] = i18n.t("widgets.site_top_label", lang=lang)


def _on_builder_inited(app) -> None:
    if app.config.course_lang == "zh":
        from sphinx import search

        search.languages["zh"] = _chinese_search_language()


def _on_doctree_resolved(app, doctree, docname: str) -> None:
    caption_figures(doctree, getattr(app.env, "course_alts", {}).get(docname, {}), app.config.course_lang)
    name_empty_headers(doctree, app.config.course_lang)
    if app.config.course_lang == "zh":
        close_cjk_gaps(doctree)


def _on_finished(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        root = Path(app.outdir)
        shutil.copy(root / f"{EDITIONS[app.config.course_lang]['root']}.html", root / "index.html")
        font_subset(root, app.config.course_lang)
        shutil.copy(course_zip(app.config.course_lang), root / zip_name(app.config.course_lang))
        trim_static(root / "_static", app.config.course_lang)


def sphinx_setup(app):
    """The Sphinx extension (site_src/conf.py's `setup`): notebook preparation, language link, landing page."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)  # it logs loading its dictionary at DEBUG, on stderr
    app.add_config_value("course_lang", "en", "env")
    app.add_config_value("course_repo", "", "env")       # owner/name of the class repository ("": no such links)
    app.add_config_value("course_branch", DEFAULT_BRANCH, "env")
    app.add_config_value("course_hub", "", "env")        # the JupyterHub's host ("": no JupyterHub link)
    app.add_config_value("course_zip", "", "env")        # the course zip's file name in the edition's folder
    app.add_config_value("course_zip_size", "", "env")
    app.connect("builder-inited", _on_builder_inited)
    app.connect("source-read", _on_source_read)
    app.connect("doctree-resolved", _on_doctree_resolved)
    app.connect("html-page-context", _on_page_context)
    app.connect("build-finished", _on_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# ----------------------------------------------------------------------------------------------- build
def placeholder_warnings(repo: str, hub: str) -> list[str]:
    """What a build without SITE_REPO (or SITE_HUB) leaves out, said at build time instead of placeholder links."""
    if not repo:
        return ["SITE_REPO is not set: the pages have no Binder, JupyterHub or repository links "
                "(make site SITE_REPO=owner/name SITE_HUB=hub.example.edu)"]
    return [] if hub else ["SITE_HUB is not set: the pages have Binder links but no JupyterHub link"]


def build_edition(lang: str, out: Path = SITE_DIR, repo: str | None = None, branch: str | None = None,
          hub: str | None = None, quiet: bool = True) -> Path:
    """Build one edition into out/<lang> (nothing executed, nothing fetched); raises RuntimeError on any warning."""
    from sphinx.cmd.build import build_main

    if lang not in EDITIONS:
        raise ValueError(f"lang is {lang!r}; expected one of {', '.join(LANGS)}")
    repo = repo or os.environ.get("SITE_REPO") or ""
    branch = branch or os.environ.get("SITE_BRANCH") or DEFAULT_BRANCH
    hub = hub or os.environ.get("SITE_HUB") or ""
    if repo:
        run_links("x", repo, branch, hub or DEFAULT_HUB)  # a clear error for a malformed SITE_REPO before Sphinx starts
    for message in placeholder_warnings(repo, hub):
        print(f"warning: {message}", file=sys.stderr)
    archive = course_zip(lang)
    ed = EDITIONS[lang]
    static = vendored_static(lang)
    include = [ed["root"] + ".md", ed["chapters"], ed["companion"]]
    overrides = [f"root_doc={ed['root']}", f"language={ed['sphinx_language']}", f"course_lang={lang}",
                 f"course_repo={repo}", f"course_branch={branch}", f"course_hub={hub}",
                 f"course_zip={zip_name(lang)}", f"course_zip_size={_size(archive.stat().st_size)}",
                 f"include_patterns={','.join(include)}", f"html_title={ed['title']}", f"project={ed['title']}",
                 f"html_static_path={SRC_DIR / '_static'},{static}"]
    target = out / lang
    log = CACHE_DIR / f"sphinx-{lang}.log"
    args = ["-b", "html", "-E", "-q" if quiet else "-v", "-c", str(SRC_DIR), "-d", str(CACHE_DIR / f"doctrees-{lang}"),
            "-w", str(log), "--fail-on-warning", "--keep-going"]
    for o in overrides:
        args += ["-D", o]
    status = build_main([*args, str(ROOT), str(target)])
    shutil.rmtree(out / "jupyter_execute", ignore_errors=True)  # myst-nb's scratch folder beside the output
    if status != 0:
        raise RuntimeError(f"the {lang} site did not build cleanly (status {status}):\n{log.read_text()[-4000:]}")
    return target


# site/index.html: sends a reader to the English edition (a page of its own, in English, with both links)
ROOT_INDEX = ('<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><meta http-equiv="refresh" '
              'content="0; url=en/index.html"><title>Learning to Attend</title></head>\n<body><main><p><a '
              'href="en/index.html">English</a> · <a href="zh/index.html" lang="zh" hreflang="zh">中文</a></p>'
              '</main></body>\n</html>\n')


def write_root(out: Path) -> None:
    """The site's own files beside the editions: index.html (to the English edition) and .nojekyll."""
    (out / "index.html").write_text(ROOT_INDEX, encoding="utf-8")
    (out / ".nojekyll").write_text("")  # GitHub Pages: serve _static/ and _images/ as they are


def cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m helpers.devtools.site", description=__doc__.split("\n")[0])
    parser.add_argument("--lang", choices=LANGS, action="append", help="edition(s) to build (default: both)")
    parser.add_argument("--out", type=Path, default=SITE_DIR, help="output folder (default: site/)")
    args = parser.parse_args(argv)
    for lang in args.lang or LANGS:
        start = time.perf_counter()
        target = build_edition(lang, args.out)
        print(f"{lang}: {target / 'index.html'} in {time.perf_counter() - start:.1f} s")
    write_root(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(cli())
