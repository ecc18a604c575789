"""Evidence files: runs over many seeds and budgets, made once by `make evidence`, read by the chapters.

A claim about a distribution (a ranking over seeds, a curve over budgets) needs many training runs, far more
than a chapter can afford at reading time. So each piece of evidence is a registered `Recipe`: its settings, the
units it runs (one training run each, say a config and a seed) and a function that turns one unit into rows of a
tidy table. `python -m helpers.evidence build` runs every unit and writes data/evidence/<name>.json with the
settings, the code version and the rows of each unit. A chapter then

    ev = evidence.load("scorers")               # refuses a file made with other settings
    rows = ev.rows                              # every stored row: draw it, summarise it, assert on it
    ev.check_live({"config": "dot", "seed": SEED})   # runs one unit now; raises if it differs from its stored rows

so the file cannot drift from the code, and tests/test_evidence.py regenerates one unit of every recipe.

A new piece of evidence is one `Recipe(...)` passed to `register` (see the recipes at the end of this file).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import torch

from helpers import i18n, pinning
from helpers.base import ROOT, set_seed

EVIDENCE_DIR = ROOT / "data" / "evidence"
__all__ = ["Recipe", "RECIPES", "register", "Evidence", "EvidenceMismatch", "load", "run_unit", "make_evidence",
           "code_version", "EVIDENCE_DIR"]


@dataclass(frozen=True)
class Recipe:
    """How one evidence file is made: settings -> units -> rows (one list of dicts per unit)."""

    name: str                                   # the file's stem: data/evidence/<name>.json
    chapter: str                                # the chapter that reads it ("06")
    about: str                                  # one line: the question it decides
    settings: dict                              # JSON-able; the same dict reaches units() and run()
    units: Callable[[dict], list[dict]]         # settings -> [{"config": "dot", "seed": 0}, ...]
    run: Callable[..., list[dict]]              # (settings, unit, **run_options) -> rows; rows repeat the unit's keys
    timing: tuple[str, ...] = ()                # row fields that are measured times: stored, never compared
    rel_tol: float = 1e-6                       # float fields compare with this relative tolerance


RECIPES: dict[str, Recipe] = {}


def register(recipe: Recipe) -> Recipe:
    """Add `recipe` to RECIPES; a name already taken is an error (two recipes would write one file)."""
    if recipe.name in RECIPES:
        raise ValueError(f"an evidence recipe named {recipe.name!r} is already registered "
                         f"(chapter {RECIPES[recipe.name].chapter}); pick another name")
    RECIPES[recipe.name] = recipe
    return recipe


class EvidenceMismatch(AssertionError):
    """A stored evidence file does not match what today's code makes (or was made with other settings)."""


def _recipe(name: str) -> Recipe:
    if name not in RECIPES:
        raise KeyError(f"no evidence recipe named {name!r}; registered: {', '.join(sorted(RECIPES)) or 'none'}")
    return RECIPES[name]


def _jsonable(value):
    """`value` with tensors, NumPy scalars and tuples turned into plain JSON values."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, torch.Tensor):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def code_version() -> dict:
    """{"git": the commit (or "unknown"), "helpers": sha256 of every helpers/*.py file's bytes, 12 hex digits}."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "helpers").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    try:
        git = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        git = "unknown"
    return {"git": git, "helpers": digest.hexdigest()[:12]}


def run_unit(name: str, unit: dict, settings: dict | None = None, **run_options) -> tuple[list[dict], float]:
    """(rows, cpu_seconds) of one unit of recipe `name`, from a fixed seed, leaving the caller's RNGs as they were.

    run_options reach the recipe's run (for example a training callback, or a dict that keeps the trained model so
    a chapter can reuse its live run); they must not change the rows."""
    recipe = _recipe(name)
    settings = recipe.settings if settings is None else settings
    states = random.getstate(), np.random.get_state(), torch.random.get_rng_state()
    try:
        set_seed(int(unit.get("seed", 0)))
        cpu = time.process_time()
        rows = [_jsonable({**unit, **row}) for row in recipe.run(settings, dict(unit), **run_options)]
        return rows, time.process_time() - cpu
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.random.set_rng_state(states[2])


def _differences(stored: Sequence[dict], fresh: Sequence[dict], recipe: Recipe, limit: int = 5) -> list[str]:
    """Human-readable differences between two row lists of one unit, ignoring the recipe's timing fields."""
    if len(stored) != len(fresh):
        return [f"{len(stored)} stored rows, {len(fresh)} made now"]
    out = []
    for i, (a, b) in enumerate(zip(stored, fresh, strict=True)):
        for key in sorted(set(a) | set(b)):
            if key in recipe.timing:
                continue
            x, y = a.get(key), b.get(key)
            same = (math.isclose(x, y, rel_tol=recipe.rel_tol, abs_tol=1e-12)
                    if isinstance(x, float) and isinstance(y, (int, float)) else x == y)
            if not same:
                out.append(f"row {i} {key}: stored {x!r}, made now {y!r}")
                if len(out) >= limit:
                    return out
    return out


@dataclass
class Evidence:
    """A loaded evidence file: its recipe, settings, code version and units (each with its rows)."""

    recipe: Recipe
    settings: dict
    code: dict
    units: list[dict] = field(default_factory=list)   # [{"unit": {...}, "cpu_seconds": float, "rows": [...]}]
    path: Path | None = None

    @property
    def rows(self) -> list[dict]:
        """Every stored row, unit after unit (a tidy table for helpers.experiments' summaries)."""
        return [row for u in self.units for row in u["rows"]]

    def stored(self, unit: dict) -> dict:
        """The stored entry of `unit` (the keys must match one of the file's units exactly)."""
        unit = _jsonable(unit)
        for u in self.units:
            if u["unit"] == unit:
                return u
        raise KeyError(f"{self.recipe.name}: no stored unit {unit}; the file has "
                       f"{len(self.units)} units, for example {self.units[0]['unit'] if self.units else None}")

    def has(self, unit: dict) -> bool:
        """Whether the file stores `unit` (a chapter run with a seed the file lacks has nothing to compare with)."""
        unit = _jsonable(unit)
        return any(u["unit"] == unit for u in self.units)

    def check_live(self, unit: dict, **run_options) -> list[dict]:
        """Run `unit` now and compare with its stored rows; return the fresh rows, or raise EvidenceMismatch.
        A unit the file does not store (another SEED) is run and returned, with a printed line saying so.
        run_options go to the recipe's run (see run_unit)."""
        fresh, _ = run_unit(self.recipe.name, unit, self.settings, **run_options)
        return self.check(unit, fresh)

    def check(self, unit: dict, fresh: Sequence[dict]) -> list[dict]:
        """Compare rows the chapter made itself (through the recipe's own functions) with `unit`'s stored rows.
        If the file does not store `unit`, print that nothing was compared and return the rows as they are. Off the
        pinned code paths (`helpers.pinning.status`) a difference is printed, not raised: the floats of another CPU
        differ in their last bits, and training amplifies them."""
        fresh = [_jsonable({**unit, **row}) for row in fresh]
        if not self.has(unit):
            print(i18n.t("training.not_compared", recipe=self.recipe.name, unit=unit, n=len(self.units),
                         seeds=", ".join(sorted({str(u["unit"].get("seed")) for u in self.units}))))
            return fresh
        stored = self.stored(unit)["rows"]
        problems = _differences(stored, fresh, self.recipe)
        pinned, phrase = pinning.status()
        if problems and not pinned:   # other kernels, other last bits, amplified by training: not a code change
            print(i18n.t("training.not_comparable", recipe=self.recipe.name, unit=unit, why=phrase,
                         first=problems[0]))
            return fresh
        if problems:
            raise EvidenceMismatch(
                f"data/evidence/{self.recipe.name}.json does not match today's code for unit {unit}: "
                + "; ".join(problems) + f". Remake it: make evidence NAME={self.recipe.name}")
        return fresh


def path_of(name: str, directory: Path | None = None) -> Path:
    """Where recipe `name`'s file lives."""
    return (directory or EVIDENCE_DIR) / f"{name}.json"


def load(name: str, directory: Path | None = None) -> Evidence:
    """The evidence file of recipe `name`; an EvidenceMismatch if it is missing or was made with other settings."""
    recipe, path = _recipe(name), path_of(name, directory)
    if not path.exists():
        raise EvidenceMismatch(f"{path} is missing: make it with `make evidence NAME={name}`")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("settings") != _jsonable(recipe.settings):
        raise EvidenceMismatch(f"{path} was made with settings {data.get('settings')}, but the recipe now says "
                               f"{_jsonable(recipe.settings)}: remake it with `make evidence NAME={name}`")
    expected = [_jsonable(u) for u in recipe.units(recipe.settings)]
    if [u["unit"] for u in data["units"]] != expected:
        raise EvidenceMismatch(f"{path} holds other units than the recipe lists: remake it with "
                               f"`make evidence NAME={name}`")
    return Evidence(recipe, data["settings"], data["code"], data["units"], path)


def _run_unit_in_worker(name: str, unit: dict) -> tuple[list[dict], float]:
    """run_unit in a fresh worker process (one torch thread)."""
    torch.set_num_threads(1)
    return run_unit(name, unit)


def make_evidence(names: Iterable[str] | None = None, jobs: int = 1, directory: Path | None = None,
          log: Callable[[str], None] = print) -> list[Path]:
    """Run every unit of the named recipes (all by default) on `jobs` processes and write their files."""
    names = list(names or RECIPES)
    if directory is None:                       # the committed files: only from the pinned paths
        pinning.check_can_write("evidence files")
    directory = directory or EVIDENCE_DIR
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        recipe = _recipe(name)
        units = [_jsonable(u) for u in recipe.units(recipe.settings)]
        wall = time.perf_counter()
        if jobs > 1:
            import multiprocessing
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
                results = list(pool.map(_run_unit_in_worker, [name] * len(units), units))
        else:
            results = [run_unit(name, u) for u in units]
        entries = [{"unit": u, "cpu_seconds": round(cpu, 2), "rows": rows}
                   for u, (rows, cpu) in zip(units, results, strict=True)]
        data = {"name": name, "chapter": recipe.chapter, "about": recipe.about,
                "settings": _jsonable(recipe.settings), "code": code_version(),
                "torch": torch.__version__, "units": entries}
        path = path_of(name, directory)
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        log(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {len(units)} units, "
            f"{sum(e['cpu_seconds'] for e in entries):.0f} s CPU, {time.perf_counter() - wall:.0f} s wall")
        written.append(path)
    return written


# ---------------------------------------------------------------- recipes (one register(Recipe(...)) each)
# Recipes live here, next to the mechanism; the functions they call live where their idea lives
# (helpers.experiments for training runs). Each chapter that reads one says so in its recipe's `chapter`.


# ---- chapter 01: the fixed-context bottleneck (widths, one way vs two ways, gradients to the first word) ----
def _bottleneck_units(settings: dict) -> list[dict]:
    return [{"config": name, "seed": seed} for name, seeds in settings["seeds"].items() for seed in seeds]


def _bottleneck_run(settings: dict, unit: dict) -> list[dict]:
    from helpers.experiments import bottleneck_run

    return bottleneck_run(settings, unit)


register(Recipe(
    name="bottleneck",
    chapter="01",
    about="no-attention translators of three widths, one way vs two ways at equal context size, and chapter 05's "
          "attention model: BLEU by source length, the gradient to the first word at init and trained",
    settings={
        "configs": {
            "hidden 32": {"kind": "none", "hidden": 32, "steps": 1400, "gradient": False},
            "hidden 64": {"kind": "none", "hidden": 64, "steps": 700, "gradient": False},
            "hidden 128": {"kind": "none", "hidden": 128, "steps": 350},
            "one way, hidden 256": {"kind": "none", "hidden": 256, "bidirectional": False, "decoder_hidden": 128,
                                    "steps": 350},
            # chapter 05's attention model, trained as chapter 05 trains it (its LR, 5e-3, not this file's "lr")
            "attention": {"kind": "attention", "hidden": 128, "wiring": "luong", "steps": 450, "lr": 5e-3},
        },
        # seeds per config: every width has at least three, so chapter 01 gives intervals for each; "attention"
        # is chapter 05's gradient to the first word with attention, at init and trained, over its three seeds
        "seeds": {"hidden 32": [0, 1, 2], "hidden 64": [0, 1, 2], "hidden 128": [0, 1, 2, 3],
                  "one way, hidden 256": [0, 1, 2], "attention": [0, 1, 2]},
        "batch": 32,
        "lr": 0.01,
        "sets": [[4, 10], [4, 6], [7, 8], [9, 10], [11, 13], [14, 16], [17, 20], [11, 20], [21, 30], [31, 40],
                 [41, 50]],
        "gradient": {"lengths": [5, 10, 20, 30, 40, 50], "n": 20, "last_words": 5, "directions": ["both", "forward"]},
    },
    units=_bottleneck_units,
    run=_bottleneck_run,
    timing=("cpu_seconds",),
))


# ---------------------------------------------------------------- chapter 06: the scorers over seeds, the dropout test
def _registered_scorers() -> list[str]:
    """The names in helpers.attention.SCORERS when this module is imported (a new scorer: remake the file)."""
    from helpers.attention import SCORERS

    return list(SCORERS)


def _scorer_units(settings: dict) -> list[dict]:
    """One unit per (config, seed) of the settings."""
    return [{"config": c, "seed": s} for c in settings["configs"] for s in settings["seeds"]]


def _scorer_run(settings: dict, unit: dict) -> list[dict]:
    """One scorer (or no attention) in chapter 06's translator: BLEU, exact, alignment by bucket, the watched curve."""
    from helpers.experiments import train_one
    from helpers.toylang import TEST_BUCKETS, bucket_name, load_split

    name = unit["config"]
    kwargs = dict(kind="none", **settings["model"]) if name == "no attention" else \
        dict(kind="attention", scorer=name, **settings["model"])
    buckets = {bucket_name(lo, hi): load_split(f"test_{bucket_name(lo, hi)}")[:settings["eval_per_bucket"]]
               for lo, hi in TEST_BUCKETS}
    return train_one(name, kwargs, load_split("train"), buckets, settings["steps"], unit["seed"],
                     batch_size=settings["batch"], lr=settings["lr"],
                     watch=load_split(settings["watch"])[:settings["watch_n"]], every=settings["every"],
                     threshold=settings["threshold"])


register(Recipe(
    "scorers", "06", "every scorer in chapter 06's translator over seeds: BLEU by bucket and when alignment jumps",
    settings=dict(model=dict(emb=32, hidden=64, attn_hidden=64), steps=400, batch=32, lr=1e-2, eval_per_bucket=100,
                  watch="valid", watch_n=100, every=20, threshold=50.0,
                  configs=["no attention", *_registered_scorers()], seeds=[0, 1, 2, 3, 4]),
    units=_scorer_units, run=_scorer_run, timing=("cpu_seconds",)))


def _dropout_run(settings: dict, unit: dict) -> list[dict]:
    """One dropout placement and rate in chapter 06's small, overfitting additive translator: BLEU on valid, train."""
    from helpers.experiments import train_one
    from helpers.toylang import load_split

    short = settings["max_len"]
    train = [p for p in load_split("train") if len(p[0]) <= short][:settings["train"]]
    eval_sets = {"valid": [p for p in load_split("valid") if len(p[0]) <= short],
                 "train": train[:settings["train_eval"]]}
    kwargs = dict(kind="attention", scorer="additive", **settings["model"], **settings["configs"][unit["config"]])
    return train_one(unit["config"], kwargs, train, eval_sets, settings["steps"], unit["seed"],
                     batch_size=settings["batch"], lr=settings["lr"])


register(Recipe(
    "dropout", "06", "where dropout goes (weights or context vector) and at what rate, against no dropout, over seeds",
    settings=dict(model=dict(emb=32, hidden=48, attn_hidden=48), train=500, max_len=12, train_eval=100, steps=200,
                  batch=32, lr=2e-2, seeds=list(range(8)),
                  configs={"no dropout": {}, "weights 0.1": {"attn_dropout": 0.1},
                           "context 0.1": {"context_dropout": 0.1},
                           "weights 0.3": {"attn_dropout": 0.3}, "context 0.3": {"context_dropout": 0.3}}),
    units=_scorer_units, run=_dropout_run, timing=("cpu_seconds",)))

# ---- chapter 05: the two wirings (Luong's, Bahdanau's) over seeds, at equal steps and at equal CPU time
def _wirings_units(settings: dict) -> list[dict]:
    return [{"config": name, "seed": seed} for name in settings["configs"] for seed in settings["seeds"]]


def _wirings_run(settings: dict, unit: dict, **options) -> list[dict]:
    from helpers.experiments import train_wiring
    from helpers.toylang import load_test_buckets

    config = settings["configs"][unit["config"]]
    return train_wiring(config["wiring"], config["steps"], unit["seed"],
                        load_test_buckets(limit=settings["test_per_bucket"]), settings["batch"], settings["lr"],
                        **options)


register(Recipe(
    "wirings", "05", "Luong's vs Bahdanau's wiring (additive scorer), both past the alignment jump: BLEU by bucket at "
    "equal steps (450 and 900) and at equal CPU time",
    settings={
        "seeds": [0, 1, 2, 3, 4], "batch": 32, "lr": 5e-3, "test_per_bucket": 100,
        "configs": {"luong 450": {"wiring": "luong", "steps": 450},
                    "bahdanau 450": {"wiring": "bahdanau", "steps": 450},
                    "luong 700": {"wiring": "luong", "steps": 700},
                    "luong 900": {"wiring": "luong", "steps": 900},
                    "bahdanau 900": {"wiring": "bahdanau", "steps": 900}},
        # Each comparison is (a, b): a minus b. Equal steps at chapter 05's budget (450, where a pilot of both wirings
        # had learned: Bahdanau's wiring seed 1, 99-100 BLEU on the seen buckets) and at twice it. Equal CPU time:
        # Luong's wiring gets the steps that Bahdanau's 450 buy. A pilot on this Intel Xeon measured 58 vs 91 CPU ms
        # per step (1.57x), so 450 -> 700 steps; the chapter checks the CPU seconds this run measured against it.
        "comparisons": {"equal steps, 450": ["luong 450", "bahdanau 450"],
                        "equal steps, 900": ["luong 900", "bahdanau 900"],
                        "equal CPU time": ["luong 700", "bahdanau 450"]},
    },
    units=_wirings_units, run=_wirings_run, timing=("cpu_seconds", "ms_per_step")))


# ---- chapter 05: its main comparison over seeds, no attention and Luong's wiring at the chapter's budget
def _attention_units(settings: dict) -> list[dict]:
    return [{"config": name, "seed": seed} for name in settings["configs"] for seed in settings["seeds"]]


def _attention_run(settings: dict, unit: dict, **options) -> list[dict]:
    from helpers.experiments import train_translation
    from helpers.toylang import load_test_buckets

    keep = options.pop("keep", None)
    keep = {} if keep is None else keep
    rows = train_translation(settings["configs"][unit["config"]]["wiring"], settings["steps"], unit["seed"],
                             load_test_buckets(limit=settings["test_per_bucket"]), settings["batch"],
                             settings["lr"], keep=keep, **options)
    return rows + [{"set": "training", "losses": keep["log"].losses}]    # the loss of every step, for the curve


register(Recipe(
    "attention_vs_none", "05",
    "chapter 05's translator without attention and with Luong's wiring, at its 450 steps: BLEU by bucket and the "
    "training loss of every step, 4 seeds",
    settings={"seeds": [0, 1, 2, 3], "steps": 450, "batch": 32, "lr": 5e-3, "test_per_bucket": 100,
              "configs": {"no attention": {"wiring": None}, "Luong's wiring": {"wiring": "luong"}}},
    units=_attention_units, run=_attention_run, timing=("cpu_seconds", "ms_per_step")))


# ---- chapters 05 and 01: the gradient a target word sends to its aligned source word, at init and trained
def _aligned_gradient_run(settings: dict, unit: dict) -> list[dict]:
    from helpers.experiments import aligned_gradient_run

    return aligned_gradient_run(settings, unit)


register(Recipe(
    "aligned_gradient", "05",
    "the gradient of the loss at each target word w.r.t. its aligned source word's embedding, by distance through "
    "the chain and by length, at init and trained: chapter 05's two models at its 450 steps, chapter 01's at its "
    "350, 4 seeds",
    settings={"seeds": [0, 1, 2, 3], "batch": 32, "per_bucket": 20,
              "configs": {
                  # chapter 05's main comparison, trained as `attention_vs_none` trains it
                  "no attention": {"kind": "none", "steps": 450, "lr": 5e-3},
                  "Luong's wiring": {"kind": "attention", "wiring": "luong", "steps": 450, "lr": 5e-3},
                  # chapter 01's model, trained as the `bottleneck` file's "hidden 128" (chapter 01 re-checks it live)
                  "no attention, chapter 01": {"kind": "none", "hidden": 128, "steps": 350, "lr": 0.01}}},
    units=_attention_units, run=_aligned_gradient_run, timing=("cpu_seconds",)))


# ---- chapter 07: the three translators at three budgets (issue 20, item 6), learned positions at three (issue 32)
def _translator_units(settings: dict) -> list[dict]:
    return [{"config": name, "steps": steps, "seed": seed}
            for name, budgets in settings["budgets"].items() for steps in budgets for seed in settings["seeds"]]


def _translator_run(settings: dict, unit: dict) -> list[dict]:
    from helpers.experiments import budget_rows, learned_position_rows, train_translator
    from helpers.toylang import load_split, load_test_buckets
    from helpers.training import evaluate_buckets

    pairs = load_split("train")
    model, log = train_translator(unit["config"], pairs, unit["steps"], seed=unit["seed"],
                                  batch_size=settings["batch"])
    results = evaluate_buckets(model, load_test_buckets(limit=settings["eval_sentences"]))
    return (budget_rows(unit["config"], unit["steps"], model, log, results)
            + learned_position_rows(unit["config"], unit["seed"], model, pairs))   # [] unless learned positions


register(Recipe(
    "translators_by_budget", "07",
    "BLEU and exact match by length bucket of chapter 07's three translators at three training budgets, and of the "
    "Transformer with learned positions at the Transformer's budgets (with how far each position row moved), 4 seeds",
    settings={"budgets": {"no attention": [125, 250, 500], "RNN + attention": [125, 250, 500],
                          "Transformer": [400, 800, 1600], "Transformer, learned positions": [400, 800, 1600]},
              "seeds": [0, 1, 2, 3], "batch": 32, "eval_sentences": 100},
    units=_translator_units, run=_translator_run, timing=("cpu_seconds",)))


# ---- chapter 08: source chapter 003's attention module measured directly at n = 3,000 (issue 32)
def _module_memory_units(settings: dict) -> list[dict]:
    return [dict(unit) for unit in settings["units"]]


def _module_memory_run(settings: dict, unit: dict) -> list[dict]:
    """Training peak and saved bytes of one module trained as a decoder uses it (cost.decoder_loop_memory)."""
    from helpers.attention import AdditiveAttention
    from helpers.cost import SeedBahdanauAttention, decoder_loop_memory

    h, n, p = unit["h"], unit["n"], settings["dropout"]
    if unit["module"] == "source":
        attend = SeedBahdanauAttention(h, dropout=p)                         # as printed in source chapter 003
    else:
        scorer = AdditiveAttention(h, h, h, dropout=p)                         # the course's scorer, one query a call
        attend = lambda state, enc: scorer(state[:, None], enc, enc)           # noqa: E731
    cpu = time.process_time()
    measured = decoder_loop_memory(attend, n, n, h, saved=True)
    return [{**measured, "cpu_seconds": round(time.process_time() - cpu, 2)}]


register(Recipe(
    "module_at_3000", "08",
    "source chapter 003's attention module and the course's additive scorer trained as a decoder uses them: "
    "peak and saved bytes measured at n_q = n_k = 3,000 (h = 64), at n = 1,500 (h = 256) and at the chapter's n = 128",
    settings={"dropout": 0.1,
              # n = 128 is the chapter's largest live size (its check_live unit); h = 256 at n = 3,000 would need
              # about 26 GiB, more than this 24 GB machine has, so h = 256 is measured at n = 1,500
              "units": [{"module": "source", "h": 64, "n": 128},
                        {"module": "source", "h": 64, "n": 3000}, {"module": "ours", "h": 64, "n": 3000},
                        {"module": "source", "h": 256, "n": 1500}]},
    units=_module_memory_units, run=_module_memory_run, timing=("cpu_seconds",)))


def files_table() -> str:
    """A Markdown table of every recipe's stored file: chapter, units, its CPU seconds, the commit that made it."""
    from helpers.tables import format_table

    rows, total = [], 0.0
    for r in RECIPES.values():
        path = path_of(r.name)
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        cpu = sum(u["cpu_seconds"] for u in data["units"]) if data else 0.0
        total += cpu
        rows.append([f"`{r.name}`", r.chapter, len(r.units(r.settings)), f"{cpu:.0f}" if data else "missing",
                     data["code"]["git"][:10] if data else "", r.about])
    note = (f"`python -m helpers.evidence list --readme` wrote this table from `data/evidence/*.json`. Remaking every "
            f"file (`make evidence`) costs about {total / 60:.0f} CPU minutes, one torch thread per unit; "
            "`make evidence NAME=<recipe>` remakes one. CPU seconds are those of the run that made the file.")
    header = ["recipe", "chapter", "units", "CPU s", "made at commit", "what it holds"]
    return note + "\n\n" + format_table(rows, header, markdown=True)


def command_line(argv: Sequence[str] | None = None) -> int:
    """Command line: `python -m helpers.evidence build [NAME ...] [--jobs N]`, or `list`."""
    parser = argparse.ArgumentParser(prog="python -m helpers.evidence", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="run the recipes' units and write data/evidence/<name>.json")
    b.add_argument("names", nargs="*", help="recipes to build (default: all)")
    b.add_argument("--jobs", type=int, default=1, help="worker processes (one torch thread each)")
    ls = sub.add_parser("list", help="the registered recipes and their stored files")
    ls.add_argument("--readme", action="store_true", help="also write the table into README's evidence-files section")
    args = parser.parse_args(argv)
    if args.command == "list":
        for r in RECIPES.values():
            print(f"{r.name:<28} chapter {r.chapter}  {len(r.units(r.settings)):>3} units  {r.about}")
        if args.readme:
            from helpers.devtools import update_readme_section

            update_readme_section("evidence-files", files_table())
        return 0
    make_evidence(args.names or None, jobs=args.jobs)
    return 0


if __name__ == "__main__":       # run through the importable module, so worker processes find the same recipes
    from helpers.evidence import command_line
    sys.exit(command_line())
