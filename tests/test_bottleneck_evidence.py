"""Chapter 01's evidence file (data/evidence/bottleneck.json): what the chapter (and later chapter 05) reads is there.

tests/test_evidence.py regenerates one of its units; this checks the stored file's shape against its recipe:
every unit has a quality row per set, and every unit whose config measures gradients has one per stage x direction
x length, with the numbers the chapter's story rests on being finite and positive.
"""
import math

import pytest

from helpers import evidence


@pytest.fixture(scope="module")
def ev():
    return evidence.load("bottleneck")


def test_every_unit_has_a_quality_row_per_set_and_its_gradient_rows(ev):
    sets = [f"{lo}-{hi}" for lo, hi in ev.settings["sets"]]
    grad = ev.settings["gradient"]
    for u in ev.units:
        rows, config = u["rows"], ev.settings["configs"][u["unit"]["config"]]
        assert [r["set"] for r in rows if r["measure"] == "quality"] == sets, u["unit"]
        assert all(0 <= r["bleu"] <= 100 + 1e-9 and r["steps"] == config["steps"]       # a perfect set: 100 + float
                   for r in rows if r["measure"] == "quality")                            # rounding
        got = {(r["stage"], r["direction"], r["length"]) for r in rows if r["measure"] == "gradient"}
        want = {(s, d, L) for s in ("init", "trained") for d in grad["directions"] for L in grad["lengths"]}
        assert got == (want if config.get("gradient", True) else set()), u["unit"]
        assert all(math.isfinite(r["grad"]) and r["grad"] > 0 for r in rows if r["measure"] == "gradient")


def test_the_one_way_twin_has_the_main_models_context_size_and_seeds(ev):
    first = {u["unit"]["config"]: u["rows"][-1] for u in ev.units}
    assert first["one way, hidden 256"]["context"] == first["hidden 128"]["context"]
    assert set(ev.settings["seeds"]["one way, hidden 256"]) <= set(ev.settings["seeds"]["hidden 128"])
    assert len(ev.settings["seeds"]["one way, hidden 256"]) >= 3


def test_the_attention_config_is_chapter_05s_model_with_its_gradient_rows(ev, monkeypatch):
    """The "attention" config trains like chapter 05 (Luong's wiring, its own lr) and measures the gradient to the
    first word through both directions and the left-to-right chain alone, at init and trained (a short run here)."""
    import copy

    from helpers import training
    from helpers.experiments import bottleneck_run

    config = ev.settings["configs"]["attention"]
    assert (config["kind"], config["wiring"], config["steps"], config["lr"]) == ("attention", "luong", 450, 5e-3)
    assert len(ev.settings["seeds"]["attention"]) >= 3 and len(ev.settings["seeds"]["hidden 32"]) >= 3
    seen, real_train = [], training.train
    monkeypatch.setattr(training, "train", lambda *a, **k: seen.append(k["lr"]) or real_train(*a, **k))
    settings = copy.deepcopy(ev.settings)
    settings["configs"]["attention"]["steps"] = 2
    settings.update(sets=[[4, 6]], gradient={**settings["gradient"], "lengths": [5, 12], "n": 2})
    rows = bottleneck_run(settings, {"config": "attention", "seed": 0})
    assert seen == [5e-3], "the config's own lr, not the file's"
    got = {(r["stage"], r["direction"], r["length"]) for r in rows if r["measure"] == "gradient"}
    assert got == {(s, d, L) for s in ("init", "trained") for d in ("both", "forward") for L in (5, 12)}
    grad = {(r["stage"], r["direction"], r["length"]): r["grad"] for r in rows if r["measure"] == "gradient"}
    assert all(grad[(s, "both", L)] > grad[(s, "forward", L)] > 0 for s in ("init", "trained") for L in (5, 12))
    assert [r["context"] for r in rows if r["measure"] == "quality"] == [256]
