"""Learning to Attend: the course's helper package (paths, seeding, device and the notebook setup call)."""
from __future__ import annotations

import platform
import random
from pathlib import Path

from helpers import pinning

pinning.apply()  # before torch loads: its CPU kernels are chosen once, at import (helpers/pinning.py)

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "data"
NOTEBOOKS_DIR = ROOT / "notebooks"

__all__ = ["ROOT", "DATA_DIR", "NOTEBOOKS_DIR", "set_seed", "get_device", "setup", "pinning_phrase", "to_numpy"]


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


def setup(seed: int = 0, threads: int = 1, quiet: bool = False, lang: str = "en") -> torch.device:
    """The one call every notebook's first cell makes: seed, torch threads, plot style, device, language; prints
    one line, which ends by saying whether torch runs on the pinned CPU kernels (helpers/pinning.py), and a
    second line only when it does not.

    lang: the learner-facing language of checker messages and widget labels, "en" (the default) or "zh" (the
    Chinese edition in notebooks/zh/ calls ``helpers.setup(seed=0, lang="zh")``); see ``helpers.i18n``.

    One torch thread is the default: while another job shares a 2-core machine (as when `make test` runs two
    notebooks at once) a second thread made the course's models 2.5-3.3x slower, and on an idle machine it
    saved wall time only by spending more CPU (README, "Torch threads"; benchmarks/bench_threads.py).
    A fixed thread count also keeps the committed, strictly compared outputs reproducible.
    """
    from helpers import i18n

    i18n.set_lang(lang)  # first: an unknown language fails before anything else changes
    set_seed(seed)
    torch.set_num_threads(threads)
    from helpers.plotting import use_course_style

    use_course_style(lang)
    device = get_device()
    if not quiet:
        python = ".".join(platform.python_version_tuple()[:2])
        print(i18n.t("setup.line", python=python, torch=torch.__version__.split("+")[0], device=device.type,
                     threads=threads, seed=seed)
              + (i18n.t("setup.lang", code=lang) if lang != "en" else "") + f" | {pinning_phrase()}")
        if not pinning.status()[0]:
            print(i18n.t("setup.not_pinned"))
    return device


def pinning_phrase() -> str:
    """The phrase that ends the setup line: the pinned CPU kernels in the current language (helpers.i18n) or, off the
    pinned paths, the reason `helpers.pinning.status()` gives, as torch says it."""
    from helpers import i18n

    pinned, phrase = pinning.status()
    return i18n.t("setup.pinned") if pinned else phrase


def to_numpy(x, dtype=np.float64) -> np.ndarray:
    """Any tensor (even one that requires grad), array, list or number as a NumPy array of `dtype`."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu()
        if x.dtype == torch.bool and dtype is not bool:
            x = x.to(torch.uint8)
        return x.numpy().astype(dtype, copy=False)
    return np.asarray(x, dtype=dtype)
