"""vmap: the mapped axis joins the untransformed axes. Nothing moves in
memory; only the axis numbers shift past the batch dimension."""

from __future__ import annotations

from jax.interpreters import batching

from jax_apple_fft.primitive.definition import fft_p


def _batch(args, dims, *, axes, **params):
    (x,), (bdim,) = args, dims
    shifted = tuple(a + 1 if a >= bdim else a for a in axes)
    return fft_p.bind(x, axes=shifted, **params), bdim


batching.primitive_batchers[fft_p] = _batch
