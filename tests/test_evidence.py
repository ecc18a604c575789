"""Evidence files (helpers/evidence.py): the mechanism on a toy recipe, then every registered recipe's file.

Every recipe's stored file must load (same settings, same units as the recipe lists) and one of its units, the
cheapest, is regenerated from scratch here and must match its stored rows: the file cannot drift from the code.
"""
from __future__ import annotations

import json

import pytest
import torch

from helpers import evidence
from helpers.evidence import RECIPES, EvidenceMismatch, Recipe


def _toy_run(settings: dict, unit: dict) -> list[dict]:
    """Draw from the global torch RNG (run_unit seeds it) so that the seed matters."""
    x = torch.randn(settings["n"]).sum().item() * unit["scale"]
    return [{"value": x, "cpu_seconds": 0.123}]


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A registered toy recipe whose files go to a temporary directory (removed from RECIPES afterwards)."""
    recipe = Recipe("toy_evidence", "00", "a toy", {"n": 5, "seeds": [0, 1]},
                    units=lambda s: [{"seed": seed, "scale": 2} for seed in s["seeds"]],
                    run=_toy_run, timing=("cpu_seconds",))
    monkeypatch.setitem(RECIPES, recipe.name, recipe)
    evidence.make_evidence([recipe.name], directory=tmp_path, log=lambda _: None)
    return recipe, tmp_path


def test_build_writes_settings_code_and_every_unit(toy):
    recipe, directory = toy
    data = json.loads((directory / "toy_evidence.json").read_text())
    assert data["settings"] == recipe.settings and set(data["code"]) == {"git", "helpers"}
    assert [u["unit"] for u in data["units"]] == [{"seed": 0, "scale": 2}, {"seed": 1, "scale": 2}]
    values = [u["rows"][0]["value"] for u in data["units"]]
    assert values[0] != values[1]                       # the seed reaches the run
    assert data["units"][0]["rows"][0]["seed"] == 0     # rows repeat their unit's keys


def test_load_and_check_live_pass_on_todays_code(toy):
    recipe, directory = toy
    ev = evidence.load(recipe.name, directory)
    state = torch.random.get_rng_state()
    fresh = ev.check_live({"seed": 1, "scale": 2})
    assert torch.equal(state, torch.random.get_rng_state())     # the caller's RNG is left alone
    assert fresh == ev.stored({"seed": 1, "scale": 2})["rows"]
    assert len(ev.rows) == 2


PINNED = (True, "CPU kernels AVX2 (pinned)")
AMD = (False, "CPU kernels AVX2, not pinned (AuthenticAMD CPU: MKL ignores its AVX2 branch (MKL_CBWR) off Intel CPUs)")


def test_check_live_fails_when_the_code_changed(toy, monkeypatch):
    recipe, directory = toy
    monkeypatch.setattr(evidence.pinning, "status", lambda: PINNED)     # on the pinned paths, whatever CPU runs this
    ev = evidence.load(recipe.name, directory)
    changed = Recipe(**{**recipe.__dict__, "run": lambda s, u: [{"value": _toy_run(s, u)[0]["value"] * 1.01}]})
    monkeypatch.setitem(RECIPES, recipe.name, changed)
    with pytest.raises(EvidenceMismatch, match=r"row 0 value: stored .*make evidence NAME=toy_evidence"):
        ev.check_live({"seed": 0, "scale": 2})


def test_off_the_pinned_paths_a_difference_is_printed_not_raised(toy, monkeypatch, capsys):
    recipe, directory = toy
    ev = evidence.load(recipe.name, directory)
    changed = Recipe(**{**recipe.__dict__, "run": lambda s, u: [{"value": _toy_run(s, u)[0]["value"] * 1.01}]})
    monkeypatch.setitem(RECIPES, recipe.name, changed)
    monkeypatch.setattr(evidence.pinning, "status", lambda: AMD)
    fresh = ev.check_live({"seed": 0, "scale": 2})              # a learner's chapter on such a CPU goes on
    out = capsys.readouterr().out
    assert fresh[0]["value"] != ev.stored({"seed": 0, "scale": 2})["rows"][0]["value"], "the live rows come back"
    assert "differs from the stored one (row 0 value: stored" in out and "AuthenticAMD" in out, out
    monkeypatch.setitem(RECIPES, recipe.name, recipe)
    ev.check_live({"seed": 0, "scale": 2})
    assert "differs" not in capsys.readouterr().out, "equal rows print nothing, pinned or not"


def test_check_live_runs_a_seed_the_file_lacks_and_says_nothing_was_compared(toy, capsys):
    recipe, directory = toy
    ev = evidence.load(recipe.name, directory)
    assert not ev.has({"seed": 31, "scale": 2}) and ev.has({"seed": 1, "scale": 2})
    fresh = ev.check_live({"seed": 31, "scale": 2})              # a chapter run with another SEED goes on
    assert fresh == evidence.run_unit(recipe.name, {"seed": 31, "scale": 2}, ev.settings)[0]
    assert "not compared" in capsys.readouterr().out
    ev.check_live({"seed": 1, "scale": 2})
    assert "not compared" not in capsys.readouterr().out


def test_timing_fields_are_not_compared(toy, monkeypatch):
    recipe, directory = toy
    ev = evidence.load(recipe.name, directory)
    slower = Recipe(**{**recipe.__dict__, "run": lambda s, u: [{**_toy_run(s, u)[0], "cpu_seconds": 9.9}]})
    monkeypatch.setitem(RECIPES, recipe.name, slower)
    ev.check_live({"seed": 0, "scale": 2})


def test_load_refuses_other_settings_missing_files_and_unknown_units(toy, monkeypatch, tmp_path_factory):
    recipe, directory = toy
    monkeypatch.setitem(RECIPES, recipe.name, Recipe(**{**recipe.__dict__, "settings": {"n": 6, "seeds": [0, 1]}}))
    with pytest.raises(EvidenceMismatch, match="made with settings"):
        evidence.load(recipe.name, directory)
    monkeypatch.setitem(RECIPES, recipe.name, recipe)
    with pytest.raises(EvidenceMismatch, match="is missing"):
        evidence.load(recipe.name, tmp_path_factory.mktemp("empty"))
    with pytest.raises(KeyError, match="no stored unit"):
        evidence.load(recipe.name, directory).stored({"seed": 7, "scale": 2})
    with pytest.raises(KeyError, match="no evidence recipe named 'nope'"):
        evidence.load("nope")


def test_register_refuses_a_taken_name(toy):
    recipe, _ = toy
    with pytest.raises(ValueError, match="already registered"):
        evidence.register(recipe)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_recipe_file_loads_and_its_cheapest_unit_reproduces(name, capsys):
    ev = evidence.load(name)                      # same settings and units as the recipe
    assert ev.rows, f"{name}: no rows"
    assert ev.recipe.chapter and ev.recipe.about
    cheapest = min(ev.units, key=lambda u: u["cpu_seconds"])["unit"]
    ev.check_live(cheapest)                       # regenerated from scratch, compared row by row (raises when pinned)
    out = capsys.readouterr().out
    if "differs from the stored one" in out:      # only off the pinned paths: listed as an expected difference
        pytest.xfail(f"{name}: stored rows not comparable on this CPU: {out.strip()[:300]}")


def test_the_files_table_lists_every_recipe_with_its_cost():
    table = evidence.files_table()
    for name in RECIPES:
        assert f"`{name}`" in table
    assert "missing" not in table, "every registered recipe has its file in data/evidence/"
