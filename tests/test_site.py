"""The course website (make site) in Debian's Chromium: both editions built, served on 127.0.0.1, every page opened.

Builds both editions into a temporary folder (helpers.devtools.site, about 20 s), serves it with a local HTTP
server and checks, for every page of both editions: it renders (a title, no failed request), every image loads
and has alt text and a caption that say what it shows, the math is typeset and no raw TeX is left (Markdown outputs
included), no request leaves 127.0.0.1, `lang` is set, no white space stands between two CJK characters, and
axe-core (vendored, tests/vendor/axe-core) finds no violation, in light and in dark mode. Then: search finds "mask",
掩码, the compounds 自注意力 缩放点积 因果掩码 位置编码 多头注意力, every zh glossary term and every chapter title, with
snippets free of theme chrome and TeX; the language link lands on the same page and the same section; printing wraps
long code lines; the home page is the learner's (the course table), not the README; the course zip runs; chapter
03's live Q/K explorer answers its sliders with the weights of the Python function `helpers.widgets.explorer_state`
(to 1e-6 at sampled slider positions). Saves screenshots (light and dark, laptop and phone) to tests/artifacts/
for a person to look at.

Skipped when Chromium, playwright or the site's packages (requirements-site.txt) are missing, unless
REQUIRE_BROWSER=1 (CI), which turns that into a failure.
"""
from __future__ import annotations

import functools
import hashlib
import html
import http.server
import json
import re
import subprocess
import sys
import threading
import time
import zipfile

import numpy as np
import pytest
from test_browser import _chromium, _missing

from helpers import ROOT
from helpers.base import to_numpy
from helpers.widgets import explorer_state

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "tests" / "artifacts"
CH03, CH05 = "notebooks/03_qkv_by_hand", "notebooks/zh/05_attention_translation"


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    """Both editions, built from the committed files into a temporary folder: {lang: seconds}."""
    try:
        import myst_nb  # noqa: F401
        import sphinx_book_theme  # noqa: F401
    except ImportError as err:
        _missing(f"the site's packages are not installed ({err.name}; make site installs requirements-site.txt)")
    from helpers.devtools import site

    out = tmp_path_factory.mktemp("site")
    seconds = {}
    for lang in site.LANGS:
        start = time.perf_counter()
        site.build_edition(lang, out)
        seconds[lang] = time.perf_counter() - start
    site.write_root(out)
    return out, seconds


@pytest.fixture(scope="module")
def base_url(built_site):
    """http://127.0.0.1:PORT serving the built site (a thread; stopped after the module)."""
    handler = functools.partial(_QuietHandler, directory=str(built_site[0]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    from helpers.devtools.lab import CHROMIUM_ARGS

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


class _Watched:
    """A page that records every request, and every failed one (network error or HTTP status >= 400)."""

    def __init__(self, browser, base: str, color_scheme: str = "light", viewport=(1400, 1000)):
        self.page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]},
                                     color_scheme=color_scheme)
        self.base, self.requests, self.failed = base, [], []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} ({r.status})"))
        # nothing may leave 127.0.0.1: anything else is answered "blocked" (and recorded above)
        self.page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                        or route.request.url.startswith("data:") else route.abort("blockedbyclient"))

    def outside(self) -> list[str]:
        return [u for u in self.requests if not (u.startswith(self.base) or u.startswith("data:"))]


JS_IMAGES = """() => Array.from(document.querySelectorAll('article img')).map(
  i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0, i.getAttribute('alt') || '',
        i.closest('figure') && i.closest('figure').querySelector('figcaption') ? (() => {
          const c = i.closest('figure').querySelector('figcaption').cloneNode(true);
          c.querySelectorAll('.headerlink').forEach((a) => a.remove());
          return c.textContent.trim(); })() : null])"""
JS_MATH = """() => [document.querySelectorAll("article .math").length,
                   document.querySelectorAll('article mjx-container').length]"""
JS_MATH_DONE = """() => window.MathJax && MathJax.startup && MathJax.startup.promise
                   ? MathJax.startup.promise.then(() => true) : true"""
# the prose of a page as a reader sees it: code, typeset math and scripts replaced by a Latin placeholder
JS_PROSE = """(selector) => Array.from(document.querySelectorAll(selector)).map((el) => {
  const clone = el.cloneNode(true);
  clone.querySelectorAll('pre, code, kbd, samp, mjx-container, script, style, textarea, ul, ol, p, table')
       .forEach((x) => x.replaceWith('X'));
  return clone.textContent;
})"""
PROSE = "article p, article li, article dt, article dd, article td, article th, article h1, article h2, " \
        "article h3, article h4, article figcaption, article caption"
RAW_TEX = re.compile(r"\$[^$\s][^$]*\$|\\\(|\\\[|\\(frac|sqrt|top|begin)\b")
AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"  # axe-core 4.14.1 (its README)


def _axe(page, code: bool = True, rules: tuple[str, ...] = ()) -> list[str]:
    """axe-core's violations on the open page, one line each: rule, impact, how many nodes, the first node.

    code=False leaves the code cells out (their syntax colours are the same on every page: checked on one page per
    edition, they cost a third of axe's time on the others); rules: only these rules (all by default)."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    context = "document" if code else "{exclude: [['div.highlight']]}"
    only = f", runOnly: {{type: 'rule', values: {json.dumps(list(rules))}}}" if rules else ""
    found = page.evaluate(f"() => axe.run({context}, {{resultTypes: ['violations']{only}}}).then(r => r.violations"
                          ".map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' '), "
                          "(v.nodes[0].failureSummary || '').slice(0, 160)]))")
    return [f"{rule} ({impact}, {n} nodes, e.g. {target}: {summary})" for rule, impact, n, target, summary in found]


# the rules whose result depends on the colours (dark mode changes nothing else)
COLOUR_RULES = ("color-contrast", "link-in-text-block")
CODE_CHECKED = {"en": CH03, "zh": "notebooks/zh/03_qkv_by_hand"}  # the page per edition where axe reads code cells


def _cjk_gaps(page) -> list[str]:
    """Every CJK character, white space, CJK character in the page's prose (a line break inside a Chinese sentence)."""
    from helpers.devtools.site import CJK

    gap = re.compile(f"[{CJK}][ \t\r\n]+[{CJK}]")
    return [m.group(0) for text in page.evaluate(JS_PROSE, PROSE) for m in gap.finditer(text)]


def _raw_tex(page) -> list[str]:
    """TeX left in the page's text after MathJax ran (code excluded): $...$, \\(, \\[, \\frac, \\sqrt ..."""
    page.evaluate(JS_MATH_DONE)
    text = page.evaluate("""() => { const a = document.querySelector('article').cloneNode(true);
      a.querySelectorAll('pre, code, mjx-container, script, style, .highlight').forEach((x) => x.remove());
      return a.textContent; }""")
    return [text[max(0, m.start() - 30):m.end() + 30] for m in RAW_TEX.finditer(text)]


def _png_outputs(path) -> int:
    """How many PNG outputs the committed notebook has (each must be a figure on its page)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return sum("image/png" in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))


def _open(w: _Watched, url: str) -> None:
    w.page.goto(url, wait_until="load", timeout=30_000)


def test_every_page_of_both_editions_renders_offline(built_site, base_url, browser):
    """Every page, and axe-core on it in light and in dark mode (the rules that depend on colours)."""
    from helpers.devtools import site

    out, seconds = built_site
    assert all(s < 60 for s in seconds.values()), f"the site took {seconds} s to build (benchmark: ≤ 30 s each)"
    w = _Watched(browser, base_url)
    problems, typeset_pages, captions = [], 0, 0
    try:
        if '<html lang="en">' not in (out / "index.html").read_text(encoding="utf-8"):  # sends a reader to en/
            problems.append("site/index.html: no lang")
        for lang in site.LANGS:
            for doc in site.docnames(lang):
                _open(w, f"{base_url}/{lang}/{doc}.html")
                page = w.page
                title = page.locator("article h1").first.text_content(timeout=10_000)
                if not title.strip():
                    problems.append(f"{lang}/{doc}: no title")
                if page.evaluate("() => document.documentElement.lang") not in ({"en"} if lang == "en" else
                                                                                {"zh-CN", "zh"}):
                    problems.append(f"{lang}/{doc}: lang is {page.evaluate('() => document.documentElement.lang')!r}")
                count, typeset = page.evaluate(JS_MATH)
                if count:
                    page.wait_for_function("() => document.querySelectorAll('article mjx-container').length > 0",
                                           timeout=20_000)
                    typeset_pages += 1
                if tex := _raw_tex(page):
                    problems.append(f"{lang}/{doc}: raw TeX in the page's text: {tex[:3]}")
                if gaps := _cjk_gaps(page):
                    problems.append(f"{lang}/{doc}: {len(gaps)} spaces between CJK characters, e.g. {gaps[:3]}")
                images = page.evaluate(JS_IMAGES)
                broken = [src for src, ok, _, _ in images if not ok]
                if broken:
                    problems.append(f"{lang}/{doc}: images not loaded {broken[:3]}")
                for src, _, alt, caption in images:
                    if not alt.strip() or re.search(r"^(\.\./|_images/)|\.(png|jpe?g|svg)$|[0-9a-f]{32}", alt):
                        problems.append(f"{lang}/{doc}: image {src} has alt text {alt!r}")
                    if caption is not None and caption != alt:
                        problems.append(f"{lang}/{doc}: image {src}: caption {caption!r}, alt text {alt!r}")
                if "/companion/" not in doc and doc.startswith("notebooks/"):
                    shown = page.locator("article .cell_output img").count()
                    if shown != _png_outputs(ROOT / f"{doc}.ipynb"):
                        problems.append(f"{lang}/{doc}: {shown} figures shown, the notebook has "
                                        f"{_png_outputs(ROOT / f'{doc}.ipynb')}")
                    figures = page.locator("article .cell_output figure img").count()
                    captions += page.locator("article .cell_output figure figcaption").count()
                    if figures != shown:
                        problems.append(f"{lang}/{doc}: {shown - figures} of {shown} figures without a caption")
                    if page.locator(".run-this a.run-zip").count() != 1:
                        problems.append(f"{lang}/{doc}: no 'Run this chapter' box with the course zip")
                    download = page.locator("a[href*='_sources/'][href$='.ipynb']")
                    served = out / lang / "_sources" / f"{doc}.ipynb"
                    if download.count() == 0:
                        problems.append(f"{lang}/{doc}: no notebook download link")
                    elif served.read_bytes() != (ROOT / f"{doc}.ipynb").read_bytes():
                        problems.append(f"{lang}/{doc}: the download is not the committed notebook")
                    if page.locator(".prev-next-area a").count() < 1:
                        problems.append(f"{lang}/{doc}: no previous/next links")
                    if page.locator("text=0%|").count():
                        problems.append(f"{lang}/{doc}: a tqdm bar's fallback is shown")
                if page.locator("text=children=(").count():
                    problems.append(f"{lang}/{doc}: a raw widget repr is shown")
                other_lang = "zh" if lang == "en" else "en"
                other = site.other_docname(doc, lang) or site.EDITIONS[other_lang]["root"]
                link = page.eval_on_selector(".course-other-language", "a => a.href")
                if link != f"{base_url}/{other_lang}/{other}.html":
                    problems.append(f"{lang}/{doc}: the language link goes to {link}")
                if page.locator(".bd-sidebar-primary a.reference").count() < len(site.docnames(lang)) - 1:
                    problems.append(f"{lang}/{doc}: the sidebar does not list every page")
                problems += [f"{lang}/{doc} (light): axe: {v}" for v in _axe(page, code=doc == CODE_CHECKED[lang])]
                # dark mode, which the theme follows by default: the same page, the system's scheme switched (no
                # colour transitions, or axe would read colours half-way)
                page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
                page.emulate_media(color_scheme="dark")
                page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'", timeout=5_000)
                problems += [f"{lang}/{doc} (dark): axe: {v}"
                             for v in _axe(page, code=doc == CODE_CHECKED[lang], rules=COLOUR_RULES)]
                page.emulate_media(color_scheme="light")
        page.wait_for_timeout(200)
    finally:
        w.page.close()
    assert not w.outside(), f"requests left 127.0.0.1: {w.outside()[:5]}"
    assert not w.failed, f"failed requests: {w.failed[:5]}"
    assert not problems, "\n".join(problems)
    assert typeset_pages >= 8, f"MathJax typeset math on only {typeset_pages} pages (chapters 01, 05, 06, 07 have math)"
    assert captions >= 90, f"only {captions} figures have a caption"


def test_axe_is_the_vendored_axe_core():
    assert hashlib.sha256(AXE.read_bytes()).hexdigest() == AXE_SHA256, "tests/vendor/axe-core/axe.min.js changed"


@pytest.mark.parametrize("lang, term, expected", [("en", "mask", "04_scaled_dot_product_softmax_masking"),
                                                   ("zh", "掩码", "04_scaled_dot_product_softmax_masking")])
def test_search_finds_a_term_in_each_language(base_url, browser, lang, term, expected):
    w = _Watched(browser, base_url)
    try:
        _open(w, f"{base_url}/{lang}/search.html?q={term}")
        w.page.wait_for_function("() => document.querySelectorAll('#search-results li').length > 0", timeout=30_000)
        links = w.page.eval_on_selector_all("#search-results li a", "as => as.map(a => a.getAttribute('href'))")
    finally:
        w.page.close()
    assert any(expected in href for href in links), f"searching {term!r} should find chapter 04; found {links[:8]}"
    assert not w.outside() and not w.failed, (w.outside()[:3], w.failed[:3])


# the page's own search, called for many queries at once: (query, the words it was split into, the docnames found)
JS_SEARCH = """(queries) => queries.map((q) => {
  const [query, terms, excluded, highlight, objects] = Search._parseQuery(q);
  return [q, [...terms], Search._performSearch(query, terms, excluded, highlight, objects).map((r) => r[0])];
})"""
COMPOUNDS = {"自注意力": "07", "缩放点积": "04", "因果掩码": "07", "位置编码": "07", "多头注意力": "07"}


def _page_text(path) -> str:
    """A notebook's Markdown and outputs as one string, line breaks removed (what its page's index is made from)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    parts = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    parts += ["".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/markdown", "")) +
              "".join(o.get("data", {}).get("text/plain", "")) for c in nb["cells"] for o in c.get("outputs", [])]
    return "".join(parts).replace("\n", "")


def _search_queries(not_found: list[str], lang: str, queries: dict[str, str], page) -> None:
    """Append to not_found each query (-> the page it must find) whose results lack that page; a term written
    "A / B" (two names of one thing, as "LSTM / BiLSTM") is found when either is."""
    alternatives = {query: [a.strip() for a in query.split(" / ")] for query in queries}
    found = {q: docs for q, _, docs in page.evaluate(JS_SEARCH, sorted({a for v in alternatives.values() for a in v}))}
    split = {q: terms for q, terms, _ in page.evaluate(JS_SEARCH, list(queries))}
    for query, expected in queries.items():
        if not any(expected in found[a] for a in alternatives[query]):
            not_found.append(f"{lang}: {query!r} (split into {split[query]}) does not find {expected}: "
                             f"{[found[a][:5] for a in alternatives[query]]}")


def test_search_finds_compounds_glossary_terms_and_chapter_titles(base_url, browser):
    """Chinese: the five compounds of issue 35, every term of the zh glossary (its chapter; the term table's chosen
    terms: the glossary), every chapter title (in each language: its chapter)."""
    from helpers.course import CHAPTERS
    from helpers.devtools import site

    chapter_doc = {ch.number: {"en": f"notebooks/{ch.file[:-6]}", "zh": f"notebooks/zh/{ch.file[:-6]}"}
                   for ch in CHAPTERS}
    zh_queries = {term: chapter_doc[ch]["zh"] for term, ch in COMPOUNDS.items()}
    texts = {}
    for term, ch in site.zh_glossary_terms():
        # its chapter; the glossary for a chosen term of the term table, or for a term its chapter does not use
        # (tests/test_i18n.py reports that one)
        if ch and ch not in texts:
            texts[ch] = _page_text(ROOT / f"{chapter_doc[ch]['zh']}.ipynb")
        used = ch and any(part.strip() in texts[ch] for part in term.split(" / "))
        zh_queries.setdefault(term, chapter_doc[ch]["zh"] if used else "notebooks/companion/zh/glossary")
    titles = {"en": {ch.title: chapter_doc[ch.number]["en"] for ch in CHAPTERS},
              "zh": {ch.title_zh: chapter_doc[ch.number]["zh"] for ch in CHAPTERS}}
    assert len(zh_queries) > 80, "the zh glossary's terms should all be searched"
    w = _Watched(browser, base_url)
    not_found = []
    try:
        for lang, queries in (("zh", {**zh_queries, **titles["zh"]}), ("en", titles["en"])):
            _open(w, f"{base_url}/{lang}/search.html")
            w.page.wait_for_function("() => typeof Search !== 'undefined' && Search._index !== null", timeout=30_000)
            _search_queries(not_found, lang, queries, w.page)
    finally:
        w.page.close()
    assert not not_found, f"{len(not_found)} searches miss their page:\n" + "\n".join(not_found)


CHROME = ("System Settings", "亮色", "暗色", "运行本章：", "Run this chapter:", "Binder ·")


def test_chinese_search_results_and_snippets_in_the_page(base_url, browser):
    """The five compounds typed into zh/search.html: each lists its chapter, with snippets of the article's own
    text (no theme words, no TeX)."""
    w = _Watched(browser, base_url)
    problems = []
    try:
        for term, number in COMPOUNDS.items():
            _open(w, f"{base_url}/zh/search.html?q={term}")
            w.page.wait_for_function("() => document.querySelectorAll('#search-results li p.context').length > 0",
                                     timeout=30_000)
            w.page.wait_for_timeout(300)
            links = w.page.eval_on_selector_all("#search-results li a", "as => as.map(a => a.getAttribute('href'))")
            snippets = w.page.eval_on_selector_all("#search-results li p.context", "ps => ps.map(p => p.textContent)")
            if not any(f"/{number}_" in href for href in links):
                problems.append(f"{term}: chapter {number} not among {links[:6]}")
            for text in snippets:
                if any(word in text for word in CHROME) or RAW_TEX.search(text):
                    problems.append(f"{term}: snippet with theme words or TeX: {text[:160]!r}")
    finally:
        w.page.close()
    assert not problems, "\n".join(problems)
    assert not w.outside() and not w.failed, (w.outside()[:3], w.failed[:3])


def test_the_language_link_lands_on_the_same_page(base_url, browser):
    """Clicked on a few pages (the page test checks every page's link target)."""
    from helpers.devtools import site

    w = _Watched(browser, base_url)
    try:
        for lang, doc in (("en", CH03), ("zh", CH05), ("en", "README"), ("zh", "notebooks/companion/zh/glossary")):
            other_lang = "zh" if lang == "en" else "en"
            _open(w, f"{base_url}/{lang}/{doc}.html")
            with w.page.expect_navigation():
                w.page.locator(".course-other-language").first.click()
            other = site.other_docname(doc, lang) or site.EDITIONS[other_lang]["root"]
            assert w.page.url.split("#")[0] == f"{base_url}/{other_lang}/{other}.html", (doc, w.page.url)
    finally:
        w.page.close()
    assert site.other_docname(CH03, "en") == "notebooks/zh/03_qkv_by_hand"


def test_the_language_link_keeps_the_section(base_url, browser):
    """A section link (#payoff in English, the same section's id in Chinese) switched to the other language opens
    the other page at the same section, both ways."""
    w = _Watched(browser, base_url)
    page = w.page
    try:
        _open(w, f"{base_url}/en/notebooks/05_attention_translation.html")
        ids = page.eval_on_selector_all("article.bd-article section[id]", "ss => ss.map(s => s.id)")
        index = len(ids) // 2
        _open(w, f"{base_url}/en/notebooks/05_attention_translation.html#{ids[index]}")
        with page.expect_navigation():
            page.locator(".course-other-language").first.click()
        page.wait_for_load_state("load")
        zh_ids = page.eval_on_selector_all("article.bd-article section[id]", "ss => ss.map(s => s.id)")
        assert len(zh_ids) == len(ids), "the editions' sections should correspond one to one"
        assert page.url.endswith(f"/zh/notebooks/zh/05_attention_translation.html#{zh_ids[index]}"), page.url
        top = page.evaluate("(id) => document.getElementById(id).getBoundingClientRect().top", zh_ids[index])
        assert abs(top) < 120, f"the section is {top} px from the top of the window"
        with page.expect_navigation():
            page.locator(".course-other-language").first.click()
        page.wait_for_load_state("load")
        assert page.url.endswith(f"/en/notebooks/05_attention_translation.html#{ids[index]}"), page.url
    finally:
        page.close()


def test_printing_wraps_long_code_lines(base_url, browser):
    w = _Watched(browser, base_url, viewport=(800, 1000))
    try:
        _open(w, f"{base_url}/en/notebooks/05_attention_translation.html")
        w.page.emulate_media(media="print")
        cut = w.page.evaluate("""() => Array.from(document.querySelectorAll('article pre')).filter(
            (p) => p.scrollWidth > p.clientWidth + 1).length""")
        wrapped = w.page.evaluate("() => getComputedStyle(document.querySelector('article div.highlight pre'))"
                                  ".whiteSpace")
    finally:
        w.page.close()
    assert wrapped == "pre-wrap" and cut == 0, f"{cut} code blocks are cut when printed (white-space: {wrapped})"


def test_home_page_is_the_learners_not_the_readme(base_url, browser):
    from helpers.course import CHAPTERS

    w = _Watched(browser, base_url)
    try:
        for lang in ("en", "zh"):
            _open(w, f"{base_url}/{lang}/index.html")
            text = w.page.locator("article").inner_text()
            rows = w.page.eval_on_selector_all("article table tbody tr", "rs => rs.map(r => [r.cells[1].innerText, "
                                               "r.cells[1].querySelector('a') && r.cells[1].querySelector('a')"
                                               ".getAttribute('href'), r.cells[3].innerText])")
            titles = [ch.title if lang == "en" else ch.title_zh for ch in CHAPTERS]
            assert [r[0] for r in rows] == titles, (lang, rows)
            hrefs = [href for _, href, _ in rows]
            assert all(h and h.endswith(f"{ch.file[:-6]}.html") for h, ch in zip(hrefs, CHAPTERS, strict=True))
            assert [r[2].split()[0] for r in rows] == [str(ch.learner_minutes) for ch in CHAPTERS]
            assert len(text) < 6000, f"{lang} home page: {len(text)} characters (the README is 46k)"
            for heading in ("For course authors", "Performance", "Same numbers on every machine", "CPU pins"):
                assert heading not in text, f"{lang} home page shows the README's {heading!r}"
            assert w.page.locator("article a.run-zip").count() == 1
    finally:
        w.page.close()


def test_the_course_zip_runs_from_its_folder(built_site, tmp_path):
    """The edition's zip holds its chapters, helpers/ and data/; requirements.txt is the course's pins, then `-e .`;
    a notebook's kernel started in its folder imports the zip's helpers and reads the zip's data."""
    from helpers.devtools import site

    out, _ = built_site
    for lang in site.LANGS:
        archive = out / lang / site.zip_name(lang)
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp_path / lang)
        folder = tmp_path / lang / site.zip_name(lang)[:-4]
        chapters = sorted(p.name for p in folder.glob("notebooks/**/[0-9][0-9]_*.ipynb"))
        assert chapters == sorted(p.name for p in ROOT.glob(site.EDITIONS[lang]["chapters"]))
        assert (folder / "helpers" / "attention.py").exists() and (folder / "data" / "train.tsv").exists()
        requirements = (folder / "requirements.txt").read_text().splitlines()
        assert requirements[-1] == "-e ." and (folder / "pyproject.toml").exists()
        assert set(requirements) >= set((ROOT / "requirements.txt").read_text().splitlines())
        notebook_dir = folder / posixpath_dir(site.EDITIONS[lang]["chapters"])
        probe = ("import pathlib, helpers; from helpers.toylang import load_split; "
                 "print(pathlib.Path(helpers.__file__).resolve().parent.parent, len(load_split('test_4-10')))")
        done = subprocess.run([sys.executable, "-c", probe], cwd=notebook_dir, capture_output=True, text=True,
                              env={**__import__("os").environ, "PYTHONPATH": str(folder)}, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        root, rows = done.stdout.split()
        assert root == str(folder.resolve()) and int(rows) > 0


def posixpath_dir(pattern: str) -> str:
    return pattern.rsplit("/", 1)[0]


def test_the_site_ships_no_source_maps_other_languages_or_placeholder_links(built_site):
    from helpers.devtools import site

    out, _ = built_site
    for lang in site.LANGS:
        static = out / lang / "_static"
        assert not list(static.rglob("*.map")), "source maps are shipped"
        assert not [p for p in [*static.rglob("*.js"), *static.rglob("*.css")]
                    if "sourceMappingURL" in p.read_text(errors="replace")]
        locales = sorted(p.name for p in (static / "locales").iterdir()) if (static / "locales").exists() else []
        assert locales == ([] if lang == "en" else ["zh_CN"]), locales
        pages = "".join(p.read_text(encoding="utf-8") for p in (out / lang).rglob("*.html"))
        assert "ORG/class-repo" not in pages and "https://HUB" not in pages, "placeholder run links are shipped"
    en_font = (out / "en" / "_static" / "fonts" / site.FONT_OUT).stat().st_size
    zh_font = (out / "zh" / "_static" / "fonts" / site.FONT_OUT).stat().st_size
    assert en_font < 12_000 < 100_000 < zh_font, f"CJK font subsets: en {en_font} bytes, zh {zh_font} bytes"


def _python_weights(config: dict, qx, qy, scale=True, temperature=1.0, keys=None):
    """explorer_state's weights for the live explorer's keys and values (from its page) at one slider position."""
    return explorer_state([qx, qy], keys or config["keys"], config["values"], scale=scale,
                          temperature=temperature)["weights"]


def _shown(page) -> tuple[list[float], list[float]]:
    readout = page.locator(".qk-live .qk-readout")
    four = [float(x) for x in readout.get_attribute("data-weights").split()]
    return four, json.loads(readout.get_attribute("data-weights-full"))


def _set(page, css: str, value: float) -> None:
    """Set one range slider of the live explorer as a drag would (value, then an input event)."""
    page.eval_on_selector(f".qk-live .{css} input", "(el, v) => { el.value = v; el.dispatchEvent("
                          "new Event('input', {bubbles: true})); }", str(value))


def test_live_qk_explorer_answers_its_sliders_with_the_python_weights(base_url, browser):
    w = _Watched(browser, base_url)
    page = w.page
    try:
        _open(w, f"{base_url}/en/{CH03}.html")
        assert page.locator(".qk-live").count() == 1, (
            "chapter 03 has no live explorer: its explorer's stored text fallback predates QKExplorer's repr with "
            "keys and values (re-execute notebooks/03_qkv_by_hand.ipynb)")
        page.wait_for_selector(".qk-live[data-ready=true]", timeout=10_000)
        config = json.loads(page.locator(".qk-live").get_attribute("data-config"))
        live = page.locator(".qk-live")
        live.scroll_into_view_if_needed()
        qx0, qy0 = config["query"]
        four0, full0 = _shown(page)
        np.testing.assert_allclose(full0, _python_weights(config, qx0, qy0), atol=1e-6)

        # a learner's move: five ArrowRight presses on the Q y slider (step 0.1)
        page.locator(".qk-live .qk-q-y input").focus()
        for _ in range(5):
            page.keyboard.press("ArrowRight")
        qy = float(page.locator(".qk-live .qk-q-y input").input_value())
        four1, full1 = _shown(page)
        assert qy == pytest.approx(qy0 + 0.5) and four1 != four0, "the slider must move the weights"
        np.testing.assert_allclose(full1, _python_weights(config, qx0, qy), atol=1e-6)
        page.wait_for_timeout(150)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        live.screenshot(path=str(ARTIFACTS / "site_03_explorer.png"))

        # sampled slider positions (Q, temperature, scale switch, a moved key) against the Python function
        rng = np.random.default_rng(0)
        for _ in range(12):
            qx, qy = (round(float(x), 1) for x in rng.uniform(-2, 2, size=2))
            temperature = round(float(rng.uniform(0.1, 3.0)) / 0.05) * 0.05
            scale = bool(rng.integers(2))
            _set(page, "qk-q-x", qx)
            _set(page, "qk-q-y", qy)
            _set(page, "qk-temperature", temperature)
            if page.locator(".qk-live .qk-scale input").is_checked() != scale:
                page.locator(".qk-live .qk-scale input").click()
            _, full = _shown(page)
            np.testing.assert_allclose(full, _python_weights(config, qx, qy, scale, temperature), atol=1e-6,
                                       err_msg=f"Q=({qx}, {qy}), T={temperature}, scale={scale}")
        page.locator(".qk-live .qk-picker button").nth(2).click()  # K₃
        _set(page, "qk-k-x", -1.5)
        keys = [list(k) for k in config["keys"]]
        keys[2] = [-1.5, keys[2][1]]
        _, full = _shown(page)
        np.testing.assert_allclose(full, _python_weights(config, qx, qy, scale, temperature, keys), atol=1e-6)
        context = json.loads(page.locator(".qk-live .qk-readout").get_attribute("data-context"))
        expected = explorer_state([qx, qy], keys, config["values"], scale, temperature)["context"]
        np.testing.assert_allclose(context, expected, atol=1e-6)
    finally:
        page.close()
    assert not w.outside() and not w.failed, (w.outside()[:3], w.failed[:3])


SCREENSHOTS = (("en", CH03, "03_en"), ("zh", CH05, "05_zh"), ("zh", "notebooks/zh/07_self_attention_and_transformer",
                                                                 "07_zh"))


def test_screenshots_light_and_dark_on_a_laptop_and_a_phone(base_url, browser):
    """For a person to look at (layout, fonts, dark mode): en 03 (at its explorer), zh 05, zh 07, light and dark,
    1366 px and 390 px wide, into tests/artifacts/site_<page>_<scheme>_<width>.png. Checks only that the Chinese
    text is drawn with the bundled CJK font subset."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    fonts = []
    for scheme in ("light", "dark"):
        for width, height in ((1366, 900), (390, 844)):
            w = _Watched(browser, base_url, color_scheme=scheme, viewport=(width, height))
            try:
                for lang, doc, name in SCREENSHOTS:
                    _open(w, f"{base_url}/{lang}/{doc}.html")
                    w.page.evaluate("() => document.fonts.ready")
                    if doc == CH03:
                        w.page.wait_for_selector(".qk-live[data-ready=true]", timeout=10_000)
                        w.page.locator(".qk-live").scroll_into_view_if_needed()
                    w.page.wait_for_timeout(200)
                    w.page.screenshot(path=str(ARTIFACTS / f"site_{name}_{scheme}_{width}.png"))
                    if lang == "zh":
                        fonts.append(w.page.evaluate(
                            "() => document.fonts.check('16px \"Course Noto Sans SC\"', '注意力') && Array.from("
                            "document.fonts).some(f => f.family.includes('Course Noto') && f.status === 'loaded')"))
            finally:
                w.page.close()
    assert all(fonts), "the Chinese pages should draw their text with the bundled CJK font subset"


@pytest.fixture(scope="module")
def stored_explorers(tmp_path_factory):
    """Chapter 05's step viewer and translation explorer and chapter 07's head explorer over small untrained
    models, and a page (served on 127.0.0.1) with the live explorers the site makes from their stored states."""
    from helpers.devtools import site
    from helpers.seq2seq import make_model
    from helpers.toylang import load_split
    from helpers.transformer import make_transformer
    from helpers.widgets import SITE_STATES, DecodingStepViewer, HeadExplorer, translation_explorer

    rnn = make_model("attention", emb=32, hidden=32, attn_hidden=32, seed=0)
    test = {name: load_split(name) for name in ("test_4-10", "test_11-20", "test_21-30")}
    sentences = [" ".join(src) for pairs in test.values() for src, _, _ in pairs[:2]]
    explorers = {"steps": DecodingStepViewer(rnn, sentences[2]), "translations": translation_explorer(rnn, sentences),
                 "heads": HeadExplorer(make_transformer(seed=0), [pairs[0] for pairs in test.values()])}
    folder = tmp_path_factory.mktemp("explorers")
    for name in ("course.css", "course_explorers.js"):
        (folder / name).write_bytes((site.SRC_DIR / "_static" / name).read_bytes())
    body = ""
    for name, explorer in explorers.items():
        bundle, metadata = explorer._repr_mimebundle_()
        out = {"output_type": "display_data", "data": bundle, "metadata": metadata}
        nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": [out]}], "metadata": {}}
        cells = json.loads(site.prepare_notebook(json.dumps(nb), "notebooks/x", "en", {"repo": ""}))["cells"]
        live = next(c for c in cells if c.get("outputs"))["outputs"][0]["data"]["text/html"]
        assert "course-explorer" in live and SITE_STATES in metadata, f"{name}: no live explorer from its states"
        body += f'<section id="{name}">{live}</section>'
    (folder / "index.html").write_text('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>explorers'
                                       '</title><link rel="stylesheet" href="course.css"></head><body><main>'
                                       f'<h1>Explorers</h1>{body}<script src="course_explorers.js"></script></main>'
                                       '</body></html>')
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield explorers, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    for explorer in explorers.values():
        explorer.widget.close()


def _pick(page, section: str, dim: str, index: int):
    """Set one control of a live explorer as a reader would (a select's option, a range's position)."""
    page.eval_on_selector(f"#{section} .course-explorer-{dim} select, #{section} .course-explorer-{dim} input",
                          "(el, v) => { el.value = String(v); el.dispatchEvent(new Event(el.tagName === 'SELECT' ? "
                          "'change' : 'input', {bubbles: true})); }", index)
    readout = page.locator(f"#{section} .course-explorer-readout")
    return readout.get_attribute("data-state"), np.array(json.loads(readout.get_attribute("data-weights")))


def test_stored_explorers_of_chapters_05_and_07_are_live_without_a_kernel(stored_explorers, browser):
    """Each explorer, driven in Chromium through its controls, shows the weights and readout its Python widget
    shows for the same choice (to the per-mille the states are stored at)."""
    explorers, url = stored_explorers
    w = _Watched(browser, url)
    page = w.page
    try:
        _open(w, f"{url}/index.html")
        page.wait_for_function("() => document.querySelectorAll('.course-explorer[data-ready=true]').length === 3")
        steps = explorers["steps"]
        for t in (len(steps.output) - 1, 2, 0):
            state, weights = _pick(page, "steps", "step", t)
            steps.slider.value = t + 1
            assert state == str(t)
            np.testing.assert_allclose(weights[0], to_numpy(steps.weights[t][: len(steps.source)]), atol=5.1e-4)
            assert page.locator("#steps .course-explorer-readout").inner_html() == steps.readout.value
        translations = explorers["translations"]
        for i in (3, 0, len(translations.sentences) - 1):
            state, weights = _pick(page, "translations", "sentence", i)
            shown = translations.show(translations.sentences[i])
            np.testing.assert_allclose(weights, to_numpy(shown.weights)[:, : len(shown.source)], atol=5.1e-4)
            readout = page.locator("#translations .course-explorer-readout p")
            words = html.unescape(re.sub("<[^>]+>", "", translations.info.value)).split()
            assert readout.inner_text() == " ".join(words)
            assert readout.get_attribute("style").replace(" ", "") == re.search(
                "style='([^']*)'", translations.info.value).group(1).replace(" ", "")
        heads = explorers["heads"]
        for s, k, head in ((1, 0, 2), (2, 2, 3), (0, 1, 0)):
            _pick(page, "heads", "sentence", s)
            _pick(page, "heads", "kind", k)
            state, weights = _pick(page, "heads", "head", head)
            heads.sentence.value, heads.kind.value, heads.head.value = s, heads.kind.options[k][1], head + 1
            assert state == f"{s},{k},0,{head}"
            np.testing.assert_allclose(weights, heads.shown()[0], atol=5.1e-4)
            assert page.locator("#heads .course-explorer-readout").inner_html() == heads.readout.value
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "site_stored_explorers.png"), full_page=True)
        violations = _axe(page)
    finally:
        page.close()
    assert not violations, violations
    assert not w.outside() and not w.failed, (w.outside()[:3], w.failed[:3])
