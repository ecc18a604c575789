"""Learning to Attend: the course's helper package: the notebook setup call, and the paths, seeding and device of
`helpers.base` re-exported. The top of the import layers (setup() uses plotting): no helpers module imports it."""
from __future__ import annotations

import platform

from helpers import pinning

pinning.apply()  # before torch loads: its CPU kernels are chosen once, at import (helpers/pinning.py)

import torch  # noqa: E402

from helpers.base import DATA_DIR, NOTEBOOKS_DIR, ROOT, get_device, set_seed, to_numpy  # noqa: E402

__all__ = ["ROOT", "DATA_DIR", "NOTEBOOKS_DIR", "set_seed", "get_device", "setup", "pinning_phrase", "to_numpy"]


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
    from helpers.plotting import show_alt_text, use_course_style

    use_course_style(lang)
    show_alt_text()  # each figure's output names what it shows (its titles), for the website's alt text
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

