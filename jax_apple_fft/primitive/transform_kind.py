"""The vocabulary of transforms, one for Python and C++.

The transform kinds, the precisions and the Metal executors are defined once,
in C++ (csrc/spec/transform_spec.h, csrc/metal/metal_executor.h), and bound
in the extension module; this is where Python imports them from. A
``Transform`` names a kind and a direction together, as ``jax.lax.FftType``
does, and says what scale a normalisation applies.
"""

from __future__ import annotations

import enum
import math

import numpy as np

from jax_apple_fft._core import MetalExecutorKind, Precision, TransformKind

__all__ = ["MetalExecutorKind", "Precision", "Transform", "TransformKind", "precision_of"]


class Transform(enum.Enum):
    """A transform's kind and direction; numpy.fft's six functions are its six values.

    The direction is one bit. A forward transform has the exponent
    exp(-2 pi i jk/n) and is not scaled under norm="backward"; an inverse one
    has exp(+2 pi i jk/n) and divides by the size under "backward". So HFFT
    is a forward C2R (numpy.fft.hfft) and IHFFT an inverse R2C.
    """

    FFT = (TransformKind.C2C, True)
    IFFT = (TransformKind.C2C, False)
    RFFT = (TransformKind.R2C, True)
    IHFFT = (TransformKind.R2C, False)
    HFFT = (TransformKind.C2R, True)
    IRFFT = (TransformKind.C2R, False)

    @classmethod
    def of(cls, kind: TransformKind, forward: bool) -> Transform:
        return cls((kind, bool(forward)))

    @property
    def kind(self) -> TransformKind:
        return self.value[0]

    @property
    def forward(self) -> bool:
        return self.value[1]

    def with_kind(self, kind: TransformKind) -> Transform:
        """The transform of `kind` in the same direction."""
        return Transform.of(kind, self.forward)

    def scale(self, norm: str, size: int) -> float:
        """The factor a transform of `size` points applies under `norm`
        ("backward", "ortho" or "forward")."""
        if norm == "ortho":
            return 1.0 / math.sqrt(size)
        divides = (norm == "backward") != self.forward
        return 1.0 / size if divides else 1.0

    def __str__(self) -> str:  # jaxprs show the name
        return self.name

    __repr__ = __str__


def precision_of(dtype) -> Precision:
    """The precision a transform of `dtype` computes in."""
    double = np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))
    return Precision.DOUBLE if double else Precision.SINGLE
