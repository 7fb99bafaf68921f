"""The test side of the accuracy contract (jax_apple_fft/runtime/accuracy.py,
docs/accuracy.md).

* ``assert_accurate``: a result against a float64 reference, within the
  contract's bound (times a factor a test states and explains).
* ``assert_agree``: two results of the same call in the same precision (ours
  and jax.numpy.fft's, sharded and unsharded, two SIMD levels) have the same
  shape and dtype and values within twice the bound: each is within the
  bound of the exact result, so they are within twice it of each other.
"""

from __future__ import annotations

import numpy as np

from jax_apple_fft.runtime.accuracy import error_bound, relative_l2_error

__all__ = ["assert_accurate", "assert_agree", "error_bound", "relative_l2_error"]


def assert_accurate(actual, expected, dtype, points: int, *, factor: float = 1.0,
                    exact_dtype: bool = True) -> None:
    """`actual` has `expected`'s shape, the dtype `dtype` (unless not
    `exact_dtype`), finite values, and relative L2 error within `factor`
    times the bound for `points` points in `dtype`."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if exact_dtype:
        assert actual.dtype == np.dtype(dtype), (actual.dtype, np.dtype(dtype))
    assert np.all(np.isfinite(actual)), "non-finite values in the result"
    error, limit = relative_l2_error(actual, expected), factor * error_bound(dtype, points)
    assert error <= limit, f"relative L2 error {error:.3e} exceeds {limit:.3e} ({points} points)"


def assert_agree(ours, theirs) -> None:
    """Same shape, same dtype, and relative L2 difference within twice the
    bound of `theirs`'s precision, with every element counted as a point
    (at least as loose as the transform's own length)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    difference = relative_l2_error(ours, theirs)
    limit = 2 * error_bound(theirs.dtype, theirs.size)
    assert difference <= limit, f"relative L2 difference {difference:.3e} exceeds {limit:.3e}"

