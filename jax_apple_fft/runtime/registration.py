"""Registers the FFI targets with XLA, once, on first use.

Registration is lazy because registering an FFI state type before JAX's CPU
client exists breaks the client's first operation.
"""

from __future__ import annotations

import threading

import jax

from jax_apple_fft import _core

CPU_TARGET = "jax_apple_fft_cpu"
_STATE_TYPE = "jax_apple_fft.CallSiteState"

_lock = threading.Lock()
_registered = False


def ensure_registered() -> None:
    global _registered
    with _lock:
        if _registered:
            return
        jax.devices("cpu")  # the CPU client must exist before types are registered
        jax.ffi.register_ffi_type(_STATE_TYPE, _core.call_site_state_type(), platform="cpu")
        jax.ffi.register_ffi_target(CPU_TARGET, _core.cpu_handlers(), platform="cpu")
        _registered = True
