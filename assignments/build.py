"""Build the student and autograder versions of every assignment with `otter assign`.

    python assignments/build.py                       # every assignment into assignments/dist/<name>/
    python assignments/build.py attention_by_hand     # just one
    python assignments/build.py --out /tmp/dist       # somewhere else

An assignment is a folder `assignments/<name>/` holding the master notebook `<name>.ipynb` (otter-grader format).
`otter assign` writes `<out>/<name>/student/<name>.ipynb` (hand this out) and `<out>/<name>/autograder/`
(the solutions notebook and `<name>-autograder_<timestamp>.zip`, which `grade.py` uses). It also runs the
solutions against every test, public and hidden, and fails if any solution does not get full marks.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIST = HERE / "dist"


def masters() -> dict[str, Path]:
    """Every assignment name -> its master notebook (`assignments/<name>/<name>.ipynb`)."""
    return {d.name: d / f"{d.name}.ipynb" for d in sorted(HERE.iterdir()) if (d / f"{d.name}.ipynb").is_file()}


def otter_command(*args: str) -> list[str]:
    """The otter CLI of the Python running this script (the course venv): no machine paths, no PATH lookup."""
    return [sys.executable, "-m", "otter", *args]


def autograder_zip(build_dir: Path) -> Path:
    """The autograder zip of one built assignment (`<build_dir>/autograder/<name>-autograder_*.zip`; the newest)."""
    zips = sorted((Path(build_dir) / "autograder").glob("*-autograder_*.zip"), key=lambda p: p.stat().st_mtime)
    if not zips:
        raise FileNotFoundError(f"no autograder zip in {Path(build_dir) / 'autograder'}: build the assignment first "
                                f"(python assignments/build.py)")
    return zips[-1]


def build(name: str, out: Path = DIST, run_tests: bool = True) -> Path:
    """Run `otter assign` on one master notebook into `<out>/<name>/` (replacing an earlier build); returns that folder."""
    table = masters()
    if name not in table:
        raise SystemExit(f"unknown assignment {name!r}; known: {', '.join(table) or 'none'}")
    dest = Path(out).resolve() / name
    if dest.exists():
        leftovers = {p.name for p in dest.iterdir()} - {"student", "autograder"}
        if leftovers:
            raise SystemExit(f"{dest} exists and does not look like an earlier build (it holds {sorted(leftovers)}); "
                             "remove it yourself or choose another --out")
        shutil.rmtree(dest)
    cmd = otter_command("assign", str(table[name]), str(dest))
    if not run_tests:
        cmd.append("--no-run-tests")
    print("$", " ".join(["python", "-m", "otter", *cmd[3:]]), flush=True)
    subprocess.run(cmd, check=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="assignments to build (default: all of them)")
    parser.add_argument("--out", type=Path, default=DIST, help="output folder (default: assignments/dist)")
    parser.add_argument("--no-run-tests", action="store_true", help="skip running the solutions against the tests")
    args = parser.parse_args(argv)
    names = args.names or list(masters())
    if not names:
        raise SystemExit(f"no master notebooks found in {HERE}/<name>/<name>.ipynb")
    for name in names:
        dest = build(name, args.out, run_tests=not args.no_run_tests)
        print(f"\n{name}:\n  hand out  {dest / 'student' / (name + '.ipynb')}\n"
              f"  grade with {autograder_zip(dest)}\n  solutions {dest / 'autograder' / (name + '.ipynb')}"
              " (teachers only: it holds the hidden tests)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
