"""What the checker tests share: the registry's example of a checker, the line a wrong answer prints, fresh tries."""
import pytest

import helpers.exercises as ex


def example(name: str):
    """The registered `Example` of checker `name` (call, right answer, a classic wrong answer)."""
    return ex.CHECKERS[name].example()


def said(capsys, call, answer) -> str:
    """The line a checker prints for a wrong answer (asserting it is wrong)."""
    assert call(answer) is False
    return capsys.readouterr().out


@pytest.fixture(autouse=True)
def fresh_tries():
    """Every test starts from the first try of every exercise."""
    ex.reset_tries()
    yield
    ex.reset_tries()
