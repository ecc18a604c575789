"""Which Chinese notebooks strict nbval runs: notebooks/zh/ holds every chapter's Chinese edition, but only the
chapters that run in Chinese (`runs_in_zh` in helpers/course.py) carry their own outputs; the others carry the
English run's outputs under Chinese text (checked by tests/test_i18n.py), so nbval leaves them out."""
from pathlib import Path

ZH = Path(__file__).parent / "notebooks" / "zh"


def pytest_ignore_collect(collection_path, config):
    """Leave out a notebooks/zh/ notebook whose chapter is not run in Chinese (None: pytest decides as usual)."""
    path = Path(collection_path)
    if path.suffix == ".ipynb" and path.parent == ZH:
        from helpers.devtools.zh import runs_in_zh

        return True if not runs_in_zh(path) else None
    return None
