"""The numerical check every row passes before it is timed."""

from __future__ import annotations

import math

import numpy as np

from jax_apple_fft.runtime.accuracy import error_bound

from .suite import Row

# Twice the contract's bound (docs/accuracy.md), so that every contender, not
# only ours, passes on random data.
CONTENDER_HEADROOM = 2.0
PRECISION = {"f32": np.float32, "f64": np.float64}


def reference(row: Row, x: np.ndarray) -> np.ndarray:
    """numpy's double-precision result for the exact values in ``x``."""
    wide = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    if row.kind == "c2c":
        return np.fft.fftn(wide, s=row.lengths, axes=row.axes, norm=row.norm)
    if row.kind == "r2c":
        return np.fft.rfftn(wide, s=row.lengths, axes=row.axes, norm=row.norm)
    return np.fft.irfftn(wide, s=row.lengths, axes=row.axes, norm=row.norm)


def tolerance(row: Row) -> float:
    return CONTENDER_HEADROOM * error_bound(PRECISION[row.precision], math.prod(row.lengths))

