"""The numerical check every row passes before it is timed."""

from __future__ import annotations

import math

import numpy as np

from .suite import Row

# Headroom over the documented 5 * eps * log2(N) bound, so that every
# contender (not only ours) passes on random data.
TOLERANCE_FACTOR = 10.0
EPSILON = {"f32": float(np.finfo(np.float32).eps), "f64": float(np.finfo(np.float64).eps)}


def reference(row: Row, x: np.ndarray) -> np.ndarray:
    """numpy's double-precision result for the exact values in ``x``."""
    wide = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    if row.kind == "c2c":
        return np.fft.fftn(wide, s=row.lengths, axes=row.axes, norm=row.norm)
    if row.kind == "r2c":
        return np.fft.rfftn(wide, s=row.lengths, axes=row.axes, norm=row.norm)
    return np.fft.irfftn(wide, s=row.lengths, axes=row.axes, norm=row.norm)


def tolerance(row: Row) -> float:
    points = math.prod(row.lengths)
    return TOLERANCE_FACTOR * EPSILON[row.precision] * max(1.0, math.log2(points))


def relative_error(result: np.ndarray, expected: np.ndarray) -> float:
    """Relative L2 distance, or inf when the shapes differ."""
    result = np.asarray(result)
    if result.shape != expected.shape:
        return math.inf
    return l2_norm(result.astype(expected.dtype) - expected) / l2_norm(expected)


def l2_norm(values: np.ndarray) -> float:
    """Without BLAS, unlike np.linalg.norm: after a call, numpy's BLAS keeps a
    thread spinning (0.11 s of CPU in the half second after the norm of 4M
    doubles here), which would compete with the two-thread contenders in the
    row's first timed rounds."""
    return math.sqrt(float(np.sum(np.abs(values) ** 2)))
