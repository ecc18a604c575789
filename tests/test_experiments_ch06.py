"""Chapter 06's rendered verdicts (helpers.experiments, beside crossing_verdict): the numbers behind each sentence,
the sentences in English, and the same numbers in the same order in Chinese, in Chinese word order."""
import re
import statistics

import pytest

from helpers import evidence, i18n
from helpers.experiments import (
    KEEP_VERDICTS,
    VERDICTS,
    compare_variants,
    dropout_verdict,
    early_peaks,
    flatness,
    flatness_verdict,
    keeps_verdict,
    paired_interval,
    ranking_verdict,
    retention,
    rule_sentence,
    saturation_verdict,
    variant_name,
    winner,
)
from helpers.toylang import TEST_BUCKETS, bucket_name

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"(?<![A-Za-z_])-?\d+(?:[.,]\d+)*(?:e[+-]?\d+)?%?")   # as tests/test_i18n.py counts numbers
SETS = ["4-10", "11-20", "21-30", "31-40", "41-50"]


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_lang("en")


def in_chinese(render):
    """The Chinese of a renderer's output: the English's numbers in the same order, Chinese text, no English phrase."""
    english = render()
    with i18n.language("zh"):
        chinese = render()
    assert CJK.search(chinese), chinese
    assert NUMBER.findall(english) == NUMBER.findall(chinese), (english, chinese)
    assert not re.search(r"[a-z]{3,} [a-z]{3,} [a-z]{3,}", chinese), f"an English phrase is left: {chinese}"
    assert not re.search(r"[\u4e00-\u9fff][:;,] ?[A-Za-z\d]", chinese), f"ASCII punctuation after Chinese: {chinese}"
    return english, chinese


def rows_of(bleu: dict) -> list[dict]:
    """Tidy rows from {config: {set: [BLEU per seed]}}."""
    return [dict(config=c, set=s, seed=i, bleu=v) for c, by_set in bleu.items() for s, values in by_set.items()
            for i, v in enumerate(values)]


# a model whose curve stays flat on the training lengths and bends on the last set, one that falls early, a baseline
FLAT = {"flat": {"4-10": [100, 99, 100], "11-20": [99, 99, 98], "21-30": [99, 98, 97], "31-40": [98, 96, 97],
                 "41-50": [88, 85, 86]},
        "falling": {"4-10": [90, 80, 85], "11-20": [80, 78, 70], "21-30": [60, 50, 55], "31-40": [50, 30, 40],
                    "41-50": [30, 20, 25]},
        "mixed": {"4-10": [90, 90, 90], "11-20": [88, 85, 80], "21-30": [85, 60, 70], "31-40": [85, 40, 60],
                  "41-50": [60, 30, 40]}}


def test_variant_name_speaks_the_current_language_and_keeps_unknown_keys():
    assert [variant_name(n) for n in ("scaled_dot", "no attention", "weights 0.1", "context 0.3", "general")] == [
        "scaled dot", "no attention", "weights 0.1", "context 0.3", "general"]
    with i18n.language("zh"):
        assert [variant_name(n) for n in ("additive", "scaled_dot", "no dropout", "weights 0.1", "general")] == [
            "加性", "缩放点积", "无 dropout 的对照组", "权重 dropout（p = 0.1）", "general"]


def test_winner_names_the_side_the_interval_favours():
    rows = rows_of({"weights 0.1": {"valid": [1.0, 2.0, 1.5]}, "context 0.1": {"valid": [5.0, 6.0, 5.2]}})
    r = compare_variants(rows, "weights 0.1", "context 0.1", "valid")
    assert r["verdict"] == VERDICTS[1] and winner(r) == "context 0.1 wins"
    assert winner({**r, "verdict": VERDICTS[0]}) == "weights 0.1 wins"
    assert winner({**r, "verdict": VERDICTS[2]}) == "no difference detectable"
    with i18n.language("zh"):
        assert winner(r) == "上下文向量 dropout（p = 0.1）胜出"


def test_retention_is_the_per_seed_share_of_the_reference_with_its_t_interval():
    rows = rows_of(FLAT)
    r = retention(rows, "falling", "31-40", "4-10")
    assert r["shares"] == pytest.approx([50 / 90, 30 / 80, 40 / 85]) and r["seeds"] == [0, 1, 2]
    ci = paired_interval(r["shares"])
    assert (r["mean"], r["low"], r["high"], r["n"]) == pytest.approx((ci["mean"], ci["low"], ci["high"], 3))
    with pytest.raises(ValueError, match="no rows"):
        retention(rows, "falling", "51-60", "4-10")
    with pytest.raises(ValueError, match="other seeds"):
        retention(rows[:-1], "mixed", "41-50", "4-10")
    with pytest.raises(ValueError, match="no share"):
        retention(rows_of({"zero": {"4-10": [0.0, 1.0], "11-20": [1.0, 1.0]}}), "zero", "11-20", "4-10")


def test_keeps_verdict_needs_the_whole_interval_on_one_side_of_the_floor():
    assert keeps_verdict({"low": 0.85, "high": 0.99}, 0.85) == "keeps"
    assert keeps_verdict({"low": 0.20, "high": 0.849}, 0.85) == "loses"
    assert keeps_verdict({"low": 0.80, "high": 0.90}, 0.85) == "undecided"
    assert set(KEEP_VERDICTS) == {"keeps", "loses", "undecided"}


def test_flatness_finds_where_each_curve_stops_being_flat():
    flat = flatness(rows_of(FLAT), list(FLAT), SETS, floor=0.85)
    assert flat["flat"]["verdict"]["31-40"] == "keeps" and flat["flat"]["first_below"] is None
    assert flat["flat"]["fall"]["set"] == "41-50" and flat["flat"]["fall"]["previous"] == "31-40"
    assert flat["flat"]["fall"]["high"] < 0 and flat["flat"]["lowest"] == "41-50"
    assert flat["flat"]["other_falls"] == pytest.approx(-min(
        statistics.fmean(flat["flat"]["share"][s]["shares"][i] - (1.0 if p == "4-10" else
                                                                  flat["flat"]["share"][p]["shares"][i])
                         for i in range(3)) for p, s in zip(SETS[:-2], SETS[1:-1], strict=True)))
    assert flat["falling"]["verdict"]["31-40"] == "loses" and flat["falling"]["first_below"] == "21-30"
    assert flat["mixed"]["verdict"]["31-40"] == "undecided"
    assert flat["flat"]["reference"] == "4-10"
    with pytest.raises(ValueError, match="reference"):
        flatness(rows_of(FLAT), ["flat"], ["4-10"])


def test_flatness_verdict_answers_for_every_scorer_and_says_where_the_curves_bend():
    flat = flatness(rows_of(FLAT), list(FLAT), SETS, floor=0.85)

    def render():
        return flatness_verdict(flat, "31-40", 0.85, ["flat", "falling", "mixed"], ["41-50"], 40, 3, 400)

    english, chinese = in_chinese(render)
    assert "kept by **flat** 97.3% [95.9%, 98.8%]" in english and "lost by **falling**" in english
    assert "not decided by these seeds for **mixed**" in english and "(seeds from 44% to 94%)" in english
    assert "only flat keeping it" in english
    assert "on `21-30` words for falling and mixed, within the training lengths" in english
    assert "**flat** never falls below it" in english and "to `41-50` words, beyond the training lengths" in english
    assert "保住了的：**flat** 97.3%" in chinese and "已超出训练长度" in chinese
    everyone = flatness_verdict(flat, "31-40", 0.85, ["flat"], ["41-50"], 40, 3, 400)
    assert "every scorer is shown to keep it" in everyone
    nobody = flatness_verdict(flat, "31-40", 0.85, ["falling"], ["41-50"], 40, 3, 400)
    assert "no scorer is shown to keep it" in nobody


# The chapter's assert (06: the scorers shown to keep chapter 05's yardstick are exactly ["scaled_dot"]) on the
# stored runs, and on the runs a broken scaled dot or a failed run would have stored instead.
def chapter_flatness(rows):
    sets = [bucket_name(*b) for b in TEST_BUCKETS]
    flat = flatness([r for r in rows if r["set"] != "training"], evidence.load("scorers").settings["configs"], sets)
    scorers = ("additive", "multiplicative", "dot", "scaled_dot")
    return [n for n in scorers if flat[n]["verdict"]["31-40"] == "keeps"], flat


def test_the_chapters_long_sentence_asserts_fail_on_a_broken_scaled_dot_or_a_failed_run():
    rows = evidence.load("scorers").rows
    keepers, flat = chapter_flatness(rows)
    assert keepers == ["scaled_dot"] and flat["scaled_dot"]["fall"]["set"] == "41-50"
    # without its 1/sqrt(d_k) scaled dot is dot in this translator (same starting weights per seed): dot's rows
    unscaled = [r for r in rows if r["config"] != "scaled_dot"] + [
        {**r, "config": "scaled_dot"} for r in rows if r["config"] == "dot"]
    keepers, flat = chapter_flatness(unscaled)
    assert keepers == [] and flat["scaled_dot"]["fall"]["set"] != "41-50"
    # a scaled-dot run that never learned to attend: the no-attention model's rows
    failed = [r for r in rows if r["config"] != "scaled_dot"] + [
        {**r, "config": "scaled_dot"} for r in rows if r["config"] == "no attention"]
    assert chapter_flatness(failed)[0] == []


def test_ranking_verdict_tabulates_every_pair_and_the_one_function_check():
    rows = rows_of({"scaled_dot": {"31-40": [97, 98, 96]}, "additive": {"31-40": [60, 40, 70]},
                    "dot": {"31-40": [40, 45, 35]}, "multiplicative": {"31-40": [50, 42, 41]}})
    means = {"scaled_dot": 97.0, "additive": 56.7, "multiplicative": 44.3, "dot": 40.0}
    pairs = {(a, b): compare_variants(rows, a, b, "31-40") for i, a in enumerate(means) for b in list(means)[i + 1:]}
    same = compare_variants(rows, "dot", "multiplicative", "31-40")

    def render():
        return ranking_verdict(means, pairs, list(means), same, "31-40", 3)

    english, chinese = in_chinese(render)
    assert english.startswith("BLEU on 31-40 words, 3 seeds: **scaled dot** 97.0 > **additive** 56.7")
    assert "| scaled dot − additive |" in english and "**scaled dot better**" in english
    assert "(4 of 4)" in english and "In this translator dot and multiplicative are one function" in english
    assert "| 缩放点积 − 加性 |" in chinese and "**缩放点积更好**" in chinese
    told = [p for p, r in pairs.items() if r["verdict"] == VERDICTS[0]]
    assert all(f"{variant_name(a)} > {variant_name(b)}" in english for a, b in told)


def curves_of(max_weight: dict, align: dict) -> dict:
    """Watched training curves for two seeds of each scorer: {(name, seed): row}."""
    return {(name, seed): dict(steps=[0, 20, 40], max_weight_curve=max_weight[name], align_curve=align[name],
                               score_std_curve=[0.2, 9.0 if name == "dot" else 0.8, 10.0],
                               entropy_curve=[1.0, 0.3, 0.2])
            for name in max_weight for seed in (0, 1)}


def test_early_peaks_and_saturation_verdict():
    curves = curves_of({"dot": [0.06, 0.7, 0.8], "scaled_dot": [0.05, 0.12, 0.6]},
                       {"dot": [6.0, 0.8, 60.0], "scaled_dot": [6.0, 0.9, 95.0]})
    peaks = early_peaks(curves, ["dot", "scaled_dot"], [0, 1], at=1)
    assert peaks["step"] == 20 and peaks["dot"]["on_wrong"] == pytest.approx(0.7 - 0.008)
    assert peaks["dot"]["first_peaked"] == [20, 20] and peaks["scaled_dot"]["first_peaked"] == [40, 40]
    assert peaks["scaled_dot"]["final_align"] == [95.0, 95.0]

    def render():
        return saturation_verdict(peaks, ["dot", "scaled_dot"], 5.3, 8.0)

    english, chinese = in_chinese(render)
    assert english.startswith("At step 0 dot and scaled dot are the same network")
    assert "what sets dot apart is how much weight sits there" in english
    assert "The softmax of dot is already sharply peaked early" in english
    assert "dot 60-60%; scaled dot 95-95%" in english
    assert "缩放点积" in chinese and "点积的 softmax 早早就很尖了" in chinese
    calm = early_peaks(curves_of({"dot": [0.06, 0.2, 0.3], "scaled_dot": [0.05, 0.1, 0.2]},
                                 {"dot": [6.0, 12.0, 60.0], "scaled_dot": [6.0, 12.0, 95.0]}), ["dot", "scaled_dot"],
                       [0, 1])
    calm_text = saturation_verdict(calm, ["dot", "scaled_dot"], 5.3, 8.0)
    assert "is not sharply peaked" in calm_text and "the alignment of no scorer is below" in calm_text


def dropout_results(weights_better: bool = False):
    """Paired comparisons of chapter 06's dropout variants on made-up validation BLEU (3 seeds)."""
    w = [40.0, 41.0, 39.0] if not weights_better else [50.0, 51.0, 49.5]
    rows = rows_of({"no dropout": {"valid": [46.0, 47.0, 45.0]}, "weights 0.1": {"valid": w},
                    "context 0.1": {"valid": [46.5, 46.0, 45.8]}})
    pairs = [("weights 0.1", "context 0.1"), ("weights 0.1", "no dropout"), ("context 0.1", "no dropout")]
    return {pair: compare_variants(rows, *pair, "valid") for pair in pairs}


def test_dropout_verdict_says_what_the_control_and_the_placements_show():
    results = dropout_results()
    align = {"no dropout": 69.5, "weights 0.1": 63.2, "context 0.1": 70.0}

    def render():
        return dropout_verdict(results, align, ["0.1"], 200, 3)

    english, chinese = in_chinese(render)
    assert "dropout helps for no variant; it hurts for weights 0.1; no difference is detectable for context 0.1" \
        in english
    assert "at p = 0.1, the context placement wins" in english and "contradicted here at every rate" in english
    assert "without dropout; weights 0.1: 63.2%, context 0.1: 70.0%" in english
    assert "有害的：权重 dropout（p = 0.1）" in chinese
    supported = dropout_verdict(dropout_results(weights_better=True), align, ["0.1"], 200, 3)
    assert "helps for weights 0.1; it hurts for no variant" in supported
    assert "supported here at every rate" in supported and "plausible mechanism" not in supported
    assert "no dropout variant beats training without dropout" not in supported


def test_rule_sentence_gives_the_half_width_of_one_comparison():
    r = dropout_results()[("weights 0.1", "context 0.1")]
    english, chinese = in_chinese(lambda: rule_sentence(r, 3, 200))
    assert f"for weights 0.1 − context 0.1 that half-width is {r['half_width']:.1f} BLEU (3 seeds" in english
    assert chinese.startswith("平均差值离零超过区间半宽时，规则才会判出胜者")


# -------------------------------------------------------- chapter 06's Chinese (issue 34): what it no longer says
CALQUES = ["越过", "点出", "赢家", "实践者", "读成", "见上方打印", "见上面的打印", "上面打印了", "学习率计划", "批大小",
           "隐藏尺寸", "的最大的"]
KEYS = re.compile(r"\b(?:additive|multiplicative|scaled_dot|no attention|no dropout)\b")


def zh_slips(text: str) -> list[str]:
    """The calques, ASCII typography and True/False inside Chinese sentences that issue 34 lists, found in `text`."""
    found = [w for w in CALQUES if w in text]
    found += re.findall(r"\d x \d", text)                                    # × for a product
    found += re.findall(r"[\u4e00-\u9fff][:;,?!](?=\S)", text)               # ASCII punctuation after Hanzi
    found += re.findall(r"[\u4e00-\u9fff][^\n`|]{0,12}\b(?:True|False)\b", text)
    return found


def test_the_slip_finder_finds_each_kind():
    for slip in ["运行越过了阈值", "规则点出赢家", "实践者的模块", "看作 8 x 4 个", "打分函数:加性", "结果：True 了"]:
        assert zh_slips(slip), slip
    assert zh_slips("达到阈值；判出胜者；原始章节 003 的模块；8 × 4；`mask`：True = 真实的词") == []


def test_chapter_06s_chinese_texts_and_outputs_avoid_the_slips():
    import nbformat

    from helpers.devtools import zh

    catalogue = zh.load_catalogue(zh.catalogue_path("06_scoring_functions_and_dropout.ipynb"))
    texts = {f"PO {c['id']}": c["zh"] for c in catalogue["cells"]}
    texts |= {f"PO {e['id']} code": p["zh"] for e in catalogue["code"] for p in e["pairs"]}
    texts |= {key: chinese for key, (_, chinese) in i18n.MESSAGES.items() if key.startswith("ch06.")}
    nb = nbformat.read(zh.ZH_DIR / "06_scoring_functions_and_dropout.ipynb", as_version=4)
    markdown = {}
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            texts[f"output [{i}]"] = out.get("text", "") + out.get("data", {}).get("text/markdown", "")
            markdown[f"output [{i}]"] = out.get("data", {}).get("text/markdown", "")
    slips = {name: found for name, text in texts.items() if (found := zh_slips(text))}
    assert not slips, slips
    keys = {name: KEYS.findall(text) for name, text in markdown.items() if KEYS.search(text)}
    assert not keys, f"code keys in rendered Chinese sentences (use the display names of variant_name): {keys}"
