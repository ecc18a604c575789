"""Shared test setup: the pinned CPU kernels (before torch loads), a non-interactive matplotlib backend, one torch
thread, as in the notebooks. What strict nbval does on a machine outside the reproducibility promise is in the root
conftest.py, so that it reaches the notebooks' cells too (a conftest's item hooks reach only the items below it)."""
import matplotlib
import torch

# importing helpers sets the pinned environment; torch reads it at its first computation, not at import
from helpers import pinning  # noqa: F401  (importing it sets the pins)

matplotlib.use("Agg")
torch.set_num_threads(1)
