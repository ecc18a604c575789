"""Run one untrusted submission inside bubblewrap (`bwrap`) and bring back plain data only.

`run_contained(files, limits)` puts the grader's files (the submission, the plan of calls, the input arrays) into
a fresh folder, mounts it read-only at /grader/in inside a bwrap sandbox, and runs `assignments/harness.py` there
(see that file). What the sandbox sees:

- a read-only system (`/usr`, `/etc`, the Python installation and the venv, the course's `helpers/` and `data/`);
  not the repository's `assignments/` (masters, builds, hidden checks), `tests/`, other submissions or outputs;
- its own writable HOME and working folder `/sub` and its own `/tmp` (size-limited tmpfs, gone at the end);
- no network (a new network namespace with only its own loopback), new PID, IPC and UTS namespaces, a new
  session (no terminal), `--die-with-parent`; the user `nobody` (`setpriv`, when grading as root);
- limits (`prlimit`): address space, CPU seconds, file size, processes; a wall-clock limit per submission, after
  which the whole sandbox is killed (and it is killed anyway when the harness ends, so nothing keeps running).

The harness writes one zip stream to a pipe: `report.json` and `.npy` arrays. The parent reads at most
`Limits.result_bytes`, parses the JSON and reads each array with `allow_pickle=False`; nothing it receives is
unpickled or executed. Where `bwrap` is missing or does not work, `run_contained` refuses (`SandboxUnavailable`)
unless `unsafe=True` (the teacher's explicit `--no-sandbox-i-understand`), which runs the harness with the limits
but without any containment.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

from helpers import ROOT

NOBODY = 65534
HARNESS = Path(__file__).resolve().parent / "harness.py"
UNSAFE_FLAG = "--no-sandbox-i-understand"


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot start a sandbox here; grading stops unless the teacher accepts no containment."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """Per-submission limits: seconds per cell, per submission, bytes of address space, of a file, processes."""

    cell_seconds: int = 60
    submission_seconds: int = 600
    memory_bytes: int = 6 << 30
    file_bytes: int = 256 << 20
    processes: int = 256
    folder_bytes: int = 512 << 20
    result_bytes: int = 96 << 20
    # memory and processes of the whole submission (a cgroup, where the machine lets the grader make one)
    total_memory_bytes: int = 6 << 30
    # each call of the plan may take `call_factor` times what the master's solution took for it, at least
    # `call_floor` seconds (grade.call_limits; the harness kills a call at its limit)
    call_factor: float = 20.0
    call_floor: float = 3.0


def sandbox_env(home: str, root: Path = ROOT) -> dict:
    """The environment inside: a fixed PATH, HOME, the course (`root`) on PYTHONPATH, one thread, and the course's
    pinned CPU kernels (`helpers.pinning.pinned_env`: ATEN_CPU_CAPABILITY, MKL_CBWR, oneDNN ISA)."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "PYTHONPATH": str(root), "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", "TMPDIR": "/tmp", "OMP_NUM_THREADS": "1",
           "MPLCONFIGDIR": f"{home}/.matplotlib", "IPYTHONDIR": f"{home}/.ipython"}
    try:
        from helpers.pinning import pinned_env
    except ImportError:  # a course without helpers.pinning: one thread at least
        return env
    return pinned_env(env)


def _ancestors(path: Path) -> list[Path]:
    return [p for p in reversed(path.parents) if p != Path("/")]


def bwrap_command(in_dir: Path, limits: Limits, fd: int = 3, inner: list[str] | None = None,
                  helpers_dir: Path | None = None) -> list[str]:
    """The bwrap command line that runs the harness on `in_dir` (mounted read-only at /grader/in), writing its
    results to the inherited file descriptor `fd` (`inner`: another command instead, for the probe).

    `helpers_dir`: the assignment's grading copy of the course package (`assignments/withhold.py`), mounted where
    the course's own `helpers/` would be, so that the sandbox never sees the course's references."""
    python = Path(sys.executable)
    binds = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, ROOT / "helpers", ROOT / "data")}
    binds = sorted(b for b in binds if not str(b).startswith(("/usr/", "/etc/")))
    sources = {(ROOT / "helpers").resolve(): Path(helpers_dir).resolve()} if helpers_dir else {}
    cmd = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
           "--die-with-parent", "--new-session", "--clearenv",
           "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("bin", "sbin", "lib", "lib64", "lib32"):
        p = Path("/") / name
        if p.is_symlink():
            cmd += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            cmd += ["--ro-bind", str(p), str(p)]
    cmd += ["--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", str(limits.folder_bytes // 4), "--tmpfs", "/tmp",
            "--perms", "0777", "--size", str(limits.folder_bytes), "--tmpfs", "/sub"]
    made: set[Path] = set()
    for b in binds:
        for a in _ancestors(b):  # bwrap would create them 0700, which the user nobody could not enter
            if a not in made:
                cmd += ["--perms", "0755", "--dir", str(a)]
                made.add(a)
        cmd += ["--ro-bind", str(sources.get(b, b)), str(b)]
    cmd += ["--perms", "0755", "--dir", "/grader", "--ro-bind", str(HARNESS), "/grader/harness.py",
            "--ro-bind", str(in_dir), "/grader/in", "--chdir", "/sub"]
    for k, v in sandbox_env("/sub").items():
        cmd += ["--setenv", k, v]
    inner = inner or [str(python), "-P", "/grader/harness.py", "/grader/in", str(fd)]
    if os.geteuid() == 0:  # become nobody inside (bwrap keeps only these two capabilities, for setpriv)
        cmd += ["--cap-add", "CAP_SETUID,CAP_SETGID", "--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", *inner]
    else:
        cmd += ["--", *inner]
    return cmd


def prlimit_prefix(limits: Limits) -> list[str]:
    """`prlimit` with the submission's limits (inherited through bwrap by everything the notebook starts)."""
    return ["prlimit", f"--as={limits.memory_bytes}", f"--cpu={limits.submission_seconds}",
            f"--fsize={limits.file_bytes}", f"--nproc={limits.processes}", "--core=0", "--"]


CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_cgroups() -> dict[str, Path]:
    """This process's cgroup folders: {"v2": path} on a unified hierarchy, else {"memory": ..., "pids": ...} (v1)."""
    found = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0" and controllers == "" and (CGROUP_ROOT / "cgroup.controllers").is_file():
            found["v2"] = CGROUP_ROOT / path.lstrip("/")
        for name in controllers.split(","):
            if name in ("memory", "pids"):
                found[name] = CGROUP_ROOT / name / path.lstrip("/")
    return found


class SubmissionCgroup:
    """A cgroup per submission, made before it starts and removed after: memory and process count for the whole
    sandbox, not per process (`prlimit` limits each process: 3 children could hold 3 x 6 GB). cgroup v2's
    `memory.max`/`pids.max`, or v1's `memory.limit_in_bytes`/`pids.max`. `procs` lists the `cgroup.procs` files a
    process writes its pid into to join; empty where no hierarchy is writable (then only `prlimit` applies)."""

    def __init__(self, limits: Limits, name: str | None = None):
        import uuid

        self.folders: list[Path] = []
        self.why_not = None
        name = name or f"grade-{uuid.uuid4().hex[:12]}"
        own = _own_cgroups()
        try:
            if "v2" in own and "memory" not in own:
                folder = own["v2"] / name
                folder.mkdir()
                self.folders.append(folder)
                (folder / "memory.max").write_text(str(limits.total_memory_bytes))
                if (folder / "memory.swap.max").exists():   # no swap either, where the kernel counts it
                    (folder / "memory.swap.max").write_text("0")
                (folder / "pids.max").write_text(str(limits.processes))
            elif "memory" in own and "pids" in own:
                for controller, settings in (("memory", {"memory.limit_in_bytes": limits.total_memory_bytes}),
                                             ("pids", {"pids.max": limits.processes})):
                    folder = own[controller] / name
                    folder.mkdir()
                    self.folders.append(folder)
                    for key, value in settings.items():
                        (folder / key).write_text(str(value))
            else:
                self.why_not = "no cgroup hierarchy with memory and pids controllers"
        except OSError as e:
            self.why_not = f"cannot make a cgroup here ({e.strerror or type(e).__name__})"
            self.remove()

    @property
    def procs(self) -> list[Path]:
        return [f / "cgroup.procs" for f in self.folders]

    def wrap(self, cmd: list[str]) -> list[str]:
        """`cmd` started by a shell that first moves itself into the cgroup, so that every process it makes is
        counted from the start."""
        if not self.folders:
            return cmd
        join = " && ".join(f"echo $$ > {shlex.quote(str(p))}" for p in self.procs)
        return ["/bin/sh", "-c", f'{join} && exec "$@"', "sh", *cmd]

    def remove(self) -> None:
        """Kill whatever is left in the cgroup and remove it."""
        for folder in reversed(self.folders):
            for _ in range(50):
                try:
                    pids = [int(x) for x in (folder / "cgroup.procs").read_text().split()]
                except OSError:
                    pids = []
                for pid in pids:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                try:
                    folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)
        self.folders = []


_STATUS: dict[str, str | None] = {}


def bwrap_problem() -> str | None:
    """None when bwrap can start a sandbox on this machine (checked once), else the reason it cannot."""
    if "bwrap" not in _STATUS:
        if shutil.which("bwrap") is None:
            _STATUS["bwrap"] = ("bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap; "
                                "Fedora: dnf install bubblewrap)")
        elif shutil.which("prlimit") is None or (os.geteuid() == 0 and shutil.which("setpriv") is None):
            _STATUS["bwrap"] = "prlimit or setpriv (util-linux) is missing"
        else:
            with tempfile.TemporaryDirectory() as tmp:
                os.chmod(tmp, 0o755)
                probe = bwrap_command(Path(tmp), Limits(), inner=[sys.executable, "-c", "import numpy, torch"])
                try:
                    proc = subprocess.run(probe, capture_output=True, text=True, timeout=30)
                    _STATUS["bwrap"] = None if proc.returncode == 0 else \
                        f"bwrap cannot start a sandbox here: {(proc.stderr.strip().splitlines() or ['?'])[-1]}"
                except (OSError, subprocess.TimeoutExpired) as e:
                    _STATUS["bwrap"] = f"bwrap cannot start a sandbox here: {e}"
    return _STATUS["bwrap"]


def describe(unsafe: bool) -> str:
    """One line for the log: how submissions are contained on this machine."""
    why = bwrap_problem()
    if why is None:
        who = "user nobody" if os.geteuid() == 0 else "your user id (run as root to grade as nobody)"
        probe = SubmissionCgroup(Limits())
        probe.remove()
        whole = ("a cgroup per submission (memory, processes)" if probe.why_not is None else
                 f"limits per process only ({probe.why_not})")
        return (f"bubblewrap ({shutil.which('bwrap')}): no network, read-only system, own /sub and /tmp, {who}, "
                f"{whole}")
    if unsafe:
        return f"NONE ({UNSAFE_FLAG}): {why}. Submissions run with your user id and can read and change your files"
    raise SandboxUnavailable(f"{why}. Grading untrusted notebooks needs a sandbox; install bubblewrap, or pass "
                             f"{UNSAFE_FLAG} (make grade UNSAFE=1) to run them without containment")


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the sandbox's process group (bwrap's PID namespace ends with its first process)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


JSON_DEPTH = 32          # the harness's report nests a few levels; a forged "[[[[..." stops here, before parsing


def _json_depth(text: bytes) -> int:
    """The deepest nesting of [ and { in a JSON text, outside strings (a scan: no recursion, no allocation)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in text:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:          # backslash
                escaped = True
            elif byte == 0x22:          # closing quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):      # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _read_npy(f, stored_bytes: int):
    """One `.npy` member, after its header says it fits in the bytes that are really there (no object arrays)."""
    import numpy as np

    version = np.lib.format.read_magic(f)
    read_header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    if version not in read_header:
        raise ValueError(f"an .npy version {version} the harness does not write")
    shape, _, dtype = read_header[version](f)
    if dtype.hasobject:
        raise ValueError("an array of Python objects")
    if math.prod(shape) * dtype.itemsize > stored_bytes:
        raise ValueError(f"an array header announces shape {shape}, more than the {stored_bytes} bytes sent")
    f.seek(0)
    return np.lib.format.read_array(f, allow_pickle=False)


def read_results(raw: bytes) -> tuple[dict, dict]:
    """The harness's zip stream -> (report, arrays); raises ValueError for anything else.

    Read with bounds before anything is parsed, so that a forged stream costs this process no more than its own
    size: stored members only (no compression, so nothing expands), a JSON nesting limit (`JSON_DEPTH`), and `.npy`
    headers whose shape must fit in the member's bytes; JSON and `.npy` with allow_pickle=False only."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        members = zf.infolist()
        packed = [m.filename for m in members if m.compress_type != zipfile.ZIP_STORED]
        if packed:
            raise ValueError(f"a compressed member ({packed[0][:40]}); the harness stores its results")
        if sum(m.file_size for m in members) > len(raw):
            raise ValueError("members larger than the stream")
        text = zf.read("report.json")
        if _json_depth(text) > JSON_DEPTH:
            raise ValueError(f"the report nests deeper than {JSON_DEPTH} levels")
        report = json.loads(text)
        arrays = {}
        for m in members:
            if m.filename.endswith(".npy"):
                with zf.open(m) as f:
                    arrays[m.filename[:-4]] = _read_npy(io.BytesIO(f.read()), m.file_size)
    except ValueError as e:
        raise ValueError(str(e)) from None
    except Exception as e:  # a forged stream may raise anything; it must not stop the run
        raise ValueError(f"not a result stream ({type(e).__name__})") from None
    if not isinstance(report, dict):
        raise ValueError("the report is not a JSON object")
    return report, arrays


def run_contained(files: dict[str, bytes], limits: Limits = Limits(), unsafe: bool = False,
                  helpers_dir: Path | None = None) -> dict:
    """Run the harness on `files` (name -> bytes) in a sandbox -> {"report", "arrays"} or {"error": str}.

    `helpers_dir`: the grading copy of the course package the harness imports instead of the course's own
    (`assignments/withhold.py`; its parent also holds a link to `data/`)."""
    contained = bwrap_problem() is None
    if not contained and not unsafe:
        describe(unsafe)  # raises SandboxUnavailable
    in_dir = Path(tempfile.mkdtemp(prefix="grade-in-"))
    home = cgroup = None
    try:
        for name, data in files.items():
            (in_dir / name).write_bytes(data)
        os.chmod(in_dir, 0o755)  # readable by nobody, writable by no one inside (a read-only bind anyway)
        for p in in_dir.iterdir():
            os.chmod(p, 0o644)
        read_end, write_end = os.pipe()
        if contained:
            cmd = [*prlimit_prefix(limits), *bwrap_command(in_dir, limits, fd=write_end, helpers_dir=helpers_dir)]
            env, cwd = {"PATH": "/usr/bin:/bin"}, "/"
        else:
            home = tempfile.mkdtemp(prefix="grade-home-")
            cmd = [*prlimit_prefix(limits), sys.executable, "-P", str(HARNESS), str(in_dir), str(write_end)]
            env, cwd = sandbox_env(home, Path(helpers_dir).parent if helpers_dir else ROOT), home
        cgroup = SubmissionCgroup(limits)
        cmd = cgroup.wrap(cmd)
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, pass_fds=(write_end,), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        os.close(write_end)
        chunks: list[bytes] = []
        log: list[bytes] = []
        too_big = []

        def drain_results():
            with os.fdopen(read_end, "rb") as f:
                size = 0
                while chunk := f.read(1 << 20):
                    size += len(chunk)
                    if size <= limits.result_bytes:
                        chunks.append(chunk)
                    else:
                        too_big.append(size)

        def drain_log():
            log.append(proc.stdout.read(1 << 20))  # the first MB of the notebook's own output, for errors
            while proc.stdout.read(1 << 20):
                pass

        threads = [threading.Thread(target=drain_results, daemon=True), threading.Thread(target=drain_log, daemon=True)]
        for t in threads:
            t.start()
        try:
            proc.wait(timeout=limits.submission_seconds)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            for t in threads:
                t.join(timeout=10)
            return {"error": f"grading stopped after the time limit of {limits.submission_seconds} s for one "
                             "submission"}
        _kill_group(proc)
        for t in threads:
            t.join(timeout=10)
        if too_big:
            return {"error": f"the submission sent more than {limits.result_bytes >> 20} MB of results"}
        raw = b"".join(chunks)
        if not raw:
            tail = b"".join(log).decode(errors="replace").strip().splitlines()[-2:]
            return {"error": f"the notebook's process ended (status {proc.returncode}) without results"
                             + (f": {' | '.join(t[:150] for t in tail)}" if tail else "")}
        try:
            report, arrays = read_results(raw)
        except ValueError as e:
            return {"error": f"the results are not valid: {e}"}
        return {"report": report, "arrays": arrays}
    finally:
        if cgroup is not None:
            cgroup.remove()
        shutil.rmtree(in_dir, ignore_errors=True)
        if home:
            shutil.rmtree(home, ignore_errors=True)
