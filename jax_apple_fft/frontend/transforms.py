"""numpy.fft's transforms on the apple_fft primitive.

Every function here has numpy's signature plus two keyword-only arguments:
``backend`` ("auto", "cpu" or "metal") and ``cache`` (a PlanCache; the JAX
CPU client's default cache if omitted). The complex-to-complex ones also take
scipy.fft's ``overwrite_x``: the result may reuse the input's buffer. The
n- and two-dimensional ones take ``out_sharding``: the result's sharding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jax_apple_fft.frontend import arguments, memory
from jax_apple_fft.frontend.out_sharding import OutSharding, constrain, target_spec
from jax_apple_fft.primitive import Transform, TransformKind, bind_transform
from jax_apple_fft.primitive.definition import complex_dtype, real_dtype
from jax_apple_fft.runtime.backends import resolve_backend
from jax_apple_fft.runtime.cache import CacheHandle, PlanCache

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft",
    "fft2", "ifft2", "rfft2", "irfft2",
    "fftn", "ifftn", "rfftn", "irfftn",
]

Shape = Sequence[int]
Norm = str | None


_OVERWRITE_X_DOC = """

    overwrite_x=True lets the result take the input's memory, saving the
    allocation of a new output (and, for a fresh one, its first-touch page
    faults). JAX arrays never change: XLA reuses the buffer only where the
    input is not needed afterwards (an intermediate value inside ``jax.jit``,
    or an argument donated with ``donate_argnums``) and copies it otherwise,
    which costs more than it saves. Used by the CPU backend; the Metal
    backend ignores it. See docs/zero_copy.md."""


_OUT_SHARDING_DOC = """

    out_sharding (a NamedSharding, a PartitionSpec, or None) is the result's
    sharding. None: the operand's, for a transform over sharded axes too.
    A layout the distributed transform passes through costs no extra
    exchange: for a slab P("x") over all axes, P(None, "x") saves the last
    all-to-all. Any other is reached by resharding after the transform.
    See docs/sharding.md."""


_NO_AXES_FFT_TYPE = {TransformKind.C2C: "FFT", TransformKind.R2C: "RFFT",
                     TransformKind.C2R: "IRFFT"}


def _run(a, s, axes, norm, backend, cache, *, name, transform: Transform, overwrite_x=False,
         out_sharding: OutSharding = None):
    """The shared path: check arguments, fit the input, bind the primitive."""
    kind = transform.kind
    if not isinstance(overwrite_x, (bool, np.bool_)):
        raise TypeError(f"{name}: overwrite_x must be True or False, got {overwrite_x!r}")
    norm = arguments.check_norm(norm)
    resolve_backend(backend)  # unknown or unavailable backends fail before any work
    cache = arguments.check_cache(cache)
    given = jnp.asarray(a)
    x = arguments.as_input_array(given, real=kind == TransformKind.R2C, name=name)
    complex_to_real = kind == TransformKind.C2R
    axes, lengths = arguments.resolve_lengths(x.shape, s, axes, name=name,
                                              complex_to_real=complex_to_real,
                                              real_to_complex=kind == TransformKind.R2C)
    if not axes:
        # Nothing to transform: jax.lax.fft's own conversion of the input,
        # which is what jax.numpy.fft returns (float16 stays float16 for
        # rfftn). A new value, not the argument: transformations that forward
        # an unchanged argument (vmap) would hand back its uncanonicalised dtype.
        return jnp.array(jax.lax.fft(given, _NO_AXES_FFT_TYPE[kind], ()), copy=True)
    input_lengths = list(lengths)
    if complex_to_real:
        input_lengths[-1] = lengths[-1] // 2 + 1
    fitted, result = list(x.shape), list(x.shape)
    for axis, m, n in zip(axes, input_lengths, lengths):
        fitted[axis], result[axis] = m, n
    if kind == TransformKind.R2C:
        result[axes[-1]] = lengths[-1] // 2 + 1
    result_dtype = real_dtype(x.dtype) if complex_to_real else complex_dtype(x.dtype)
    arguments.check_size(name, fitted, x.dtype)
    arguments.check_size(name, result, result_dtype)
    if 0 in lengths:  # an empty axis: an empty result, as jax.numpy.fft gives
        return jnp.zeros(result, result_dtype)
    chosen = resolve_backend(backend, x.dtype, math.prod(fitted))  # "auto": dtype and size
    memory.check_peak_memory(name, memory.peak_bytes(
        transform=transform, x_shape=x.shape, fitted=fitted, dtype=x.dtype, axes=axes,
        lengths=lengths, result=result,
        result_dtype=result_dtype, backend=chosen, cache=cache))
    x = arguments.fit_to_lengths(x, axes, input_lengths)
    y = bind_transform(x, transform=transform, axes=axes, lengths=lengths,
                       scale=transform.scale(norm, math.prod(lengths)), backend=chosen,
                       auto_backend=backend == "auto", cache=CacheHandle.of(cache),
                       overwrite_x=bool(overwrite_x) and chosen == "cpu",
                       out_spec=target_spec(out_sharding, x, name=name))
    return constrain(y, out_sharding)


def _one_axis(n: int | None, axis: int, name: str):
    if isinstance(axis, (list, tuple, np.ndarray)):  # jax.numpy.fft's rule and error type
        raise ValueError(arguments.jnp_rule(
            name, f"does not support multiple axes. Please use jax.numpy.fft.{name}n. "
                  f"Got axis = {axis}. (This package's is jax_apple_fft.{name}n.)"))
    return (None if n is None else (n,)), (axis,)


def _two_axes(axes, name: str):
    if axes is not None and len(axes) != 2:  # jax.numpy.fft's rule; numpy accepts any number
        raise ValueError(arguments.jnp_rule(name, f"only supports 2 axes. Got axes = {axes}."))
    return axes


def fft(a, n: int | None = None, axis: int = -1, norm: Norm = None, *,
        backend: str = "auto", cache: PlanCache | None = None,
        overwrite_x: bool = False) -> jax.Array:
    """One-dimensional discrete Fourier transform (numpy.fft.fft)."""
    return _run(a, *_one_axis(n, axis, "fft"), norm, backend, cache, name="fft", overwrite_x=overwrite_x,
                transform=Transform.FFT)


def ifft(a, n: int | None = None, axis: int = -1, norm: Norm = None, *,
         backend: str = "auto", cache: PlanCache | None = None,
         overwrite_x: bool = False) -> jax.Array:
    """One-dimensional inverse discrete Fourier transform (numpy.fft.ifft)."""
    return _run(a, *_one_axis(n, axis, "ifft"), norm, backend, cache, name="ifft", overwrite_x=overwrite_x,
                transform=Transform.IFFT)


def rfft(a, n: int | None = None, axis: int = -1, norm: Norm = None, *,
         backend: str = "auto", cache: PlanCache | None = None) -> jax.Array:
    """Transform of real input, returning the n // 2 + 1 non-negative
    frequencies (numpy.fft.rfft)."""
    return _run(a, *_one_axis(n, axis, "rfft"), norm, backend, cache, name="rfft",
                transform=Transform.RFFT)


def irfft(a, n: int | None = None, axis: int = -1, norm: Norm = None, *,
          backend: str = "auto", cache: PlanCache | None = None) -> jax.Array:
    """Inverse of rfft: real output of length n, 2 * (m - 1) by default
    (numpy.fft.irfft)."""
    return _run(a, *_one_axis(n, axis, "irfft"), norm, backend, cache, name="irfft",
                transform=Transform.IRFFT)


def hfft(a, n: int | None = None, axis: int = -1, norm: Norm = None, *,
         backend: str = "auto", cache: PlanCache | None = None) -> jax.Array:
    """Transform of a Hermitian-symmetric signal given by its first half,
    giving real output (numpy.fft.hfft)."""
    # hfft(a) = irfft(conj(a)) with the norm swapped: a forward C2R.
    return _run(a, *_one_axis(n, axis, "hfft"), norm, backend, cache, name="hfft",
                transform=Transform.HFFT)


def ihfft(a, n: int | None = None, axis: int = -1, norm: Norm = None, *,
          backend: str = "auto", cache: PlanCache | None = None) -> jax.Array:
    """Inverse of hfft (numpy.fft.ihfft)."""
    # ihfft(a) = conj(rfft(a)) with the norm swapped: an inverse R2C.
    return _run(a, *_one_axis(n, axis, "ihfft"), norm, backend, cache, name="ihfft",
                transform=Transform.IHFFT)


def fftn(a, s: Shape | None = None, axes: Shape | None = None, norm: Norm = None, *,
         backend: str = "auto", cache: PlanCache | None = None,
         overwrite_x: bool = False, out_sharding: OutSharding = None) -> jax.Array:
    """N-dimensional discrete Fourier transform (numpy.fft.fftn)."""
    return _run(a, s, axes, norm, backend, cache, name="fftn", overwrite_x=overwrite_x,
                transform=Transform.FFT, out_sharding=out_sharding)


def ifftn(a, s: Shape | None = None, axes: Shape | None = None, norm: Norm = None, *,
          backend: str = "auto", cache: PlanCache | None = None,
          overwrite_x: bool = False, out_sharding: OutSharding = None) -> jax.Array:
    """N-dimensional inverse discrete Fourier transform (numpy.fft.ifftn)."""
    return _run(a, s, axes, norm, backend, cache, name="ifftn", overwrite_x=overwrite_x,
                transform=Transform.IFFT, out_sharding=out_sharding)


def rfftn(a, s: Shape | None = None, axes: Shape | None = None, norm: Norm = None, *,
          backend: str = "auto", cache: PlanCache | None = None,
          out_sharding: OutSharding = None) -> jax.Array:
    """N-dimensional transform of real input; the last axis is halved
    (numpy.fft.rfftn)."""
    return _run(a, s, axes, norm, backend, cache, name="rfftn",
                transform=Transform.RFFT, out_sharding=out_sharding)


def irfftn(a, s: Shape | None = None, axes: Shape | None = None, norm: Norm = None, *,
           backend: str = "auto", cache: PlanCache | None = None,
           out_sharding: OutSharding = None) -> jax.Array:
    """Inverse of rfftn (numpy.fft.irfftn)."""
    return _run(a, s, axes, norm, backend, cache, name="irfftn",
                transform=Transform.IRFFT, out_sharding=out_sharding)


def fft2(a, s: Shape | None = None, axes: Shape = (-2, -1), norm: Norm = None, *,
         backend: str = "auto", cache: PlanCache | None = None,
         overwrite_x: bool = False, out_sharding: OutSharding = None) -> jax.Array:
    """Two-dimensional discrete Fourier transform (numpy.fft.fft2)."""
    return fftn(a, s, _two_axes(axes, "fft2"), norm, backend=backend, cache=cache,
                overwrite_x=overwrite_x, out_sharding=out_sharding)


def ifft2(a, s: Shape | None = None, axes: Shape = (-2, -1), norm: Norm = None, *,
          backend: str = "auto", cache: PlanCache | None = None,
          overwrite_x: bool = False, out_sharding: OutSharding = None) -> jax.Array:
    """Two-dimensional inverse discrete Fourier transform (numpy.fft.ifft2)."""
    return ifftn(a, s, _two_axes(axes, "ifft2"), norm, backend=backend, cache=cache,
                 overwrite_x=overwrite_x, out_sharding=out_sharding)


def rfft2(a, s: Shape | None = None, axes: Shape = (-2, -1), norm: Norm = None, *,
          backend: str = "auto", cache: PlanCache | None = None,
          out_sharding: OutSharding = None) -> jax.Array:
    """Two-dimensional transform of real input (numpy.fft.rfft2)."""
    return rfftn(a, s, _two_axes(axes, "rfft2"), norm, backend=backend, cache=cache,
                 out_sharding=out_sharding)


def irfft2(a, s: Shape | None = None, axes: Shape = (-2, -1), norm: Norm = None, *,
           backend: str = "auto", cache: PlanCache | None = None,
           out_sharding: OutSharding = None) -> jax.Array:
    """Inverse of rfft2 (numpy.fft.irfft2)."""
    return irfftn(a, s, _two_axes(axes, "irfft2"), norm, backend=backend, cache=cache,
                  out_sharding=out_sharding)


for _function in (fft, ifft, fftn, ifftn, fft2, ifft2):
    if _function.__doc__ is not None:  # None under python -OO
        _function.__doc__ += _OVERWRITE_X_DOC
for _function in (fftn, ifftn, rfftn, irfftn, fft2, ifft2, rfft2, irfft2):
    if _function.__doc__ is not None:
        _function.__doc__ += _OUT_SHARDING_DOC
del _function
