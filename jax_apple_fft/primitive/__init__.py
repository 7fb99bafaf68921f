"""The one FFT primitive and its rules (shape, autodiff, batching, lowering)."""

from jax_apple_fft.primitive.definition import Transform, TransformKind, bind_transform, fft_p
from jax_apple_fft.primitive import autodiff, batching, lowering  # noqa: F401  (registers rules)

__all__ = ["Transform", "TransformKind", "bind_transform", "fft_p"]
