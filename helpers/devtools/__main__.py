"""`python -m helpers.devtools execute [NOTEBOOK ...]`: re-execute notebooks in place, printing seconds.
`python -m helpers.devtools kernelspec DIR`: write the course kernel's spec (the venv's python3, pinned).
`python -m helpers.devtools course`: rewrite the README sections generated from the course table (helpers.course)."""
from __future__ import annotations

import argparse
from pathlib import Path

from helpers.devtools.notebooks import chapter_notebooks, execute_notebook, write_kernelspec


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run it."""
    parser = argparse.ArgumentParser(prog="python -m helpers.devtools")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("execute", help="re-execute notebooks in place (all chapters when none are named)")
    run.add_argument("notebooks", nargs="*", type=Path)
    spec = sub.add_parser("kernelspec", help="write the python3 kernel spec with the pinned environment into DIR")
    spec.add_argument("directory", type=Path)
    sub.add_parser("course", help="rewrite the chapter and learner-time tables made from helpers/course.py")
    args = parser.parse_args(argv)
    if args.command == "kernelspec":
        print(f"kernel spec with pinned CPU kernels: {write_kernelspec(args.directory)}")
        return 0
    if args.command == "course":
        from helpers.devtools.readme import update_course_sections

        for done in update_course_sections():
            print(f"updated {done}")
        return 0
    from helpers import pinning

    pinning.check_can_write("executed notebooks")
    for path in args.notebooks or chapter_notebooks():
        seconds, _ = execute_notebook(path)
        print(f"{seconds:7.1f} s  {Path(path).name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
