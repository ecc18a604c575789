"""Root test setup: which Chinese notebooks strict nbval runs, and how `make test` shares the work between its two
xdist workers.

Which notebooks: notebooks/zh/ holds every chapter's Chinese edition, but only the chapters that run in Chinese
(`runs_in_zh` in helpers/course.py) carry their own outputs; the others carry the English run's outputs under
Chinese text (checked by tests/test_i18n.py), so nbval leaves them out.

Sharing the work (`-n 2 --dist loadfile`): xdist hands out whole files, the files with the most tests first, so the
few long tests (the mutation suite, grading, evidence, the browser) used to come last, in big lumps, and one worker
waited for the other. Here the longest work goes first (notebooks, then tests marked slow or browser, then the
rest), and the files of independent long tests (`SPLIT_FILES`) are handed out a test at a time (tests that share a
parameter stay together: they share a per-process cache). A notebook's cells always stay together, in order.

Outside the reproducibility promise (`helpers.pinning.status`: an AMD, ARM or unpinned CPU), strict nbval's "Cell
outputs differ" becomes an expected difference, listed at the end of the run; errors and failed asserts still fail.
These hooks live here, not in tests/conftest.py, because a conftest's item hooks reach only the items below it, and
the notebooks are not below tests/.
"""
from pathlib import Path

import pytest

from helpers import pinning

ROOT = Path(__file__).parent
ZH = ROOT / "notebooks" / "zh"
SPLIT_FILES = {"test_mutations.py", "test_evidence.py", "test_assignments.py", "test_browser.py", "test_pinning.py",
               "test_grading_sandbox.py"}


def pytest_ignore_collect(collection_path, config):
    """Leave out a notebooks/zh/ notebook whose chapter is not run in Chinese (None: pytest decides as usual)."""
    path = Path(collection_path)
    if path.suffix == ".ipynb" and path.parent == ZH:
        from helpers.devtools.zh import runs_in_zh

        return True if not runs_in_zh(path) else None
    return None


def _weight(item) -> int:
    """0 for a notebook's cell, 1 for a test marked slow or browser, 2 for the rest: the order they are run in."""
    if Path(str(item.fspath)).suffix == ".ipynb":
        return 0
    return 1 if item.get_closest_marker("slow") or item.get_closest_marker("browser") else 2


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Longest work first (a stable sort: a notebook's cells and a file's tests keep their order)."""
    items.sort(key=_weight)


def work_unit(nodeid: str) -> str:
    """The unit one xdist worker runs as a whole: the file, or in SPLIT_FILES the test (or its parameter)."""
    path, _, rest = nodeid.partition("::")
    if Path(path).name not in SPLIT_FILES:
        return path
    return f"{path}[{rest.split('[', 1)[1]}" if "[" in rest else nodeid


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, with the units of `work_unit`, handed out in collection order (longest first)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LongestFirst(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    config.option.loadscopereorder = False   # keep the collection order above, not "most tests first"
    return LongestFirst(config, log)


# ---- outside the reproducibility promise
PINNED, PINNING = pinning.status()
_REASON = "stored output not comparable on this CPU"


def pytest_report_header(config):
    """The first lines of every run say whether stored notebook outputs can be compared byte for byte here."""
    if PINNED:
        return f"reproducibility: {PINNING}; stored notebook outputs are compared strictly"
    return (f"reproducibility: {PINNING}. Every notebook still runs and every assert is checked; a stored output "
            "that differs is listed at the end instead of failing (README, 'Same numbers on every machine').")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Outside the promise, strict nbval's 'Cell outputs differ' becomes an expected difference (xfail), listed at
    the end; an exception or a failed assert in a cell still fails."""
    outcome = yield
    report = outcome.get_result()
    if PINNED or call.when != "call" or call.excinfo is None:
        return
    error = call.excinfo.value
    if type(error).__name__ == "NbCellError" and error.args and error.args[0] == "Cell outputs differ":
        report.outcome = "skipped"
        report.wasxfail = f"{_REASON} ({PINNING})"


def pytest_terminal_summary(terminalreporter):
    """List the cells whose stored outputs differed on an unpinned machine (they ran; their asserts held)."""
    differed = [r.nodeid for r in terminalreporter.stats.get("xfailed", [])
                if getattr(r, "wasxfail", "").startswith(_REASON)]  # from every xdist worker
    if differed:
        terminalreporter.section("stored outputs that differ on this machine (not pinned)")
        terminalreporter.write_line(f"{PINNING}: {len(differed)} cell(s) ran without error but printed other "
                                    "numbers than the committed run:")
        for nodeid in differed:
            terminalreporter.write_line(f"  {nodeid}")
    elif not PINNED:
        terminalreporter.write_line(f"{PINNING}: every stored output compared equal all the same.")
