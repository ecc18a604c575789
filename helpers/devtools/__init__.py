"""Tools for course authors and CI (not for learners).

* ``notebooks``: execute notebooks deterministically (``make execute``);
* ``hygiene``: what every committed notebook must be (``SETUP_CELL``, ``notebook_problems``);
* ``readme``: update the README's generated benchmark sections;
* ``lab``: a private JupyterLab server and Chromium for the real-browser test and benchmark.

Command line: ``python -m helpers.devtools execute [NOTEBOOK ...]``.
"""
from helpers.devtools.hygiene import SETUP_CELL, notebook_problems
from helpers.devtools.notebooks import chapter_notebooks, execute_notebook
from helpers.devtools.readme import update_readme_section

__all__ = ["SETUP_CELL", "notebook_problems", "chapter_notebooks", "execute_notebook", "update_readme_section"]
