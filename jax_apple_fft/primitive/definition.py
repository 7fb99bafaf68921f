"""The primitive, its parameters and its shape/dtype rule.

One primitive serves every transform. Its static parameters:

  kind     C2C, R2C (real in, half-spectrum out) or C2R (the reverse)
  forward  sign of the exponent: True is exp(-2 pi i jk/n)
  axes     the transformed axes; for R2C/C2R the last is the real axis
  lengths  the transform length along each axis (the real length n for the
           real axis, whose complex side holds n // 2 + 1)
  scale    a factor fused into the transform (normalisation)
  backend  "cpu" or "metal", fixed at trace time
  cache    the PlanCache that owns the plans
  overwrite_x  C2C only: the result may take the input's buffer (XLA aliases
           them; see docs/zero_copy.md). Never changes a value: where the
           input is still needed, XLA copies it first
"""

from __future__ import annotations

import enum

import numpy as np
from jax import dtypes
from jax._src import dispatch
from jax.extend.core import Primitive

__all__ = ["TransformKind", "fft_p", "transform"]


class TransformKind(enum.IntEnum):
    """Matches jax_apple_fft::TransformKind in csrc/spec/transform_spec.h."""

    C2C = 0
    R2C = 1
    C2R = 2

    def __str__(self) -> str:  # jaxprs show the name, not the number
        return self.name

    __repr__ = __str__


fft_p = Primitive("apple_fft")
fft_p.def_impl(lambda x, **params: dispatch.apply_primitive(fft_p, x, **params))


def transform(x, *, kind, forward, axes, lengths, scale, backend, cache, overwrite_x=False):
    """Binds the primitive; arguments as described in this module's docstring."""
    return fft_p.bind(
        x,
        kind=TransformKind(kind),
        forward=bool(forward),
        axes=tuple(int(a) for a in axes),
        lengths=tuple(int(n) for n in lengths),
        scale=float(scale),
        backend=backend,
        cache=cache,
        overwrite_x=bool(overwrite_x),
    )


def is_double(dtype) -> bool:
    return np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))


def complex_dtype(dtype) -> np.dtype:
    return np.dtype(np.complex128 if is_double(dtype) else np.complex64)


def real_dtype(dtype) -> np.dtype:
    return np.dtype(np.float64 if is_double(dtype) else np.float32)


def _abstract_eval(x, *, kind, forward, axes, lengths, scale, backend, cache, overwrite_x):
    del forward, scale, backend, cache
    if len(axes) != len(lengths) or not axes:
        raise ValueError("apple_fft needs one length per axis and at least one axis")
    if overwrite_x and kind != TransformKind.C2C:
        raise ValueError("apple_fft: overwrite_x needs a C2C transform (same shape in and out)")
    real_axis = axes[-1]
    shape = list(x.shape)
    expected_in = dict(zip(axes, lengths))
    if kind == TransformKind.C2R:
        expected_in[real_axis] = lengths[-1] // 2 + 1
    for axis, n in expected_in.items():
        if shape[axis] != n:
            raise ValueError(f"apple_fft: axis {axis} has length {shape[axis]}, expected {n}")
    is_complex = dtypes.issubdtype(x.dtype, np.complexfloating)
    # x.update keeps the input's sharding and varying manual axes (vma):
    # a transform is local to each shard of the untransformed axes. The real
    # axis of R2C/C2R changes length, so its sharding does not carry over.
    if kind != TransformKind.C2C:
        x = x.update(sharding=_whole_along(x.sharding, real_axis))
    if kind == TransformKind.R2C:
        if is_complex:
            raise TypeError(f"apple_fft R2C needs a real input, got {x.dtype}")
        shape[real_axis] = lengths[-1] // 2 + 1
        return x.update(shape=tuple(shape), dtype=complex_dtype(x.dtype), weak_type=False)
    if not is_complex:
        raise TypeError(f"apple_fft {kind.name} needs a complex input, got {x.dtype}")
    if kind == TransformKind.C2R:
        shape[real_axis] = lengths[-1]
        return x.update(shape=tuple(shape), dtype=real_dtype(x.dtype), weak_type=False)
    return x.update(shape=tuple(shape), dtype=x.dtype, weak_type=False)


def _whole_along(sharding, axis: int):
    """`sharding` with `axis` not partitioned (named shardings; others as they are)."""
    spec = getattr(sharding, "spec", None)
    if spec is None or axis >= len(spec) or spec[axis] is None:
        return sharding
    return sharding.update(spec=spec[:axis] + (None,) + spec[axis + 1:])


fft_p.def_abstract_eval(_abstract_eval)
