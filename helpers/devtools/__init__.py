"""Tools for course authors and CI (not for learners).

* ``notebooks``: execute notebooks deterministically (``make execute``);
* ``hygiene``: what every committed notebook must be (``SETUP_CELL``, ``notebook_problems``);
* ``readme``: update the README's generated sections (benchmarks; the tables made from ``helpers.course``);
* ``lab``: a private JupyterLab server and Chromium for the real-browser test and benchmark;
* ``mutations``: run a chapter with a deliberately broken helper patched in (tests/test_mutations.py);
* ``zh``: the Chinese edition (``python -m helpers.devtools.zh extract|build|status``).

Command line: ``python -m helpers.devtools execute [NOTEBOOK ...]``, ``python -m helpers.devtools course``.
"""
from helpers.devtools.hygiene import SETUP_CELL, notebook_problems
from helpers.devtools.notebooks import chapter_notebooks, execute_notebook, python_of
from helpers.devtools.readme import update_readme_section

__all__ = ["SETUP_CELL", "notebook_problems", "chapter_notebooks", "execute_notebook", "python_of",
           "update_readme_section"]
