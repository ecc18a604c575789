"""The package basics: seeding, device, the setup line, and the README/parameter tools."""
import random

import numpy as np
import pytest
import torch

import helpers
from helpers import devtools
from helpers.devtools.notebooks import _apply_parameters
from helpers.tables import format_table


def test_set_seed_makes_random_numpy_and_torch_repeat():
    helpers.set_seed(3)
    first = (random.random(), np.random.rand(), torch.rand(1).item())
    helpers.set_seed(3)
    assert (random.random(), np.random.rand(), torch.rand(1).item()) == first


def test_setup_prints_one_line_and_returns_the_device(capsys):
    device = helpers.setup(seed=1)
    out = capsys.readouterr().out.strip()
    line, *rest = out.split("\n")
    pinned = helpers.pinning.status()[0]    # off the pinned paths a second line says the numbers may differ
    assert rest == ([] if pinned else [helpers.i18n.t("setup.not_pinned")]), out
    assert f"torch {torch.__version__.split('+')[0]}" in line and "seed 1" in line
    assert device == helpers.get_device() and torch.get_num_threads() == 1


def test_update_readme_section_replaces_only_its_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("top\n<!-- BEGIN a -->\nold\n<!-- END a -->\nbottom\n")
    devtools.update_readme_section("a", format_table([[1, 2]], ["x", "y"], markdown=True), readme=readme)
    assert readme.read_text() == "top\n<!-- BEGIN a -->\n| x | y |\n|---|---|\n| 1 | 2 |\n<!-- END a -->\nbottom\n"
    with pytest.raises(ValueError, match="no section markers"):
        devtools.update_readme_section("b", "x", readme=readme)


def test_parameters_are_rewritten_in_the_tagged_cell():
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("SEED = 0\nSTEPS = 10", metadata={"tags": ["parameters"]})]
    _apply_parameters(nb, {"SEED": 2})
    assert nb.cells[0].source == "SEED = 2\nSTEPS = 10"
    with pytest.raises(ValueError, match="not assigned"):
        _apply_parameters(nb, {"LR": 0.1})


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


def test_format_table_text_and_markdown_from_a_dict_or_rows():
    table = {"w": {"valid": 72.04, "train": 99}, "c": {"valid": 82.0}}
    text = format_table(table, index_name="variant").splitlines()
    assert text == ["variant  valid  train", "w         72.0     99", "c         82.0      -"]
    markdown = format_table([["a", 1.25]], ["name", "x"], digits=2, markdown=True)
    assert markdown == "| name | x |\n|---|---|\n| a | 1.25 |"
    with pytest.raises(ValueError, match="needs a header"):
        format_table([[1, 2]])
    with pytest.raises(ValueError, match="every row needs 2 cells"):
        format_table([[1, 2, 3]], ["x", "y"])


def test_to_numpy_takes_tensors_that_require_grad_bools_and_lists():
    from helpers import to_numpy

    assert to_numpy(torch.ones(2, requires_grad=True)).tolist() == [1.0, 1.0]
    assert to_numpy(torch.tensor([True, False])).tolist() == [1.0, 0.0]
    assert to_numpy([[1, 2]]).shape == (1, 2)
