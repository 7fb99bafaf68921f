"""The one FFT primitive and its rules (shape, autodiff, batching, lowering)."""

from jax_apple_fft.primitive.definition import TransformKind, fft_p, transform
from jax_apple_fft.primitive import autodiff, batching, lowering  # noqa: F401  (registers rules)

__all__ = ["TransformKind", "fft_p", "transform"]
