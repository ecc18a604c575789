"""Grade one untrusted submission in a contained child process (Linux namespaces, user nobody, resource limits).

The parent (`run_contained`) prepares a private folder holding a copy of the submission and of the autograder zip,
starts `python -m assignments.sandbox FOLDER FD` inside `unshare` and reads the child's JSON report from a pipe.
The child, before it imports otter or runs any student code:

- brings up the loopback interface of its own, empty network namespace (no route out; the kernel's ZMQ sockets
  need 127.0.0.1, which is private to the namespace);
- in its own mount namespace puts empty tmpfs over /tmp, /var/tmp, /dev/shm, the teacher's unreadable home,
  the masters and the submission folders (binding back only the grading folder, the interpreter and the course
  code), and makes every other mount read-only;
- drops to the user nobody (when started as root), so files it does not own cannot be changed either way;
- limits address space, CPU time, file size and process count (`resource.setrlimit`, inherited by the kernel);
- grades with otter (a per-cell time limit), and writes scores and test messages as JSON to the pipe.

The parent kills the whole namespace after the per-submission time limit and validates what it reads. Grades,
the gradebook and the feedback files are written by the parent only.
"""
from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from helpers import ROOT

NOBODY = 65534
ENV_MODE = "ASSIGNMENTS_SANDBOX"  # force a mode: "namespaces", "userns" or "none" (tests use it)
UNSHARE_COMMON = ["--net", "--pid", "--fork", "--kill-child", "--mount", "--mount-proc"]


@dataclasses.dataclass(frozen=True)
class Limits:
    """Per-submission limits: seconds per cell, seconds per submission, bytes of address space."""

    cell_seconds: int = 60
    submission_seconds: int = 600
    memory_bytes: int = 6 << 30
    file_bytes: int = 256 << 20
    processes: int = 512


@dataclasses.dataclass(frozen=True)
class Mode:
    """How submissions are contained here: `name` in {"namespaces", "userns", "none"} and why."""

    name: str
    reason: str

    def prefix(self) -> list[str]:
        """The command prefix that starts the child in its namespaces ([] when there are none)."""
        if self.name == "namespaces":
            return ["unshare", *UNSHARE_COMMON]
        if self.name == "userns":
            return ["unshare", "--user", "--map-root-user", *UNSHARE_COMMON]
        return []


def _probe(cmd: list[str]) -> str | None:
    """None when `cmd true` runs, else the reason it does not."""
    try:
        proc = subprocess.run([*cmd, "true"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{cmd[0]}: {e}"
    if proc.returncode == 0:
        return None
    return (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]


def detect_mode() -> Mode:
    """The strongest containment this machine allows (override with the environment variable ASSIGNMENTS_SANDBOX)."""
    forced = os.environ.get(ENV_MODE, "").strip()
    if forced == "none":
        return Mode("none", f"{ENV_MODE}=none")
    if not sys.platform.startswith("linux"):
        return Mode("none", f"namespaces are Linux-only; this is {sys.platform}")
    if shutil.which("unshare") is None:
        return Mode("none", "the unshare command (util-linux) is not installed")
    reasons = []
    if forced in ("", "namespaces"):
        if os.geteuid() == 0:
            why = _probe(Mode("namespaces", "").prefix())
            if why is None:
                return Mode("namespaces", "root: network, mount and PID namespaces, then the user nobody")
            reasons.append(f"namespaces as root failed ({why})")
        else:
            reasons.append("not root, so the child cannot become the user nobody")
    why = _probe(Mode("userns", "").prefix())
    if why is None:
        return Mode("userns", "; ".join(reasons + ["a user namespace: network, mount and PID namespaces, "
                                                   "read-only mounts, but the submission keeps your user id"]))
    reasons.append(f"unprivileged user namespaces failed ({why})")
    return Mode("none", "; ".join(reasons))


# ------------------------------------------------------------------------------------------------ parent side

def question_points(zip_path: Path) -> dict[str, float]:
    """Question name -> points, read from the autograder zip's tests/<q>.py headers (no code is run)."""
    table = {}
    with zipfile.ZipFile(zip_path) as zf:
        for item in zf.namelist():
            if re.fullmatch(r"tests/\w+\.py", item):
                text = zf.read(item).decode()
                name = re.search(r"^name = ['\"](\w+)['\"]", text, re.M)
                points = re.search(r"^points = ([0-9.]+)", text, re.M)
                if name:
                    table[name.group(1)] = float(points.group(1)) if points else 0.0
    natural = lambda kv: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", kv[0])]  # noqa: E731
    table = dict(sorted(table.items(), key=natural))
    if not table:
        raise ValueError(f"{zip_path} holds no tests/<question>.py files: is it an otter autograder zip?")
    return table


def _validate(report: dict, expected: dict[str, float]) -> dict:
    """Check the child's report against the zip's questions and points; raise ValueError if it cannot be right."""
    questions = report.get("questions")
    if not isinstance(questions, dict) or set(questions) != set(expected):
        raise ValueError(f"the report names questions {sorted(questions or {})}, expected {sorted(expected)}")
    for q, entry in questions.items():
        score, possible = entry.get("score"), entry.get("possible")
        if not all(isinstance(x, (int, float)) for x in (score, possible)) or abs(possible - expected[q]) > 1e-9 \
                or not 0 <= score <= possible:
            raise ValueError(f"{q}: score {score!r} of {possible!r} is impossible "
                             f"(the question is worth {expected[q]:g})")
        tests = entry.get("tests")
        if not isinstance(tests, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str)
                                                  and isinstance(t.get("passed"), bool) for t in tests):
            raise ValueError(f"{q}: malformed test results")
    return report


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's process group (unshare's --kill-child then takes the whole PID namespace with it)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def run_contained(notebook: Path, zip_path: Path, assignment: str, limits: Limits = Limits(),
                  mode: Mode | None = None, hide: list[Path] = ()) -> dict:
    """Grade one submission notebook in a contained child -> validated report {"questions": {...}} or {"error": str}.

    `notebook` is copied (already cleaned by the caller) into a fresh folder as `<assignment>.ipynb`; `hide` are
    folders the child must not see (other submissions, masters, outputs)."""
    mode = mode or detect_mode()
    expected = question_points(zip_path)
    workdir = Path(tempfile.mkdtemp(prefix="grade-"))
    try:
        shutil.copyfile(notebook, workdir / f"{assignment}.ipynb")
        shutil.copyfile(zip_path, workdir / "autograder.zip")
        config = {"assignment": assignment, "limits": dataclasses.asdict(limits), "mode": mode.name,
                  "hide": [str(Path(h).resolve()) for h in hide],
                  "keep": sorted({str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, ROOT)})}
        (workdir / "sandbox.json").write_text(json.dumps(config))
        read_end, write_end = os.pipe()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "HOME": str(workdir)}
        env |= {k: v for k, v in os.environ.items() if k.startswith("GRADING_")}  # the tests' budgets (CI)
        cmd = [*mode.prefix(), sys.executable, "-m", "assignments.sandbox", str(workdir), str(write_end)]
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, pass_fds=(write_end,), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        os.close(write_end)
        chunks: list[bytes] = []
        import threading

        def drain_report():
            with os.fdopen(read_end, "rb") as f:
                while chunk := f.read(65536):
                    if sum(map(len, chunks)) < 8 << 20:  # a report is kilobytes; refuse to buffer a flood
                        chunks.append(chunk)

        def drain_log():
            log.extend([proc.stdout.read(1 << 20)])  # keep the first MB of the child's own output for errors
            proc.stdout.read()

        log: list[bytes] = []
        threads = [threading.Thread(target=drain_report, daemon=True), threading.Thread(target=drain_log, daemon=True)]
        for t in threads:
            t.start()
        try:
            proc.wait(timeout=limits.submission_seconds)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            for t in threads:
                t.join(timeout=10)
            limit = limits.submission_seconds
            return {"error": f"grading stopped after the time limit of {limit} s for one submission"}
        _kill_group(proc)  # anything the submission left running in its namespace
        for t in threads:
            t.join(timeout=10)
        raw = b"".join(chunks)
        if not raw:
            tail = b"".join(log).decode(errors="replace").strip().splitlines()[-3:]
            return {"error": f"the grading process ended (status {proc.returncode}) without a report"
                             + (f": {' | '.join(tail)}" if tail else "")}
        try:
            report = json.loads(raw)
            if report.get("error"):
                return {"error": str(report["error"])[:500]}
            return _validate(report, expected)
        except (ValueError, AttributeError) as e:
            return {"error": f"the grading report is not valid: {e}"}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# ------------------------------------------------------------------------------------------------- child side

@contextlib.contextmanager
def cell_time_limit(seconds: int):
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


def grade_in_this_process(notebook: Path, zip_path: Path, cell_seconds: int):
    """otter's own non-Docker grading of one notebook (`otter run`), with a time limit per cell -> GradingResults."""
    from otter.api import grade_submission

    with cell_time_limit(cell_seconds):
        return grade_submission(str(notebook), str(zip_path), quiet=True)


_libc = None
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
# statvfs flag -> mount flag of the flags a user namespace may not clear on a remount
_KEPT = {2: 2, 4: 4, 8: 8, 1024: 1024, 2048: 2048, 4096: 1 << 21}  # nosuid nodev noexec noatime nodiratime relatime


def _kept_flags(path: str) -> int:
    """The mount flags of `path`'s mount that a bind remount must repeat."""
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in _KEPT.items() if flags & st)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """mount(2) through libc; raises OSError naming the target."""
    global _libc
    _libc = _libc or ctypes.CDLL(None, use_errno=True)

    def enc(s):
        return None if s is None else s.encode()

    if _libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _loopback_up() -> None:
    """Set IFF_UP on `lo` in this (new, empty) network namespace."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH22x", b"lo", 0))[:18])[1]  # SIOCGIFFLAGS
        fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))  # SIOCSIFFLAGS, IFF_UP


def _world_traversable(path: Path) -> Path | None:
    """The first ancestor of `path` that others cannot enter (mode without o+x), or None."""
    for p in [*reversed(path.parents), path]:
        if p.exists() and not p.stat().st_mode & stat.S_IXOTH:
            return p
    return None


def _isolate_filesystem(workdir: Path, keep: list[Path], hide: list[Path], drop_user: bool) -> list[str]:
    """Empty tmpfs over the shared temp folders, the hidden folders and unenterable ancestors of what the child needs;
    bind back `workdir` and `keep`; every other mount read-only. Returns notes on what could not be done."""
    notes = []
    keep = [workdir, *keep]
    covers = {Path(p) for p in ("/tmp", "/var/tmp", "/dev/shm") if Path(p).is_dir()}
    covers |= {Path(h) for h in hide if Path(h).is_dir()}
    if drop_user:
        covers |= {a for a in (_world_traversable(k.parent) for k in keep) if a is not None and a != Path("/")}
    covers = {c for c in covers if not any(o in c.parents for o in covers)}  # inside another cover: hidden already
    fds = {k: os.open(k, os.O_PATH | os.O_DIRECTORY) for k in keep if k.is_dir()}
    mountpoints = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    for mp in mountpoints:  # read-only everywhere first; the binds and tmpfs below are writable again where needed
        if mp.startswith(("/proc", "/sys", "/dev")):
            continue
        try:
            _mount(None, mp, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(mp))
        except OSError as e:
            notes.append(str(e))
    for cover in sorted(covers, key=lambda p: len(p.parts)):
        _mount("tmpfs", str(cover), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m")
    for k, fd in fds.items():
        if any(c == k or c in k.parents for c in covers):
            k.mkdir(parents=True, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", str(k), None, MS_BIND | MS_REC)
        if k == workdir:  # a bind copies the source mount's read-only flag: the grading folder must stay writable
            _mount(None, str(k), None, MS_REMOUNT | MS_BIND | _kept_flags(str(k)))
        os.close(fd)
    for p in sorted({p for k in keep for p in k.parents if any(c == p or c in p.parents for c in covers)}):
        with contextlib.suppress(OSError):
            os.chmod(p, 0o755)  # directories made inside a tmpfs: let nobody pass through
    return notes


def _limit(limits: dict) -> None:
    """Address space, CPU seconds, file size and process count for this process and the kernel it starts."""
    import resource

    for what, value in ((resource.RLIMIT_AS, limits["memory_bytes"]),
                        (resource.RLIMIT_CPU, limits["submission_seconds"]),
                        (resource.RLIMIT_FSIZE, limits["file_bytes"]), (resource.RLIMIT_NPROC, limits["processes"])):
        resource.setrlimit(what, (value, value))


def _one_line(message: str) -> str:
    """A test's failure as one line: the assertion's sentence, or `ErrorType: message` from a traceback."""
    text = (message or "").strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    if "Traceback (most recent call last)" in text or len(lines) > 1:
        last = lines[-1].strip()
        m = re.match(r"(?:\w+\.)*(\w+(?:Error|Exception|Warning|Interrupt|Exit))\b:?\s*(.*)", last)
        if m and m.group(1) == "AssertionError":
            return m.group(2) or "a check failed"
        return f"your code raised {m.group(1)}: {m.group(2)}".rstrip(": ") if m else last
    return lines[0]


def _report(results) -> dict:
    """otter's GradingResults -> plain JSON-able scores and per-test outcomes (messages of hidden tests dropped)."""
    questions = {}
    for name, test_file in results.results.items():
        tests = []
        for r in test_file.test_case_results:
            hidden = bool(r.test_case.hidden)
            tests.append({"name": r.test_case.name, "hidden": hidden, "passed": bool(r.passed),
                          "message": "" if hidden or r.passed else _one_line(r.message)})
        questions[name] = {"score": float(test_file.score), "possible": float(test_file.possible), "tests": tests}
    return {"questions": questions}


def child_main(workdir: str, fd: str) -> int:
    """Entry point inside the namespaces: contain, drop privileges, grade, write the JSON report to `fd`."""
    out = os.fdopen(int(fd), "w")
    os.set_inheritable(int(fd), False)
    workdir = Path(workdir)
    config = json.loads((workdir / "sandbox.json").read_text())
    notes = []
    try:
        if config["mode"] in ("namespaces", "userns"):
            _loopback_up()
            drop = config["mode"] == "namespaces" and os.geteuid() == 0
            notes += _isolate_filesystem(workdir, [Path(k) for k in config["keep"]], [Path(h) for h in config["hide"]],
                                         drop)
            if drop:
                for p in [workdir, *workdir.rglob("*")]:
                    os.chown(p, NOBODY, NOBODY)
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
        for sub in (".config", ".cache", ".local", ".jupyter", ".ipython", ".mpl", ".runtime"):
            (workdir / sub).mkdir(exist_ok=True)
        os.environ.update(HOME=str(workdir), TMPDIR=str(workdir), MPLCONFIGDIR=str(workdir / ".mpl"),
                          JUPYTER_RUNTIME_DIR=str(workdir / ".runtime"), IPYTHONDIR=str(workdir / ".ipython"),
                          XDG_CACHE_HOME=str(workdir / ".cache"), XDG_CONFIG_HOME=str(workdir / ".config"),
                          OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        tempfile.tempdir = str(workdir)
        os.chdir(workdir)
        _limit(config["limits"])
        results = grade_in_this_process(workdir / f"{config['assignment']}.ipynb", workdir / "autograder.zip",
                                        config["limits"]["cell_seconds"])
        report = _report(results)
        report["notes"] = notes
    except BaseException as e:
        import traceback
        traceback.print_exc()
        report = {"error": f"grading failed: {type(e).__name__}: {str(e)[:300]}"}
    out.write(json.dumps(report))
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(child_main(*sys.argv[1:3]))
