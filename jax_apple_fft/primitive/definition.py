"""The primitive, its parameters and its shape/dtype rule.

One primitive serves every transform. Its static parameters:

  transform  a Transform: the kind, C2C, R2C (real in, half-spectrum out) or
           C2R (the reverse), and the direction (forward: exp(-2 pi i jk/n))
  axes     the transformed axes; for R2C/C2R the last is the real axis
  lengths  the transform length along each axis (the real length n for the
           real axis, whose complex side holds n // 2 + 1)
  scale    a factor fused into the transform (normalisation)
  backend  "cpu", "metal" or "metal-emulated", fixed at trace time
  auto_backend  whether `backend` was chosen by the "auto" rule: then a
           lowering for another platform than the CPU (a GPU, a TPU) runs
           JAX's own FFT there; an explicit backend refuses it (lowering.py)
  cache    the CacheHandle of the PlanCache that owns the plans (a value
           that prints the same whatever the cache holds)
  overwrite_x  C2C only: the result may take the input's buffer (XLA aliases
           them; see docs/zero_copy.md). Never changes a value: where the
           input is still needed, XLA copies it first
  out_spec the layout a transform over sharded axes should end in, as mesh
           axes per dimension (decomposition.Spec); None: the operand's
"""

from __future__ import annotations

import numpy as np
from jax import dtypes
from jax._src import dispatch
from jax.extend.core import Primitive

from jax_apple_fft.primitive import decomposition
from jax_apple_fft.primitive.transform_kind import Transform, TransformKind

__all__ = ["Transform", "TransformKind", "bind_transform", "fft_p"]


fft_p = Primitive("apple_fft")
fft_p.def_impl(lambda x, **params: dispatch.apply_primitive(fft_p, x, **params))


def bind_transform(x, *, transform, axes, lengths, scale, backend, cache, auto_backend=False,
                   overwrite_x=False, out_spec=None):
    """Binds the primitive; arguments as described in this module's docstring."""
    return fft_p.bind(
        x,
        transform=Transform(transform),
        axes=tuple(int(a) for a in axes),
        lengths=tuple(int(n) for n in lengths),
        scale=float(scale),
        backend=backend,
        auto_backend=bool(auto_backend),
        cache=cache,
        overwrite_x=bool(overwrite_x),
        out_spec=None if out_spec is None else tuple(tuple(names) for names in out_spec),
    )


def is_double(dtype) -> bool:
    return np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))


def complex_dtype(dtype) -> np.dtype:
    return np.dtype(np.complex128 if is_double(dtype) else np.complex64)


def real_dtype(dtype) -> np.dtype:
    return np.dtype(np.float64 if is_double(dtype) else np.float32)


def result_type(shape, dtype, *, kind, axes, lengths) -> tuple[tuple[int, ...], np.dtype]:
    """The result's shape and dtype: the real axis of R2C and C2R changes length."""
    shape = list(shape)
    if kind == TransformKind.R2C:
        shape[axes[-1]], dtype = lengths[-1] // 2 + 1, complex_dtype(dtype)
    elif kind == TransformKind.C2R:
        shape[axes[-1]], dtype = lengths[-1], real_dtype(dtype)
    return tuple(shape), np.dtype(dtype)


def _abstract_eval(x, *, transform, axes, lengths, scale, backend, auto_backend, cache,
                   overwrite_x, out_spec=None):
    del scale, backend, auto_backend, cache
    kind = transform.kind
    if len(axes) != len(lengths) or not axes:
        raise ValueError("apple_fft needs one length per axis and at least one axis")
    if overwrite_x and kind != TransformKind.C2C:
        raise ValueError("apple_fft: overwrite_x needs a C2C transform (same shape in and out)")
    expected_in = dict(zip(axes, lengths))
    if kind == TransformKind.C2R:
        expected_in[axes[-1]] = lengths[-1] // 2 + 1
    for axis, n in expected_in.items():
        if x.shape[axis] != n:
            raise ValueError(f"apple_fft: axis {axis} has length {x.shape[axis]}, expected {n}")
    is_complex = dtypes.issubdtype(x.dtype, np.complexfloating)
    if kind == TransformKind.R2C and is_complex:
        raise TypeError(f"apple_fft R2C needs a real input, got {x.dtype}")
    if kind != TransformKind.R2C and not is_complex:
        raise TypeError(f"apple_fft {kind.name} needs a complex input, got {x.dtype}")
    shape, dtype = result_type(x.shape, x.dtype, kind=kind, axes=axes, lengths=lengths)
    # x.update keeps the input's sharding and varying manual axes (vma): a
    # transform of whole axes is local to each shard. Over sharded axes the
    # result takes the layout the decomposition ends in (partitioning.py).
    sharding = _result_sharding(x, kind=kind, axes=axes, lengths=lengths, target=out_spec)
    return x.update(shape=shape, dtype=dtype, weak_type=False, sharding=sharding)


def _result_sharding(x, *, kind, axes, lengths, target):
    """The result's sharding where the operand's names mesh axes (explicit
    sharding); as it is otherwise."""
    spec = decomposition.explicit_spec(x)
    if spec is None:
        return x.sharding
    plan = decomposition.plan(x.shape, spec, dict(x.sharding.mesh.shape), kind=kind, axes=axes,
                              lengths=lengths, scale=1.0, target=target)
    return x.sharding.update(spec=decomposition.partition_spec(plan.out_spec))


fft_p.def_abstract_eval(_abstract_eval)
