"""Checks and normalises numpy.fft-style arguments, before anything is traced
into the primitive. Errors follow numpy's types and wording."""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jax_apple_fft.errors import CacheClosedError
from jax_apple_fft.frontend.memory import physical_memory
from jax_apple_fft.runtime.cache import PlanCache, default_cache

NORMS = (None, "backward", "ortho", "forward")


def check_norm(norm: str | None) -> str:
    if norm not in NORMS:
        raise ValueError(
            f'Invalid norm value {norm}; should be "backward","ortho" or "forward".'
        )
    return norm or "backward"


def check_cache(cache: PlanCache | None) -> PlanCache:
    if cache is None:
        cache = default_cache()
    elif not isinstance(cache, PlanCache):
        raise TypeError(f"cache must be a jax_apple_fft.PlanCache, got {type(cache).__name__}")
    if cache.closed:
        raise CacheClosedError("this PlanCache has been closed; pass an open one")
    return cache


def as_input_array(a, *, real: bool, name: str) -> jax.Array:
    """Converts to the dtype the transform computes in, as jax.numpy.fft does:
    64-bit numbers (only present with jax_enable_x64) compute in double
    precision, everything else (narrower integers, bools, float16) in single;
    real input to a complex transform becomes complex."""
    x = jnp.asarray(a)
    is_complex = jnp.issubdtype(x.dtype, jnp.complexfloating)
    if real and is_complex:  # jax.numpy.fft's error type (numpy raises TypeError)
        raise ValueError(f"{name}: only real valued inputs supported for {name}, got "
                         f"{x.dtype}; use the complex transform for complex data")
    double = x.dtype == jnp.complex128 or (not is_complex and x.dtype.itemsize == 8)
    if real:
        return x.astype(jnp.float64 if double else jnp.float32)
    return x.astype(jnp.complex128 if double else jnp.complex64)


def jnp_rule(name: str, rule: str) -> str:
    """An error message for a rule of jax.numpy.fft's that we keep, in its
    words (its tests match them), under this package's function name."""
    return f"jax_apple_fft.{name}: jax.numpy.fft.{name} {rule}"


def normalize_axes(axes: Sequence[int], ndim: int, name: str) -> tuple[int, ...]:
    result = []
    for axis in axes:
        axis = operator.index(axis)
        if not -ndim <= axis < ndim:
            raise np.exceptions.AxisError(axis, ndim)
        result.append(axis % ndim)
    if len(set(result)) != len(result):
        raise ValueError(jnp_rule(name, f"does not support repeated axes. Got axes {axes}."))
    return tuple(result)


def resolve_lengths(
    shape: tuple[int, ...],
    s: Sequence[int | None] | None,
    axes: Sequence[int] | None,
    *,
    name: str,
    complex_to_real: bool,
    real_to_complex: bool,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """numpy's rules for `s` and `axes`: returns (axes, transform lengths).

    An `s` entry of None (or no `s`) takes the default length: the input's
    size m along its axis, except for the last axis of a complex-to-real
    transform: max(0, 2 * (m - 1)). A given length below 1 is an error, -1
    included (numpy 2 takes -1 as m; jax.numpy.fft refuses it). A default
    length of 0 gives an empty result, as in jax.numpy.fft (numpy raises),
    except on the last axis of a real-to-complex transform, whose n // 2 + 1
    outputs would come from no input.
    """
    ndim = len(shape)
    if s is not None:
        s = [None if v is None else operator.index(v) for v in s]
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
        if s is not None and len(s) > ndim:
            raise ValueError("Shape and axes have different lengths.")
    axes = normalize_axes(axes if isinstance(axes, (list, tuple)) else list(axes), ndim, name)
    if s is None:
        s = [None] * len(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    lengths = []
    for i, (axis, n) in enumerate(zip(axes, s)):
        last = i == len(axes) - 1
        default = n is None
        if default:
            n = shape[axis]
            if complex_to_real and last:
                n = max(0, 2 * (n - 1))
        if n < 1 and not (default and n == 0 and not (real_to_complex and last)):
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
        lengths.append(n)
    return axes, tuple(lengths)


def check_size(name: str, shape: Sequence[int], dtype) -> None:
    """Refuses an array larger than this machine's physical memory, before
    XLA sees its shape. XLA aborts the process on an element count that
    overflows 64 bits, even where another dimension is 0 (it multiplies them
    in order), so zeros do not excuse the others; and an array larger than
    memory cannot be computed: where the system overcommits memory, the
    kernel kills the process that fills it."""
    nbytes = math.prod(max(d, 1) for d in shape) * np.dtype(dtype).itemsize
    if nbytes > min(physical_memory(), sys.maxsize):
        raise ValueError(f"{name}: an array of shape {tuple(shape)} and dtype "
                         f"{np.dtype(dtype).name} ({nbytes} bytes) is larger than this "
                         f"machine's memory ({physical_memory()} bytes)")


def fit_to_lengths(x: jax.Array, axes, input_lengths) -> jax.Array:
    """Crops or zero-pads `x` along each axis to the transform's input length."""
    for axis, n in zip(axes, input_lengths):
        have = x.shape[axis]
        if have > n:
            x = jax.lax.slice_in_dim(x, 0, n, axis=axis)
        elif have < n:
            pad = [(0, 0, 0)] * x.ndim
            pad[axis] = (0, n - have, 0)
            x = jax.lax.pad(x, jnp.zeros((), x.dtype), pad)
    return x
