"""The maintainer's trial as a test (issue 23): in a temporary copy of the repository, follow the README's
"Adding a scorer", "Adding a chapter" and "Adding a checker" steps (a chapter 09 linked from chapter 08, then its
checker with a message of its own, the chapter run in Chinese), touch only the files they name, and require the
affected unit, hygiene and Chinese-edition tests to pass with no other edit."""
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
    """A -k expression leaving out the per-chapter tests of the chapters the trial does not touch (all but 00, the
    last one, whose *Chapter map* links the new one, and the new one): their state is theirs, not the trial's."""
    from helpers.course import CHAPTERS

    return "not (" + " or ".join(ch.number for ch in CHAPTERS[1:-1]) + ")"


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


# ---------------------------------------------------------------- adding a chapter: chapter 09, linked from 08
CHAPTER_STEPS = r'''
import re
from pathlib import Path

import nbformat
import yaml

from helpers.devtools import SETUP_CELL

# step 1: the notebook, on the skeleton (its title and question those of its line in step 2)
nb = nbformat.v4.new_notebook()
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nb.cells = [nbformat.v4.new_markdown_cell("# 09 · A trial chapter\n\n**The question:** Can a maintainer add one?"),
            nbformat.v4.new_code_cell(SETUP_CELL),
            nbformat.v4.new_markdown_cell("## Chapter map\n\n- **Problem:** none yet."),
            nbformat.v4.new_markdown_cell("## Exercises\n\nNone yet.")]
nbformat.write(nb, "notebooks/09_trial.ipynb")
# ... linked from the previous chapter's Chapter map ("Where it leads"): Markdown only, so no re-run
path = Path("notebooks/08_cost_of_attention.ipynb")
nb = nbformat.read(path, as_version=4)
cell = next(c for c in nb.cells if c.cell_type == "markdown" and "**Where it leads:**" in c.source)
cell.source = re.sub(r"(- \*\*Where it leads:\*\*.*?)(?=\n\n|\n- |\Z)",
                     lambda m: m.group(1) + " Next: the [trial chapter](09_trial.ipynb).", cell.source, count=1,
                     flags=re.S)
assert "09_trial.ipynb" in cell.source
nbformat.write(nb, path)

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

# A translator in a PO editor: write the msgstr of every empty or fuzzy entry `zh extract` left, clear its fuzzy
# flag. translate(rules), rules = [(catalogue, a piece of the entry's msgctxt or msgid, (English, old Chinese) ->
# Chinese)]: an entry to translate that no rule names stops the trial; returns the (catalogue, piece) of each entry.
PO_EDITOR = r'''
import re
from pathlib import Path

from helpers.devtools import zh as edition


def translate(rules):
    used = []
    for path in [*sorted(Path("i18n/zh").glob("*.po")), Path("helpers/locale/zh/messages.po")]:
        catalogue = edition.read_catalogue(path, brace_format=path.name == "messages.po")
        changed = False
        for entry in catalogue:
            if not entry.id or (entry.string and not entry.fuzzy):
                continue
            rule = next((r for r in rules if r[0] == path.name and r[1] in f"{entry.context}\n{entry.id}"), None)
            if rule is None:
                raise SystemExit(f"an unexpected entry to translate in {path.name}: {entry.context} {entry.id[:60]!r}")
            entry.string = rule[2](entry.id, entry.string)
            entry.flags.discard("fuzzy")
            entry.previous_id = []
            used.append(rule[:2])
            changed = True
        if changed:
            edition.write_catalogue(path, catalogue)
    edition.zh_command(["extract"])      # the editor may have rewrapped a file: extract writes the one form again
    return sorted(used)
'''

ZH_STEPS = PO_EDITOR + r'''
from helpers.course import chapter_table

TABLE = re.compile(r"^\| # \|.*?(?=\n\n|\Z)", re.S | re.M)

edition.zh_command(["extract"])
# step 7: chapter 00's stale table, chapter 08's edited Chapter map, chapter 09's new cells
used = translate([
    ("00_start_here.po", "| # |", lambda en, old: TABLE.sub(lambda m: chapter_table("zh", column="章节"), old)),
    ("08_cost_of_attention.po", "**Where it leads:**",
     lambda en, old: re.sub(r"(- \*\*通向：\*\*.*?)(?=\n\n|\n- |\Z)",
                            lambda m: m.group(1) + "下一章：[试用的一章](09_trial.ipynb)。", old, count=1, flags=re.S)),
    ("09_trial.po", "# 09", lambda en, old: "# 09 · 试用的一章\n\n**本章问题：** 维护者能加一章吗？"),
    ("09_trial.po", "## Chapter map", lambda en, old: "## 本章地图\n\n- **问题：** 暂无。"),
    ("09_trial.po", "## Exercises", lambda en, old: "## 练习\n\n暂无。"),
])
assert used == [("00_start_here.po", "| # |"), ("08_cost_of_attention.po", "**Where it leads:**"),
                ("09_trial.po", "# 09"), ("09_trial.po", "## Chapter map"), ("09_trial.po", "## Exercises")], used
edition.zh_command(["build"])
edition.zh_command(["execute", "00"])   # chapter 00 runs in Chinese: its zh run follows its new English run
'''


def passed(out: str, test: str) -> bool:
    """Whether pytest -rA's summary shows every test whose id holds `test` PASSED (and at least one)."""
    lines = [line for line in out.splitlines() if test in line and line.split(" ", 1)[0].isupper()]
    return bool(lines) and all(line.startswith("PASSED ") for line in lines)


def test_adding_a_chapter_by_the_readme(repo):
    run(repo, "-c", CHAPTER_STEPS + CHAPTER_00_STEPS)                                  # steps 1-3, one process
    run(repo, "-m", "helpers.devtools", "execute", "notebooks/09_trial.ipynb", "notebooks/00_start_here.ipynb")
    run(repo, "-c", ZH_STEPS)                                                           # step 7: extract, build
    readme = (repo / "README.md").read_text()
    assert "09_trial.ipynb" in readme.split("## Set up")[0], "the README's chapter table lists chapter 09"
    out = pytest_in(repo, "-rA", "tests/test_course.py", "tests/test_notebook_hygiene.py",
                    "tests/test_markdown_numbers.py", "tests/test_where_things_go.py", "tests/test_i18n.py",
                    "tests/test_po_catalogues.py", "-k", other_chapters())
    for test in ("test_zh_text_uses_the_term_table[09_trial.po", "test_zh_text_uses_the_term_table[08_cost",
                 "test_notebook_is_clean[09_trial.ipynb]", "test_every_chapter_opens_with_the_title_and_question"):
        assert passed(out, test), f"{test}... did not pass: " + "\n".join(
            line for line in out.splitlines() if test in line)


# ---------------------------------------------------------------- adding a checker: chapter 09's, run in Chinese
CHECKER = '''"""Chapter 09 (a trial): its one exercise, a number."""
from __future__ import annotations

from helpers.i18n import t

from .core import Example, check_close, checker, register_solution

__all__ = ["check_trial_answer"]


def _trial_example() -> Example:
    """Exercise 09.1 as the notebook would call it; the classic slip is one less."""
    return Example(lambda a: check_trial_answer(a), 10, 9)


@checker(exercises=("09.1",), example=_trial_example)
def check_trial_answer(answer, name: str = "my_answer", exercise: str = "09.1", show_answer: bool = False) -> bool:
    """Exercise 09.1: the number ten."""
    return check_close(answer, 10, name=name, tol=0, exercise=exercise, slips=[(9, t("ch09.one_less"))],
                       show_answer=show_answer)


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
from helpers import i18n


def test_one_less_is_named_and_ten_is_right(capsys):
    ex.reset_tries()
    assert ex.check_trial_answer(9) is False
    assert i18n.t("ch09.one_less") in capsys.readouterr().out
    assert ex.check_trial_answer(10) is True
'''

CHECKER_STEPS = r'''
from pathlib import Path

import nbformat

# step 3: the message's English, a key of helpers.messages.ENGLISH (the dict that ends helpers/messages.py)
path = Path("helpers/messages.py")
text = path.read_text()
assert text.endswith("\n}\n")
path.write_text(text[:-len("}\n")] + '    "ch09.one_less": "that is one less than the answer: count again.",\n}\n')
# step 5: call it in the chapter's Exercises
path = Path("notebooks/09_trial.ipynb")
nb = nbformat.read(path, as_version=4)
cell = next(c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## Exercises"))
cell.source = "## Exercises\n\n**Exercise 09.1.** Give the checker its answer."
nb.cells.append(nbformat.v4.new_code_cell("from helpers.exercises import check_trial_answer\n\n"
                                          "my_answer = 10\ncheck_trial_answer(my_answer)"))
nbformat.write(nb, path)
# the chapter runs in Chinese (step 7 of Adding a chapter): its Chapter(...) line, then the README's paragraphs
path = Path("helpers/course.py")
text = path.read_text()
assert text.count('"维护者能加一章吗？", 60, 5)') == 1
path.write_text(text.replace('"维护者能加一章吗？", 60, 5)', '"维护者能加一章吗？", 60, 5, runs_in_zh=True)'))
from helpers.devtools.__main__ import main

main(["course"])
'''

CHECKER_ZH_STEPS = PO_EDITOR + r'''
edition.zh_command(["extract"])
used = translate([("messages.po", "ch09.one_less", lambda en, old: "比答案少一：再数一遍。"),
                  ("09_trial.po", "## Exercises", lambda en, old: "## 练习\n\n**练习 09.1** 把答案交给检查器。")])
assert used == [("09_trial.po", "## Exercises"), ("messages.po", "ch09.one_less")], used
edition.zh_command(["execute", "09"])     # builds, then runs chapter 09 in Chinese
'''


def test_adding_a_checker_by_the_readme(repo):
    import nbformat

    (repo / "helpers" / "exercises" / "trial.py").write_text(CHECKER)               # steps 1-2
    (repo / "tests" / "test_exercises_trial.py").write_text(CHECKER_TEST)           # step 4
    run(repo, "-c", CHECKER_STEPS)                                                  # steps 3 and 5, runs_in_zh
    run(repo, "-m", "helpers.devtools", "execute", "notebooks/09_trial.ipynb")      # step 5: re-execute
    run(repo, "-c", CHECKER_ZH_STEPS)                                               # step 5: the Chinese edition
    readme, readme_zh = ((repo / name).read_text() for name in ("README.md", "README.zh.md"))
    assert "Chapters that run in Chinese: 00, 01, 02, 03, 04, 05, 06, 07, 08 and 09." in readme
    assert "用中文运行的章节：00、01、02、03、04、05、06、07、08 和 09。" in readme_zh
    said = {lang: "".join(o.get("text", "") for o in nbformat.read(repo / "notebooks" / folder / "09_trial.ipynb",
                                                                    as_version=4).cells[-1].outputs)
            for lang, folder in (("en", ""), ("zh", "zh"))}
    assert "`my_answer` is 10." in said["en"] and "`my_answer` 是 10。" in said["zh"], said   # the checker's verdict
    out = pytest_in(repo, "-rA", "tests/test_exercises.py", "tests/test_exercises_trial.py",
                    "tests/test_exercises_scorers.py", "tests/test_i18n.py", "tests/test_po_catalogues.py",
                    "tests/test_notebook_hygiene.py", "tests/test_course.py", "-k", other_chapters())
    for test in ("test_one_less_is_named_and_ten_is_right", "test_a_chapter_run_in_chinese_was_run_from_its_current"
                 "_code[09]", "test_in_chinese_the_classic_slip_is_named_in_chinese_and_the_answer_comes_second"
                 "[check_trial_answer]", "test_generated_sections_are_current"):
        assert passed(out, test), f"{test}... did not pass: " + "\n".join(
            line for line in out.splitlines() if test in line)
