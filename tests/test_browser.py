"""Chapter 03's explorer in a real browser: JupyterLab + Debian Chromium driven by Playwright.

Starts JupyterLab on a free localhost port (helpers.devtools.lab: token, private root/settings/workspaces/config
dirs, a COPY of the notebook, autosave off), runs all cells, moves the Q y slider with the keyboard and checks
that the readout shows the weights `explorer_state` predicts for the slider's new `aria-valuenow`. Saves a
screenshot to tests/artifacts/browser_03_explorer.png for a person to look at.

Skipped when Chromium is not installed, unless REQUIRE_BROWSER=1 (CI), which turns that into a failure.
Never runs `playwright install`: it uses the system's Chromium (`shutil.which("chromium")`).
"""
from __future__ import annotations

import hashlib
import os
import time

import numpy as np
import pytest

from helpers import NOTEBOOKS_DIR, ROOT
from helpers.devtools import lab
from helpers.devtools.lab import CHROMIUM_ARGS, chromium_path, jupyterlab_serving, open_notebook
from helpers.widgets import SEED_KEYS, SEED_VALUES, explorer_state

pytestmark = pytest.mark.browser

NOTEBOOK = NOTEBOOKS_DIR / "03_qkv_by_hand.ipynb"
ARTIFACT = ROOT / "tests" / "artifacts" / "browser_03_explorer.png"
PRESSES = 12  # ArrowRight presses on the Q y slider (step 0.1): Q from [0.8, -0.6] to [0.8, 0.6], nearest K₂


def _missing(reason: str):
    """Skip, or fail when the environment promises a browser (REQUIRE_BROWSER=1)."""
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(f"{reason} (set REQUIRE_BROWSER=1 to make this a failure)")


def _chromium() -> str:
    """The system Chromium, or skip (fail under REQUIRE_BROWSER=1) when it or playwright is missing."""
    path = chromium_path()
    if path is None:
        _missing("Chromium is not installed (Debian: apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("the Python package playwright is not installed")
    return path


def _read(page) -> tuple[float, float, list[float]]:
    """(Q x, Q y) from the slider handles' aria-valuenow, and the weights the readout shows."""
    qx = float(page.locator(".qk-q-x [role=slider]").get_attribute("aria-valuenow"))
    qy = float(page.locator(".qk-q-y [role=slider]").get_attribute("aria-valuenow"))
    text = page.locator(".qk-weights .qk-readout").get_attribute("data-weights")
    return qx, qy, [float(x) for x in text.split()]


def _predicted(qx: float, qy: float) -> np.ndarray:
    return explorer_state([qx, qy], SEED_KEYS, SEED_VALUES, scale=True, temperature=1.0)["weights"]


def _wait_consistent(page, timeout: float = 20.0):
    """Wait until the readout matches the prediction for the sliders' current values (updates arrive async)."""
    deadline = time.monotonic() + timeout
    while True:
        qx, qy, shown = _read(page)
        if np.allclose(shown, _predicted(qx, qy), atol=6e-5) or time.monotonic() > deadline:
            return qx, qy, shown
        time.sleep(0.1)


def test_explorer_slider_moves_weights_in_chromium(tmp_path):
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    committed = hashlib.sha256(NOTEBOOK.read_bytes()).hexdigest()
    with jupyterlab_serving(tmp_path, NOTEBOOK) as (base, token, name), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        page = None
        try:
            page = open_notebook(browser, base, token, name)
            counts = page.evaluate(lab.JS_EXEC_COUNTS)
            assert None not in counts, f"not every code cell ran: {counts}"
            handle = page.locator(".qk-q-y [role=slider]")
            handle.wait_for(state="visible", timeout=30_000)
            page.locator(".qk-explorer").scroll_into_view_if_needed()

            qx0, qy0, shown0 = _wait_consistent(page)
            assert (qx0, qy0) == (0.8, -0.6), "the explorer should start at the chapter's q_start = [0.8, -0.6]"
            np.testing.assert_allclose(shown0, _predicted(0.8, -0.6), atol=6e-5)

            handle.focus()
            for _ in range(PRESSES):
                page.keyboard.press("ArrowRight")
                page.wait_for_timeout(120)
            page.wait_for_function(
                "([old]) => document.querySelector('.qk-weights .qk-readout').dataset.weights !== old",
                arg=[" ".join(f"{x:.4f}" for x in shown0)], timeout=20_000)
            qx, qy, shown = _wait_consistent(page)
            page.wait_for_timeout(300)  # let the new picture paint before the screenshot
            ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
            page.locator(".qk-explorer").screenshot(path=str(ARTIFACT))
        except Exception:
            ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
            if page is not None:
                page.screenshot(path=str(ARTIFACT.with_name("browser_03_failure.png")), full_page=True)
            raise
        finally:
            browser.close()

    assert qx == qx0 and qy == pytest.approx(qy0 + 0.1 * PRESSES, abs=1e-9), f"slider moved to ({qx}, {qy})"
    np.testing.assert_allclose(shown, _predicted(qx, qy), atol=6e-5)
    assert int(np.argmax(shown)) == 1 and shown[0] < shown0[0] - 0.05, "Q moved towards K₂: K₂ should now lead, K₁ lose"
    assert hashlib.sha256(NOTEBOOK.read_bytes()).hexdigest() == committed, "the committed notebook was modified"


def _generated_notebook(path, code: str):
    """A notebook with the course's setup cell and `code`, with a python3 kernelspec (no kernel dialog)."""
    import nbformat

    from helpers.devtools import SETUP_CELL

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(SETUP_CELL), nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, path)
    return path


DECODING_VIEWER = """from helpers.seq2seq import make_model
from helpers.toylang import load_split
from helpers.training import train
from helpers.widgets import DecodingStepViewer
model = make_model("attention", emb=32, hidden=32, attn_hidden=32, seed=0)
train(model, load_split("train")[:3000], steps=80, progress=False)
viewer = DecodingStepViewer(model, " ".join(load_split("test_11-20")[0][0]))
viewer"""


def test_decoding_step_slider_changes_the_view_in_chromium(tmp_path):
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    notebook = _generated_notebook(tmp_path / "decoding_viewer.ipynb", DECODING_VIEWER)
    serve = tmp_path / "serve"
    serve.mkdir()
    artifact = ROOT / "tests" / "artifacts" / "browser_05_decoding_steps.png"
    with jupyterlab_serving(serve, notebook) as (base, token, name), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            page = open_notebook(browser, base, token, name)
            handle = page.locator(".decoding-step [role=slider]")
            handle.wait_for(state="visible", timeout=60_000)
            state = page.locator(".decoding-readout .decoding-state")
            before = (state.get_attribute("data-step"), page.locator(".decoding-viewer img").get_attribute("src"))
            handle.focus()
            for _ in range(3):
                page.keyboard.press("ArrowRight")
                page.wait_for_timeout(150)
            page.wait_for_function("() => document.querySelector('.decoding-readout .decoding-state')"
                                   ".dataset.step === '4'", timeout=20_000)
            after = (state.get_attribute("data-step"), page.locator(".decoding-viewer img").get_attribute("src"))
            artifact.parent.mkdir(parents=True, exist_ok=True)
            page.locator(".decoding-viewer").screenshot(path=str(artifact))
        finally:
            browser.close()
    assert before[0] == "1" and after[0] == "4"
    assert before[1] != after[1], "the picture must change with the step"


HEAD_EXPLORER = """from helpers.toylang import load_split
from helpers.transformer import make_transformer
from helpers.widgets import HeadExplorer
model = make_transformer(seed=0)
explorer = HeadExplorer(model, [" ".join(load_split(name)[0][0]) for name in ("test_4-10", "test_11-20")])
explorer"""


def test_head_explorer_changes_head_in_chromium(tmp_path):
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    notebook = _generated_notebook(tmp_path / "head_explorer.ipynb", HEAD_EXPLORER)
    serve = tmp_path / "serve"
    serve.mkdir()
    artifact = ROOT / "tests" / "artifacts" / "browser_07_head_explorer.png"
    with jupyterlab_serving(serve, notebook) as (base, token, name), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            page = open_notebook(browser, base, token, name)
            page.locator(".head-explorer").wait_for(state="visible", timeout=60_000)
            page.locator(".head-explorer").scroll_into_view_if_needed()
            readout = page.locator(".head-readout [data-head]")
            before = (readout.get_attribute("data-head"), page.locator(".head-explorer img").get_attribute("src"))
            control = page.locator(".head-pick [role=slider]")
            if control.count():                         # an IntSlider: move it with the keyboard
                control.focus()
                page.keyboard.press("ArrowRight")
            else:                                       # a dropdown or toggle buttons: choose the second head
                pick = page.locator(".head-pick select")
                if pick.count():
                    pick.select_option(index=1)
                else:
                    page.locator(".head-pick button").nth(1).click()
            page.wait_for_function("([old]) => document.querySelector('.head-readout [data-head]')"
                                   ".dataset.head !== old", arg=[before[0]], timeout=20_000)
            page.wait_for_timeout(300)
            after = (readout.get_attribute("data-head"), page.locator(".head-explorer img").get_attribute("src"))
            artifact.parent.mkdir(parents=True, exist_ok=True)
            page.locator(".head-explorer").screenshot(path=str(artifact))
        finally:
            browser.close()
    assert before[0] != after[0] and before[1] != after[1], "another head: another readout and another picture"


def test_chinese_chapter_shows_chinese_widget_labels_in_chromium(tmp_path):
    """The Chinese edition of chapter 03 (notebooks/zh/, setup(lang="zh")) labels its explorer in Chinese."""
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    notebook = NOTEBOOKS_DIR / "zh" / "03_qkv_by_hand.ipynb"
    with jupyterlab_serving(tmp_path, notebook) as (base, token, name), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            page = open_notebook(browser, base, token, name)
            picker = page.locator(".qk-key-picker")
            picker.wait_for(state="visible", timeout=60_000)
            picker.scroll_into_view_if_needed()
            label = picker.locator(".widget-label").text_content()
            readout = page.locator(".qk-weights .qk-readout").text_content()
        finally:
            browser.close()
    assert "要移动的键" in label, f"the key picker should be labelled in Chinese, shows {label!r}"
    assert "move key" not in label and any("\u4e00" <= ch <= "\u9fff" for ch in readout)
