"""Learning to Attend: the course's helper package (paths, seeding, device and the notebook setup call)."""
from __future__ import annotations

import os
import platform
import random
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "data"
NOTEBOOKS_DIR = ROOT / "notebooks"

__all__ = ["ROOT", "DATA_DIR", "NOTEBOOKS_DIR", "set_seed", "get_device", "setup"]


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


def setup(seed: int = 0, threads: int = 1, quiet: bool = False) -> torch.device:
    """The one call every notebook's first cell makes: seed, torch threads, plot style, device; prints one line.

    One torch thread is the default: the course's small models ran about 10x faster with one thread
    than with two on a 2-core laptop (see benchmarks/).
    """
    set_seed(seed)
    torch.set_num_threads(threads)
    from helpers.plotting import use_course_style

    use_course_style()
    device = get_device()
    if not quiet:
        print(
            f"Learning to Attend | python {platform.python_version_tuple()[0]}.{platform.python_version_tuple()[1]}"
            f" | torch {torch.__version__.split('+')[0]} | device {device.type} | threads {threads} | seed {seed}"
        )
    return device
