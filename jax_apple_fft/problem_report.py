"""``python -m jax_apple_fft``: what to paste into a problem report.

Prints, as plain text: versions, platform, JAX devices, the backends and why
one is unavailable, the Metal device, the stored self-check verdict, a fresh
self-check per route, how the executor reached the tensors (wrapped or
staged), the cost of one tiny call, and Metal against CPU timings. Where
Metal is unavailable, ``--emulated`` runs the Metal parts on the emulator.
"""

from __future__ import annotations

import argparse
import functools
import platform
import statistics
import time
from collections.abc import Callable, Sequence

import jax
import jaxlib
import numpy as np

from jax_apple_fft.frontend import transforms
from jax_apple_fft.metal import self_check
from jax_apple_fft.runtime import device_verdicts, verdict_file
from jax_apple_fft.runtime.backends import backends
from jax_apple_fft.runtime.cache import PlanCache
from jax_apple_fft.version import __version__

__all__ = ["main"]

TIMED_LOG2_SIZES = (12, 16, 20)
EMULATED_LOG2_SIZES = (12,)  # the emulator is no GPU: one small size shows it runs
TIMED_RUNS = 5
TINY_RUNS = 50


def _median_seconds(f: Callable[[], object], runs: int) -> float:
    jax.block_until_ready(f())  # compiles, and touches the output once
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(f())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _timed_fft(backend: str, n: int, cache: PlanCache, runs: int) -> float:
    rng = np.random.default_rng(n)
    x = jax.device_put((rng.standard_normal(n) + 1j * rng.standard_normal(n))
                       .astype(np.complex64), jax.devices("cpu")[0])  # where our backends run
    f = jax.jit(functools.partial(transforms.fft, backend=backend, cache=cache))
    return _median_seconds(lambda: f(x), runs)


def _environment() -> list[str]:
    default = jax.devices()
    cpu = [] if default[0].platform == "cpu" else jax.devices("cpu")
    devices = ", ".join(f"{d.platform}:{d.id} ({d.device_kind})" for d in default + cpu)
    return [
        f"jax_apple_fft {__version__}",
        f"python {platform.python_version()} ({platform.python_implementation()})",
        f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, numpy {np.__version__}",
        f"platform {platform.platform()}, machine {platform.machine()}",
        f"jax devices: {devices} (default: {default[0].platform})",
    ]


def _backends() -> list[str]:
    lines = ["backends:"]
    for name, info in backends().items():
        state = "available" if info.available else "unavailable"
        library = f" [kernels: {info.library}]" if info.library else ""
        lines.append(f"  {name:<15} {state:<11} {info.reason}{library}")
    return lines


def _stored_verdict(backend: str, device: str) -> str:
    where = verdict_file.path()
    if where is None:
        return (f"stored verdict for {backend}: persistence off "
                f"({verdict_file.CACHE_DIR_VARIABLE}=off)")
    record = verdict_file.load(device_verdicts.key(backend, device))
    if record is None:
        found = "none"
    else:
        found = "passed" if record.get("passed") else f"failed ({record.get('failure')})"
    return f"stored verdict for {backend}: {found} [{where}]"


def _check_line(r: self_check.CheckResult) -> str:
    error = "" if r.error is None else f"  error {r.error:.1e} (bound {r.check.bound():.1e})"
    line = f"  {'pass' if r.passed else 'FAIL'}  {r.check.name}{error}"
    return line if r.passed else f"{line}\n        {r.failure}"


def _self_check(backend: str, emit: Callable[[str], None]) -> bool:
    emit(f"self-check on {backend} (relative L2 error against numpy's float64 FFT):")
    report = self_check.run_self_check(backend, on_result=lambda r: emit(_check_line(r)))
    passed = sum(r.passed for r in report.results)
    emit(f"self-check result: {'passed' if report.passed else 'FAILED'} "
         f"({passed} of {len(report.results)} checks)")
    t = report.transfer
    if t is not None:
        emit(f"tensors: {t.calls} calls, {t.bytes_wrapped:,} bytes bound in place, "
             f"{t.bytes_staged:,} bytes staged (copied)"
             f"{'' if t.bytes_staged == 0 else '  <-- expected 0'}")
    kernels = sorted({d["kernel"] for c in self_check.CHECKS for p in c.plans()
                      for d in p.dispatches})
    emit(f"kernels the checks dispatch: {', '.join(kernels)}; plan cache entries after "
         f"them (plans, tables, pipelines): {report.cache_entries}")
    return report.passed


def _timings(backend: str, emit: Callable[[str], None]) -> None:
    cache = PlanCache()
    try:
        tiny = {b: _timed_fft(b, 8, cache, TINY_RUNS) for b in (backend, "cpu")}
        emit(f"commit-and-wait: one call of an 8-point fft (median of {TINY_RUNS}): "
             f"{backend} {tiny[backend] * 1e6:.1f} us, cpu {tiny['cpu'] * 1e6:.1f} us")
        sizes = EMULATED_LOG2_SIZES if backend == "metal-emulated" else TIMED_LOG2_SIZES
        emit(f"c2c complex64, median of {TIMED_RUNS} calls (ms):")
        emit(f"  {'n':>6} {'cpu':>9} {backend:>15} {'cpu/' + backend:>20}")
        for log2 in sizes:
            cpu = _timed_fft("cpu", 1 << log2, cache, TIMED_RUNS)
            gpu = _timed_fft(backend, 1 << log2, cache, TIMED_RUNS)
            emit(f"  {'2^' + str(log2):>6} {cpu * 1e3:9.3f} {gpu * 1e3:15.3f} "
                 f"{cpu / gpu:20.3g}")
    except Exception as e:  # noqa: BLE001 - the report goes on; the failure is a finding
        emit(f"timings failed: {type(e).__name__}: {e}")
    finally:
        cache.close()


def report(emulated: bool, emit: Callable[[str], None]) -> bool:
    """Emits the report line by line (so that a crash leaves what came
    before); returns whether the self-check it ran, if any, passed."""
    for line in _environment() + _backends():
        emit(line)
    metal = backends()["metal"]
    emit(f"metal device: {metal.reason if metal.available else 'unavailable'}")
    backend = "metal-emulated" if emulated else "metal"
    if not emulated and not metal.available:
        emit("self-check: not run, Metal is unavailable here "
             "(--emulated runs it on the emulator)")
        return True
    emit(_stored_verdict(backend, backends()[backend].reason))
    passed = _self_check(backend, emit)
    _timings(backend, emit)
    return passed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jax_apple_fft",
        description="Prints what to paste into a jax_apple_fft problem report.")
    parser.add_argument("--emulated", action="store_true",
                        help="run the self-check and timings on the Metal emulator instead "
                             "of the GPU (for testing where there is no Metal)")
    args = parser.parse_args(argv)
    passed = report(args.emulated, functools.partial(print, flush=True))
    return 0 if passed else 1
