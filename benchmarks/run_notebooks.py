"""Execute every notebook in a fresh kernel (not in place) and print seconds per notebook and the total.

    python benchmarks/run_notebooks.py                 # every chapter; updates README's perf-notebooks table
    python benchmarks/run_notebooks.py notebooks/03_qkv_by_hand.ipynb   # one notebook: prints only
    python benchmarks/run_notebooks.py --no-readme     # every chapter, print only

Targets come from the course table (helpers/course.py). The README table is the whole course's, so it is
rewritten only when every chapter was measured in this run.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import time
from pathlib import Path

from helpers.course import COURSE_TARGET_SECONDS, chapter
from helpers.devtools import chapter_notebooks, execute_notebook, update_readme_section
from helpers.tables import format_table


def cpu_seconds_of_children() -> float:
    """CPU seconds used so far by finished child processes (the kernels)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--no-readme", action="store_true", help="print only; do not update README.md (perf-notebooks)")
    args = parser.parse_args()
    rows, total = [], 0.0
    for path in args.notebooks or chapter_notebooks():
        cpu_before = cpu_seconds_of_children()
        seconds, _ = execute_notebook(path, inplace=False)
        cpu = cpu_seconds_of_children() - cpu_before
        target = chapter(path.name[:2]).target_seconds
        total += seconds
        within = "yes" if seconds <= target else "**no**"
        rows.append([path.name, f"{seconds:.1f}", f"{cpu:.1f}", f"≤ {target}", within])
        print(f"{path.name:<48}{seconds:7.1f} s wall {cpu:7.1f} s CPU  (target {target} s)", flush=True)
    print(f"{'total':<48}{total:7.1f} s  (target {COURSE_TARGET_SECONDS} s for the whole course)")
    if args.notebooks:
        print("(named notebooks: README.md is not changed; it holds the whole course's table)")
    elif not args.no_readme:
        note = (f"Measured by `python benchmarks/run_notebooks.py` on {time.strftime('%Y-%m-%d')}, "
                f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}: each notebook in a "
                "fresh kernel, one after the other (wall time includes the kernel start; CPU is the kernel's).")
        within = "yes" if total <= COURSE_TARGET_SECONDS else "**no**"
        table = format_table(rows + [["**total**", f"{total:.1f}", "", f"≤ {COURSE_TARGET_SECONDS}", within]],
                             ["notebook", "wall s", "CPU s", "target s", "within"], markdown=True)
        update_readme_section("perf-notebooks", note + "\n\n" + table)


if __name__ == "__main__":
    main()
