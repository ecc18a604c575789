"""Shared test setup: a non-interactive matplotlib backend and one torch thread, as in the notebooks."""
import matplotlib
import torch

matplotlib.use("Agg")
torch.set_num_threads(1)
