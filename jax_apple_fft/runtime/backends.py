"""Which backends exist here, and the trace-time rule that picks one."""

from __future__ import annotations

import dataclasses
import platform
import sys

from jax_apple_fft.errors import BackendUnavailableError

__all__ = ["BackendInfo", "backends", "resolve_backend", "BACKEND_NAMES"]

BACKEND_NAMES = ("auto", "cpu", "metal")


@dataclasses.dataclass(frozen=True)
class BackendInfo:
    name: str
    available: bool
    reason: str


def _metal_info() -> BackendInfo:
    on_apple_silicon = sys.platform == "darwin" and platform.machine() == "arm64"
    if not on_apple_silicon:
        where = f"{sys.platform}/{platform.machine()}"
        reason = f"Metal needs macOS on Apple silicon; this is {where}"
    else:
        reason = "this build of jax_apple_fft does not include the Metal backend yet"
    return BackendInfo("metal", False, reason)


def backends() -> dict[str, BackendInfo]:
    """Every backend, whether it can run here, and why (not)."""
    return {
        "cpu": BackendInfo("cpu", True, "pocketfft on the host CPU, through XLA's FFI"),
        "metal": _metal_info(),
    }


def resolve_backend(requested: str) -> str:
    """Turns a requested backend into the one that will run, at trace time.

    Explicit requests never fall back: an unavailable one raises. "auto" is
    the CPU while this build has no Metal backend.
    """
    if requested not in BACKEND_NAMES:
        raise ValueError(f"backend must be one of {BACKEND_NAMES}, got {requested!r}")
    if requested == "cpu":
        return "cpu"
    metal = backends()["metal"]
    if requested == "metal":
        if not metal.available:
            raise BackendUnavailableError(
                f"backend='metal' is unavailable: {metal.reason}. "
                "Use backend='cpu' (or 'auto', which picks what is available)."
            )
        return "metal"
    return "cpu"
