"""Which backends exist here, and the trace-time rule that picks one.

Backends:
  "cpu"             pocketfft on the host CPU (every dtype, every OS).
  "metal"           the Apple GPU (float32/complex64, macOS on Apple silicon).
  "metal-emulated"  the Metal path with the GPU replaced by the emulator: the
                    same FFI target, planner and dispatch records, for testing
                    on any OS. Slow; only used when asked for by name.

``auto`` picks "metal" for float32/complex64 transforms of at least
``METAL_AUTO_MIN_ELEMENTS`` input elements when Metal is available and its
self-check has passed on this device (runtime/device_verdicts.py), and
"cpu" otherwise. The choice is made at trace time and recorded in the
primitive's ``backend`` parameter, so the jaxpr shows it.
"""

from __future__ import annotations

import dataclasses
import functools
import platform
import sys

import numpy as np

from jax_apple_fft import _core
from jax_apple_fft.errors import BackendUnavailableError, UnsupportedError
from jax_apple_fft.runtime import device_verdicts

__all__ = ["BackendInfo", "backends", "resolve_backend", "BACKEND_NAMES",
           "METAL_AUTO_MIN_ELEMENTS"]

BACKEND_NAMES = ("auto", "cpu", "metal", "metal-emulated")
METAL_BACKENDS = ("metal", "metal-emulated")

# Below this many elements a transform costs less on the CPU than one GPU
# command buffer's commit-and-wait (10-200 microseconds).
METAL_AUTO_MIN_ELEMENTS = 1 << 16


@dataclasses.dataclass(frozen=True)
class BackendInfo:
    """``library`` says how Metal gets its kernels: "metallib" (compiled at
    build time and shipped) or "source" (compiled from the shipped sources at
    first use); empty where Metal does not run."""

    name: str
    available: bool
    reason: str
    library: str = ""


@functools.cache
def _metal_info() -> BackendInfo:
    # Cached per process: the answer depends on the hardware and the build only.
    on_apple_silicon = sys.platform == "darwin" and platform.machine() == "arm64"
    if not on_apple_silicon:
        where = f"{sys.platform}/{platform.machine()}"
        return BackendInfo("metal", False, f"Metal needs macOS on Apple silicon; this is {where}")
    status = _core.apple_metal_status()
    return BackendInfo("metal", status["available"], status["reason"], status["library"])


def backends() -> dict[str, BackendInfo]:
    """Every backend, whether it can run here, and why (not)."""
    return {
        "cpu": BackendInfo("cpu", True, f"pocketfft on the host CPU ({_core.cpu_simd()} "
                                        "kernels), through XLA's FFI"),
        "metal": _metal_info(),
        "metal-emulated": BackendInfo(
            "metal-emulated", True,
            "the Metal kernels run as C++ on the CPU, one thread per GPU thread (for testing; "
            "slow, never chosen by 'auto')"),
    }


def _is_single(dtype) -> bool:
    return np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64))


def _auto_gpu() -> tuple[str, BackendInfo]:
    """The GPU backend "auto" may choose, and whether it runs here. Tests
    stand the emulator in for the GPU through this function."""
    return "metal", _metal_info()


def _auto_backend(dtype, size: int) -> str:
    """The auto rule: a large single-precision transform runs on the GPU when
    it is available and its self-check passed here (run now if never run);
    everything else on the CPU."""
    if dtype is None or not _is_single(dtype) or size < METAL_AUTO_MIN_ELEMENTS:
        return "cpu"
    gpu, info = _auto_gpu()
    if info.available and device_verdicts.auto_may_choose(gpu, info.reason):
        return gpu
    return "cpu"


def resolve_backend(requested: str, dtype=None, size: int = 0) -> str:
    """Turns a requested backend into the one that will run, at trace time.

    ``dtype`` and ``size`` describe the transform's input (after padding or
    cropping). Explicit requests never fall back: a Metal request on a
    machine without Metal raises BackendUnavailableError (checked first, so
    the message names the real obstacle), and a float64/complex128 request
    on Metal raises UnsupportedError.
    """
    if requested not in BACKEND_NAMES:
        raise ValueError(f"backend must be one of {BACKEND_NAMES}, got {requested!r}")
    if requested == "cpu":
        return "cpu"
    if requested == "auto":
        return _auto_backend(dtype, size)
    metal = _metal_info()
    if requested == "metal" and not metal.available:
        raise BackendUnavailableError(
            f"backend='metal' is unavailable: {metal.reason}. "
            "Use backend='cpu' (or 'auto', which picks what is available)."
        )
    if dtype is not None and not _is_single(dtype):
        raise UnsupportedError(
            f"backend={requested!r} computes in float32/complex64 only, got {np.dtype(dtype)}; "
            "use backend='cpu' for float64/complex128, or cast the input to float32/complex64."
        )
    return requested
