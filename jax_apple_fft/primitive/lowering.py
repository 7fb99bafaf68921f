"""Lowering to the backend's XLA FFI target, with typed attributes."""

from __future__ import annotations

import jax
import numpy as np
from jax.interpreters import mlir

from jax_apple_fft.primitive.definition import fft_p, is_double
from jax_apple_fft.runtime import registration


def _lower(ctx, x, *, kind, forward, axes, lengths, scale, backend, cache):
    if backend != "cpu":
        raise NotImplementedError(f"no lowering for backend {backend!r} in this build")
    registration.ensure_registered()
    (aval,) = ctx.avals_in
    precision = 1 if is_double(aval.dtype) else 0
    return jax.ffi.ffi_lowering(registration.CPU_TARGET)(
        ctx,
        x,
        kind=np.int32(kind),
        forward=bool(forward),
        precision=np.int32(precision),
        in_shape=np.asarray(aval.shape, dtype=np.int64),
        axes=np.asarray(axes, dtype=np.int64),
        lengths=np.asarray(lengths, dtype=np.int64),
        scale=np.float64(scale),
        cache=np.uint64(cache.handle),
    )


mlir.register_lowering(fft_p, _lower, platform="cpu")
