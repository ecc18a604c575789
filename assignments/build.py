"""Build the student and autograder versions of every assignment with `otter assign`.

    python -m assignments.build                       # every assignment into assignments/dist/<name>/
    python -m assignments.build attention_by_hand     # just one
    python -m assignments.build --out /tmp/dist       # somewhere else

An assignment is a folder `assignments/<name>/` holding the master notebook `<name>.ipynb` (otter-grader format).
`otter assign` writes `<out>/<name>/student/<name>.ipynb` (hand this out) and `<out>/<name>/autograder/`
(the solutions notebook and `<name>-autograder_<timestamp>.zip`, which `grade.py` uses), and this script adds
`<out>/<name>/questions.json` (every question's points, written ones included, for the gradebook). otter also runs
the solutions against every test, public and hidden, and fails if any solution does not get full marks.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import yaml

HERE = Path(__file__).resolve().parent
DIST = HERE / "dist"


def masters() -> dict[str, Path]:
    """Every assignment name -> its master notebook (`assignments/<name>/<name>.ipynb`)."""
    return {d.name: d / f"{d.name}.ipynb" for d in sorted(HERE.iterdir()) if (d / f"{d.name}.ipynb").is_file()}


def question_table(master: Path) -> list[dict]:
    """Every question of a master notebook, in order: [{"name", "points", "manual"}] (manual = graded by hand)."""
    table = []
    for cell in nbformat.read(master, as_version=4).cells:
        if cell.cell_type == "raw" and cell.source.lstrip().startswith("# BEGIN QUESTION"):
            config = yaml.safe_load(cell.source.split("\n", 1)[1]) or {}
            table.append({"name": str(config["name"]), "points": float(config.get("points", 0)),
                          "manual": bool(config.get("manual", False))})
    return table


TRIVIAL = re.compile(r"^(?:[\s()\[\]{},:;.]*|\.\.\.|pass|else:|try:|finally:|return|# ?(?:HIDDEN|SOLUTION)|"
                     r"(?:import|from) [\w. ,]+(?: import [\w., ()]+)?(?: as \w+)?)$")


def _cell_lines(cell) -> list[str]:
    """A code cell's lines, plus the same code as otter rewrites it into test files (ast.unparse)."""
    import ast

    lines = cell.source.splitlines()
    with contextlib.suppress(SyntaxError):
        lines += ast.unparse(ast.parse(cell.source)).splitlines()
    return lines


def secret_lines(master: Path, with_public: bool = False) -> dict[str, set[str]]:
    """The lines of a master that students must never see, stripped: {"solution": ..., "hidden_test": ...}.

    Solution lines are those between `# BEGIN SOLUTION` / `# END SOLUTION` comment lines and those ending in
    `# SOLUTION`, inside solution cells; hidden-test lines are the lines of every test cell that starts with
    `# HIDDEN`, also as otter rewrites them into the autograder's test files. Left out: trivial lines (`TRIVIAL`:
    blank, brackets and punctuation alone, `...`, `pass`, `else:`, `try:`, `finally:`, a bare `return`, the marker
    comments, plain import lines) and lines that the master also shows students (its task text, given code and
    public tests), which are public by design; `with_public=True` also returns those under "public"."""
    secret: dict[str, set[str]] = {"solution": set(), "hidden_test": set()}
    public: set[str] = set()
    block = None
    for cell in nbformat.read(master, as_version=4).cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw":
            if head.startswith(("# BEGIN SOLUTION", "# BEGIN TESTS")):
                block = head.split()[2]
            elif head.startswith("# END"):
                block = None
            continue
        if block == "TESTS":
            (secret["hidden_test"] if head.lower().startswith("# hidden") else public).update(
                ln.strip() for ln in _cell_lines(cell))
        elif block == "SOLUTION" and cell.cell_type == "code":
            inside = False
            for line in cell.source.splitlines():
                if line.strip() == "# BEGIN SOLUTION":
                    inside = True
                elif line.strip() == "# END SOLUTION":
                    inside = False
                elif inside or line.rstrip().endswith("# SOLUTION"):
                    secret["solution"].add(re.sub(r"\s*# SOLUTION$", "", line).strip())
                else:
                    public.add(line.strip())
        else:
            public.update(ln.strip() for ln in cell.source.splitlines())
    out = {kind: {ln for ln in lines - public if not TRIVIAL.match(ln)} for kind, lines in secret.items()}
    return out | {"public": public} if with_public else out


def autograder_zip(build_dir: Path) -> Path:
    """The autograder zip of one built assignment (`<build_dir>/autograder/<name>-autograder_*.zip`; the newest)."""
    zips = sorted((Path(build_dir) / "autograder").glob("*-autograder_*.zip"), key=lambda p: p.stat().st_mtime)
    if not zips:
        raise FileNotFoundError(f"no autograder zip in {Path(build_dir) / 'autograder'}: build the assignment first "
                                f"(python assignments/build.py)")
    return zips[-1]


def build(name: str, out: Path = DIST, run_tests: bool = True) -> Path:
    """Run `otter assign` on one master into `<out>/<name>/` (replacing an earlier build); returns that folder."""
    table = masters()
    if name not in table:
        raise SystemExit(f"unknown assignment {name!r}; known: {', '.join(table) or 'none'}")
    dest = Path(out).resolve() / name
    if dest.exists():
        leftovers = {p.name for p in dest.iterdir()} - {"student", "autograder", "questions.json"}
        if leftovers:
            raise SystemExit(f"{dest} exists and does not look like an earlier build (it holds {sorted(leftovers)}); "
                             "remove it yourself or choose another --out")
        shutil.rmtree(dest)
    print(f"otter assign {table[name]} {dest}{'' if run_tests else ' --no-run-tests'}", flush=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    from otter.assign import main as otter_assign  # in this process: one import of otter for every assignment

    otter_assign(str(table[name]), str(dest), no_run_tests=not run_tests)
    grading = table[name].parent / "grading.json"  # optional per-assignment limits, e.g. {"cell_seconds": 600}
    info = {"assignment": name, "questions": question_table(table[name]),
            "grading": json.loads(grading.read_text()) if grading.is_file() else {}}
    (dest / "questions.json").write_text(json.dumps(info, indent=1) + "\n")
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
