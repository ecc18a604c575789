"""The maintainer's trial as a test (issue 23): in a temporary copy of the repository, follow the README's
"Adding a scorer", "Adding a chapter" and "Adding a checker" steps, touch only the files they name, and require
the affected unit and hygiene tests to pass with no other edit."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from helpers import ROOT

pytestmark = pytest.mark.slow

IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", "submissions",
                                "grades", "feedback", "build", "dist", ".ipynb_checkpoints")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A copy of the repository (no git, no venv) whose own helpers are the ones imported."""
    dst = tmp_path_factory.mktemp("trial") / "repo"
    shutil.copytree(ROOT, dst, ignore=IGNORE)
    return dst


def run(repo, *args, timeout=300):
    """Run python with the copy first on the path (kernels started by nbclient inherit it); fail on an error."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]),
           "COURSE_WRITE_UNPINNED": "1"}     # a scratch copy: its outputs are never committed, on any CPU
    done = subprocess.run([sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def pytest_in(repo, *tests):
    return run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not browser", *tests)


def other_chapters() -> str:
    """A -k expression leaving out the per-chapter tests of chapters the trial does not touch (not 00, not 09):
    their state is theirs, not the trial's."""
    from helpers.course import CHAPTERS

    return "not (" + " or ".join(ch.number for ch in CHAPTERS[1:]) + ")"


def append(path, text):
    path.write_text(path.read_text() + textwrap.dedent(text))


# ---------------------------------------------------------------- adding a scorer: one class + one line
SCORER = '''

@register_scorer("cosine")
class CosineAttention(Scorer):
    """score = cos(q, k); queries and keys must have one size; no parameters."""

    needs_equal_sizes = True

    def score(self, query, keys):
        """(batch, n_q, d), (batch, n_k, d) -> (batch, n_q, n_k)"""
        return F.normalize(query, dim=-1) @ F.normalize(keys, dim=-1).transpose(1, 2)
'''

SCORER_TEST = '''

def test_cosine_matches_a_loop_of_cosines():
    gen = torch.Generator().manual_seed(11)
    q, k, v = rand(gen, B, NQ, DK), rand(gen, B, NK, DK), rand(gen, B, NK, DV)
    scores = torch.zeros(B, NQ, NK, dtype=DT)
    for i in range(B):
        for t in range(NQ):
            for s in range(NK):
                scores[i, t, s] = q[i, t] @ k[i, s] / (q[i, t].norm() * k[i, s].norm())
    ref_ctx, ref_w = loop_softmax_and_context(scores, v)
    ctx, w = make("cosine", DK, DK)(q, k, v)
    torch.testing.assert_close(w, ref_w, rtol=1e-10, atol=1e-12)
'''


def add_cheat_sheet_row(path, row):
    """Step 3 of "Adding a scorer": the row goes after the last row of the score table."""
    lines = path.read_text().split("\n")
    start = next(i for i, line in enumerate(lines) if "score(q, k)" in line)
    end = next(i for i in range(start, len(lines)) if not lines[i].strip().startswith("|"))
    lines.insert(end, lines[end - 1][: len(lines[end - 1]) - len(lines[end - 1].lstrip())] + row)
    path.write_text("\n".join(lines))


def test_adding_a_scorer_by_the_readme(repo):
    append(repo / "helpers" / "attention.py", SCORER)
    append(repo / "tests" / "test_scorers.py", SCORER_TEST)
    companion = repo / "notebooks" / "companion"
    add_cheat_sheet_row(companion / "cheatsheet.md", "| cosine | cos(q, k) | 0 | yes |")
    add_cheat_sheet_row(companion / "zh" / "cheatsheet.md", "| 余弦注意力 | cos(q, k) | 0 | 是 |")
    out = pytest_in(repo, "tests/test_scorers.py", "tests/test_new_scorer.py", "tests/test_where_things_go.py")
    assert "passed" in out


# ---------------------------------------------------------------- adding a chapter: an empty chapter 09
CHAPTER_STEPS = r'''
import re
from pathlib import Path

import nbformat
import yaml

from helpers.devtools import SETUP_CELL

# step 1: the notebook, on the skeleton
nb = nbformat.v4.new_notebook()
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nb.cells = [nbformat.v4.new_markdown_cell("# 09 · A trial chapter\n\n**The question:** Can a maintainer add one?"),
            nbformat.v4.new_code_cell(SETUP_CELL),
            nbformat.v4.new_markdown_cell("## Chapter map\n\n- **Problem:** none yet."),
            nbformat.v4.new_markdown_cell("## Exercises\n\nNone yet.")]
nbformat.write(nb, "notebooks/09_trial.ipynb")

# step 2: one line in the course table
course = Path("helpers/course.py")
text = course.read_text()
line = ('    Chapter("09_trial.ipynb", "A trial chapter", "Can a maintainer add one?", "试用的一章", '
        '"维护者能加一章吗？", 60, 5),\n)\n\nASSIGNMENTS')
course.write_text(text.replace(")\n\nASSIGNMENTS", line, 1))
'''

CHAPTER_00_STEPS = r'''
# step 2, the command: python -m helpers.devtools course
from helpers.devtools.__main__ import main

main(["course"])

from helpers.course import chapter_table

TABLE = re.compile(r"^\| # \|.*?(?=\n\n|\Z)", re.S | re.M)

# step 3: chapter 00's table of contents, and the same table in its zh entry
path = Path("notebooks/00_start_here.ipynb")
nb = nbformat.read(path, as_version=4)
cell = next(c for c in nb.cells if c.cell_type == "markdown" and "| # | Chapter |" in c.source)
cell.source = TABLE.sub(lambda m: chapter_table("en", column="Chapter"), cell.source)
nbformat.write(nb, path)
'''

ZH_STEPS = r'''
import re
from pathlib import Path

from helpers.course import chapter_table
from helpers.devtools import zh as edition

TABLE = re.compile(r"^\| # \|.*?(?=\n\n|\Z)", re.S | re.M)

edition.zh_command(["extract"])
# step 7: translate every empty or fuzzy entry that `zh extract` left (chapter 00's stale table, chapter 09's new
# cells), as a PO editor would: write the msgstr, clear the fuzzy flag
for path in Path("i18n/zh").glob("*.po"):
    catalogue = edition.read_catalogue(path)
    changed = False
    for entry in catalogue:
        if not entry.id or entry.context.endswith(edition.CODE) or (entry.string and not entry.fuzzy):
            continue
        en = entry.id
        if "| # |" in en:
            zh = TABLE.sub(lambda m: chapter_table("zh", column="章节"), entry.string)
        elif en.startswith("# 09"):
            zh = "# 09 · 试用的一章\n\n**本章问题：** 维护者能加一章吗？"
        elif en.startswith("## Chapter map"):
            zh = "## 本章地图\n\n- **问题：** 暂无。"
        elif en.startswith("## Exercises"):
            zh = "## 练习\n\n暂无。"
        else:
            raise SystemExit(f"an unexpected entry to translate in {path.name}: {en[:60]!r}")
        entry.string = zh
        entry.flags.discard("fuzzy")
        entry.previous_id = []
        changed = True
    if changed:
        edition.write_catalogue(path, catalogue)
edition.zh_command(["build"])
edition.zh_command(["execute", "00"])   # chapter 00 runs in Chinese: its zh run follows its new English run
'''


def test_adding_an_empty_chapter_by_the_readme(repo):
    run(repo, "-c", CHAPTER_STEPS + CHAPTER_00_STEPS)                                  # steps 1-3, one process
    run(repo, "-m", "helpers.devtools", "execute", "notebooks/09_trial.ipynb", "notebooks/00_start_here.ipynb")
    run(repo, "-c", ZH_STEPS)                                                           # step 7: extract, build
    readme = (repo / "README.md").read_text()
    assert "09_trial.ipynb" in readme.split("## Set up")[0], "the README's chapter table lists chapter 09"
    out = pytest_in(repo, "tests/test_course.py", "tests/test_notebook_hygiene.py", "tests/test_markdown_numbers.py",
                    "tests/test_where_things_go.py", "tests/test_i18n.py", "-k", other_chapters())
    assert "passed" in out


# ---------------------------------------------------------------- adding a checker
CHECKER = '''"""Chapter 09 (a trial): its one exercise, a number."""
from __future__ import annotations

from .core import Example, check_close, checker, register_solution

__all__ = ["check_trial_answer"]


def _trial_example() -> Example:
    """Exercise 09.1 as the notebook would call it; the classic slip is one less."""
    return Example(lambda a: check_trial_answer(a), 10, 9)


@checker(exercises=("09.1",), example=_trial_example)
def check_trial_answer(answer, exercise: str = "09.1", show_answer: bool = False) -> bool:
    """Exercise 09.1: the number ten."""
    return check_close(answer, 10, exercise=exercise, show_answer=show_answer)


register_solution("09.1", "ten", """
The answer is ten:

    check_trial_answer(10)
""", zh_title="十", zh_text="""
答案是十：

    check_trial_answer(10)
""")
'''

CHECKER_TEST = '''"""The trial checker's named mistake."""
from helpers import exercises as ex


def test_one_less_is_wrong_and_ten_is_right(capsys):
    ex.reset_tries()
    assert ex.check_trial_answer(9) is False and ex.check_trial_answer(10) is True
'''


def test_adding_a_checker_by_the_readme(repo):
    (repo / "helpers" / "exercises" / "trial.py").write_text(CHECKER)               # steps 1-2
    (repo / "tests" / "test_exercises_trial.py").write_text(CHECKER_TEST)           # step 4
    run(repo, "-c", "from helpers.exercises import CHECKERS, check_trial_answer; assert check_trial_answer")
    out = pytest_in(repo, "tests/test_exercises.py", "tests/test_exercises_trial.py", "tests/test_exercises_scorers.py",
                    "tests/test_i18n.py", "-k", other_chapters())
    assert "passed" in out
