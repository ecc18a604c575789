"""Write the student release: the course without any solution, hidden test or master notebook.

    python -m assignments.release DEST                  # build the student notebooks afresh, write DEST/
    python -m assignments.release DEST --dist DIR       # take the student notebooks of an existing build
    python -m assignments.release DEST --force          # replace an earlier release in DEST

DEST gets the course notebooks, `helpers/`, `data/`, the READMEs, the environment files, the Makefile, the root
`conftest.py` (which zh notebooks nbval runs), `binder/`, `site_src/` (so `make site` builds the website from the
release),
and `assignments/<name>/<name>.ipynb`: the STUDENT version of every assignment (answers left as `...`, public tests
only). No masters, no autograder zips, no tests/ or .ci/. After writing, every file of DEST is searched for every
solution line and hidden-test line of every master (`find_leaks`); a hit deletes nothing but fails the release.
Teachers push DEST to the class repository and keep this repository (with the masters) private.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from assignments.build import autograder_zip, build, masters, secret_lines
from helpers import ROOT

COURSE_FILES = ["README.md", "README.zh.md", "requirements.txt", "requirements-site.txt", "environment.yml",
                "pyproject.toml", "Makefile", "conftest.py"]  # conftest: nbval's zh selection and the AMD rule
COURSE_DIRS = ["notebooks", "helpers", "data", "binder", "site_src"]  # site_src: `make site` works in the release
SKIP = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".DS_Store"}
MARKER = ".student-release"
STUDENT_README = """# Assignments

One notebook per block of the course. Open one in the course's JupyterLab, replace every `...` with your code,
and run each `grader.check("qN")` cell: it runs the public tests and says in words what is wrong. Your teacher
grades with more (hidden) tests and reads the written answers. Keep the file name while you work, run
*Kernel > Restart Kernel and Run All Cells* before you hand it in, and hand in the `.ipynb` file.

| assignment | follows |
|---|---|
{rows}
"""
FOLLOWS = {"bottleneck_and_average": "chapters 01-02", "attention_by_hand": "chapters 03-04",
           "decoder_attention": "chapters 05-06", "transformer_and_cost": "chapters 07-08"}


def _copy_tree(src: Path, dest: Path) -> None:
    """Copy a folder without caches, checkpoints and egg-info."""
    shutil.copytree(src, dest, ignore=lambda d, names: [n for n in names if n in SKIP or n.endswith(".egg-info")])


def text_lines(path: Path) -> set[str]:
    """Every stripped line a file shows: a notebook's strings (sources, outputs, metadata), a zip's members, text."""
    def strings(obj):
        if isinstance(obj, str):
            yield obj
        elif isinstance(obj, dict):
            for v in obj.values():
                yield from strings(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from strings(v)

    data = path.read_bytes()
    texts = []
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            texts = [zf.read(n).decode(errors="replace") for n in zf.namelist()]
    else:
        text = data.decode(errors="replace")
        texts = [text]
        if path.suffix == ".ipynb":
            try:
                texts += list(strings(json.loads(text)))
            except ValueError:
                pass
    return {line.strip() for t in texts for line in t.splitlines()}


def published_lines() -> set[str]:
    """Lines the course publishes anyway: its chapters and helpers, and every master's task text and public tests."""
    shown = {line for d in ("notebooks", "helpers") for f in (ROOT / d).rglob("*")
             if f.is_file() and f.suffix in (".ipynb", ".py", ".md") for line in text_lines(f)}
    return shown | {line for path in masters().values() for line in secret_lines(path, with_public=True)["public"]}


def find_leaks(tree: Path, master_paths: dict[str, Path] | None = None) -> list[tuple[str, str, str, str]]:
    """Every (file, assignment, kind, line) where a secret line of a master appears in a file of `tree`.

    A generic line that one master keeps secret but the course publishes anyway (in a chapter, in `helpers`, or as
    another master's task or public test, e.g. `weights = torch.softmax(scores, dim=-1)`) is not a leak."""
    published = published_lines()
    secrets = [(name, kind, line) for name, path in (master_paths or masters()).items()
               for kind, lines in secret_lines(path).items() for line in sorted(lines - published)]
    leaks = []
    for f in sorted(p for p in Path(tree).rglob("*") if p.is_file()):
        shown = text_lines(f)
        leaks += [(str(f.relative_to(tree)), name, kind, line) for name, kind, line in secrets if line in shown]
    return leaks


def write_release(dest: Path, dist: Path | None = None, force: bool = False) -> Path:
    """Write the student tree into `dest` (see the module docstring); returns `dest`. Raises SystemExit on a leak."""
    dest = Path(dest).resolve()
    if dest == ROOT or ROOT in dest.parents:
        raise SystemExit(f"{dest} is inside the course repository; write the release somewhere else")
    if dest.exists() and any(dest.iterdir()):
        if not (force and (dest / MARKER).is_file()):
            raise SystemExit(f"{dest} is not empty; use --force to replace an earlier release (it has a {MARKER} file)")
        shutil.rmtree(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in COURSE_FILES:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, dest / name)
    for name in COURSE_DIRS:
        if (ROOT / name).is_dir():
            _copy_tree(ROOT / name, dest / name)
    names = list(masters())
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(dist) if dist else Path(tmp)
        for name in names:
            if not dist:
                build(name, built, run_tests=False)
            autograder_zip(built / name)  # a clear error when --dist lacks an assignment
            student = built / name / "student"
            _copy_tree(student, dest / "assignments" / name)
    rows = "\n".join(f"| [`{n}`]({n}/{n}.ipynb) | {FOLLOWS.get(n, '')} |" for n in names)
    (dest / "assignments" / "README.md").write_text(STUDENT_README.format(rows=rows))
    (dest / MARKER).write_text("Written by `python -m assignments.release`; safe to replace with --force.\n")
    leaks = find_leaks(dest)
    if leaks:
        shown = "\n".join(f"  {f}: {name} {kind}: {line}" for f, name, kind, line in leaks[:20])
        raise SystemExit(f"the release in {dest} holds {len(leaks)} secret line(s) from the masters:\n{shown}")
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="where to write the student tree (outside this repository)")
    parser.add_argument("--dist", type=Path, help="an existing build (python -m assignments.build --out DIR)")
    parser.add_argument("--force", action="store_true", help="replace an earlier release in DEST")
    args = parser.parse_args(argv)
    dest = write_release(args.dest, args.dist, args.force)
    files = sum(1 for p in dest.rglob("*") if p.is_file())
    print(f"student release: {files} files in {dest}; no master notebook, solution or hidden test "
          f"({len(masters())} assignment(s) checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
