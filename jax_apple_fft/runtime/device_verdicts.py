"""Whether ``backend="auto"`` may choose a GPU backend on this device: the
verdict of the Metal self-check (metal/self_check.py) run there.

A verdict is kept per key — backend, device (as the backend describes it),
package, jax and jaxlib versions, OS release — in memory for the process
and in a small file for later processes (runtime/verdict_file.py). The first
caller that needs an unknown verdict runs the self-check while others wait;
a failed verdict warns once per process, when ``auto`` first turns to the CPU
because of it.
"""

from __future__ import annotations

import dataclasses
import platform
import threading
import warnings

import jax
import jaxlib

from jax_apple_fft import version
from jax_apple_fft.errors import MetalSelfCheckWarning
from jax_apple_fft.runtime import verdict_file

__all__ = ["Verdict", "auto_may_choose", "forget", "key", "self_check_runs", "verdict"]


@dataclasses.dataclass(frozen=True)
class Verdict:
    """``failure`` names the first failing check and why; empty when passed."""

    passed: bool
    failure: str = ""


_lock = threading.RLock()
_verdicts: dict[str, Verdict] = {}
_warned: set[str] = set()
_running = False  # true while this process runs a self-check (under _lock)
_runs = 0


def key(backend: str, device: str) -> str:
    """What a verdict depends on: the backend, its device and library (as
    ``device`` describes them), and the software that drives it."""
    system = platform.mac_ver()[0] or platform.release()
    return " | ".join((backend, device, f"jax_apple_fft {version.__version__}",
                       f"jax {jax.__version__}", f"jaxlib {jaxlib.__version__}",
                       f"{platform.system()} {system}"))


def _from_record(record: dict | None) -> Verdict | None:
    if (record is None or not isinstance(record.get("passed"), bool)
            or not isinstance(record.get("failure", ""), str)):
        return None
    return Verdict(record["passed"], record.get("failure", ""))


def _run(backend: str) -> Verdict:
    global _runs
    # Imported here: the self-check drives the front end, which imports this module.
    from jax_apple_fft.metal.self_check import run_self_check

    _runs += 1
    report = run_self_check(backend)
    return Verdict(report.passed, report.first_failure)


def verdict(backend: str, device: str) -> Verdict:
    """The verdict for `backend` on `device`: remembered, else stored, else
    from running the self-check now (once, whichever thread asks first)."""
    global _running
    k = key(backend, device)
    with _lock:
        found = _verdicts.get(k)
        if found is not None:
            return found
        if _running:  # asked by the self-check's own calls: not verified yet
            return Verdict(False, "the self-check is still running")
        found = _from_record(verdict_file.load(k))
        if found is None:
            _running = True
            try:
                found = _run(backend)
            finally:
                _running = False
            verdict_file.store(k, dataclasses.asdict(found))
        _verdicts[k] = found
        return found


def auto_may_choose(backend: str, device: str) -> bool:
    """Whether the self-check passed for `backend` on `device`. If it failed,
    warns (once per process and key) that ``auto`` runs on the CPU."""
    found = verdict(backend, device)
    if not found.passed:
        k = key(backend, device)
        with _lock:
            first = k not in _warned
            _warned.add(k)
        if first:
            where = verdict_file.path()
            reset = (f" To run the self-check again, delete {where}." if where else "")
            warnings.warn(
                f"jax_apple_fft: the self-check of backend={backend!r} failed on this device "
                f"({device}): {found.failure}. backend='auto' runs on the CPU instead; "
                f"backend={backend!r} still runs where asked for. Please report this with the "
                f"output of `python -m jax_apple_fft`.{reset}",
                MetalSelfCheckWarning, stacklevel=3)
    return found.passed


def forget() -> None:
    """Forgets this process's verdicts and warnings (the file stays)."""
    with _lock:
        _verdicts.clear()
        _warned.clear()


def self_check_runs() -> int:
    """How many self-checks this process has run."""
    return _runs
