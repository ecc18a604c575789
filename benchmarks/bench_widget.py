"""How fast do the explorers respond? Time from a slider change to the redrawn picture: the Q/K explorer of
chapter 03 and the decoding-step viewer of chapter 05.

Headless: setting `slider.value` in Python runs the same observer a browser drag triggers (recompute the
state, move the artists of the one reused figure, redraw only them, encode the PNG, update the readout),
synchronously, so the time of the assignment is the kernel-side response time. The browser's own part
(sending the message, decoding and painting the PNG) is not included.

    .venv/bin/python benchmarks/bench_widget.py            # 50 changes, writes the README section perf-widget
    .venv/bin/python benchmarks/bench_widget.py --no-readme
    .venv/bin/python benchmarks/bench_widget.py --browser  # also: key press in Chromium -> new readout (~40 s more)
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

import helpers
from helpers.devtools import update_readme_section
from helpers.plotting import draw_explorer, figure_png
from helpers.tables import format_table
from helpers.widgets import QKExplorer


def slider_moves(ex: QKExplorer, n: int):
    """n (widget, value) pairs a learner could produce: Q drags, key drags, temperature, scale flips (value None)."""
    rng = np.random.default_rng(0)
    pool = [ex.q_x, ex.q_y, ex.k_x, ex.k_y, ex.temperature]
    moves = []
    for i in range(n):
        if i % 10 == 9:
            moves.append((ex.scale_switch, None))  # None: flip the switch
            continue
        s = pool[i % len(pool)]
        value = float(np.round(rng.uniform(s.min, s.max) / s.step) * s.step)
        moves.append((s, min(max(value, s.min), s.max)))
    return moves


def time_changes(ex: QKExplorer, moves) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of each `slider.value = v` (the observer redraws before the assignment returns)."""
    wall, cpu = [], []
    for slider, value in moves:
        if value is None:
            value = not slider.value
        elif slider.value == value:  # an unchanged value fires no observer: nudge it first, untimed
            slider.value = slider.max if value != slider.max else slider.min
        before = ex.image.value
        t0, c0 = time.perf_counter(), time.process_time()
        slider.value = value
        wall.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
        assert ex.image.value != before, "the picture was not redrawn"
    return wall, cpu


def time_parts(ex: QKExplorer, repeats: int = 30) -> dict[str, float]:
    """Median milliseconds of the pieces of one update, and of a full (non-blitted) redraw for comparison."""
    def median_ms(fn) -> float:
        out = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(out)

    state = ex.state
    from matplotlib.figure import Figure

    full = Figure(figsize=ex.fig.get_size_inches(), dpi=ex.fig.dpi)
    draw_explorer(state, full)
    return {
        "compute the state (explorer_state)": median_ms(lambda: ex.state),
        "move the artists (draw_explorer on the reused figure)": median_ms(
            lambda: draw_explorer(state, ex.fig, selected=0, names=ex.names, blit=True)),
        "redraw moving artists + encode PNG (figure_png)": median_ms(lambda: figure_png(ex.fig)),
        "for comparison: full redraw + PNG without blitting": median_ms(lambda: figure_png(full)),
    }


def time_decoding_viewer(changes: int) -> tuple[list[float], list[float], int, int]:
    """Milliseconds (wall, CPU) of `changes` step-slider moves of chapter 05's DecodingStepViewer.

    The model is untrained (the drawing costs the same): its greedy output runs to the length limit, so the
    slider has many steps; the sentence is the first validation sentence of 12 or more words.
    """
    from helpers.seq2seq import make_model
    from helpers.toylang import load_split
    from helpers.widgets import DecodingStepViewer

    sentence = next(src for src, _, _ in load_split("valid") if len(src) >= 12)
    viewer = DecodingStepViewer(make_model("attention", seed=0), " ".join(sentence))
    n = len(viewer.output)
    targets = [1 + (7 * i) % n for i in range(changes + 5)]
    wall, cpu = [], []
    for i, value in enumerate(targets):
        if value == viewer.slider.value:
            value = 1 + value % n
        t0, c0 = time.perf_counter(), time.process_time()
        viewer.slider.value = value
        if i >= 5:   # the first moves are warm-up
            wall.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
    return wall, cpu, n, len(sentence)


def time_browser(presses: int = 12) -> list[float]:
    """Milliseconds from an ArrowRight on the Q y slider in Chromium to the changed readout, via JupyterLab.

    Uses the same server and page helpers as the browser test (helpers.devtools.lab); needs Debian's chromium.
    """
    import tempfile
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from helpers.devtools import lab

    chromium = lab.chromium_path()
    if chromium is None:
        raise SystemExit("--browser needs Chromium (apt-get install -y chromium)")
    out = []
    notebook = helpers.NOTEBOOKS_DIR / "03_qkv_by_hand.ipynb"
    with tempfile.TemporaryDirectory() as tmp, lab.jupyterlab_serving(Path(tmp), notebook) as (base, token, name), \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=lab.CHROMIUM_ARGS, headless=True)
        try:
            page = lab.open_notebook(browser, base, token, name)
            handle = page.locator(".qk-q-y [role=slider]")
            handle.wait_for(state="visible", timeout=30_000)
            handle.focus()
            for i in range(presses):
                old = page.locator(".qk-weights .qk-readout").get_attribute("data-weights")
                t0 = time.perf_counter()
                page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
                page.wait_for_function("([old]) => document.querySelector('.qk-weights .qk-readout')"
                                       ".dataset.weights !== old", arg=[old], polling="raf", timeout=20_000)
                out.append((time.perf_counter() - t0) * 1e3)
                page.wait_for_timeout(200)
        finally:
            browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--no-readme", action="store_true", help="print only, do not update README.md")
    parser.add_argument("--browser", action="store_true", help="also time key press -> readout in Chromium")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    helpers.setup(seed=0, threads=1, quiet=True)
    ex = QKExplorer()
    time_changes(ex, slider_moves(ex, 5))  # warm-up (first draws, caches)
    wall, cpu = time_changes(ex, slider_moves(ex, args.changes))
    parts = time_parts(ex)
    ex.close()

    med, worst, p90 = statistics.median(wall), max(wall), float(np.percentile(wall, 90))
    verdict = "meets" if med < 100 else "MISSES"
    print(f"{args.changes} slider changes: median {med:.1f} ms, 90th percentile {p90:.1f} ms, worst {worst:.1f} ms "
          f"(CPU median {statistics.median(cpu):.1f} ms); {verdict} the 100 ms target")
    for name, ms in parts.items():
        print(f"  {name}: {ms:.1f} ms")
    d_wall, d_cpu, d_steps, d_words = time_decoding_viewer(args.changes)
    d_med = statistics.median(d_wall)
    d_verdict = "meets" if d_med <= 100 else "MISSES"
    print(f"decoding-step viewer, {args.changes} step changes ({d_steps} steps, {d_words} source words): median "
          f"{d_med:.1f} ms, worst {max(d_wall):.1f} ms (CPU median {statistics.median(d_cpu):.1f} ms); "
          f"{d_verdict} the 100 ms target")
    browser = time_browser() if args.browser else None
    if browser:
        print(f"browser round trip over {len(browser)} key presses: median {statistics.median(browser):.0f} ms, "
              f"worst {max(browser):.0f} ms")

    if args.no_readme:
        return
    rows = [["slider change → new picture and readout (wall)", f"{med:.1f}", f"{p90:.1f}", f"{worst:.1f}"],
            ["same, CPU time of the process", f"{statistics.median(cpu):.1f}", f"{float(np.percentile(cpu, 90)):.1f}",
             f"{max(cpu):.1f}"]]
    rows.append([f"chapter 05 decoding-step viewer: step change → new picture and readout (wall; {d_words} "
                 f"source words, {d_steps} steps)", f"{d_med:.1f}", f"{float(np.percentile(d_wall, 90)):.1f}",
                 f"{max(d_wall):.1f}"])
    if browser:
        rows.append([f"in Chromium: ArrowRight on Q y → readout changed ({len(browser)} presses)",
                     f"{statistics.median(browser):.0f}", f"{float(np.percentile(browser, 90)):.0f}",
                     f"{max(browser):.0f}"])
    part_rows = [[name, f"{ms:.1f}"] for name, ms in parts.items()]
    text = (
        f"Kernel-side response of the chapter 03 explorer to {args.changes} slider changes (Q, a key, temperature, "
        f"scale switch), set from Python with no browser; target: median under 100 ms ({verdict}). The chapter 05 "
        f"decoding-step viewer: {args.changes} step changes, same target ({d_verdict}).\n\n"
        + format_table(rows, ["what", "median ms", "90th pct ms", "worst ms"], markdown=True)
        + "\n\nWhere the time goes (median of 30):\n\n"
        + format_table(part_rows, ["step", "median ms"], markdown=True)
        + f"\n\nMeasured with `python benchmarks/bench_widget.py` on {time.strftime('%Y-%m-%d')}, "
        f"{platform.machine()}, {os.cpu_count()} cores, 1 torch thread, load average {load:.1f} at the start "
        "(wall times are noisy; CPU time is the steadier number). "
        + ("The Chromium row (`--browser`) is the whole round trip: key press, websocket message, kernel update, "
           "readout back in the page (JupyterLab 4, Debian Chromium, headless)."
           if browser else "Run with `--browser` to add the Chromium round trip (key press → readout in the page).")
    )
    update_readme_section("perf-widget", text)
    print("README section perf-widget updated")


if __name__ == "__main__":
    main()
