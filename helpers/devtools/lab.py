"""A private JupyterLab server and Debian's Chromium, for the real-browser test and the widget benchmark.

Never runs `playwright install`: the system's Chromium is used (`shutil.which("chromium")`).
"""
from __future__ import annotations

import contextlib
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
from pathlib import Path

__all__ = ["CHROMIUM_ARGS", "chromium_path", "jupyterlab_serving", "run_all_cells", "JS_KERNEL_IDLE",
           "JS_EXEC_COUNTS", "JS_BUSY_OR_STARTED", "JS_ALL_DONE", "open_notebook"]

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    """Debian's chromium on PATH, or None."""
    return shutil.which("chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(settings_dir) -> None:
    """Private JupyterLab settings: no autosave, no news or update checks (no network)."""
    plugins = {
        "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                           "checkForUpdates": False},
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
    except Exception:
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
def jupyterlab_serving(tmp_path: Path, notebook: Path, extra_files=()):
    """A private JupyterLab serving a copy of `notebook` (and `extra_files`); yields (base_url, token, notebook name).

    Raises RuntimeError (with the server's log) when it does not start within 90 s; stops it on exit.
    """
    root, settings, workspaces = tmp_path / "root", tmp_path / "settings", tmp_path / "workspaces"
    for d in (root, settings, workspaces):
        d.mkdir()
    for f in (notebook, *extra_files):
        shutil.copy(f, root / Path(f).name)
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
            except Exception as err:  # not up yet
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    tail = (tmp_path / "jupyterlab.log").read_text()[-3000:]
                    raise RuntimeError(f"JupyterLab did not start:\n{tail}") from err
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


def run_all_cells(page) -> None:
    """Run All, retried when the first cell did not start (the click can be lost right after the kernel is idle)."""
    for attempt in range(3):
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        try:
            page.wait_for_function(JS_BUSY_OR_STARTED, timeout=10_000)
            break
        except Exception:
            if attempt == 2:
                raise
    page.wait_for_function(JS_ALL_DONE, timeout=180_000, polling=500)




def open_notebook(browser, base: str, token: str, name: str, viewport=(1500, 1000)):
    """A new page with notebook `name` open, its kernel connected and idle, every cell run."""
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    page.goto(f"{base}/lab/tree/{name}?token={token}", timeout=60_000)
    page.wait_for_function(JS_KERNEL_IDLE, timeout=90_000, polling=250)
    run_all_cells(page)
    return page
