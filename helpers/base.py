"""What any helpers module may use: where the course is on disk, seeding, the device, tensors as NumPy arrays.

On the ground floor: it imports no other course module. `helpers` (the package) re-exports all of it
(`helpers.ROOT`, `helpers.set_seed`, ...) and, being imported first, applies the pinned code paths before torch loads.
"""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "data"
NOTEBOOKS_DIR = ROOT / "notebooks"


def set_seed(seed: int) -> None:
    """Seed Python's `random`, NumPy and torch (CPU and, if present, CUDA) with one number."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def get_device() -> torch.device:
    """The best available device: CUDA, then Apple's MPS, then the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def to_numpy(x, dtype=np.float64) -> np.ndarray:
    """Any tensor (even one that requires grad), array, list or number as a NumPy array of `dtype`."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu()
        if x.dtype == torch.bool and dtype is not bool:
            x = x.to(torch.uint8)
        return x.numpy().astype(dtype, copy=False)
    return np.asarray(x, dtype=dtype)
