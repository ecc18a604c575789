"""Pinned numerical code paths: the environment under which torch computes the same floats on every Intel x86-64
CPU with AVX2, so that the committed outputs reproduce byte for byte on another machine.

torch picks its CPU kernels by the instruction set it finds: ATen's vectorised kernels (AVX512 on newer CPUs),
MKL's matrix products and oneDNN's primitives. Each choice is deterministic, but different choices give different
last digits, and training amplifies them. Pinning all three to AVX2 (which every x86-64 CPU of the last decade has)
makes every such Intel machine take the same paths; MKL ignores its branch on AMD CPUs (``vendor_reason``), which
therefore get the pins but report "not pinned". The variables are read when torch loads, so they must be in the
environment before `import torch`: ``import helpers`` sets any that are missing (``apply``), `make` exports them to
every command it runs, and `make install` writes them into the course kernel's spec.

Standard library only, so that ``python helpers/pinning.py --env`` works before anything is installed
(the Makefile uses it). Set ``COURSE_PINNING=off`` to run without pinning (tests do, to show it matters).
"""
from __future__ import annotations

import os
import platform
import sys

__all__ = ["PINNED", "THREADS", "OFF_SWITCH", "cpu_reason", "vendor_reason", "pinned_env", "apply", "status",
           "WRITE_SWITCH", "check_can_write"]

# The instruction-set pins: ATen's dispatch, MKL's conditional numerical reproducibility, oneDNN (two spellings).
PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2", "DNNL_MAX_CPU_ISA": "AVX2"}
# One thread everywhere: OpenMP and MKL pools (helpers.setup also calls torch.set_num_threads).
THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
OFF_SWITCH = "COURSE_PINNING"


def _cpuinfo(field: str) -> str | None:
    """The first value of `field` in Linux's /proc/cpuinfo (None where the file or the field is missing)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith(field):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _cpu_flags() -> set[str]:
    """The CPU's feature flags as Linux reports them (an empty set where /proc/cpuinfo is missing)."""
    flags = _cpuinfo("flags")
    if flags is not None:
        return set(flags.split())
    if sys.platform == "darwin":  # Intel Macs: sysctl lists the leaf-7 features (AVX2, ...)
        import subprocess

        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.leaf7_features", "machdep.cpu.features"],
                                 capture_output=True, text=True, timeout=5).stdout
            return {w.lower() for w in out.split()}
        except (OSError, subprocess.SubprocessError):
            pass
    return set()


def _cpu_vendor() -> str:
    """The CPU vendor Linux reports (GenuineIntel, AuthenticAMD, ...); "" where /proc/cpuinfo is missing."""
    return _cpuinfo("vendor_id") or ""


def vendor_reason() -> str:
    """Why the pins, though set, cannot give the committed floats on this CPU ("" when they can).

    MKL's conditional-reproducibility branches (MKL_CBWR=AVX2) did not take effect on an AMD EPYC: every branch but
    COMPATIBLE gave the same products, which differ in their last bits from an Intel CPU's AVX2 branch, and training
    amplifies that (measured 2026-12-02 on that one AMD CPU). COMPATIBLE, the branch meant to agree across vendors,
    did not either: the course's short training differed between that AMD EPYC and an Intel Xeon under it
    (tests/test_pinning.py's golden digests; README, 'Same numbers on every machine')."""
    vendor = _cpu_vendor()
    if vendor and vendor != "GenuineIntel":
        return f"{vendor} CPU: MKL ignores its AVX2 branch (MKL_CBWR) off Intel CPUs"
    return ""


def cpu_reason(environ: dict | None = None) -> str:
    """Why this machine cannot take the pinned paths ("" when it can): not x86-64, no AVX2/FMA, or switched off."""
    environ = os.environ if environ is None else environ
    if environ.get(OFF_SWITCH, "").lower() in {"off", "0", "no", "false"}:
        return f"switched off by {OFF_SWITCH}={environ[OFF_SWITCH]}"
    machine = platform.machine().lower()
    if machine not in {"x86_64", "amd64"}:
        return f"this CPU is {platform.machine()}, not x86-64"
    flags = _cpu_flags()
    missing = [f for f in ("avx2", "fma") if f not in flags]
    if missing:
        return f"this CPU lacks {' and '.join(m.upper() for m in missing)}"
    return ""


def pinned_env(base: dict | None = None) -> dict:
    """`base` (default: this process's environment) with the pins and thread counts set, where this CPU allows them.

    Values already in `base` win (so a deliberate override stays visible to `status`)."""
    env = dict(os.environ if base is None else base)
    wanted = dict(THREADS)
    if not cpu_reason(env):
        wanted |= PINNED
    for key, value in wanted.items():
        env.setdefault(key, value)
    return env


def apply() -> None:
    """Set the missing pins in this process's environment; effective only before torch is imported."""
    for key, value in pinned_env().items():
        os.environ.setdefault(key, value)


def status() -> tuple[bool, str]:
    """(pinned?, a short phrase): whether this process runs torch on the pinned paths, and which kernels it uses."""
    reason = cpu_reason()
    wrong = [k for k, v in PINNED.items() if os.environ.get(k) != v]
    capability = "unknown"
    if "torch" in sys.modules:
        capability = sys.modules["torch"].backends.cpu.get_cpu_capability()
    if reason:
        return False, f"CPU kernels {capability}, not pinned ({reason})"
    if wrong:
        return False, f"CPU kernels {capability}, not pinned ({', '.join(wrong)} not set before torch was imported)"
    if capability not in {"AVX2", "unknown"}:
        return False, f"CPU kernels {capability}, not pinned (torch was imported before the pins were set)"
    if vendor_reason():
        return False, f"CPU kernels {capability}, not pinned ({vendor_reason()})"
    return True, "CPU kernels AVX2 (pinned)"


WRITE_SWITCH = "COURSE_WRITE_UNPINNED"


def check_can_write(what: str) -> None:
    """Refuse (SystemExit) to write committed outputs or evidence files off the pinned paths: their numbers would
    not be the committed ones, and strict nbval would then fail on every pinned machine. COURSE_WRITE_UNPINNED=1
    writes anyway (for a course whose every output is remade on one kind of machine)."""
    pinned, phrase = status()
    if pinned or os.environ.get(WRITE_SWITCH) == "1":
        return
    raise SystemExit(f"not writing {what}: this machine is off the pinned paths ({phrase}), so its numbers would "
                     "not be the committed ones and strict nbval would fail on every pinned machine. Run it on an "
                     f"Intel x86-64 CPU with AVX2 and FMA, or set {WRITE_SWITCH}=1 to write anyway (README, 'Same "
                     "numbers on every machine').")


if __name__ == "__main__":  # python helpers/pinning.py --env | --status
    if sys.argv[1:] == ["--env"]:
        print(" ".join(f"{k}={v}" for k, v in pinned_env({k: v for k, v in os.environ.items()
                                                           if k == OFF_SWITCH}).items()))
    elif sys.argv[1:] == ["--status"]:
        reason = cpu_reason() or vendor_reason()
        print("pinned: x86-64 with AVX2" if not reason else f"not pinned: {reason}")
    else:
        sys.exit("usage: python helpers/pinning.py --env | --status")
