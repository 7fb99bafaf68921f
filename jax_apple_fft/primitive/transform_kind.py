"""The kinds of transform, one vocabulary for Python and C++."""

from __future__ import annotations

import enum


class TransformKind(enum.IntEnum):
    """Matches jax_apple_fft::TransformKind in csrc/spec/transform_spec.h."""

    C2C = 0
    R2C = 1
    C2R = 2

    def __str__(self) -> str:  # jaxprs show the name, not the number
        return self.name

    __repr__ = __str__
