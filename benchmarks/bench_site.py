"""How long the course website takes to build: each edition in a fresh process, nothing executed (make site).

    python benchmarks/bench_site.py [--repeat 2] [--no-readme]

Each build runs in its own process (as `make site` does), into a temporary folder; prints wall and CPU seconds per
edition (the best of --repeat runs, and the machine's load average when it started) and writes README section
perf-site. The target from issue 24 is 30 s per edition on the 2-core reference machine.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import date

from helpers import ROOT
from helpers.devtools.readme import update_readme_section

TARGET_S = 30.0
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from helpers.devtools import site
start = time.perf_counter()
site.build_edition(sys.argv[1], Path(sys.argv[2]))
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime}))
"""


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo ("Intel(R) Xeon(R) Processor" -> "Intel Xeon Processor")."""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].replace("(R)", "").replace("(TM)", "").split())
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def measure(lang: str) -> dict:
    """Wall and CPU seconds of one edition's build in a fresh process (CPU includes the imports)."""
    with tempfile.TemporaryDirectory() as out:
        load = os.getloadavg()[0]
        done = subprocess.run([sys.executable, "-c", CHILD, lang, out], capture_output=True, text=True, check=True,
                              cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return dict(json.loads(done.stdout.strip().splitlines()[-1]), load=load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-readme", action="store_true")
    args = parser.parse_args()
    from helpers.devtools import site

    rows = []
    for lang in site.LANGS:
        runs = [measure(lang) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["wall"])
        rows.append((lang, best))
        print(f"{lang}: wall {best['wall']:.1f} s, CPU {best['cpu']:.1f} s (load average {best['load']:.1f})")
    lines = [f"Measured by `python benchmarks/bench_site.py` on {date.today().isoformat()}, {cpu_name()}, "
             f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}: each edition built "
             "from scratch in a fresh "
             f"process, best of {args.repeat} (CPU includes the imports; the load average is the machine's when "
             "the build started: other jobs slow the wall time).", "",
             "| edition | pages | wall s | CPU s | load average | target s | within |", "|---|---|---|---|---|---|---|"]
    for lang, r in rows:
        lines.append(f"| {lang} | {len(site.docnames(lang))} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['load']:.1f} | "
                     f"≤ {TARGET_S:.0f} | {'yes' if r['wall'] <= TARGET_S else 'no'} |")
    if not args.no_readme:
        update_readme_section("perf-site", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
