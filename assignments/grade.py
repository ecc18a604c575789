"""Grade a folder of submissions in contained child processes; write a course gradebook and safe feedback.

    python -m assignments.grade attention_by_hand submissions/                       # print the score table
    python -m assignments.grade attention_by_hand submissions/ --csv gradebook.csv --feedback feedback/
    python -m assignments.grade attention_by_hand submissions/ --csv gradebook.csv --manual manual.csv

ASSIGNMENT is an assignment name (its build is looked up in assignments/dist/<name>/: run
`python -m assignments.build` first) or a built folder. The sandbox computes, this process judges: each submission
(outputs dropped) runs top to bottom inside bubblewrap (assignments/sandbox.py: no network, read-only system, user
nobody, limits) with a small harness that calls its functions on inputs drawn here from a seed secret to the run
and returns plain data (assignments/harness.py). Here, outside, the submission's source is checked and every point
awarded against expected values the sandbox never sees (assignments/judge.py, assignments/<name>/checks.py). The
public tests of the notebook help students while they work; at grading they are not run and earn nothing.
Where bwrap is missing, grading refuses unless `--no-sandbox-i-understand` is given.

- `--csv FILE`: the course-wide gradebook, one row per student, a column per question (`<assignment>.<q>`) and per
  assignment (`<assignment>.total`); grading another assignment into the same file adds its columns and keeps
  the others. Written questions (`manual: true` in the master) get their points from `--manual FILE`, a CSV with
  the columns `student,assignment,question,points`.
- `--feedback DIR`: `DIR/<assignment>/<student>.html` per student: points per question, the public tests'
  messages, hidden tests as passed/failed only (never their source or message), errors as one line.
- Student ids: `--id-pattern REGEX` (a group named `id`, matched against the file name), else the file name
  without the assignment's name, LMS copy suffixes such as " (1)" and separators; a file named just like the
  assignment takes its folder's name. Two files with one id are both refused.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import csv
import dataclasses
import html
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat

from assignments import judge, withhold
from assignments.build import DIST
from assignments.sandbox import UNSAFE_FLAG, Limits, SandboxUnavailable, describe, run_contained
from helpers import ROOT

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
MANUAL_COLUMNS = ["student", "assignment", "question", "points"]


def find_build(assignment: str, dist: Path = DIST) -> tuple[str, Path]:
    """(assignment name, built folder) for a name (looked up in `dist`) or a built folder."""
    path = Path(assignment)
    folder = path if (path / "questions.json").is_file() else Path(dist) / assignment
    if not (folder / "questions.json").is_file() or not (folder / "student").is_dir():
        raise FileNotFoundError(f"no build of {assignment!r} in {folder}: build it first "
                                f"(python -m assignments.build {path.name})")
    return json.loads((folder / "questions.json").read_text())["assignment"], folder


def grading_limits(questions_json: Path, base: Limits, overridden: set[str] = frozenset()) -> Limits:
    """The assignment's own limits (`assignments/<name>/grading.json`, copied by the build) where not overridden."""


    own = json.loads(questions_json.read_text()).get("grading", {})
    return dataclasses.replace(base, **{k: int(v) for k, v in own.items() if k not in overridden})


def question_list(questions_json: Path) -> list[dict]:
    """Every question [{"name", "points", "manual"}] from the build's questions.json."""
    return json.loads(questions_json.read_text())["questions"]


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


def student_id(path: Path, assignment: str, pattern: str | None = None) -> str:
    """The student's id from a submission's file name (see the module docstring)."""
    if pattern:
        m = re.search(pattern, path.name)
        if not m:
            raise ValueError(f"--id-pattern {pattern!r} does not match the file name {path.name!r}")
        return m.group("id") if "id" in m.re.groupindex else m.group(1 if m.re.groups else 0)
    stem = re.sub(r"\s*\(\d+\)$", "", path.stem)            # LMS copies: "name (1)"
    stem = re.sub(re.escape(assignment), "", stem, flags=re.I)
    stem = re.sub(r"^[\s_\-.]+|[\s_\-.]+$", "", stem)
    return stem or path.parent.name


def clean_copy(submission: Path, assignment: str) -> dict:
    """Read a submission, check it belongs to `assignment`, drop outputs -> the notebook as plain JSON data."""
    try:
        nb = nbformat.read(submission, as_version=4)
    except Exception as e:
        raise ValueError(f"not a readable notebook ({type(e).__name__})") from None
    found = nb.metadata.get("otter", {}).get("assignment_name")
    if found != assignment:
        raise ValueError(f"this notebook is not the student notebook of {assignment!r} "
                         f"(its metadata names {found!r})")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    return json.loads(nbformat.writes(nb))


@dataclasses.dataclass
class Grading:
    """What every submission of one run shares: the assignment, its checks, the run's secret seed, the limits."""

    name: str
    folder: Path
    questions: list[dict]
    limits: Limits
    seed: int
    unsafe: bool = False
    draws: int = 1

    def __post_init__(self):
        self.checks = judge.load_checks(self.name)
        self.points = {q["name"]: q["points"] for q in self.questions if not q["manual"]}
        self.allowed = judge.given_helpers(json.loads((self.folder / "student" / f"{self.name}.ipynb").read_text()))
        self._copy_root = Path(tempfile.mkdtemp(prefix="grading-helpers-"))
        # what each sandbox run sees of helpers/: the main run, and each run kept apart (assignments/withhold.py)
        self.helpers_dirs = {run: withhold.build_copy(self.name, self._copy_root / (run or "main"), run=run)
                             for run in (None, *withhold.apart_runs(self.name))}

        self._lock = threading.Lock()
        self._call_limits: dict[str, float] | None = None

    def call_limits(self, plans: list) -> dict[str, float]:
        """Seconds allowed to each call of the plan: `call_factor` x what the master's solution took for it, at
        least `call_floor` (measured once per run, in the sandbox, on the same calls); the cell limit where the
        master could not be timed."""
        with self._lock:
            if self._call_limits is None:
                master = self.folder / "autograder" / f"{self.name}.ipynb"
                measured = {}
                if master.is_file():
                    result = run_all(plans[0], clean_copy(master, self.name), self)
                    times = result.get("report", {}).get("_seconds", {})
                    measured = {k: float(v) for k, v in times.items() if isinstance(v, (int, float))}
                self._call_limits = {
                    c["id"]: round(max(self.limits.call_floor, self.limits.call_factor * measured[c["id"]]), 1)
                    if c["id"] in measured else float(self.limits.cell_seconds) for c in plans[0].calls}
            return self._call_limits

    def close(self) -> None:
        """Remove the grading copy of the course package."""
        shutil.rmtree(self._copy_root, ignore_errors=True)


def run_all(plan: judge.Plan, nb: dict, g: Grading) -> dict:
    """Every sandbox run the plan needs (the main one, and each kept apart with its own copy of the course
    package) on one notebook -> {"report", "arrays"} merged, or {"error"} of the first run that failed."""
    report: dict = {"_seconds": {}}
    arrays: dict = {}
    for run in plan.runs():
        result = run_contained(plan.files(json.dumps(nb).encode(), g.limits.cell_seconds, run), g.limits, g.unsafe,
                               helpers_dir=g.helpers_dirs[run])
        if "error" in result:
            return result
        seconds = result["report"].pop("_seconds", {})
        report["_seconds"].update(seconds if isinstance(seconds, dict) else {})
        ids = {c["id"] for c in plan.calls if c.get("apart") == run}
        report.update({k: v for k, v in result["report"].items() if k in ids})   # a run answers for its calls only
        arrays.update({k: v for k, v in result["arrays"].items() if k.split("/")[0].split(".")[0] in ids})
    return {"report": report, "arrays": arrays}


def grade_one(submission: Path, g: Grading) -> dict:
    """Grade one submission -> {"submission", "questions" {q: {score, possible, tests}}, "error"}.

    The sandbox runs the notebook and the plan's calls and returns plain data; here, outside, the source is
    checked and every point is awarded (assignments/judge.py)."""
    row = {"submission": str(submission), "questions": {}, "error": None}
    try:
        nb = clean_copy(submission, g.name)
    except ValueError as e:
        row["error"] = str(e)
        return row
    plans = [judge.Plan(g.seed)]
    plans += [judge.Plan(g.seed + i, share=plans[0]) for i in range(1, g.draws)]  # one run, several draws
    for plan in plans:
        g.checks.plan(plan)
    limits = g.call_limits(plans)
    for call in plans[0].calls:
        call["seconds"] = limits.get(call["id"], float(g.limits.cell_seconds))
    result = run_all(plans[0], nb, g)
    if "error" in result:
        row["error"] = result["error"]
        return row
    verdicts = judge.source_verdicts(nb, g.checks.RULES, g.allowed)
    judged = [judge.judge_results(plan, result["report"], result["arrays"], verdicts, g.points) for plan in plans]
    row["questions"] = judged[0]
    if g.draws > 1:
        row["draws"] = [{q: v["score"] for q, v in j.items()} for j in judged]
    return row


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _points(x: float) -> str:
    return f"{x:g}"


def auto_total(row: dict) -> tuple[float, float]:
    """(points, out of) over the auto-graded questions of one graded row."""
    qs = row["questions"].values()
    return sum(q["score"] for q in qs), sum(q["possible"] for q in qs)


def score_table(rows: list[dict], questions: list[dict]) -> str:
    """Plain text: one row per student, one column per auto-graded question ("got/max"), the total and a percentage."""
    qs = [q["name"] for q in questions if not q["manual"]]
    out_of = sum(q["points"] for q in questions if not q["manual"])
    header = ["student", *qs, "total", "%"]
    lines = []
    for r in rows:
        if r["error"] and not r["questions"]:
            lines.append([r["student"], *["-"] * len(qs), "ERROR", r["error"][:70]])
            continue
        cells = [f"{_points(r['questions'][q]['score'])}/{_points(r['questions'][q]['possible'])}" for q in qs]
        got, _ = auto_total(r)
        lines.append([r["student"], *cells, f"{_points(got)}/{_points(out_of)}", f"{100 * got / out_of:.0f}"])
    widths = [max(len(str(row[i])) for row in [header, *lines]) for i in range(len(header))]

    def fmt(row):
        cells = enumerate(zip(row, widths, strict=True))
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in cells)
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines)])


def read_manual(path: Path | None, assignment: str, questions: list[dict]) -> dict[str, dict[str, float]]:
    """student -> {question: points} for this assignment's written questions, from a teacher's CSV (checked)."""
    if not path:
        return {}
    manual = {q["name"]: q["points"] for q in questions if q["manual"]}
    scores: dict[str, dict[str, float]] = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or not set(MANUAL_COLUMNS) <= set(reader.fieldnames):
            raise SystemExit(f"{path} needs the columns {','.join(MANUAL_COLUMNS)}; it has {reader.fieldnames}")
        for n, rec in enumerate(reader, 2):
            if rec["assignment"].strip() != assignment:
                continue
            q, who = rec["question"].strip(), rec["student"].strip()
            if q not in manual:
                raise SystemExit(f"{path} line {n}: {q!r} is not a written question of {assignment} "
                                 f"(those are {sorted(manual) or 'none'})")
            try:
                points = float(rec["points"])
            except ValueError:
                raise SystemExit(f"{path} line {n}: points {rec['points']!r} is not a number") from None
            if not 0 <= points <= manual[q]:
                raise SystemExit(f"{path} line {n}: {points:g} points for {q}, which is worth {manual[q]:g}")
            scores.setdefault(who, {})[q] = points
    return scores


def update_gradebook(path: Path, assignment: str, rows: list[dict], questions: list[dict],
                     manual: dict[str, dict[str, float]]) -> None:
    """Create or update the course-wide CSV: this assignment's columns are replaced, every other column is kept."""
    old_rows, old_columns = [], ["student"]
    if path.is_file():
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            old_columns = list(reader.fieldnames or ["student"])
            old_rows = list(reader)
    mine = [f"{assignment}.{q['name']}" for q in questions] + [f"{assignment}.total", f"{assignment}.out_of",
                                                                f"{assignment}.error"]
    columns = [c for c in old_columns if not c.startswith(f"{assignment}.")] + mine
    book = {r["student"]: {c: r.get(c, "") for c in columns} for r in old_rows}
    for r in book.values():  # a re-grade replaces the whole assignment: no stale scores survive
        r.update({c: "" for c in mine})
    out_of = sum(q["points"] for q in questions)
    for r in rows:
        rec = book.setdefault(r["student"], {c: "" for c in columns})
        rec["student"] = r["student"]
        total = 0.0
        for q in questions:
            if q["manual"]:
                value = manual.get(r["student"], {}).get(q["name"])
            else:
                value = r["questions"].get(q["name"], {}).get("score") if not r["error"] or r["questions"] else None
            rec[f"{assignment}.{q['name']}"] = "" if value is None else _points(value)
            total += value or 0.0
        rec[f"{assignment}.total"] = "" if r["error"] and not r["questions"] else _points(total)
        rec[f"{assignment}.out_of"] = _points(out_of)
        rec[f"{assignment}.error"] = r["error"] or ""
    for who, scores in manual.items():  # a written score for someone without a graded notebook is still kept
        if who not in book:
            book[who] = {c: "" for c in columns} | {"student": who, f"{assignment}.out_of": _points(out_of)}
            for q, v in scores.items():
                book[who][f"{assignment}.{q}"] = _points(v)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for who in sorted(book, key=_natural):
            w.writerow(book[who])
    tmp.replace(path)


def scrub(text: str) -> str:
    """A message for a student without the grading machine's paths (a submission can read the sandbox's bind
    mounts from /proc and raise them in a message): the course's folder, Python's and the temporary folder."""
    import sys

    for path in sorted({str(ROOT), sys.prefix, sys.base_prefix, tempfile.gettempdir(), str(Path.home())},
                       key=len, reverse=True):
        if len(path) > 1:
            text = text.replace(path, "…")
    return text


def feedback_html(row: dict, assignment: str, questions: list[dict], manual: dict[str, float]) -> str:
    """One student's feedback page: points, public messages, hidden tests as passed/failed only, errors as one line;
    no path of the grading machine (`scrub`)."""
    def e(text) -> str:
        return html.escape(scrub(str(text)))

    parts = [f"<!doctype html><meta charset='utf-8'><title>{e(assignment)}: {e(row['student'])}</title>",
             "<style>body{font-family:sans-serif;max-width:50em}td,th{padding:2px 8px;text-align:left}"
             ".ok{color:#070}.bad{color:#a00}</style>",
             f"<h1>{e(assignment)}</h1><p>Student: <b>{e(row['student'])}</b></p>"]
    if row["error"] and not row["questions"]:
        parts.append(f"<p class='bad'>Your notebook could not be graded: {e(row['error'])}</p>"
                     "<p>Restart the kernel, run all cells, check that each one runs, and hand it in again.</p>")
    got = sum(row["questions"].get(q["name"], {}).get("score", 0.0) for q in questions if not q["manual"]) \
        + sum(manual.values())
    parts.append(f"<p>Total: <b>{_points(got)} / {_points(sum(q['points'] for q in questions))}</b></p>")
    for q in questions:
        name = q["name"]
        if q["manual"]:
            score = manual.get(name)
            shown = "not graded yet" if score is None else f"{_points(score)} / {_points(q['points'])}"
            parts.append(f"<h2>{e(name)} (written, graded by your teacher): {e(shown)}</h2>")
            continue
        result = row["questions"].get(name)
        if result is None:
            continue
        parts.append(f"<h2>{e(name)}: {_points(result['score'])} / {_points(result['possible'])}</h2><table>")
        for i, t in enumerate(result["tests"], 1):
            status = "<span class='ok'>passed</span>" if t["passed"] else "<span class='bad'>failed</span>"
            kind = "hidden test" if t["hidden"] else "public test"
            message = "" if t["hidden"] or t["passed"] else e(f"{name}: {t.get('message') or 'failed'}")
            parts.append(f"<tr><td>{kind} {i}</td><td>{status}</td><td>{message}</td></tr>")
        parts.append("</table>")
    parts.append("<p>Hidden tests check your code on inputs you have not seen; they show only passed or failed.</p>")
    return "\n".join(parts) + "\n"


def grade_all(assignment: str, submissions: list[str | Path], *, dist: Path = DIST, limits: Limits | None = None,
              jobs: int = 1, id_pattern: str | None = None, log=print, overridden: set[str] = frozenset(),
              unsafe: bool = False, seed: int | None = None, draws: int = 1
              ) -> tuple[str, list[dict], list[dict], int]:
    """Grade every submission -> (assignment name, rows sorted by student, questions, the run's seed).

    The seed of the hidden inputs is drawn afresh for each run (`secrets`) unless given; it stays in this process
    (the sandbox gets the inputs, never the seed or the expected values)."""
    import secrets

    name, folder = find_build(assignment, dist)
    questions = question_list(folder / "questions.json")
    limits = grading_limits(folder / "questions.json", limits or Limits(), overridden)
    files = collect(submissions)
    if not files:
        raise SystemExit("no .ipynb submissions found")
    ids = {f: student_id(f, name, id_pattern) for f in files}
    seen: dict[str, list[Path]] = {}
    for f, who in ids.items():
        seen.setdefault(who, []).append(f)
    try:
        how = describe(unsafe)
    except SandboxUnavailable as e:
        raise SystemExit(f"refusing to grade: {e}") from None
    seed = secrets.randbits(62) if seed is None else seed
    g = Grading(name, folder, questions, limits, seed, unsafe, max(1, draws))
    log(f"grading {len(files)} submission(s) of {name}; containment: {how}; limits: "
        f"{limits.cell_seconds} s a cell, {limits.submission_seconds} s a submission, "
        f"{limits.memory_bytes / 2**30:g} GB")
    rows: list[dict] = []

    def work(f: Path) -> dict:
        if len(seen[ids[f]]) > 1:
            row = {"submission": str(f), "questions": {}, "error": f"student id {ids[f]!r} is shared by "
                   f"{len(seen[ids[f]])} files: {', '.join(p.name for p in seen[ids[f]])}"}
        else:
            try:
                row = grade_one(f, g)
            except Exception as e:  # one submission's failure is its own error row, not the run's
                row = {"submission": str(f), "questions": {},
                       "error": f"grading this submission failed ({type(e).__name__}); the others are graded"}
        row["student"] = ids[f]
        return row

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for i, row in enumerate(pool.map(work, files), 1):
                got, out_of = auto_total(row)
                log(f"  [{i}/{len(files)}] {row['student']}: {row['error'] or f'{_points(got)}/{_points(out_of)}'}")
                if len({json.dumps(d, sort_keys=True) for d in row.get("draws", [])}) > 1:
                    log(f"    the points of {row['student']} depend on the draw of the hidden inputs: {row['draws']}")
                rows.append(row)
    finally:
        g.close()
    return name, sorted(rows, key=lambda r: _natural(r["student"])), questions, seed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment", help="assignment name (its build in --dist) or a built folder")
    parser.add_argument("submissions", nargs="+", help="submission notebooks and/or folders of them")
    parser.add_argument("--dist", type=Path, default=DIST, help="where assignments.build wrote the assignments")
    parser.add_argument("--csv", type=Path, help="the course-wide gradebook CSV to create or update")
    parser.add_argument("--manual", type=Path,
                        help="a CSV of written-question scores: student,assignment,question,points")
    parser.add_argument("--feedback", type=Path, help="write DIR/<assignment>/<student>.html, safe to send")
    parser.add_argument("--json", type=Path, help="write every result to this JSON file (teachers only)")
    parser.add_argument("--id-pattern", help="regex with a group named id, matched against each file name")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default 1)")
    parser.add_argument("--cell-timeout", type=int, metavar="SECONDS",
                        help=f"interrupt a cell after this long and carry on (default {Limits.cell_seconds}, or the "
                             "assignment's grading.json)")
    parser.add_argument("--timeout", type=int, metavar="SECONDS",
                        help=f"stop grading one submission after this long (default {Limits.submission_seconds}, or "
                             "the assignment's grading.json)")
    parser.add_argument("--memory-gb", type=float, default=Limits.memory_bytes / 2**30,
                        help=f"address-space limit per submission (default {Limits.memory_bytes / 2**30:g})")
    parser.add_argument("--seed", type=int, help="the seed of the hidden inputs (default: a new secret one per run)")
    parser.add_argument("--draws", type=int, default=1, metavar="N",
                        help="for authors of checks: also judge every submission on N-1 further draws of the hidden "
                             "inputs (same sandbox run) and report points that depend on the draw; grades use the "
                             "first draw")
    parser.add_argument(UNSAFE_FLAG, dest="unsafe", action="store_true",
                        help="grade even where bubblewrap is missing: submissions then run WITHOUT containment")
    args = parser.parse_args(argv)

    limits = Limits(cell_seconds=args.cell_timeout or Limits.cell_seconds,
                    submission_seconds=args.timeout or Limits.submission_seconds,
                    memory_bytes=int(args.memory_gb * 2**30))
    overridden = {k for k, v in (("cell_seconds", args.cell_timeout), ("submission_seconds", args.timeout)) if v}
    try:
        find_build(args.assignment, args.dist)
    except FileNotFoundError as e:
        raise SystemExit(str(e)) from None
    start = time.perf_counter()
    name, rows, questions, seed = grade_all(args.assignment, args.submissions, dist=args.dist, limits=limits,
                                            jobs=args.jobs, id_pattern=args.id_pattern, overridden=overridden,
                                            unsafe=args.unsafe, seed=args.seed, draws=args.draws)
    manual = read_manual(args.manual, name, questions)
    print(f"\n{score_table(rows, questions)}\n\n{len(rows)} submission(s) in {time.perf_counter() - start:.0f} s")
    if args.csv:
        update_gradebook(args.csv, name, rows, questions, manual)
        print(f"gradebook: {args.csv}")
    if args.json:
        report = {"assignment": name, "seed": seed, "questions": questions, "rows": rows}
        args.json.write_text(json.dumps(report, indent=1))
    if args.feedback:
        folder = args.feedback / name
        folder.mkdir(parents=True, exist_ok=True)
        for r in rows:
            safe = re.sub(r"[^\w.@-]+", "_", r["student"]) or "unnamed"
            (folder / f"{safe}.html").write_text(feedback_html(r, name, questions, manual.get(r["student"], {})))
        print(f"feedback: {folder}/<student>.html")
    return 1 if any(r["error"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
