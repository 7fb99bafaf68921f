"""The drop-in: JAX's own FFTs, lowered for the CPU to this package's FFI target.

``enable()`` registers a CPU lowering for JAX's ``lax.fft`` primitive, which
``jax.numpy.fft``, ``jax.scipy.signal`` and every library built on them bind.
JAX keeps its own shape, JVP, transpose and batching rules, so the semantics
stay JAX's; only where the transform runs changes. In the HLO, the transform
shows as a custom call to ``jax_apple_fft_cpu`` (or the Metal target) instead
of ``stablehlo.fft``. ``disable()`` restores JAX's lowering.

Both clear JAX's compilation caches, so that functions compiled before the
switch are compiled again with the lowering now in force.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator

import jax
import jax.numpy as jnp
from jax._src import dispatch
from jax.interpreters import mlir

from jax_apple_fft.frontend import arguments
from jax_apple_fft.primitive import Transform, lowering
from jax_apple_fft.runtime.backends import resolve_backend
from jax_apple_fft.runtime.cache import CacheHandle, PlanCache

__all__ = ["disable", "enable", "enabled", "is_enabled"]

_FFT = jax.lax.FftType
# lax.fft's types, which scale as norm="backward" does.
_TRANSFORMS = {_FFT.FFT: Transform.FFT, _FFT.IFFT: Transform.IFFT,
               _FFT.RFFT: Transform.RFFT, _FFT.IRFFT: Transform.IRFFT}

_lock = threading.Lock()
_settings: tuple[str, PlanCache | None] | None = None  # (backend, cache) while enabled


def _lower_lax_fft(ctx, x, *, fft_type, fft_lengths):
    backend, cache = _settings or ("cpu", None)
    transform = _TRANSFORMS[_FFT(fft_type)]
    (aval_in,) = ctx.avals_in
    (aval_out,) = ctx.avals_out
    lengths = tuple(int(n) for n in fft_lengths)
    if aval_in.size == 0 or aval_out.size == 0 or 0 in lengths:
        # Nothing to transform: the result is empty, or all zeros (an empty sum).
        zeros = lambda v: jnp.zeros(aval_out.shape, aval_out.dtype)
        return mlir.lower_fun(zeros, multiple_results=False)(ctx, x)
    axes = tuple(range(aval_in.ndim - len(lengths), aval_in.ndim))
    return lowering.lower_transform(
        ctx, x, transform=transform, axes=axes, lengths=lengths,
        scale=transform.scale("backward", math.prod(lengths)),
        backend=resolve_backend(backend, aval_in.dtype, aval_in.size),
        cache=CacheHandle.of(arguments.check_cache(cache)), gather_unsupported_layouts=True)


def enable(*, backend: str = "cpu", cache: PlanCache | None = None) -> None:
    """Runs every FFT that JAX lowers for the CPU through this package.

    Args:
      backend: "cpu" (the default), or "auto" to let large single-precision
        transforms run on the Apple GPU where there is one. Decided per
        transform when a computation is lowered, as for this package's own
        functions.
      cache: the PlanCache to use; the default cache if None.
    """
    global _settings
    resolve_backend(backend)  # unknown or unavailable backends fail here
    if cache is not None:
        arguments.check_cache(cache)
    with _lock:
        _settings = (backend, cache)
        # As for this package's primitive (primitive/lowering.py): uncached, with the
        # device assignment, so that a sharded lowering can partition per shard.
        mlir.register_lowering(jax.lax.fft_p, _lower_lax_fft, platform="cpu", cacheable=False)
        dispatch.prim_requires_devices_during_lowering.add(jax.lax.fft_p)
    jax.clear_caches()


def disable() -> None:
    """Restores JAX's own lowering of its FFTs (a no-op when not enabled)."""
    global _settings
    with _lock:
        if _settings is None:
            return
        _settings = None
        # JAX's rule is its generic one; removing ours for the CPU brings it back.
        mlir._platform_specific_lowerings["cpu"].pop(jax.lax.fft_p, None)
    jax.clear_caches()


def is_enabled() -> bool:
    """Whether JAX's FFTs run through this package now."""
    return _settings is not None


@contextlib.contextmanager
def enabled(*, backend: str = "cpu", cache: PlanCache | None = None) -> Iterator[None]:
    """``enable()`` for the duration of a ``with`` block; the state before it
    (enabled with its settings, or not) comes back afterwards."""
    before = _settings
    enable(backend=backend, cache=cache)
    try:
        yield
    finally:
        if before is None:
            disable()
        else:
            enable(backend=before[0], cache=before[1])
