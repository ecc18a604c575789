"""Answer checkers for the exercises: they say in words what is wrong, and never raise on a wrong answer.

Each checker returns True when the answer is right and False otherwise, and prints one line of feedback.
An answer left as ``None`` gets a friendly "not answered yet" line, so a notebook with open exercises runs clean.
Every wrong answer counts a try: the first names the likely slip or gives a hint; the expected value appears on a
second wrong try of the same exercise, with ``show_answer=True``, and the worked solution with ``solution("04.2")``
(chapter.exercise).

A shared core (``core``: feedback, coercion, try counting, solutions, the registry ``CHECKERS``) and one module per
thing checked. Every module of this package is imported here, and its checkers, registered by ``@checker``, are
exported: the table below, ``__all__`` and the tests' table come from ``CHECKERS`` (nothing lists them by hand).
"""
from __future__ import annotations

import importlib
import pkgutil

from . import core
from .core import CHECKERS

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def checker_table() -> str:
    """The registered checkers as a reStructuredText table: exercise ids, module, checker (registration order)."""
    rows = [(", ".join(fn.exercises) or "any", fn.__module__.rsplit(".", 1)[-1], name) for name, fn in
            CHECKERS.items()]
    rows.sort(key=lambda r: (r[0] == "any", r[0]))
    widths = [max(len(r[k]) for r in rows + [("exercises", "module", "checker")]) for k in range(3)]
    rule = "  ".join("=" * w for w in widths)
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([rule, line(("exercises", "module", "checker")), rule, *map(line, rows), rule])


__doc__ += "\n" + checker_table() + "\n"
globals().update(CHECKERS)
_CORE = ["feedback", "not_answered", "as_array", "as_number", "as_whole_number", "solution", "exercise_ids",
         "tries", "reset_tries", "CHECKERS", "checker_table"]
globals().update({n: getattr(core, n) for n in _CORE if hasattr(core, n)})
__all__ = _CORE + list(CHECKERS)
