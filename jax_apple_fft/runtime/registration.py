"""Registers the FFI targets with XLA, once each, on first use.

Registration is lazy because registering an FFI state type before JAX's CPU
client exists breaks the client's first operation. The Metal target is
registered only when a computation first lowers to it, so programs that
never use Metal never register it.
"""

from __future__ import annotations

import threading

import jax

from jax_apple_fft import _core

CPU_TARGET = "jax_apple_fft_cpu"
METAL_TARGET = "jax_apple_fft_metal"
_CPU_STATE_TYPE = "jax_apple_fft.CallSiteState"
_METAL_STATE_TYPE = "jax_apple_fft.MetalCallSiteState"

_lock = threading.Lock()
_registered: set[str] = set()


def _register(target: str, state_type: str, type_capsules, handlers) -> None:
    with _lock:
        if target in _registered:
            return
        jax.devices("cpu")  # the CPU client must exist before types are registered
        jax.ffi.register_ffi_type(state_type, type_capsules(), platform="cpu")
        jax.ffi.register_ffi_target(target, handlers(), platform="cpu")
        _registered.add(target)


def ensure_cpu_registered() -> None:
    """Registers the CPU target."""
    _register(CPU_TARGET, _CPU_STATE_TYPE, _core.call_site_state_type, _core.cpu_handlers)


def ensure_metal_registered() -> None:
    """Registers the Metal target (serving both the GPU and the emulator)."""
    _register(METAL_TARGET, _METAL_STATE_TYPE, _core.metal_call_site_state_type,
              _core.metal_handlers)


def register_targets() -> None:
    """Registers every FFI target of this package with JAX's CPU client.

    Tracing a transform does this by itself. Call it before running code this
    process did not trace, such as a computation restored with
    ``jax.export.deserialize``. It creates the CPU client if there is none
    yet, so call it after ``jax.distributed.initialize``.
    """
    ensure_cpu_registered()
    ensure_metal_registered()
