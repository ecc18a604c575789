"""Every interactive explorer of the course: the Q/K explorer (chapter 03) and the translation explorer.

Built the way `interact` is meant to be used: PLAIN functions compute and draw one state
(`explorer_state` here; `draw_explorer` and every other drawing in `helpers.plotting`), and the widget only
wires sliders to them. So a notebook can render a static picture of any state, and a test can set a slider and
compare with the function. (`draw_explorer` is re-exported here: chapter 03 imports it from this module.)

The explorer updates kernel-side: each slider change recomputes the state, redraws the artists of
one reused matplotlib figure and replaces the PNG bytes of an `ipywidgets.Image` and the text of an
`ipywidgets.HTML` readout. Nothing is printed inside an Output widget, so strict nbval stays happy.
"""
from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Sequence

import numpy as np
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers import i18n
from helpers.attention import scaled_dot_product_attention
from helpers.base import to_numpy
from helpers.plotting import (
    EXPLORER_FIGSIZE,
    draw_decoding_step,
    draw_explorer,
    figure_png,
    plot_attention,
    vector_names,
)

__all__ = [
    "SEED_QUERY", "SEED_KEYS", "SEED_VALUES",
    "explorer_state", "draw_explorer", "weights_html", "parse_readout", "QKExplorer",
    "Shown", "tokenize_source", "translate_and_show", "TranslationExplorer", "translation_explorer", "SliderCheck",
    "DecodingStepViewer",
]

# The worked example of the source chapter (section 23.8): three keys, one query, three values.
SEED_QUERY = (1.0, 0.0)
SEED_KEYS = ((1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
SEED_VALUES = ((0.9, 0.1), (0.5, 0.5), (0.1, 0.9))

def _as_matrix(x, name: str, ndim: int) -> np.ndarray:
    a = to_numpy(x)
    if a.ndim != ndim:
        want = "(d,)" if ndim == 1 else "(n_keys, d)"
        raise ValueError(f"{name} has shape {a.shape}; expected shape {want}")
    return a


def explorer_state(q, keys, values, scale: bool = True, temperature: float = 1.0) -> dict:
    """Scores, weights and context for ONE query.  q (d,), keys (n, d), values (n, d_v) -> dict of NumPy arrays.

    scale=True divides the scores by sqrt(d); the temperature T divides them again, so softmax sees
    scores * factor with factor = (1/sqrt(d) if scale else 1) / T. The computation itself is
    `helpers.attention.scaled_dot_product_attention(Q, K, V, scale=factor)`.
    Keys of the dict: query (d,), keys (n, d), values (n, d_v), scores (n,) raw Q·K, factor, logits (n,),
    weights (n,), context (d_v,), scale, temperature.
    """
    q, K, V = _as_matrix(q, "q", 1), _as_matrix(keys, "keys", 2), _as_matrix(values, "values", 2)
    if K.shape[1] != q.shape[0]:
        raise ValueError(f"q has shape {q.shape} and keys {K.shape}; expected keys of shape (n_keys, {q.shape[0]})")
    if V.shape[0] != K.shape[0]:
        raise ValueError(f"keys have shape {K.shape} and values {V.shape}; "
                         f"expected values of shape ({K.shape[0]}, d_v)")
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0; got {temperature}")
    factor = (1.0 / math.sqrt(q.shape[0]) if scale else 1.0) / float(temperature)
    Qt, Kt, Vt = (torch.as_tensor(a, dtype=torch.float64) for a in (q[None, :], K, V))
    context, weights = scaled_dot_product_attention(Qt, Kt, Vt, scale=factor)  # (1, d_v), (1, n)
    scores = (Kt @ Qt[0]).numpy()  # (n,) raw dot products
    return {
        "query": q, "keys": K, "values": V, "scores": scores, "factor": factor, "logits": scores * factor,
        "weights": weights[0].numpy(), "context": context[0].numpy(), "scale": bool(scale),
        "temperature": float(temperature),
    }


def weights_html(state: dict, names: Sequence[str] | None = None) -> str:
    """The current weights and context as HTML text (4 decimals) that a person, a screen reader or a test can read."""
    w, c = state["weights"], state["context"]
    names = names or vector_names(len(w))
    data = " ".join(f"{x:.4f}" for x in w)
    parts = " &nbsp; ".join(f"{name} <b>{x:.4f}</b>" for name, x in zip(names, w, strict=False))
    ctx = ", ".join(f"{x:.4f}" for x in c)
    return (f'<div class="qk-readout" role="status" aria-live="polite" data-weights="{data}">'
            f"{i18n.t('widgets.qk_readout', parts=parts, context=ctx)}</div>")


_DATA_WEIGHTS = re.compile(r'data-weights="([^"]*)"')


def parse_readout(html: str) -> list[float]:
    """The weights written in a readout made by `weights_html` (what the learner sees), as floats."""
    m = _DATA_WEIGHTS.search(html)
    if m is None:
        raise ValueError("this text is not an explorer readout (no data-weights attribute)")
    return [float(x) for x in m.group(1).split()]


# ----------------------------------------------------------------------------------------------- widget
# the output metadata key under which an explorer stores every state it can show (`site_states`): the course
# website draws them without a kernel (site_src/_static/course_explorers.js); JupyterLab shows the widget, and
# strict nbval never compares output metadata
SITE_STATES = "course/explorer-states"


def _weights_for_site(w) -> str:
    """Weights as per-mille integers (0..1000, the precision the website draws them at), "," between columns and
    ";" between rows: one JSON string, so the notebook (indented JSON) stores each state on one line."""
    ints = np.rint(np.atleast_2d(np.asarray(to_numpy(w), dtype=float)) * 1000).astype(int)
    return ";".join(",".join(map(str, row)) for row in ints)


def site_weights(text: str | None) -> np.ndarray | None:
    """The weights a stored state holds (`_weights_for_site`'s string), as floats (n_rows, n_columns)."""
    if text is None:
        return None
    return np.array([[int(x) for x in row.split(",")] for row in text.split(";")], dtype=float) / 1000


class _ShowsWidget:
    """Displays as its `self.widget` in a notebook, with its `repr` as the plain-text fallback (a static reader)
    and, for an explorer with `site_states()`, every state it can show in the output's metadata (SITE_STATES)."""

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        states = self.site_states() if hasattr(self, "site_states") else None
        return (bundle, {SITE_STATES: states}) if states is not None else bundle


class QKExplorer(_ShowsWidget):
    """Sliders for Q and one chosen key, a scale switch and a temperature, wired to `explorer_state` + `draw_explorer`.

    Display it by leaving it as the last expression of a cell. Attributes a test or a self-check can set:
    q_x, q_y, key_picker, k_x, k_y, scale_switch, temperature (widgets); read `state`, `readout.value`,
    `image.value` (PNG bytes).
    """

    def __init__(self, query=SEED_QUERY, keys=SEED_KEYS, values=SEED_VALUES, scale: bool = True,
                 temperature: float = 1.0, limit: float = 2.0, step: float = 0.1):
        import ipywidgets as W

        self._initial = (np.array(query, float), np.array(keys, float), bool(scale), float(temperature))
        self.keys = np.array(keys, dtype=np.float64)
        self.values = np.array(values, dtype=np.float64)
        self.names = vector_names(len(self.keys))
        self.limit = limit
        explorer_state(query, self.keys, self.values, scale, temperature)  # validate shapes early

        def slider(description, value, css, lo=-limit, hi=limit, st=step, fmt=".1f"):
            s = W.FloatSlider(value=value, min=lo, max=hi, step=st, description=description,
                              readout_format=fmt, continuous_update=True, layout=W.Layout(width="310px"),
                              style={"description_width": "90px"})
            s.add_class(css)
            return s

        self.q_x = slider("Q x", float(query[0]), "qk-q-x")
        self.q_y = slider("Q y", float(query[1]), "qk-q-y")
        self.key_picker = W.ToggleButtons(options=[(n, i) for i, n in enumerate(self.names)], value=0,
                                          description=i18n.t("widgets.move_key"), style={"button_width": "52px",
                                                                         "description_width": "90px"})
        self.key_picker.add_class("qk-key-picker")
        self.k_x = slider(f"{self.names[0]} x", self.keys[0, 0], "qk-k-x")
        self.k_y = slider(f"{self.names[0]} y", self.keys[0, 1], "qk-k-y")
        self.scale_switch = W.Checkbox(value=bool(scale), description=i18n.t("widgets.divide_scores"), indent=False)
        self.scale_switch.add_class("qk-scale")
        self.temperature = slider(i18n.t("widgets.temperature"), float(temperature), "qk-temperature", 0.1, 3.0, 0.05,
                                  ".2f")
        self.readout = W.HTML()
        self.readout.add_class("qk-weights")
        self.image = W.Image(format="png", layout=W.Layout(width=f"{int(EXPLORER_FIGSIZE[0] * 90)}px"))
        self.image.add_class("qk-figure")
        controls = W.VBox([W.HTML(f"<b>{i18n.t('widgets.query')}</b>"), self.q_x, self.q_y,
                           W.HTML(f"<b>{i18n.t('widgets.keys')}</b>"), self.key_picker, self.k_x, self.k_y,
                           W.HTML("<b>Softmax</b>"), self.scale_switch, self.temperature, self.readout],
                          layout=W.Layout(width="330px"))
        self.widget = W.HBox([controls, self.image])
        self.widget.add_class("qk-explorer")

        self.fig = Figure(figsize=EXPLORER_FIGSIZE, dpi=90)
        FigureCanvasAgg(self.fig)
        self._syncing = False
        for w in (self.q_x, self.q_y, self.scale_switch, self.temperature):
            w.observe(self._on_change, names="value")
        self.k_x.observe(self._on_key_change, names="value")
        self.k_y.observe(self._on_key_change, names="value")
        self.key_picker.observe(self._on_pick, names="value")
        self.refresh()

    @property
    def query(self) -> np.ndarray:
        """The query the sliders show.  # (2,)"""
        return np.array([self.q_x.value, self.q_y.value], dtype=np.float64)

    @property
    def state(self) -> dict:
        """`explorer_state` for the current slider values."""
        return explorer_state(self.query, self.keys, self.values, self.scale_switch.value, self.temperature.value)

    def refresh(self) -> None:
        """Recompute the state, redraw the figure in place and replace the image bytes and the readout text."""
        state = self.state
        draw_explorer(state, self.fig, selected=self.key_picker.value, limit=self.limit, names=self.names, blit=True)
        self.image.value = figure_png(self.fig)
        self.readout.value = weights_html(state, self.names)

    def displayed_weights(self) -> list[float]:
        """The weights as the readout text shows them (4 decimals)."""
        return parse_readout(self.readout.value)

    def reset(self) -> None:
        """Put every slider back where it started."""
        q, keys, scale, temperature = self._initial
        self._syncing = True
        try:
            self.keys = keys.copy()
            self.q_x.value, self.q_y.value = float(q[0]), float(q[1])
            self.scale_switch.value, self.temperature.value = scale, temperature
            self.key_picker.value = 0
            self.k_x.value, self.k_y.value = float(keys[0, 0]), float(keys[0, 1])
        finally:
            self._syncing = False
        self.refresh()

    def close(self) -> None:
        """Close the explorer's own widgets (frees their kernel-side models); other widgets are left alone."""
        def close_tree(w):
            for child in getattr(w, "children", ()):
                close_tree(child)
            w.close()
        close_tree(self.widget)

    def _on_change(self, change) -> None:
        if not self._syncing:
            self.refresh()

    def _on_key_change(self, change) -> None:
        if self._syncing:
            return
        i = self.key_picker.value
        self.keys[i] = (self.k_x.value, self.k_y.value)
        self.refresh()

    def _on_pick(self, change) -> None:
        i = change["new"]
        self._syncing = True
        try:
            self.k_x.description, self.k_y.description = f"{self.names[i]} x", f"{self.names[i]} y"
            self.k_x.value, self.k_y.value = float(self.keys[i, 0]), float(self.keys[i, 1])
        finally:
            self._syncing = False
        self.refresh()

    def __repr__(self) -> str:
        """The whole state in one line (the text a static page shows, from which the website's live explorer starts)."""
        q = ", ".join(f"{x:.2f}" for x in self.query)
        rows = lambda a: "[" + ", ".join("[" + ", ".join(f"{x:g}" for x in r) + "]" for r in a) + "]"  # noqa: E731
        w = ", ".join(f"{x:.4f}" for x in self.state["weights"])
        return (f"QKExplorer(Q=[{q}], keys={rows(self.keys)}, values={rows(self.values)}, "
                f"scale={'on' if self.scale_switch.value else 'off'}, T={self.temperature.value:.2f}, weights=[{w}])")


# ----------------------------------------------------------------------------------------------- translation
@dataclass
class Shown:
    """What translate_and_show found: tokens, translation, reference, weights (n_out, n_src), a message, a figure."""

    source: list
    translation: list | None
    reference: list | None
    weights: torch.Tensor | None
    message: str
    figure: object | None = None

    @property
    def ok(self) -> bool:
        """True when the sentence could be translated (no unknown words, not empty)."""
        return self.translation is not None


def tokenize_source(sentence: str | Sequence[str]) -> list[str]:
    """Lower-case words without punctuation: 'The dog sleeps.' -> ['the', 'dog', 'sleeps']."""
    if not isinstance(sentence, str):
        return [str(t) for t in sentence]
    for ch in ".,;:!?\"'":
        sentence = sentence.replace(ch, " ")
    return sentence.lower().split()


def translate_and_show(model, sentence: str | Sequence[str], plot: bool = True) -> Shown:
    """Translate one source sentence and draw its attention map (source words on x, translation on y).

    Never raises on bad input: unknown words or an empty sentence give a Shown with a clear message
    and no translation. The figure (if any) is returned open; close it when done (plt.close(shown.figure)).
    """
    from helpers import toylang

    tokens = tokenize_source(sentence)
    if not tokens:
        return Shown([], None, None, None, i18n.t("widgets.type_a_sentence"))
    unknown = [t for t in tokens if t not in model.src_vocab]
    if unknown:
        words = ", ".join(f"'{w}'" for w in dict.fromkeys(unknown))
        n_words = sum(len(ws) for ws in toylang.words_by_category().values())
        return Shown(tokens, None, None, None,
                     i18n.t("widgets.unknown_words", words=words, n=n_words, hint=toylang.vocabulary_hint()))
    from helpers.seq2seq import greedy_translate

    (hyp,), (weights,) = greedy_translate(model, [tokens])
    try:
        references = toylang.references(tokens)
    except ValueError as err:
        reference = None
        verdict = i18n.t("widgets.no_reference", error=err)
    else:
        reference = references[0]
        verdict = (i18n.t("widgets.matches") if hyp in references else
                   i18n.t("widgets.reference", reference=" ".join(reference)))
    message = f"{' '.join(tokens)}  ->  {' '.join(hyp) or i18n.t('widgets.empty')}  {verdict}"
    figure = None
    if plot and weights is not None and len(hyp) > 0:
        ax = plot_attention(weights, keys=tokens, queries=hyp, title=i18n.t("plots.translating_title", n=len(tokens)),
                            xlabel=i18n.t("plots.source_words"), ylabel=i18n.t("plots.translation_rows"))
        figure = ax.figure
    elif weights is None:
        message += i18n.t("widgets.no_attention")
    return Shown(tokens, hyp, reference, weights, message, figure)


class TranslationExplorer(_ShowsWidget):
    """A thin widget layer over translate_and_show: a dropdown of sentences, a text box, the result and its map.

    Updates happen kernel-side (HTML and Image widgets), so nothing is printed into the cell. `children` are the
    widgets (dropdown, text box, result HTML, map image); `show(sentence)` is what they call (tests, self-checks);
    `last` is the Shown of the sentence on display. Its text fallback (a static reader) names that sentence.
    """

    def __init__(self, model, sentences: Sequence[str]):
        import ipywidgets as widgets

        self.model, self.sentences, self.last = model, list(sentences), None
        self.pick = widgets.Dropdown(options=self.sentences, description=i18n.t("widgets.test_sentence"),
                                     layout=widgets.Layout(width="95%"), style={"description_width": "initial"})
        self.typed = widgets.Text(placeholder=i18n.t("widgets.type_placeholder"), continuous_update=False,
                                  description=i18n.t("widgets.your_sentence"), layout=widgets.Layout(width="95%"),
                                  style={"description_width": "initial"})
        self.info = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.pick.observe(lambda change: self.show(change["new"]), names="value")
        self.typed.observe(lambda change: self.show(change["new"]), names="value")
        self.widget = widgets.VBox([self.pick, self.typed, self.info, self.image])
        if self.sentences:
            self.show(self.pick.value)

    @property
    def children(self) -> tuple:
        """(dropdown, text box, result HTML, map image): the explorer's widgets."""
        return self.widget.children

    def show(self, sentence) -> Shown:
        """Translate `sentence`, show the result and its attention map; returns the Shown."""
        shown = translate_and_show(self.model, sentence)
        self.info.value = self.info_html(shown)
        self.image.value = (figure_png(shown.figure, compress_level=6, close=True) if shown.figure is not None
                            else b"")
        self.last = shown
        return shown

    @staticmethod
    def info_html(shown: Shown) -> str:
        """The result line the explorer shows for one Shown (green when translated, orange when not)."""
        colour = "#1a7f37" if shown.ok else "#b35900"
        return f"<p style='color:{colour}; font-family:monospace'>{html.escape(shown.message)}</p>"

    def site_states(self) -> dict:
        """Every test sentence's result, for the website: {"view": "heatmap", "dims": [the sentence dropdown],
        "states": {"i": {"weights" (per mille, n_out x n_src), "keys", "queries", "title", "readout"}}}."""
        states = {}
        for i, sentence in enumerate(self.sentences):
            shown = translate_and_show(self.model, sentence, plot=False)
            ok = shown.weights is not None and bool(shown.translation)
            states[str(i)] = {"weights": _weights_for_site(shown.weights[:, : len(shown.source)]) if ok else None,
                              "keys": shown.source, "queries": shown.translation or [],
                              "title": i18n.t("plots.translating_title", n=len(shown.source)),
                              "readout": self.info_html(shown)}
        return {"view": "heatmap", "states": states, "xlabel": i18n.t("plots.source_words"),
                "ylabel": i18n.t("plots.translation_rows"),
                "dims": [{"name": "sentence", "label": i18n.t("widgets.test_sentence"), "control": "select",
                          "options": list(self.sentences), "value": max(0, self.sentences.index(self.pick.value))
                          if self.pick.value in self.sentences else 0}]}

    def __repr__(self) -> str:
        showing = self.last.message if self.last is not None else i18n.t("widgets.type_a_sentence")
        return f"TranslationExplorer({i18n.t('widgets.explorer_repr', n=len(self.sentences), showing=showing)})"


def translation_explorer(model, sentences: Sequence[str]) -> TranslationExplorer:
    """The translation explorer of chapter 05 over `model` and a list of test sentences (see TranslationExplorer)."""
    return TranslationExplorer(model, sentences)


class SliderCheck(_ShowsWidget):
    """Chapter 00's widget check: a slider x and a label showing x², wired by `show_square` (a plain method).

    `slider` and `square` are the widgets; setting `slider.value` runs the same update as dragging. Its text
    fallback (a static reader, or a browser without the widget extension) says what it shows.
    """

    def __init__(self, value: int = 3):
        import ipywidgets as widgets

        self.slider = widgets.IntSlider(value=value, min=0, max=10, description="x")
        self.square = widgets.Label()
        self.slider.observe(self.show_square, names="value")
        self.show_square()
        self.widget = widgets.HBox([self.slider, self.square])

    def show_square(self, change=None) -> None:
        """Write x² for the slider's value into the label."""
        self.square.value = f"x² = {self.slider.value ** 2}"

    def __repr__(self) -> str:
        return i18n.t("widgets.slider_check", value=self.slider.value, square=self.square.value)


class DecodingStepViewer(_ShowsWidget):
    """A step slider over one greedy translation: at step t, the output so far, the weights over the source
    words (fixed 0-1 axis) and the word chosen. A thin layer over `helpers.plotting.draw_decoding_step`.

    Attributes a test or a self-check can set or read: `slider` (IntSlider, the step counted from 1, as the
    label says), `readout.value` (HTML with data-step, counted from 1, and data-word), `image.value` (PNG bytes),
    `source`, `output`, `weights` (n_output, n_source).
    """

    def __init__(self, model, sentence: str | Sequence[str]):
        import ipywidgets as W

        shown = translate_and_show(model, sentence, plot=False)
        if not shown.ok or shown.weights is None or not shown.translation:
            raise ValueError(i18n.t("widgets.cannot_step", message=shown.message))
        self.source, self.output, self.weights = shown.source, shown.translation, shown.weights
        self.slider = W.IntSlider(value=1, min=1, max=len(self.output), step=1, description=i18n.t("widgets.step"),
                                  continuous_update=True, layout=W.Layout(width="420px"))
        self.slider.add_class("decoding-step")
        self.readout = W.HTML()
        self.readout.add_class("decoding-readout")
        self.image = W.Image(format="png")
        self.widget = W.VBox([self.slider, self.readout, self.image])
        self.widget.add_class("decoding-viewer")
        self.fig = Figure(figsize=(max(5.0, 0.45 * len(self.source) + 1.5), 3.2), dpi=90)
        FigureCanvasAgg(self.fig)
        self.slider.observe(lambda change: self.refresh(), names="value")
        self.refresh()

    def refresh(self) -> None:
        """Redraw the picture and the readout for the slider's step."""
        t = self.slider.value - 1
        first = not self.fig.axes
        draw_decoding_step(self.source, self.output, self.weights, t,
                           ax=self.fig.add_subplot() if first else self.fig.axes[0])   # later steps: bars move
        if first:                            # the tick labels never change: lay out once, then redraw only
            self.fig.tight_layout()          # the bars, the title and the output line (helpers.plotting.figure_png)
            ax = self.fig.axes[0]
            drawn = ax._decoding_step
            dynamic = [*drawn["bars"], ax.spines["bottom"], drawn["title"], drawn["so_far"]]   # spine over bars
            for artist in dynamic:
                artist.set_animated(True)
            self.fig._blit_view = SimpleNamespace(blit=True, background=None, dynamic=dynamic)
        self.image.value = figure_png(self.fig)
        self.readout.value = self.readout_html(t)

    def readout_html(self, t: int) -> str:
        """The readout of step t (from 0): HTML with data-step (from 1) and data-word."""
        so_far = html.escape(" ".join(self.output[: t + 1]))
        top = self.source[int(torch.as_tensor(self.weights[t]).argmax())]
        word = html.escape(self.output[t])
        return (f'<div class="decoding-state" data-step="{t + 1}" data-word="{word}">'
                + i18n.t("widgets.step_readout", step=t + 1, n=len(self.output), so_far=so_far, top=html.escape(top))
                + "</div>")

    def site_states(self) -> dict:
        """Every step, for the website: {"view": "bars", "dims": [the step slider], "states": {"t": {"weights" (per
        mille, one per source word), "keys" (the source words), "title", "so_far", "readout"}}}."""
        n = len(self.output)
        states = {str(t): {"weights": _weights_for_site(self.weights[t][: len(self.source)]), "keys": self.source,
                           "title": i18n.t("plots.step_title", step=t + 1, n=n, word=self.output[t]),
                           "so_far": " ".join(self.output[: t + 1]), "readout": self.readout_html(t)}
                  for t in range(n)}
        return {"view": "bars", "states": states, "ylabel": i18n.t("plots.attention_title"),
                "dims": [{"name": "step", "label": i18n.t("widgets.step"), "control": "range",
                          "options": [str(t + 1) for t in range(n)], "value": self.slider.value - 1}]}

    def __repr__(self) -> str:
        t = self.slider.value - 1
        return f"DecodingStepViewer({i18n.t('widgets.step_repr', step=t + 1, n=len(self.output), word=self.output[t])})"


# ----------------------------------------------------------------------------------------------- Transformer heads
def _head_pair(sentence) -> tuple[list[str], list[str]]:
    """(source tokens, target tokens) from a source sentence (target: the grammar's translation) or a pair."""
    from helpers import toylang

    if isinstance(sentence, tuple):
        if len(sentence) < 2:
            raise ValueError(f"a sentence pair needs (source, target[, alignment]); got {len(sentence)} item(s)")
        return tokenize_source(sentence[0]), tokenize_source(sentence[1])
    src = tokenize_source(sentence)
    if not src:
        raise ValueError("an empty sentence has no attention map")
    return src, list(toylang.translate(src)[0])


def head_readout_html(weights, keys: Sequence[str], queries: Sequence[str], kind: str, layer: int, head: int,
                      sentence: int, n_layers: int, n_heads: int) -> str:
    """The explorer's readout: which head is shown (data-kind, data-layer, data-head, data-sentence; layer, head and
    sentence counted from 1, as the controls show them; the arguments count from 0) and its strongest link, as HTML."""
    from helpers.plotting import HEAD_KINDS

    w = to_numpy(weights)
    i, j = np.unravel_index(int(np.argmax(w)), w.shape)
    q, k = html.escape(str(queries[i])), html.escape(str(keys[j]))
    return (f'<div class="head-state" role="status" aria-live="polite" data-kind="{kind}" data-layer="{layer + 1}" '
            f'data-head="{head + 1}" data-sentence="{sentence + 1}" data-strongest="{w[i, j]:.4f}">'
            + i18n.t("widgets.head_readout", kind=html.escape(HEAD_KINDS[kind]), layer=layer + 1, n_layers=n_layers,
                     head=head + 1, n_heads=n_heads, sentence=sentence + 1, query=q, key=k, weight=w[i, j]) + "</div>")


class HeadExplorer(_ShowsWidget):
    """Pick a kind of attention, a layer, a head and a sentence; see that head's map. A thin layer over
    `helpers.plotting.draw_head` and `TransformerTranslator.attention_maps` (teacher forcing: the decoder reads
    the reference translation).

    sentences: source sentences (strings or token lists; the target is the grammar's translation) or
    (source, target[, alignment]) pairs. Controls a test or a self-check can set: `kind` (Dropdown of
    "encoder", "decoder_self", "decoder_cross"), `layer` and `head` (IntSliders counted from 1, as their labels
    show), `sentence` (Dropdown of indices from 0, labelled and shown counted from 1); read `readout.value` (HTML
    with data-kind, data-layer, data-head, data-sentence) and `image.value` (PNG bytes). CSS classes:
    head-explorer (the whole widget), head-kind, head-layer, head-pick (the head slider), head-sentence,
    head-readout, head-figure.
    """

    def __init__(self, model, sentences: Sequence, kind: str = "decoder_cross"):
        import ipywidgets as W

        from helpers.plotting import HEAD_KINDS

        self.model = model
        self.pairs = [_head_pair(s) for s in sentences]
        if not self.pairs:
            raise ValueError("HeadExplorer needs at least one sentence")
        unknown = sorted({t for src, _ in self.pairs for t in src if t not in model.src_vocab})
        if unknown:
            raise ValueError(f"unknown source word(s) {unknown}: the toy source language does not have them")
        if kind not in HEAD_KINDS:
            raise ValueError(f"kind must be one of {sorted(HEAD_KINDS)}, got {kind!r}")
        self._maps: dict[int, dict] = {}
        maps = self.maps(0)
        self.n_layers = len([1 for kind_, _ in maps if kind_ == "encoder"])
        self.n_heads = int(maps[("encoder", 0)].shape[1])
        style = {"description_width": "80px"}
        self.kind = W.Dropdown(options=[(label, k) for k, label in HEAD_KINDS.items()], value=kind,
                               description=i18n.t("widgets.head_attention"), style=style,
                               layout=W.Layout(width="420px"))
        self.layer = W.IntSlider(value=1, min=1, max=self.n_layers, description=i18n.t("widgets.head_layer"),
                                 style=style, disabled=self.n_layers == 1, layout=W.Layout(width="300px"))
        self.head = W.IntSlider(value=1, min=1, max=self.n_heads, description=i18n.t("widgets.head_head"), style=style,
                                layout=W.Layout(width="300px"))
        labels = [f"{i + 1}: {' '.join(src)}" for i, (src, _) in enumerate(self.pairs)]   # shown counted from 1
        self.sentence = W.Dropdown(options=[(lab if len(lab) < 80 else lab[:77] + "...", i)
                                            for i, lab in enumerate(labels)], value=0,
                                   description=i18n.t("widgets.head_sentence"),
                                   style=style, layout=W.Layout(width="95%"))
        for control, css in ((self.kind, "head-kind"), (self.layer, "head-layer"), (self.head, "head-pick"),
                             (self.sentence, "head-sentence")):
            control.add_class(css)
            control.observe(lambda change: self.refresh(), names="value")
        self.readout = W.HTML()
        self.readout.add_class("head-readout")
        self.image = W.Image(format="png")
        self.image.add_class("head-figure")
        self.widget = W.VBox([self.sentence, W.HBox([self.kind, self.layer, self.head]), self.readout, self.image])
        self.widget.add_class("head-explorer")
        self.fig = Figure(dpi=90)
        FigureCanvasAgg(self.fig)
        self.refresh()

    def maps(self, index: int) -> dict:
        """attention_maps of sentence `index` (computed once): {(kind, layer): (1, n_heads, n_q, n_k)}."""
        if index not in self._maps:
            from helpers.seq2seq import make_batch

            batch = make_batch([self.pairs[index]], self.model.src_vocab, self.model.tgt_vocab)
            self._maps[index] = self.model.attention_maps(batch)
        return self._maps[index]

    def shown(self):
        """(weights (n_q, n_k), key labels, query labels) of what the controls select."""
        from helpers.plotting import head_map

        src, tgt = self.pairs[self.sentence.value]
        return head_map(self.maps(self.sentence.value), src, tgt, self.kind.value, self.layer.value - 1,
                        self.head.value - 1)

    def refresh(self) -> None:
        """Redraw the map and rewrite the readout for the current controls."""
        from helpers.plotting import draw_head

        src, tgt = self.pairs[self.sentence.value]
        weights, keys, queries = self.shown()
        self.fig.clear()
        self.fig.set_size_inches(max(4.0, 2.4 + 0.3 * len(keys)), max(3.0, 1.8 + 0.27 * len(queries)))
        draw_head(self.maps(self.sentence.value), src, tgt, self.kind.value, self.layer.value - 1,
                  self.head.value - 1, ax=self.fig.add_subplot())
        self.fig.tight_layout()
        self.image.value = figure_png(self.fig, compress_level=6)
        self.readout.value = head_readout_html(weights, keys, queries, self.kind.value, self.layer.value - 1,
                                               self.head.value - 1, self.sentence.value, self.n_layers,
                                               self.n_heads)

    def site_states(self) -> dict:
        """Every (sentence, kind, layer, head) the controls can pick, for the website: {"view": "heatmap", "dims":
        [sentence, kind, layer, head], "states": {"s,k,l,h": {"weights" (per mille), "keys", "queries", "title",
        "readout"}}} (indices from 0, in the order of each control's options)."""
        from helpers.plotting import HEAD_KINDS, head_map

        kinds = list(HEAD_KINDS)
        states = {}
        for s_, (src, tgt) in enumerate(self.pairs):
            maps = self.maps(s_)
            for k, kind in enumerate(kinds):
                for layer in range(self.n_layers):
                    for head in range(self.n_heads):
                        w, keys, queries = head_map(maps, src, tgt, kind, layer, head)
                        states[f"{s_},{k},{layer},{head}"] = {
                            "weights": _weights_for_site(w), "keys": list(keys), "queries": list(queries),
                            "title": i18n.t("plots.head_title", kind=HEAD_KINDS[kind], layer=layer + 1,
                                            n_layers=self.n_layers, head=head + 1, n_heads=self.n_heads),
                            "readout": head_readout_html(w, keys, queries, kind, layer, head, s_, self.n_layers,
                                                         self.n_heads)}
        return {"view": "heatmap", "states": states,
                "dims": [{"name": "sentence", "label": i18n.t("widgets.head_sentence"), "control": "select",
                          "options": [label for label, _ in self.sentence.options], "value": self.sentence.value},
                         {"name": "kind", "label": i18n.t("widgets.head_attention"), "control": "select",
                          "options": [HEAD_KINDS[k] for k in kinds], "value": kinds.index(self.kind.value)},
                         {"name": "layer", "label": i18n.t("widgets.head_layer"), "control": "range",
                          "options": [str(i + 1) for i in range(self.n_layers)], "value": self.layer.value - 1},
                         {"name": "head", "label": i18n.t("widgets.head_head"), "control": "range",
                          "options": [str(i + 1) for i in range(self.n_heads)], "value": self.head.value - 1}]}

    def __repr__(self) -> str:
        from helpers.plotting import HEAD_KINDS

        # English shows the value to set (kind="decoder_cross"); Chinese its label, as no code key stands in a
        # Chinese sentence. Sentences are counted from 1, as the dropdown shows them.
        kind = HEAD_KINDS[self.kind.value] if i18n.get_lang() == "zh" else self.kind.value
        return "HeadExplorer(" + i18n.t("widgets.head_repr", kind=kind, layer=self.layer.value,
                                        n_layers=self.n_layers, head=self.head.value, n_heads=self.n_heads,
                                        sentence=self.sentence.value + 1, n=len(self.pairs)) + ")"


__all__ += ["head_readout_html", "HeadExplorer", "SITE_STATES", "site_weights"]
