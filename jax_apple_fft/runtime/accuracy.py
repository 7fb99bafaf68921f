"""The accuracy contract (docs/accuracy.md), defined once: a transform of n
points in all, computed in a precision of machine epsilon eps, is within
relative L2 error 5 * eps * log2(n) of a float64 reference. The Metal
self-check holds a GPU to it; the tests, the CUDA verifier and the
benchmarks use these two functions too."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

__all__ = ["error_bound", "relative_l2_error"]


def error_bound(dtype: DTypeLike, points: int) -> float:
    """The largest relative L2 error the contract allows a transform of
    `points` points in all (the product of its lengths) computed in `dtype`,
    real or complex. Lengths 1 and 2 get the bound of log2(n) = 1."""
    eps = float(np.finfo(dtype).eps)
    return 5.0 * eps * max(math.log2(max(points, 1)), 1.0)


def relative_l2_error(got: ArrayLike, want: ArrayLike) -> float:
    """||got - want|| / ||want||, in double precision; the absolute error
    where `want` is all zeros, and inf where the shapes differ. The sums run
    without BLAS (np.linalg.norm would leave BLAS threads spinning, which
    disturbs the benchmarks' timings of the calls that follow)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return math.inf
    diff = _l2_norm(got.astype(np.complex128) - want.astype(np.complex128))
    norm = _l2_norm(want.astype(np.complex128))
    return diff / norm if norm else diff


def _l2_norm(values: np.ndarray) -> float:
    return math.sqrt(float(np.sum(values.real ** 2 + values.imag ** 2)))
