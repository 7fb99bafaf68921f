"""JVP and transposes. The transform is linear, so its JVP is itself applied
to the tangent; the transposes (JAX's convention: the linear transpose, no
conjugation) are:

  C2C(d, s)^T = C2C(d, s): the DFT matrix is symmetric.
  R2C(d, s)^T = C2R(d, s) applied to ct * w, with w = 1 at the zero and
      Nyquist bins and 1/2 elsewhere: C2R counts each inner bin twice
      (Hermitian symmetry), the transpose of R2C counts it once.
  C2R(d, s)^T = m * R2C(d, s)(ct), with m = 1 at the zero and Nyquist
      bins and 2 elsewhere: the inner bins stand for two terms each.

d is the direction (Transform.forward), s the scale: both carry over.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.interpreters import ad

from jax_apple_fft.primitive import decomposition
from jax_apple_fft.primitive.definition import TransformKind, bind_transform, fft_p


def _half_spectrum_weights(n: int, inner: float, axis: int, ndim: int, dtype):
    """Weights over the n // 2 + 1 bins of a real axis, shaped to broadcast."""
    bins = n // 2 + 1
    w = jnp.full((bins,), inner, dtype=dtype).at[0].set(1)
    if n % 2 == 0:
        w = w.at[bins - 1].set(1)
    return w.reshape([bins if d == axis else 1 for d in range(ndim)])


def _transpose(ct, x, *, transform, axes, lengths, scale, backend, auto_backend, cache,
               overwrite_x, out_spec=None):
    del out_spec
    # The cotangent takes the operand's layout (explicit sharding needs it).
    layout = decomposition.explicit_spec(x.aval)
    params = dict(axes=axes, lengths=lengths, scale=scale,
                  backend=backend, auto_backend=auto_backend, cache=cache, out_spec=layout)
    real_axis, n = axes[-1], lengths[-1]
    kind = transform.kind
    if kind == TransformKind.C2C:
        result = bind_transform(ct, transform=transform, overwrite_x=overwrite_x, **params)
    # Weights in the dtype of what they multiply: no rule here may depend on
    # implicit promotion (jax_numpy_dtype_promotion="strict" forbids it).
    elif kind == TransformKind.R2C:
        w = _half_spectrum_weights(n, 0.5, real_axis, ct.ndim, ct.dtype)
        result = bind_transform(ct * w, transform=transform.with_kind(TransformKind.C2R),
                                **params)
    else:
        spectrum = bind_transform(ct, transform=transform.with_kind(TransformKind.R2C), **params)
        m = _half_spectrum_weights(n, 2.0, real_axis, ct.ndim, spectrum.dtype)
        result = spectrum * m
    if layout is not None and decomposition.explicit_spec(jax.typeof(result)) != layout:
        result = jax.sharding.reshard(result, x.aval.sharding)
    return [result]


ad.deflinear2(fft_p, _transpose)
