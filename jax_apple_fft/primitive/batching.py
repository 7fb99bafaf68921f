"""vmap: the mapped axis joins the untransformed axes. Nothing moves in
memory; only the axis numbers shift past the batch dimension."""

from __future__ import annotations

from jax.interpreters import batching

from jax_apple_fft.primitive import decomposition
from jax_apple_fft.primitive.definition import fft_p


def _batch(args, dims, *, axes, out_spec=None, **params):
    (x,), (bdim,) = args, dims
    shifted = tuple(a + 1 if a >= bdim else a for a in axes)
    if out_spec is not None:  # the mapped axis as the operand has it
        mapped = (decomposition.explicit_spec(getattr(x, "aval", None)) or ((),) * x.ndim)[bdim]
        out_spec = out_spec[:bdim] + (mapped,) + out_spec[bdim:]
    return fft_p.bind(x, axes=shifted, out_spec=out_spec, **params), bdim


batching.primitive_batchers[fft_p] = _batch
