"""Chapter 03's explorer in a real browser: JupyterLab + Debian Chromium driven by Playwright.

Starts JupyterLab on a free localhost port (token, private root/settings/workspaces/config dirs, a COPY of
the notebook, autosave off), runs all cells, moves the Q y slider with the keyboard and checks that the
readout shows the weights `explorer_state` predicts for the slider's new `aria-valuenow`. Saves a
screenshot to tests/artifacts/browser_03_explorer.png for a person to look at.

Skipped when Chromium is not installed, unless REQUIRE_BROWSER=1 (CI), which turns that into a failure.
Never runs `playwright install`: it uses the system's Chromium (`shutil.which("chromium")`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from helpers import NOTEBOOKS_DIR, ROOT
from helpers.widgets import SEED_KEYS, SEED_VALUES, explorer_state

pytestmark = pytest.mark.browser

NOTEBOOK = NOTEBOOKS_DIR / "03_qkv_by_hand.ipynb"
ARTIFACT = ROOT / "tests" / "artifacts" / "browser_03_explorer.png"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PRESSES = 5  # ArrowRight presses on the Q y slider (step 0.1)


def _missing(reason: str):
    """Skip, or fail when the environment promises a browser (REQUIRE_BROWSER=1)."""
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(f"{reason} (set REQUIRE_BROWSER=1 to make this a failure)")


def _chromium() -> str:
    """The system Chromium, or skip (fail under REQUIRE_BROWSER=1) when it or playwright is missing."""
    path = shutil.which("chromium")
    if path is None:
        _missing("Chromium is not installed (Debian: apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("the Python package playwright is not installed")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(settings_dir) -> None:
    """Private JupyterLab settings: no autosave, no news or update checks (no network)."""
    plugins = {
        "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    }
    for rel, value in plugins.items():
        path = settings_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


def _stop(proc: subprocess.Popen, url: str) -> None:
    """Shut the server down (it stops its kernels), then make sure it and every child process is gone."""
    import psutil

    try:
        family = [proc.pid] + [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        family = [proc.pid]
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="POST", data=b""), timeout=5)
    except Exception:  # noqa: BLE001 - the server may already be dead; the kill below is the fallback
        pass
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    for pid in family:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=10)


@contextlib.contextmanager
def jupyterlab_serving(tmp_path, notebook):
    """A private JupyterLab serving a copy of `notebook`; yields (base_url, token, notebook name), then stops it."""
    root, settings, workspaces = tmp_path / "root", tmp_path / "settings", tmp_path / "workspaces"
    for d in (root, settings, workspaces):
        d.mkdir()
    shutil.copy(notebook, root / notebook.name)
    _write_settings(settings)
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"), IPYTHONDIR=str(tmp_path / "ipython"),
               JUPYTER_PLATFORM_DIRS="1")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
           f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={workspaces}",
           "--LabApp.extension_manager=readonly", "--LabApp.news_url=",
           "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate"]
    log = open(tmp_path / "jupyterlab.log", "w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except Exception:  # noqa: BLE001 - not up yet
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail(f"JupyterLab did not start:\n{(tmp_path / 'jupyterlab.log').read_text()[-3000:]}")
                time.sleep(0.3)
        yield base, token, notebook.name
    finally:
        _stop(proc, f"{base}/api/shutdown?token={token}")
        log.close()


# JavaScript evaluated in the page (window.jupyterapp exists thanks to expose_app_in_browser)
JS_KERNEL_IDLE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(k && k.connectionStatus === 'connected' && k.status === 'idle' && w.content && w.content.widgets.length);
}"""
JS_EXEC_COUNTS = """() => window.jupyterapp.shell.currentWidget.content.widgets
  .filter(c => c.model.type === 'code').map(c => c.model.executionCount)"""
JS_BUSY_OR_STARTED = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const first = w.content.widgets.find(c => c.model.type === 'code');
  return w.sessionContext.session.kernel.status === 'busy' || first.model.executionCount !== null
         || (first.promptNode && first.promptNode.textContent.includes('*'));
}"""
JS_ALL_DONE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const code = w.content.widgets.filter(c => c.model.type === 'code');
  return w.sessionContext.session.kernel.status === 'idle' && code.every(c => c.model.executionCount !== null)
         && !code.some(c => c.promptNode && c.promptNode.textContent.includes('*'));
}"""


def _run_all_cells(page) -> None:
    """Run All, retried when the first cell did not start (the click can be lost right after the kernel is idle)."""
    for attempt in range(3):
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        try:
            page.wait_for_function(JS_BUSY_OR_STARTED, timeout=10_000)
            break
        except Exception:  # noqa: BLE001 - playwright TimeoutError: try again
            if attempt == 2:
                raise
    page.wait_for_function(JS_ALL_DONE, timeout=180_000, polling=500)


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
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(f"{base}/lab/tree/{name}?token={token}", timeout=60_000)
            page.wait_for_function(JS_KERNEL_IDLE, timeout=90_000, polling=250)
            _run_all_cells(page)
            counts = page.evaluate(JS_EXEC_COUNTS)
            assert None not in counts, f"not every code cell ran: {counts}"
            handle = page.locator(".qk-q-y [role=slider]")
            handle.wait_for(state="visible", timeout=30_000)
            page.locator(".qk-explorer").scroll_into_view_if_needed()

            qx0, qy0, shown0 = _wait_consistent(page)
            assert (qx0, qy0) == (1.0, 0.0), "the explorer should start at the worked example's Q = [1, 0]"
            np.testing.assert_allclose(shown0, [0.4011, 0.4011, 0.1978], atol=6e-5)

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
