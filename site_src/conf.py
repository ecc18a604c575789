"""Sphinx configuration of the course website, shared by both editions (make site).

helpers/devtools/site.py builds each edition with this folder as the config dir and the repository as the source
dir; it passes the edition's settings (language, root_doc, include_patterns, the vendored static files) with -D.
"""
from helpers.devtools.site import sphinx_setup as setup  # noqa: F401  (the course's extension: see that module)

extensions = ["myst_nb", "sphinx_copybutton"]

project = "Learning to Attend"
author = "Learning to Attend"
copyright = "Learning to Attend"
exclude_patterns = ["site", "build", ".venv", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]

# the committed outputs are the page: nothing is executed
nb_execution_mode = "off"
nb_merge_streams = True
# Markdown(f"...") outputs are read as the Markdown cells are (MyST: $...$ math typeset), as JupyterLab shows them
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # chapters' headings skip levels on purpose (### under ##-less cells)

html_theme = "sphinx_book_theme"
html_theme_options = {
    "use_download_button": True,        # the .ipynb of the page (Sphinx copies the source unchanged)
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_sidebars = {"**": ["course-sidebar-top.html", "sbt-sidebar-nav.html"]}
html_css_files = ["course.css"]
html_js_files = [("qk_explorer.js", {"defer": "defer"}), ("course_language.js", {"defer": "defer"}),
                 ("course_explorers.js", {"defer": "defer"})]
html_copy_source = True
html_show_sourcelink = False
html_last_updated_fmt = None

# math from the site itself: MathJax 3 (SVG output, every TeX extension in one file) copied from a wheel
mathjax_path = "mathjax/tex-svg-full.js"
mathjax3_config = {"options": {"enableMenu": False}}

# Sphinx 9.0.x loads jieba's whole default dictionary a second time, as a *user* dictionary (13 s here, per build):
# an empty dict option skips that (jieba still segments with its default dictionary).
html_search_options = {"dict": ""}
