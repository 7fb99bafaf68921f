"""Lowering for platforms other than the CPU (CUDA, ROCm, TPU, ...).

This package's FFI targets run on JAX's CPU client only. Where the "auto"
rule chose the backend, a transform lowered for another platform computes
the same result with JAX's own FFT (`jax.lax.fft`, lowered as JAX lowers it
there), so code written against this package runs wherever JAX runs. An
explicit backend never changes: lowering it for another platform raises
UnsupportedError.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.interpreters import mlir

from jax_apple_fft.errors import UnsupportedError
from jax_apple_fft.primitive.transform_kind import TransformKind

_FFT = jax.lax.FftType


def as_lax_fft(x, *, transform, axes, lengths, scale):
    """The primitive's transform computed with jax.lax.fft, which transforms
    trailing axes with fixed signs and divides its inverses by the size."""
    trailing = tuple(range(x.ndim - len(axes), x.ndim))
    x = jnp.moveaxis(x, axes, trailing)  # keeps their order: a real axis stays last
    kind, forward = transform.kind, transform.forward
    if kind == TransformKind.C2C:
        y = jax.lax.fft(x, _FFT.FFT if forward else _FFT.IFFT, lengths)
        divided = not forward
    elif kind == TransformKind.R2C:
        y = jax.lax.fft(x, _FFT.RFFT, lengths)
        y = y if forward else jnp.conj(y)  # the real side is its own conjugate
        divided = False
    else:
        y = jax.lax.fft(x if not forward else jnp.conj(x), _FFT.IRFFT, lengths)
        divided = True
    factor = scale * math.prod(lengths) if divided else scale
    if not math.isclose(factor, 1.0, rel_tol=1e-14):  # 1/n * n is 1 within rounding
        y = y * np.asarray(factor, dtype=y.dtype)
    return jnp.moveaxis(y, trailing, axes)


def lower_elsewhere(ctx, x, *, transform, axes, lengths, scale, backend, auto_backend,
                    cache, overwrite_x=False, out_spec=None):
    """The primitive's lowering for every platform but the CPU."""
    del cache, overwrite_x, out_spec  # JAX's FFT plans and lays out its own result
    if not auto_backend:
        platforms = ", ".join(ctx.platforms or ctx.module_context.platforms)
        raise UnsupportedError(
            f"jax_apple_fft: backend={backend!r} runs on the CPU, and this transform is lowered "
            f"for {platforms}: put its input on the CPU (jax.device_put(x, "
            f"jax.devices('cpu')[0])), or use backend='auto', which runs JAX's own FFT on "
            f"other platforms")
    call = lambda v: as_lax_fft(v, transform=transform, axes=tuple(axes),
                                lengths=tuple(lengths), scale=scale)
    return mlir.lower_fun(call, multiple_results=False)(ctx, x)
