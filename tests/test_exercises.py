"""The exercise checkers as a whole, from their registry (``helpers.exercises.CHECKERS``): never a traceback, every
reference answer accepted, every wrong path counting a try (a hint first, the answer only on a second wrong try or on
request), the registry as the one list of checkers, and worked solutions on demand in both languages.
Each checker module's named mistakes are tested in tests/test_exercises_<module>.py."""
import ast
import re

import numpy as np
import pytest
import torch
from _checkers import fresh_tries, said  # noqa: F401

import helpers.exercises as ex
from helpers import ROOT
from helpers.exercises import core

torch.set_num_threads(1)

NAMES = list(ex.CHECKERS)                                    # the registry is the one list
CALLS = {name: ex.CHECKERS[name].example() for name in NAMES}   # name -> Example(call, right, wrong)


# checkers whose second wrong try points to the worked solution but shows no expected value yet (chapters 05, 07)
NO_ANSWER_YET = {"check_self_attention", "check_attention_step", "check_decoder_step"}


def _raises(*args):
    raise RuntimeError("boom")


ODD = [None, "", "8256", [], [1, 2], {}, float("nan"), float("inf"), -float("inf"), torch.ones(3, requires_grad=True),
       lambda *a: None, lambda *a: (1, 2), lambda *a: (torch.ones(2), None), _raises, lambda: 1, "5432106", 5.9,
       [[1, 2], [3]], ["1", "2"], True, object(), np.array(["a"]), [float("inf"), 0, 0], torch.tensor(float("nan"))]


# ---------------------------------------------------------------- the registry is the one list
def test_all_and_the_docstring_table_come_from_the_registry():
    public = [n for n in ex.__all__ if n.startswith("check_")]
    assert public == NAMES and all(getattr(ex, n) is ex.CHECKERS[n] for n in NAMES)
    rows = {line.split()[-1]: line.split()[0] for line in ex.__doc__.splitlines() if line.strip().startswith(
        tuple("0123456789a"))}
    assert set(rows) == set(NAMES)
    assert ex.checker_table() in ex.__doc__


def test_every_checker_has_an_example_and_every_exercise_a_worked_solution():
    for name, fn in ex.CHECKERS.items():
        assert fn.example is not None, name
        assert all(e in ex.exercise_ids() for e in fn.exercises), (name, fn.exercises)
    answered = {e for fn in ex.CHECKERS.values() for e in fn.exercises}
    assert answered == set(ex.exercise_ids()), "a worked solution without a checker, or the reverse"


def _exercise_ids_in_the_notebooks() -> set[str]:
    """Every exercise id a notebook (English or Chinese) names in a checker call, `exercise="NN.k"`."""
    ids = set()
    for path in (ROOT / "notebooks").rglob("*.ipynb"):
        ids |= set(re.findall(r'exercise=\\?"(\d\d\.\w+)\\?"', path.read_text(encoding="utf-8")))
    return ids


def test_every_exercise_a_notebook_or_a_checker_default_names_has_a_worked_solution():
    import inspect

    defaults = {p.default for fn in ex.CHECKERS.values() for p in inspect.signature(fn).parameters.values()
                if p.name == "exercise" and isinstance(p.default, str)}
    used = _exercise_ids_in_the_notebooks()
    assert "04.3" in used and "00.1" in defaults, (used, defaults)   # the search finds what it should
    missing = (used | defaults) - set(ex.exercise_ids())
    assert not missing, f"exercises without a worked solution: {sorted(missing)}"


def test_exercise_ids_follow_the_chapters_of_their_module():
    import importlib

    for name, fn in ex.CHECKERS.items():
        module = importlib.import_module(fn.__module__)
        chapters = set(re.findall(r"\b(\d\d)\b", module.__doc__.splitlines()[0]))
        for exercise in fn.exercises:
            assert exercise[:2] in chapters, f"{name} answers {exercise}, but {fn.__module__} is about {chapters}"


def test_every_checker_module_has_its_test_file():
    for path in (ROOT / "helpers" / "exercises").glob("*.py"):
        if path.stem != "__init__":
            assert (ROOT / "tests" / f"test_exercises_{path.stem}.py").is_file(), path.stem


# ---------------------------------------------------------------- never a traceback; every reference answer
@pytest.mark.parametrize("name", NAMES)
def test_no_odd_answer_raises_and_each_gets_a_verdict(name, capsys):
    for odd in ODD:
        result = CALLS[name].call(odd)
        out = capsys.readouterr().out
        assert isinstance(result, bool) and result is False, (name, odd)
        assert out.strip() and core.FALLBACK not in out, (name, odd, out)


def test_the_second_answer_of_check_most_parameters_is_fuzzed_too(capsys):
    for odd in ODD:
        assert ex.check_most_parameters(odd, 8256) is False
        assert core.FALLBACK not in capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_every_checker_accepts_its_reference_answer(name, capsys):
    assert CALLS[name].call(CALLS[name].right) is True
    assert capsys.readouterr().out.startswith("Correct: ")


def test_the_reference_answers_agree_with_torch_and_the_course_helpers():
    from helpers import cost

    assert sum(p.numel() for p in torch.nn.MultiheadAttention(64, 8).parameters()) == CALLS[
        "check_multihead_parameters"].right
    assert cost.smallest_batch_over(24 * cost.GiB, 4000, 8, 6, 4) == CALLS["check_smallest_batch"].right
    assert cost.score_matrix_bytes(8192) / cost.MiB == CALLS["check_attention_mib"].right


# ---------------------------------------------------------------- tries: one mechanism on every wrong path
@pytest.mark.parametrize("name", NAMES)
def test_every_checker_gives_a_hint_first_and_the_answer_only_on_a_second_wrong_try(name, capsys):
    example = CALLS[name]
    first = said(capsys, example.call, example.wrong)
    assert "Expected" not in first and "solution(" not in first, first
    assert "Try again" in first, first
    second = said(capsys, example.call, example.wrong)
    assert "Expected:" in second or name in NO_ANSWER_YET and "solution(" in second, second
    for exercise in ex.CHECKERS[name].exercises[:1]:
        assert ex.tries(exercise) == 2


def _wrong_paths_that_skip_tries() -> list[str]:
    """Calls of feedback(False, ...) in the checker modules outside the core's two paths (wrong, unreadable) and
    the never-raise guard: each would be a wrong answer that counts no try."""
    allowed = ("wrong", "unreadable", "safe", "feedback")

    def calls(node, where):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                if child.name not in allowed:
                    yield from calls(child, child.name)
                continue
            if (isinstance(child, ast.Call) and getattr(child.func, "id", None) == "feedback" and child.args
                    and not (isinstance(child.args[0], ast.Constant) and child.args[0].value is True)):
                yield f"{where}:{child.lineno}"
            yield from calls(child, where)

    return [f"{path.name}:{hit}" for path in sorted((ROOT / "helpers" / "exercises").glob("*.py"))
            for hit in calls(ast.parse(path.read_text()), "module")]


def test_no_wrong_path_bypasses_the_try_counter():
    assert _wrong_paths_that_skip_tries() == []


def test_the_static_check_finds_a_bypass(tmp_path, monkeypatch):
    import helpers

    fake = tmp_path / "helpers" / "exercises"
    fake.mkdir(parents=True)
    (fake / "x.py").write_text("def check_x(a):\n    return feedback(False, 'no')\n")
    monkeypatch.setattr(helpers, "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert _wrong_paths_that_skip_tries() == ["x.py:check_x:2"]


def test_unreadable_answers_and_not_answered_do_not_count_as_tries(capsys):
    check = CALLS["check_std_scaling"].call
    for odd in (None, "16", {"a": 1}):
        check(odd)
    assert ex.tries("04.1") == 0
    assert "Expected" not in said(capsys, check, [17, 3])
    assert ex.tries("04.1") == 1


# ---------------------------------------------------------------- the crashes and misattributions
def test_the_three_known_crashes_are_feedback(capsys):
    assert ex.check_self_attention(lambda X: (X, None)) is False
    assert "weights that are None" in capsys.readouterr().out
    x = torch.tensor([0.5, 0.25], requires_grad=True)
    assert ex.check_close(x, torch.tensor([0.5, 0.25], requires_grad=True)) is True
    assert ex.check_most_parameters(["additive"], 8256) is False
    assert "a list of 1 item" in capsys.readouterr().out


def test_no_misattributed_messages(capsys):
    out = said(capsys, ex.check_self_attention, lambda X: None)
    assert "returned None (did you forget `return`?)" in out and "raised" not in out
    out = said(capsys, lambda a: ex.check_close(a, 8256, tol=0), "8256")
    assert "the string '8256'" in out and "should be 8256" not in out
    out = said(capsys, lambda a: ex.check_most_parameters("additive", a), "8256")
    assert "the string '8256'" in out
    assert "NaN or infinity" in said(capsys, CALLS["check_weights"].call, [0, float("inf"), 0])
    assert "infinity" in said(capsys, CALLS["check_query_favours_key"].call, [0, 0, float("inf"), 0, 0])
    assert "is the string '5432106'" in said(capsys, CALLS["check_alignment"].call, "5432106")
    assert "5.9; source positions are whole numbers" in said(capsys, CALLS["check_alignment"].call,
                                                            [0, [0, 1], 1, 3, 5.9, 3, 2, []])
    assert "raised RuntimeError: boom" in said(capsys, ex.check_stable_softmax, _raises)


# ---------------------------------------------------------------- worked solutions
def test_solution_prints_the_worked_solution_only_when_asked(capsys):
    ex.solution("04.2")
    out = capsys.readouterr().out
    assert out.startswith("Exercise 04.2: ") and "amax" in out
    ex.solution("99.9")
    assert "No worked solution for '99.9'" in capsys.readouterr().out
    ex.solution(None)
    assert "04.2" in capsys.readouterr().out


# ---------------------------------------------------------------- the same fuzz pass in Chinese (helpers.i18n)
def _english_left(text: str) -> list[str]:
    """Runs of two or more English words outside code, quotes, brackets, answers and a learner's exception text."""
    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", " ", text)
    text = re.sub(r"抛出了 \w+[:：] ?[^。；\n]*|正确答案：[^。\n]*", " ", text)   # the learner's error text; the answer
    text = re.sub(r"\([^()\u4e00-\u9fff]*\)|（[^（）\u4e00-\u9fff]*）", " ", text)  # formulas, toy words in brackets
    return re.findall(r"[A-Za-z]{2,}(?: +[A-Za-z]{2,})+", text)    # not formulas such as "X Xᵀ"


@pytest.mark.parametrize("name", NAMES)
def test_in_chinese_no_odd_answer_raises_and_every_verdict_is_chinese(name, capsys):
    from helpers import i18n

    call, answer = CALLS[name].call, CALLS[name].right
    verdicts = (i18n.t("core.not_yet", lang="zh"), i18n.t("core.not_answered", lang="zh", name="")[:5])
    with i18n.language("zh"):
        for odd in ODD:
            result = call(odd)
            out = capsys.readouterr().out
            assert isinstance(result, bool) and result is False, (name, odd)
            assert out.startswith(verdicts), (name, odd, out)
            assert i18n.t("core.fallback", lang="zh") not in out and core.FALLBACK not in out, (name, odd, out)
            assert "Not yet" not in out and "Expected" not in out and "Try again" not in out, (name, odd, out)
            assert not _english_left(out), ("English words in a Chinese message", name, odd, out)
        assert call(answer) is True
        assert capsys.readouterr().out.startswith(i18n.t("core.correct", lang="zh"))
    assert i18n.get_lang() == "en"


def test_in_chinese_a_second_wrong_try_shows_the_answer(capsys):
    from helpers import i18n

    with i18n.language("zh"):
        first = said(capsys, CALLS["check_attention_mib"].call, 8192 * 8192 * 4)
        second = said(capsys, CALLS["check_attention_mib"].call, 268.4)
    assert "这是字节数" in first and "再试一次" in first and "256" not in first
    assert "MB（10⁶ 字节）" in second and "正确答案：256。" in second and "solution('08.1')" in second


# ---------------------------------------------------------------- worked solutions in Chinese
def _split_comment(line):
    """A code line as (code, comment): the comment starts at the first # outside a string literal ("" if none)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote and line[i - 1] != "\\" else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i].rstrip(), line[i:]
    return line, ""


def _code_lines(text):
    """The code of a worked solution: its lines indented by four spaces, in order and byte for byte but for their
    comments (a Chinese solution translates them), with whether each line has one."""
    return [(code, bool(comment)) for code, comment in
            (_split_comment(line) for line in text.splitlines() if line.startswith("    "))]


def _translation_problems(sol):
    """What is missing from the Chinese version of a worked solution: a title, a text, translated prose
    (every line outside the code has Chinese in it) or the English code byte for byte (comments aside)."""
    import re

    chinese = re.compile(r"[\u4e00-\u9fff]")
    problems = []
    if not sol.zh_title or not chinese.search(sol.zh_title):
        problems.append("no Chinese title")
    if not sol.zh_text:
        return problems + ["no Chinese text"]
    prose = [line for line in sol.zh_text.splitlines() if line.strip() and not line.startswith("    ")]
    problems += [f"prose line not in Chinese: {line!r}" for line in prose if not chinese.search(line)]
    if bool(prose) != any(line.strip() and not line.startswith("    ") for line in sol.text.splitlines()):
        problems.append("prose in one language only")
    if _code_lines(sol.zh_text) != _code_lines(sol.text):
        problems.append("code differs from the English")
    return problems


def test_the_translation_check_reports_an_incomplete_or_altered_solution():
    english = core.Solution("t", "Prose.\n\n    x = 1  # a comment")
    assert _translation_problems(english) == ["no Chinese title", "no Chinese text"]
    assert _translation_problems(english._replace(zh_title="标题", zh_text="说明。\n\n    x = 1  # a comment")) == []
    assert _translation_problems(english._replace(zh_title="标题", zh_text="Prose.\n\n    x = 1  # a comment")) == [
        "prose line not in Chinese: 'Prose.'"]
    assert _translation_problems(english._replace(zh_title="标题", zh_text="    x = 1  # a comment")) == [
        "prose in one language only"]
    assert _translation_problems(english._replace(zh_title="标题", zh_text="说明。\n\n    x = 1  # 注释")) == []
    for altered in ("说明。\n\n    x = 1", "说明。\n\n  x = 1  # a comment", "说明。\n\n    x = 2  # a comment",
                    "说明。\n\n    x = '#'  # a comment", "说明。"):
        assert "code differs from the English" in _translation_problems(english._replace(zh_title="标题",
                                                                                         zh_text=altered)), altered


def test_every_worked_solution_has_chinese_with_the_english_code():
    assert len(ex.exercise_ids()) >= 21
    problems = {k: _translation_problems(core._SOLUTIONS[k]) for k in ex.exercise_ids()}
    assert not {k: p for k, p in problems.items() if p}


def test_solution_prints_the_current_language_and_english_when_a_translation_is_missing(capsys, monkeypatch):
    from helpers import i18n

    for k in ex.exercise_ids():
        sol = core._SOLUTIONS[k]
        printed = {}
        for lang, (title, text) in (("en", (sol.title, sol.text)), ("zh", (sol.zh_title, sol.zh_text))):
            with i18n.language(lang):
                ex.solution(k)
            printed[lang] = capsys.readouterr().out
            assert printed[lang] == i18n.t("core.solution_head", lang=lang, exercise=k, title=title) + f"\n\n{text}\n"
        assert printed["en"] != printed["zh"], k
    assert i18n.get_lang() == "en"
    monkeypatch.setitem(core._SOLUTIONS, "99.1", core.Solution("only English", "Prose.\n\n    x = 1"))
    monkeypatch.setitem(core._SOLUTIONS, "99.2", core.Solution("half", "Prose.", zh_title="一半"))
    for k, title in (("99.1", "only English"), ("99.2", "half")):
        with i18n.language("zh"):
            ex.solution(k)
        assert capsys.readouterr().out == f"练习 {k}：{title}\n\n{core._SOLUTIONS[k].text}\n"




@pytest.mark.parametrize("name", NAMES)
def test_in_chinese_the_classic_slip_is_named_in_chinese_and_the_answer_comes_second(name, capsys):
    from helpers import i18n

    example = CALLS[name]
    with i18n.language("zh"):
        first = said(capsys, example.call, example.wrong)
        second = said(capsys, example.call, example.wrong)
    for out in (first, second):
        assert out.startswith(i18n.t("core.not_yet", lang="zh")) and not _english_left(out), (name, out)
    assert "再试一次" in first and "正确答案" not in first and "solution(" not in first, first
    assert "正确答案" in second or name in NO_ANSWER_YET and "solution(" in second, second
