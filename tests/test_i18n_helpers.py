"""Every string a helper shows goes through the catalogue (helpers.i18n.t), and English stays byte for byte what it
was: each helper is called under "en" and its labels are compared with the literal strings it drew before the
catalogue held them; under "zh" the same labels are Chinese. Covers the plot helpers of chapters 01 and 05-08, the
decoding-step viewer, translate_and_show, the head explorer, results_table, the progress bars and the vocabulary
hint inside the unknown-word message."""
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest

import helpers
from helpers import i18n

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_lang("en")
    plt.close("all")


def texts(ax) -> list:
    """Title, axis labels, tick labels and legend texts of an Axes (what a reader sees)."""
    legend = ax.get_legend()
    return [ax.get_title(), ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel(),
            [t.get_text() for t in ax.get_xticklabels()],
            [t.get_text() for t in legend.get_texts()] if legend else []]


def in_both(draw):
    """draw() under "en", then under "zh" (the Chinese font registered, as a zh notebook's setup cell does)."""
    english = draw()
    plt.close("all")
    helpers.setup(lang="zh", quiet=True)
    try:
        chinese = draw()
    finally:
        helpers.setup(lang="en", quiet=True)
    return english, chinese


def flat(found) -> str:
    return "\n".join(flat(x) if isinstance(x, list) else str(x) for x in found)


def assert_chinese(english, chinese, keep=()):
    """Every English text that has a letter-word is Chinese in the zh run (except the listed ones, e.g. tokens)."""
    for en, zh in zip(english, chinese, strict=True):
        if isinstance(en, list):
            assert_chinese(en, zh, keep)
        elif re.search(r"[a-z]{3}", en) and en not in keep:
            assert CJK.search(zh), f"still English under zh: {en!r} -> {zh!r}"


# ---------------------------------------------------------------- plots of chapters 01, 05, 06
def quality():
    from helpers.plotting import plot_quality_by_length

    results = {"attention": {"5-8": {"bleu": 90.0}, "9-12": {"bleu": 80.0}},
               "no attention": {"5-8": {"bleu": 70.0}, "9-12": {"bleu": 40.0}}}
    return texts(plot_quality_by_length(results, unseen="9-12"))


def test_plot_quality_by_length_labels():
    en, zh = in_both(quality)
    assert en == ["BLEU (0-100) by sentence length", "", "source sentence length (words)", "BLEU (0-100)",
                  ["5-8", "9-12\n(unseen length)"], ["attention", "no attention"]]
    assert zh[0] == "BLEU（0-100）随句长的变化" and zh[4][1] == "9-12\n（训练中没见过的长度）"
    assert_chinese(en, zh, keep=("attention", "no attention"))


def test_metric_labels_of_every_metric():
    from helpers.plotting import METRIC_LABELS

    assert dict(METRIC_LABELS) == {"bleu": "BLEU (0-100)", "exact": "exact match (%)",
                                   "align": "alignment accuracy (%)", "mass": "attention mass on the gold words (%)",
                                   "retained": "share kept of own 4-10 BLEU (%)"}
    with i18n.language("zh"):
        assert all(CJK.search(v) for k, v in METRIC_LABELS.items() if k != "bleu")
    assert METRIC_LABELS.get("loss", "loss") == "loss"


def budget():
    from helpers.plotting import plot_budget_curve

    curve = {"a": [{"cpu": 1.0, "mean": 50.0, "low": 40.0, "high": 60.0, "steps": 100}]}
    return texts(plot_budget_curve(curve, ylabel="BLEU", title="t"))


def test_plot_budget_curve_labels():
    en, zh = in_both(budget)
    assert en[2] == "training CPU seconds (one thread; numbers: steps)"
    assert CJK.search(zh[2])


def probe():
    from helpers.plotting import plot_probe

    return texts(plot_probe({"first noun": {"5-8": 80.0}}, title="t", chance=25.0))


def test_plot_probe_labels():
    en, zh = in_both(probe)
    assert en[2:4] == ["source sentence length (words)", "probe accuracy (%)"]
    assert en[5] == ["first noun", "chance (25%)"]
    assert zh[2:4] == ["源句长度（词数）", "探针准确率（%）"] and zh[5] == ["first noun", "随机猜测（25%）"]


def gradient():
    from helpers.plotting import plot_gradient_by_length

    return texts(plot_gradient_by_length({"gru": {5: 1.0, 10: 0.1}}, title="t"))


def test_plot_gradient_by_length_labels():
    en, zh = in_both(gradient)
    assert en[2:4] == ["source sentence length (words)", "|d loss / d first word| (log scale)"]
    assert_chinese(en[2:4], zh[2:4])


def gradient_curves():
    from helpers.plotting import plot_gradient_curves

    return texts(plot_gradient_curves({"gru": {"0": 1.0, "1-2": 0.1}}, title="t",
                                      spread={"gru": {"0": (0.5, 2.0), "1-2": (0.05, 0.2)}}))


def test_plot_gradient_curves_labels():
    en, zh = in_both(gradient_curves)
    assert en[2:5] == ["distance through the chain (encoder steps to the nearer end)",
                       "gradient / output error (log scale)", ["0", "1-2"]]
    assert_chinese(en[2:4], zh[2:4])


ROWS = [{"set": "test", "config": c, "seed": s, "bleu": 50.0 + s + (5 if c == "b" else 0)}
        for c in ("a", "b") for s in (0, 1, 2)]


def seed_points(level=None):
    from helpers.plotting import plot_seed_points

    return texts(plot_seed_points(ROWS, "test", level=level))


def test_plot_seed_points_labels():
    en, zh = in_both(seed_points)
    assert en[0] == "bleu on test, one dot per seed" and en[2:4] == ["variant", "BLEU (0-100)"]
    assert en[5] == ["seed 0", "seed 1", "seed 2", "mean ± 1 std"]
    assert_chinese(en, zh, keep=("a", "b"))
    en, zh = in_both(lambda: seed_points(level=0.95))
    assert en[5][-1] == "mean, 95% t-interval" and zh[5][-1] == "均值，95% t 区间"


def paired():
    from helpers.plotting import plot_paired_differences

    result = {"diffs": [1.0, 2.0], "diff": 1.5, "half_width": 0.5, "level": 0.95, "seeds": [0, 1], "a": "x",
              "b": "y", "value": "bleu", "set": "test"}
    return texts(plot_paired_differences(result))


def test_plot_paired_differences_labels():
    en, zh = in_both(paired)
    assert en == ["Paired differences, x - y", "", "seed", "bleu difference on test", ["0", "1", "mean"],
                  ["one seed", "mean, 95% interval"]]
    assert_chinese(en, zh)


def loss_curves():
    from helpers.plotting import plot_loss_curves

    return texts(plot_loss_curves({"attention": list(np.linspace(3, 1, 50))}, smooth=10))


def test_plot_loss_curves_labels():
    en, zh = in_both(loss_curves)
    assert en[0] == "Training loss" and en[2:4] == ["training step (batches)", "cross-entropy (mean of 10 steps, log)"]
    assert_chinese(en, zh, keep=("attention",))


def snapshots():
    from helpers.plotting import plot_attention_snapshots

    fig = plot_attention_snapshots({0: np.full((2, 2), 0.5), 100: np.eye(2)}, ["x", "y"], ["u", "v"])
    first = fig.axes[0]
    return [fig._suptitle.get_text(), first.get_title(), first.get_xlabel(), first.get_ylabel(),
            fig.axes[-1].get_ylabel()]


def test_plot_attention_snapshots_labels():
    en, zh = in_both(snapshots)
    assert en == ["The attention map of one sentence during training", "after 0 steps", "source words",
                  "target words", "weight (0-1)"]
    assert_chinese(en, zh)


def alignment():
    from helpers.plotting import plot_alignment_curve

    ax = plot_alignment_curve({0: {"align": 10.0, "mass": 0.1}, 50: {"align": 90.0, "mass": 0.8}},
                              baseline={"align": 20.0, "mass": 0.2})
    return texts(ax) + [ax.figure.axes[1].get_ylabel()]


def test_plot_alignment_curve_labels():
    en, zh = in_both(alignment)
    assert en[0] == "Alignment emerges during training"
    assert en[2:4] == ["training step (batches)", "alignment accuracy (%)"]
    assert en[5] == ["alignment accuracy (%)", "no-information baseline (uniform attention)", "mass on gold (0-1)"]
    assert en[6] == "attention mass on gold (0-1)"
    assert_chinese(en, zh)


# ---------------------------------------------------------------- chapter 05: the decoding-step viewer, translation
def decoding_step():
    from helpers.plotting import draw_decoding_step

    ax = draw_decoding_step(["the", "dog"], ["gou", "le"], np.array([[0.2, 0.8], [0.6, 0.4]]), 1)
    return texts(ax) + [ax._decoding_step["so_far"].get_text()]


def test_draw_decoding_step_labels():
    en, zh = in_both(decoding_step)
    assert en[1:4] == ["step 2 of 2: chose 'le'", "source words (orange: most attended)", "attention weight (0-1)"]
    assert en[6] == "output so far: gou [le]"
    assert zh[1] == "第 2 步（共 2 步）：选了 'le'" and zh[6] == "目前的输出：gou [le]"
    assert_chinese(en, zh, keep=("the", "dog"))


@pytest.fixture(scope="module")
def gru_model():
    from helpers.seq2seq import make_model

    return make_model("attention", emb=8, hidden=8, attn_hidden=8, seed=0)


def test_decoding_step_viewer_in_both_languages(gru_model, tmp_path):
    from helpers.widgets import DecodingStepViewer

    def view():
        viewer = DecodingStepViewer(gru_model, "the dog sleeps")
        ax = viewer.fig.axes[0]
        found = [ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel(), ax._decoding_step["so_far"].get_text(),
                 viewer.readout.value, viewer.slider.description, repr(viewer)]
        if i18n.get_lang() == "zh":
            (tmp_path / "viewer.png").write_bytes(viewer.image.value)
        return found

    en, zh = in_both(view)
    word = en[0].split(": chose ")[1]
    assert en[0].startswith("step 1 of ") and en[1:3] == ["source words (orange: most attended)",
                                                          "attention weight (0-1)"]
    assert en[3] == f"output so far:  [{word.strip(chr(39))}]" and "output so far <b>" in en[4]
    assert en[5] == "step" and en[6].startswith("DecodingStepViewer(step 1 of ")
    assert_chinese(en, zh)
    assert (tmp_path / "viewer.png").stat().st_size > 1000


def test_translate_and_show_labels_and_unknown_word_categories(gru_model):
    from helpers.widgets import translate_and_show

    def show():
        shown = translate_and_show(gru_model, "the dog sleeps")
        ax = shown.figure.axes[0]
        unknown = translate_and_show(gru_model, "the zebra sleeps").message
        return [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), unknown]

    en, zh = in_both(show)
    assert en[:3] == ["Attention while translating 3 words", "source words", "translation (one row per output word)"]
    for label in ("determiners: the, a,", "; adjectives: ", "; nouns: ", "; prepositions: ", "; verbs with an object: ",
                  "; verbs without one: ", "; phrasal verbs: ", "; relative words: ", "; joining words: "):
        assert label in en[3], label
    assert_chinese(en[:3], zh[:3])
    for label in ("限定词：the, a,", "；形容词：", "；名词：", "；介词：", "；带宾语的动词：", "；不带宾语的动词：",
                  "；短语动词：", "；关系词：", "；连词："):
        assert label in zh[3], label
    assert "determiners" not in zh[3] and "'zebra'" in zh[3]


# ---------------------------------------------------------------- chapter 07: heads and the head explorer
@pytest.fixture(scope="module")
def transformer():
    from helpers.transformer import make_transformer

    return make_transformer(d_model=16, n_heads=2, n_layers=1, d_ff=32, seed=0).eval()


def head_maps(model):
    from helpers.seq2seq import make_batch

    pair = (["the", "dog", "sleeps"], ["gou", "shui", "le"])
    return model.attention_maps(make_batch([pair], model.src_vocab, model.tgt_vocab)), pair


def test_draw_head_and_draw_layer_heads_labels(transformer):
    from helpers.plotting import draw_head, draw_layer_heads

    maps, (src, tgt) = head_maps(transformer)

    def draw():
        found = []
        for kind in ("encoder", "decoder_self", "decoder_cross"):
            ax = draw_head(maps, src, tgt, kind, 0, 1)
            found += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        fig = draw_layer_heads(maps, src, tgt, "decoder_cross")
        found += [fig._suptitle.get_text(), fig.axes[0].get_title(), fig.axes[-1].get_ylabel()]
        return found

    en, zh = in_both(draw)
    assert en == ["encoder self-attention\nlayer 1 of 1, head 2 of 2", "source words (keys)", "source words (queries)",
                  "decoder self-attention\nlayer 1 of 1, head 2 of 2", "target words read so far (keys)",
                  "word being written (queries)",
                  "cross-attention (decoder → encoder)\nlayer 1 of 1, head 2 of 2", "source words (keys)",
                  "word being written (queries)",
                  "cross-attention (decoder → encoder), layer 1: every head", "head 1 of 2", "weight (0-1)"]
    assert zh[0] == "编码器自注意力\n第 1 层（共 1 层），第 2 个头（共 2 个）"
    assert zh[3].startswith("解码器自注意力\n") and zh[6].startswith("交叉注意力（解码器 → 编码器）\n")
    assert_chinese(en, zh)


def test_head_explorer_labels_options_and_readout(transformer, tmp_path):
    from helpers.plotting import HEAD_KINDS
    from helpers.widgets import HeadExplorer

    def explore():
        explorer = HeadExplorer(transformer, ["the dog sleeps"])
        if i18n.get_lang() == "zh":
            (tmp_path / "heads.png").write_bytes(explorer.image.value)
        readout = re.sub(r"<[^>]+>", "", explorer.readout.value)
        return [[label for label, _ in explorer.kind.options], explorer.kind.description, explorer.layer.description,
                explorer.head.description, explorer.sentence.description, readout, repr(explorer)]

    en, zh = in_both(explore)
    assert en[0] == ["encoder self-attention", "decoder self-attention", "cross-attention (decoder → encoder)"]
    assert en[1:5] == ["attention", "layer", "head", "sentence"]
    assert re.fullmatch(r"cross-attention \(decoder → encoder\) · layer 1 of 1 · head 1 of 2 · sentence 1: "
                        r"strongest link \S+ → \S+ \(\d\.\d{4}\)", en[5]), en[5]
    assert en[6] == "HeadExplorer(decoder_cross, layer 1 of 1, head 1 of 2, sentence 1 of 1)"   # counted from 1
    assert zh[0] == ["编码器自注意力", "解码器自注意力", "交叉注意力（解码器 → 编码器）"]
    assert zh[1:5] == ["注意力", "层", "头", "句子"]
    assert zh[5].startswith("交叉注意力（解码器 → 编码器） · 第 1 层（共 1 层）· 第 1 个头（共 2 个）· 第 1 句：")
    assert zh[6] == ("HeadExplorer(交叉注意力（解码器 → 编码器），第 1 层（共 1 层），第 1 个头（共 2 个），"
                     "第 1 句（共 1 句）)")
    assert_chinese(en, zh)
    assert list(HEAD_KINDS) == ["encoder", "decoder_self", "decoder_cross"]
    assert (tmp_path / "heads.png").stat().st_size > 1000


# ---------------------------------------------------------------- tables and progress bars
def test_results_table_headers():
    from helpers.tables import format_table
    from helpers.training import results_table

    results = {"attention": {"5-8": {"bleu": 90.0, "exact": 50.0}}}
    assert format_table(results_table(results), index_name="bucket") == (
        "bucket  attention bleu  attention exact\n5-8               90.0             50.0")
    with i18n.language("zh"):
        assert list(results_table(results)["5-8"]) == ["attention BLEU", "attention 完全匹配"]
    assert list(results_table({"m": {"b": {"loss": 1.0}}}, metrics=("loss",))["b"]) == ["m loss"]


def test_noun_places_verdicts_and_the_pinning_phrase_in_both_languages():
    """The words chapters 01, 06 and 07 show for a probe's nouns and a comparison's verdict, and the phrase that ends
    the setup line (chapter 00 prints it again): English as the cells printed them before, Chinese under "zh"."""
    from helpers.experiments import VERDICT_LABELS, VERDICTS
    from helpers.training import NOUN_PLACES

    assert dict(NOUN_PLACES) == {"first": "first", "middle": "middle", "last": "last"}
    assert [VERDICT_LABELS[v] for v in VERDICTS] == list(VERDICTS)      # the verdicts themselves
    english_phrase = helpers.pinning_phrase()
    assert english_phrase == helpers.pinning.status()[1]
    with i18n.language("zh"):
        assert dict(NOUN_PLACES) == {"first": "第一个", "middle": "中间", "last": "最后一个"}
        assert [VERDICT_LABELS[v] for v in VERDICTS] == ["前者更好", "后者更好", "看不出差别"]
        phrase = helpers.pinning_phrase()
    assert phrase == ("CPU 内核 AVX2（已固定）" if helpers.pinning.status()[0] else english_phrase)


def test_ljust_pads_to_columns_not_characters():
    from helpers.tables import ljust, text_width

    assert ljust("split_heads: Q", 16) == "split_heads: Q  " == "split_heads: Q".ljust(16)   # ASCII: as str.ljust
    assert ljust("权重：每个头一张图", 22) == "权重：每个头一张图    " and text_width(ljust("x：句子", 9)) == 9
    assert ljust("too long", 3) == "too long"


def test_progress_bars_are_described_in_the_current_language(monkeypatch, gru_model):
    import tqdm.auto

    from helpers import toylang
    from helpers.experiments import run_experiment
    from helpers.training import train

    seen = []

    class Bar(tqdm.auto.tqdm):
        def __init__(self, *args, **kwargs):
            seen.append(kwargs.get("desc"))
            super().__init__(*args, **{**kwargs, "disable": True})

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    pairs = toylang.sample_pairs(8, min_len=4, max_len=6, seed=0)
    config = {"a": dict(kind="attention", emb=8, hidden=8, attn_hidden=8)}

    def run():
        train(gru_model, pairs, steps=1, batch_size=4, warmup=0, progress=False)
        run_experiment(config, pairs, {"test": pairs[:2]}, steps=1, batch_size=4, progress=False)

    run()
    with i18n.language("zh"):
        run()
    # a model's name, not its config kind
    assert seen == ["training (RNN with attention)", "training runs", "training (RNN with attention)",
                    "训练（带注意力的 RNN）", "各次训练", "训练（带注意力的 RNN）"]


def code_strings(path) -> list[str]:
    """The string literals of a module (f-string pieces included), docstrings left out."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]


def test_no_helper_keeps_an_english_label_literal():
    """The labels this file checks are gone from the helpers' code: they live in the catalogue only."""
    from helpers import ROOT

    strings = "\n".join(s for name in ("plotting.py", "widgets.py", "training.py", "experiments.py", "toylang/task.py")
                        for s in code_strings(ROOT / "helpers" / name))
    assert "tab:orange" in strings                                      # the detector reads the code's strings
    for literal in ("by sentence length", "(unseen length)", "one dot per seed", "output so far", "chose '",
                    "strongest link", "every head", "Training loss", "mass on gold", "training runs",
                    "verbs with an object", "Attention while translating", "probe accuracy", "self-attention",
                    "weight (0-1)", "source words (", "mean ± 1 std", "mean, ", "layer {", "head {"):
        assert literal not in strings, literal
