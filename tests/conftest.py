"""Shared test setup: the pinned CPU kernels (before torch loads), a non-interactive matplotlib backend, one torch
thread, as in the notebooks. What strict nbval does on a machine outside the reproducibility promise is in the root
conftest.py, so that it reaches the notebooks' cells too (a conftest's item hooks reach only the items below it)."""
import matplotlib
import pytest
import torch

# importing helpers sets the pinned environment; torch reads it at its first computation, not at import
from helpers import pinning  # noqa: F401  (importing it sets the pins)

matplotlib.use("Agg")
torch.set_num_threads(1)


@pytest.fixture
def scratch_chapter00(tmp_path, monkeypatch):
    """(path, notebook) of a copy of chapter 00 in tmp_path, with the zh catalogues copied there too and
    `zh.CATALOGUE_DIR` pointed at the copy, so a test can change a cell and extract or build without touching i18n/."""
    import shutil

    import nbformat

    from helpers import NOTEBOOKS_DIR
    from helpers.devtools import zh

    catalogues = tmp_path / "i18n"
    shutil.copytree(zh.CATALOGUE_DIR, catalogues)
    monkeypatch.setattr(zh, "CATALOGUE_DIR", catalogues)
    source = tmp_path / "00_start_here.ipynb"
    return source, nbformat.read(NOTEBOOKS_DIR / source.name, as_version=4)
