"""The package basics: seeding, device, the setup line, and the README/parameter tools."""
import random

import numpy as np
import pytest
import torch

import helpers
from helpers import devtools


def test_set_seed_makes_random_numpy_and_torch_repeat():
    helpers.set_seed(3)
    first = (random.random(), np.random.rand(), torch.rand(1).item())
    helpers.set_seed(3)
    assert (random.random(), np.random.rand(), torch.rand(1).item()) == first


def test_setup_prints_one_line_and_returns_the_device(capsys):
    device = helpers.setup(seed=1)
    line = capsys.readouterr().out.strip()
    assert line.count("\n") == 0 and f"torch {torch.__version__.split('+')[0]}" in line and "seed 1" in line
    assert device == helpers.get_device() and torch.get_num_threads() == 1


def test_update_readme_section_replaces_only_its_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("top\n<!-- BEGIN a -->\nold\n<!-- END a -->\nbottom\n")
    devtools.update_readme_section("a", devtools.markdown_table(["x", "y"], [[1, 2]]), readme=readme)
    assert readme.read_text() == "top\n<!-- BEGIN a -->\n| x | y |\n|---|---|\n| 1 | 2 |\n<!-- END a -->\nbottom\n"
    with pytest.raises(ValueError, match="no section markers"):
        devtools.update_readme_section("b", "x", readme=readme)


def test_parameters_are_rewritten_in_the_tagged_cell():
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("SEED = 0\nSTEPS = 10", metadata={"tags": ["parameters"]})]
    devtools._apply_parameters(nb, {"SEED": 2})
    assert nb.cells[0].source == "SEED = 2\nSTEPS = 10"
    with pytest.raises(ValueError, match="not assigned"):
        devtools._apply_parameters(nb, {"LR": 0.1})


def test_plot_attention_uses_tokens_and_a_fixed_zero_to_one_scale():
    import matplotlib.pyplot as plt

    from helpers.plotting import plot_attention

    ax = plot_attention(torch.tensor([[0.2, 0.3, 0.5], [0.05, 0.05, 0.9]]), keys=["a", "cat", "sat"],
                        queries=["le", "chat"], title="t")
    image = ax.get_images()[0]
    assert image.get_clim() == (0.0, 1.0)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "cat", "sat"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["le", "chat"]
    assert ax.get_title() == "t" and ax.get_xlabel() and ax.get_ylabel()
    with pytest.raises(ValueError, match=r"2 keys labels given for 3 keys \(weights of shape \(2, 3\)\)"):
        plot_attention(torch.rand(2, 3), keys=["a", "b"])
    with pytest.raises(ValueError, match=r"shape \(n_queries, n_keys\); got shape \(3,\)"):
        plot_attention(torch.rand(3))
    plt.close("all")
