"""The Q/K explorer without a browser: set sliders in Python, compare what it shows with independent references.

References are written out here (softmax of K·q times the factor, a loop over keys) or come from
torch.nn.functional.scaled_dot_product_attention, so a wrong softmax axis or a missing scale in
helpers.attention (which the explorer calls) makes these tests fail.
"""
import io
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from helpers.plotting import draw_explorer, draw_lookback, figure_png
from helpers.widgets import (
    SEED_KEYS,
    SEED_QUERY,
    SEED_VALUES,
    QKExplorer,
    explorer_state,
    parse_readout,
    weights_html,
)

K_SEED = torch.tensor(SEED_KEYS, dtype=torch.float64)
V_SEED = torch.tensor(SEED_VALUES, dtype=torch.float64)


def reference_weights(q, keys, scale=True, temperature=1.0) -> np.ndarray:
    """softmax over the keys of (k·q) × (1/√d if scale) / T, written out with a loop and math.exp."""
    q, keys = np.asarray(q, float), np.asarray(keys, float)
    factor = (1 / math.sqrt(len(q)) if scale else 1.0) / temperature
    logits = [float(k @ q) * factor for k in keys]
    top = max(logits)
    e = [math.exp(x - top) for x in logits]
    return np.array([x / sum(e) for x in e])


@pytest.fixture
def explorer():
    ex = QKExplorer()
    yield ex
    ex.close()


# ----------------------------------------------------------------------------------- the plain function
def test_seed_example_scaled_and_unscaled():
    s = explorer_state(SEED_QUERY, SEED_KEYS, SEED_VALUES, scale=True)
    np.testing.assert_allclose(s["scores"], [1, 1, 0])
    np.testing.assert_allclose(s["weights"], [0.4011, 0.4011, 0.1978], atol=5e-5)
    np.testing.assert_allclose(s["context"], [0.5813, 0.4187], atol=5e-5)
    u = explorer_state(SEED_QUERY, SEED_KEYS, SEED_VALUES, scale=False)
    np.testing.assert_allclose(u["weights"], [0.4223, 0.4223, 0.1554], atol=5e-5)
    np.testing.assert_allclose(u["context"], [0.6068, 0.3932], atol=5e-5)


@pytest.mark.parametrize("case", range(12))
def test_state_matches_torch_fused_attention_and_a_loop(case):
    gen = torch.Generator().manual_seed(case)
    n, d, dv = 2 + case % 4, 1 + case % 3, 1 + (case + 1) % 3
    q, K, V = (torch.randn(*shape, generator=gen, dtype=torch.float64) * 2 for shape in ((d,), (n, d), (n, dv)))
    scale, T = bool(case % 2), [0.1, 0.5, 1.0, 3.0][case % 4]
    s = explorer_state(q, K, V, scale=scale, temperature=T)
    factor = (1 / math.sqrt(d) if scale else 1.0) / T
    ref_ctx = F.scaled_dot_product_attention(q[None, None], K[None], V[None], scale=factor)[0, 0]
    np.testing.assert_allclose(s["context"], ref_ctx.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s["weights"], reference_weights(q, K, scale, T), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s["scores"], (K @ q).numpy())
    assert s["factor"] == pytest.approx(factor)


def test_bad_shapes_and_temperature_raise_clear_errors():
    with pytest.raises(ValueError, match=r"keys of shape \(n_keys, 3\)"):
        explorer_state([1, 0, 0], SEED_KEYS, SEED_VALUES)
    with pytest.raises(ValueError, match=r"values of shape \(3, d_v\)"):
        explorer_state(SEED_QUERY, SEED_KEYS, SEED_VALUES[:2])
    with pytest.raises(ValueError, match="temperature must be > 0"):
        explorer_state(SEED_QUERY, SEED_KEYS, SEED_VALUES, temperature=0)
    with pytest.raises(ValueError, match="draws 2-D vectors"):
        draw_explorer(explorer_state([1, 0, 0], np.eye(3), np.eye(3)))


def test_readout_round_trip():
    s = explorer_state([0.3, -1.2], SEED_KEYS, SEED_VALUES)
    html = weights_html(s)
    assert parse_readout(html) == [round(float(w), 4) for w in s["weights"]]
    assert 'aria-live="polite"' in html and "context: [" in html
    with pytest.raises(ValueError, match="not an explorer readout"):
        parse_readout("<b>0.5</b>")


# ----------------------------------------------------------------------------------- the widget
def test_default_explorer_shows_the_seed_example(explorer):
    assert explorer.displayed_weights() == [0.4011, 0.4011, 0.1978]
    assert "qk-weights" in explorer.readout._dom_classes and "qk-q-x" in explorer.q_x._dom_classes
    assert repr(explorer) == ("QKExplorer(Q=[1.00, 0.00], keys=[[1, 0], [1, 1], [0, 1]], values=[[0.9, 0.1], "
                              "[0.5, 0.5], [0.1, 0.9]], scale=on, T=1.00, weights=[0.4011, 0.4011, 0.1978])")
    assert explorer._repr_mimebundle_()["text/plain"] == repr(explorer)
    assert explorer.image.value[:8] == b"\x89PNG\r\n\x1a\n"


MOVES = [  # (widget attribute, new value), applied in order to one explorer
    ("q_x", 0.0), ("q_y", 1.0), ("q_x", -1.3), ("temperature", 0.4), ("q_y", 2.0), ("scale_switch", False),
    ("temperature", 2.5), ("q_x", 1.7),
]


def test_each_slider_move_updates_readout_state_and_picture(explorer):
    for attr, value in MOVES:
        before_png, before_html = explorer.image.value, explorer.readout.value
        getattr(explorer, attr).value = value
        q = [explorer.q_x.value, explorer.q_y.value]
        ref = reference_weights(q, SEED_KEYS, explorer.scale_switch.value, explorer.temperature.value)
        np.testing.assert_allclose(explorer.displayed_weights(), ref, atol=5e-5 + 1e-12,
                                   err_msg=f"after {attr}={value}")
        np.testing.assert_allclose(explorer.state["weights"], ref, rtol=1e-10, atol=1e-12)
        assert explorer.image.value != before_png, f"picture not redrawn after {attr}={value}"
        assert explorer.readout.value != before_html


def test_dragging_q_towards_a_key_pulls_weight_to_it(explorer):
    explorer.q_x.value, explorer.q_y.value = 1.0, 0.0
    w_before = explorer.displayed_weights()[2]
    explorer.q_x.value, explorer.q_y.value = 0.0, 1.0   # now Q points like K₃ (and 45° from K₂)
    explorer.q_x.value = -0.5                           # past K₃, away from K₂
    assert explorer.displayed_weights()[2] > w_before + 0.2
    assert int(np.argmax(explorer.displayed_weights())) == 2


def test_key_picker_moves_only_the_selected_key(explorer):
    explorer.key_picker.value = 2
    assert (explorer.k_x.value, explorer.k_y.value) == (0.0, 1.0) and explorer.k_x.description == "K₃ x"
    explorer.k_x.value = 1.5
    expected_keys = np.array([[1.0, 0.0], [1.0, 1.0], [1.5, 1.0]])
    np.testing.assert_array_equal(explorer.keys, expected_keys)
    ref = reference_weights(SEED_QUERY, expected_keys)
    np.testing.assert_allclose(explorer.displayed_weights(), ref, atol=5e-5 + 1e-12)
    explorer.key_picker.value = 0                       # switching keys must not move any key
    np.testing.assert_array_equal(explorer.keys, expected_keys)
    assert (explorer.k_x.value, explorer.k_y.value) == (1.0, 0.0)
    explorer.reset()
    np.testing.assert_array_equal(explorer.keys, np.array(SEED_KEYS))
    assert explorer.displayed_weights() == [0.4011, 0.4011, 0.1978]


@pytest.mark.parametrize("scale", [True, False])
def test_extreme_slider_values_give_no_nan(explorer, scale):
    explorer.scale_switch.value = scale
    explorer.temperature.value = explorer.temperature.min
    lo, hi = explorer.q_x.min, explorer.q_x.max
    for picked in range(3):
        explorer.key_picker.value = picked
        for kx, ky, qx, qy in [(hi, hi, hi, hi), (lo, lo, hi, hi), (hi, lo, lo, hi), (0, 0, 0, 0), (lo, hi, lo, lo)]:
            explorer.k_x.value, explorer.k_y.value = kx, ky
            explorer.q_x.value, explorer.q_y.value = qx, qy
            s = explorer.state
            assert np.all(np.isfinite(s["weights"])) and np.all(np.isfinite(s["context"]))
            assert s["weights"].sum() == pytest.approx(1.0)
            assert "nan" not in explorer.readout.value.lower() and "inf" not in explorer.readout.value.lower()
            np.testing.assert_allclose(explorer.displayed_weights(), s["weights"], atol=5e-5 + 1e-12)


def test_minimum_temperature_is_nearly_one_hot(explorer):
    explorer.q_x.value, explorer.q_y.value = 2.0, -1.5       # scores 2, 0.5, -1.5: K₁ ahead by 1.5
    explorer.temperature.value = explorer.temperature.min
    w = explorer.state["weights"]
    assert w[0] > 0.999 and np.all(np.isfinite(w))


def test_scale_switch_changes_weights_as_predicted(explorer):
    explorer.q_x.value, explorer.q_y.value = 1.5, 0.4
    scaled = np.array(explorer.displayed_weights())
    explorer.scale_switch.value = False
    unscaled = np.array(explorer.displayed_weights())
    scores = K_SEED.numpy() @ np.array([1.5, 0.4])
    np.testing.assert_allclose(scaled, np.exp(scores / math.sqrt(2)) / np.exp(scores / math.sqrt(2)).sum(), atol=5e-5)
    np.testing.assert_allclose(unscaled, np.exp(scores) / np.exp(scores).sum(), atol=5e-5)
    assert unscaled.max() > scaled.max()                       # without the scale the softmax is sharper
    explorer.temperature.value = math.sqrt(2)                  # scale off with T = √2 is the same as scale on, T = 1
    np.testing.assert_allclose(explorer.displayed_weights(), scaled, atol=1e-4)


def test_widget_picture_equals_a_full_redraw_of_the_same_state(explorer):
    """The fast (blitted) picture must show the same thing as drawing the state from scratch."""
    explorer.q_x.value, explorer.q_y.value, explorer.temperature.value = -0.7, 1.6, 0.6
    explorer.key_picker.value = 1
    explorer.k_x.value = -1.2
    fast = np.asarray(Image.open(io.BytesIO(explorer.image.value)).convert("RGB"), dtype=int)
    from matplotlib.figure import Figure
    fig = Figure(figsize=explorer.fig.get_size_inches(), dpi=explorer.fig.dpi)
    draw_explorer(explorer.state, fig, selected=1)
    full = np.asarray(Image.open(io.BytesIO(figure_png(fig))).convert("RGB"), dtype=int)
    assert fast.shape == full.shape
    differing = np.mean(np.abs(fast - full).sum(axis=-1) > 60)
    assert differing < 0.005, f"{differing:.1%} of the pixels differ between the widget and a full redraw"


def test_picture_changes_where_the_bars_are(explorer):
    """Moving Q towards K₃ must change the weight panel's pixels, not just some bytes."""
    def pixels():
        return np.asarray(Image.open(io.BytesIO(explorer.image.value)).convert("L"), dtype=int)
    a = pixels()
    explorer.q_x.value, explorer.q_y.value = -1.0, 2.0
    b = pixels()
    h, w = a.shape
    lower_left = (slice(h // 2, h), slice(0, w // 2))          # the softmax-weights panel
    assert np.mean(a[lower_left] != b[lower_left]) > 0.01


# ----------------------------------------------------------------------------------- chapter 02 picture
def test_lookback_checks_the_shape_and_draws_one_line_per_pair():
    import matplotlib.pyplot as plt

    w = torch.softmax(torch.randn(3, 4, generator=torch.Generator().manual_seed(0)), dim=1)
    ax = draw_lookback(w, list("abcd"), list("XYZ"))
    assert len(ax.lines) == 12
    widths = [line.get_linewidth() for line in ax.lines]
    assert widths[int(torch.argmax(w.flatten()))] == max(widths)
    legend = ax.get_legend()                                  # the scale: three sample widths, labelled
    assert [text.get_text() for text in legend.get_texts()] == ["0.1", "0.5", "1"]
    assert [h.get_linewidth() for h in legend.legend_handles] == pytest.approx([0.3 + 9 * v for v in (0.1, 0.5, 1)])
    assert max(widths) < legend.legend_handles[-1].get_linewidth()   # no weight is wider than weight 1
    plt.close(ax.figure)
    with pytest.raises(ValueError, match=r"expected \(n_targets, n_sources\) = \(3, 4\)"):
        draw_lookback(w.T, list("abcd"), list("XYZ"))


def test_lookback_numbers_the_steps_only_when_there_are_several():
    import matplotlib.pyplot as plt

    def top_labels(ax):
        return [x.get_text() for x in ax.texts if x.get_position()[1] > 1]

    w = torch.full((2, 3), 1 / 3)
    assert top_labels(draw_lookback(w, list("abc"), ["X", "Y"])) == ["X\n(step 1)", "Y\n(step 2)"]
    assert top_labels(draw_lookback(w[:1], list("abc"), ["gou (dog)"])) == ["gou (dog)"]     # one step: no number
    plt.close("all")


def test_lookback_can_write_the_weights_and_its_legend_takes_the_colour_of_one_step():
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    w = torch.tensor([[0.02, 0.18, 0.80]])
    ax = draw_lookback(w, list("abc"), ["X"], annotate=True)
    assert [x.get_text() for x in ax.texts if 0 < x.get_position()[1] < 1] == ["0.02", "0.18", "0.80"]
    line = to_rgb(ax.lines[0].get_color())
    assert all(to_rgb(h.get_color()) == line for h in ax.get_legend().legend_handles)   # the swatches are the lines'
    several = draw_lookback(torch.full((2, 3), 1 / 3), list("abc"), ["X", "Y"])
    assert not [x for x in several.texts if 0 < x.get_position()[1] < 1]                 # no numbers unless asked
    assert all(to_rgb(h.get_color()) == to_rgb("0.35") for h in several.get_legend().legend_handles)
    plt.close("all")


def test_decoding_step_view_follows_the_slider():
    import matplotlib.pyplot as plt

    from helpers.plotting import draw_decoding_step, draw_decoding_steps
    from helpers.seq2seq import make_model
    from helpers.widgets import DecodingStepViewer

    model = make_model("attention", emb=8, hidden=8, attn_hidden=8, seed=0)
    viewer = DecodingStepViewer(model, "the dog sleeps")
    assert viewer.weights.shape == (len(viewer.output), 3)
    first_png, first_text = viewer.image.value, viewer.readout.value
    assert 'data-step="1"' in first_text and viewer.slider.min == 1 and viewer.slider.max == len(viewer.output)
    if len(viewer.output) > 1:
        viewer.slider.value = 2
        assert 'data-step="2"' in viewer.readout.value and viewer.image.value != first_png
    ax = draw_decoding_step(["a", "b"], ["x", "y"], torch.tensor([[0.2, 0.8], [1.0, 0.0]]), 1)
    assert ax.get_ylim() == (0.0, 1.0) and [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    assert "chose 'y'" in ax.get_title(loc="left")
    with pytest.raises(ValueError, match="step must be between 0 and 1"):
        draw_decoding_step(["a", "b"], ["x", "y"], torch.ones(2, 2) / 2, 2)
    fig = draw_decoding_steps(["a", "b"], ["x", "y", "z"], torch.ones(3, 2) / 2)
    assert sum(ax.get_visible() for ax in fig.axes) == 3
    with pytest.raises(ValueError, match="cannot step through"):
        DecodingStepViewer(model, "the zebra sleeps")
    plt.close("all")


def test_decoding_step_view_redraws_only_what_moves_yet_matches_a_fresh_drawing():
    """The fast path (bars moved, title and output line rewritten over a cached background) must give exactly
    the picture that drawing the step from scratch gives."""
    from matplotlib.figure import Figure

    from helpers.plotting import draw_decoding_step
    from helpers.seq2seq import make_model
    from helpers.widgets import DecodingStepViewer

    model = make_model("attention", emb=8, hidden=8, attn_hidden=8, seed=0)
    viewer = DecodingStepViewer(model, "the old man sees a dog near the big house")
    assert len(viewer.output) >= 4, "an untrained model writes until its length limit"
    for value in (4, 2, len(viewer.output), 3):
        viewer.slider.value = value
    assert viewer.fig._blit_view.background is not None, "later steps reuse the cached background"
    fresh = Figure(figsize=viewer.fig.get_size_inches(), dpi=viewer.fig.dpi)
    draw_decoding_step(viewer.source, viewer.output, viewer.weights, 2, ax=fresh.add_subplot())
    fresh.tight_layout()
    shown = np.asarray(Image.open(io.BytesIO(viewer.image.value))).astype(int)
    drawn = np.asarray(Image.open(io.BytesIO(figure_png(fresh)))).astype(int)
    assert shown.shape == drawn.shape and int((np.abs(shown - drawn).sum(-1) > 30).sum()) == 0
    ax = draw_decoding_step(["a", "b"], ["x", "y"], torch.tensor([[0.2, 0.8], [1.0, 0.0]]), 0)
    draw_decoding_step(["a", "b"], ["x", "y"], torch.tensor([[0.2, 0.8], [1.0, 0.0]]), 1, ax=ax)
    assert [round(b.get_height(), 2) for b in ax.patches] == [1.0, 0.0], "drawn again on its axes, the bars move"
    assert "chose 'y'" in ax.get_title(loc="left") and len(ax.patches) == 2


def test_slider_check_is_wired_and_reads_well_without_a_widget_view():
    from helpers.widgets import SliderCheck

    check = SliderCheck()
    bundle = check._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "SliderCheck(a slider x = 3 and its square: x² = 9)"
    check.slider.value = 7
    assert check.square.value == "x² = 49" and "x = 7" in repr(check) and "children=" not in repr(check)


def test_the_widgets_module_draws_nothing_itself():
    """Drawing lives in helpers.plotting; widgets only wire controls to it (draw_explorer is a re-export)."""
    import ast

    import helpers.plotting
    import helpers.widgets

    assert helpers.widgets.draw_explorer is helpers.plotting.draw_explorer
    tree = ast.parse(open(helpers.widgets.__file__).read())
    drawing = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
               and n.attr in {"subplots", "annotate", "bar", "scatter", "add_collection", "imshow", "plot"}]
    assert not drawing, f"helpers/widgets.py draws ({drawing}): move it to helpers/plotting.py"
