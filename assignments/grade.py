"""Grade submissions with `otter run` (no Docker needed) and print a per-question score table.

    python assignments/grade.py attention_by_hand submissions/                  # every .ipynb in the folder
    python assignments/grade.py attention_by_hand alice.ipynb bob.ipynb --csv grades.csv --feedback feedback/

ASSIGNMENT is an assignment name (its autograder zip is looked up in assignments/dist/<name>/autograder/,
so build it first with `python assignments/build.py`), a built folder, or an autograder zip.
Each submission is re-executed top to bottom in a fresh kernel of this Python (the course venv), then every
public and hidden test runs: the same as `otter run -a <autograder zip> <submission.ipynb>`, once per file.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.util
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import nbformat


def _load_build_script():
    """The sibling build.py as a module (loaded by path: `build` is also the name of a PyPI package)."""
    spec = importlib.util.spec_from_file_location("assignments_build", Path(__file__).resolve().parent / "build.py")
    module = importlib.util.module_from_spec(spec)
    write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ in assignments/
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = write_bytecode
    return module


_build = _load_build_script()
DIST, autograder_zip = _build.DIST, _build.autograder_zip

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def find_autograder(assignment: str, dist: Path = DIST) -> Path:
    """The autograder zip for an assignment name, a built folder (`dist/<name>`), or a zip path."""
    path = Path(assignment)
    if path.suffix == ".zip" and path.is_file():
        return path
    if (path / "autograder").is_dir():
        return autograder_zip(path)
    return autograder_zip(Path(dist) / assignment)


def collect(paths: list[str | Path]) -> list[Path]:
    """Submission notebooks: the files given, and every .ipynb inside the folders given (sorted, no checkpoints)."""
    found = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        elif p.is_file():
            found.append(p)
        else:
            raise SystemExit(f"no such submission file or folder: {p}")
    return found


@contextlib.contextmanager
def _quiet_stderr():
    """Send file descriptor 2 (the kernel's start-up warnings) to a temp file; yields a function reading it."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lambda: (sink.seek(0), sink.read().decode(errors="replace"))[1]
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


@contextlib.contextmanager
def _cell_time_limit(seconds: int):
    """Inside: otter's notebook runs interrupt a cell after `seconds` and go on with the next (otter sets no limit)."""
    import nbconvert.preprocessors as preprocessors
    import traitlets

    unlimited = preprocessors.ExecutePreprocessor

    class TimeLimitedExecutePreprocessor(unlimited):
        timeout = traitlets.Integer(seconds, allow_none=True).tag(config=True)
        interrupt_on_timeout = traitlets.Bool(True).tag(config=True)

    preprocessors.ExecutePreprocessor = TimeLimitedExecutePreprocessor  # otter imports it from here at each run
    try:
        yield
    finally:
        preprocessors.ExecutePreprocessor = unlimited


def grade_one(submission: Path, zip_path: Path, cell_timeout: int = 60) -> dict:
    """Grade one notebook -> {"submission", "scores" {q: points}, "possible" {q: points}, "total", "out_of", "error", "feedback"}."""
    from otter.api import grade_submission  # imported here: otter takes seconds to import

    row = {"submission": str(submission), "scores": {}, "possible": {}, "total": 0.0, "out_of": 0.0,
           "error": None, "feedback": ""}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / submission.name
        try:
            nb = nbformat.read(submission, as_version=nbformat.NO_CONVERT)
            nb.metadata["kernelspec"] = dict(KERNELSPEC)  # run in this venv, whatever kernel the student used
            nbformat.write(nb, copy)
        except Exception as e:  # noqa: BLE001 - a broken file is one bad row, not a crashed batch
            row["error"] = f"not a readable notebook: {type(e).__name__}: {e}"
            return row
        with _quiet_stderr() as captured, _cell_time_limit(cell_timeout):
            try:
                results = grade_submission(str(copy), str(zip_path), quiet=True)
            except BaseException as e:  # noqa: BLE001 - otter raises SystemExit-like errors on bad submissions
                if isinstance(e, KeyboardInterrupt):
                    raise
                row["error"] = f"{type(e).__name__}: {e}".strip()
                row["feedback"] = captured()
                return row
    if results.has_catastrophic_failure():
        row["error"] = f"grading failed: {results.catastrophic_error}"
    for name, test_file in results.results.items():
        row["scores"][name] = float(test_file.score)
        row["possible"][name] = float(test_file.possible)
    row["total"], row["out_of"] = float(results.total), float(results.possible)
    row["feedback"] = results.summary()
    return row


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def questions_of(rows: list[dict]) -> list[str]:
    """Every question name seen, in natural order (q2 before q10)."""
    return sorted({q for r in rows for q in r["possible"]}, key=_natural)


def _points(x: float) -> str:
    return f"{x:g}"


def score_table(rows: list[dict]) -> str:
    """A plain-text table: one row per submission, one column per question ("got/max"), the total and a percentage."""
    qs = questions_of(rows)
    header = ["submission", *qs, "total", "%"]
    lines = []
    for r in rows:
        name = Path(r["submission"]).name
        if r["error"] and not r["possible"]:
            lines.append([name, *["-"] * len(qs), "ERROR", r["error"].splitlines()[0][:60]])
            continue
        cells = [f"{_points(r['scores'][q])}/{_points(r['possible'][q])}" if q in r["possible"] else "-" for q in qs]
        pct = 100 * r["total"] / r["out_of"] if r["out_of"] else 0.0
        lines.append([name, *cells, f"{_points(r['total'])}/{_points(r['out_of'])}", f"{pct:.0f}"])
    widths = [max(len(str(row[i])) for row in [header, *lines]) for i in range(len(header))]
    fmt = lambda row: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=False)))
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines)])


def write_csv(rows: list[dict], path: Path) -> None:
    """One line per submission: file, each question's points, total, out of, error."""
    qs = questions_of(rows)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submission", *qs, "total", "out_of", "error"])
        for r in rows:
            w.writerow([r["submission"], *[r["scores"].get(q, "") for q in qs], r["total"], r["out_of"], r["error"] or ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment", help="assignment name, built folder, or autograder zip")
    parser.add_argument("submissions", nargs="+", help="submission notebooks and/or folders of them")
    parser.add_argument("--dist", type=Path, default=DIST, help="where build.py wrote the assignments")
    parser.add_argument("--csv", type=Path, help="also write the scores to this CSV file")
    parser.add_argument("--json", type=Path, help="also write every result (with feedback) to this JSON file")
    parser.add_argument("--cell-timeout", type=int, default=60, metavar="SECONDS",
                        help="interrupt a submission's cell after this long and carry on (default 60)")
    parser.add_argument("--feedback", type=Path, help="write each submission's test report to <folder>/<name>.txt "
                                                      "(includes the hidden tests' messages)")
    args = parser.parse_args(argv)

    try:
        zip_path = find_autograder(args.assignment, args.dist)
    except FileNotFoundError as e:
        raise SystemExit(str(e)) from None
    submissions = collect(args.submissions)
    if not submissions:
        raise SystemExit("no .ipynb submissions found")
    print(f"grading {len(submissions)} submission(s) with {zip_path.name}", flush=True)
    rows = []
    for i, sub in enumerate(submissions, 1):
        row = grade_one(sub, zip_path, args.cell_timeout)
        status = row["error"] or f"{_points(row['total'])}/{_points(row['out_of'])}"
        print(f"  [{i}/{len(submissions)}] {sub.name}: {status}", flush=True)
        rows.append(row)
    print()
    print(score_table(rows))
    if args.csv:
        write_csv(rows, args.csv)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    if args.feedback:
        args.feedback.mkdir(parents=True, exist_ok=True)
        for r in rows:
            (args.feedback / (Path(r["submission"]).stem + ".txt")).write_text((r["error"] or "") + "\n" + r["feedback"])
    return 1 if any(r["error"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
