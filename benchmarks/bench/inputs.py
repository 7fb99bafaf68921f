"""Random input arrays for a row, in the row's precision."""

from __future__ import annotations

import numpy as np

from .suite import Row

REAL_DTYPES = {"f32": np.float32, "f64": np.float64}
COMPLEX_DTYPES = {"f32": np.complex64, "f64": np.complex128}


def make_input(row: Row, rng: np.random.Generator) -> np.ndarray:
    """A C-contiguous numpy array that every contender transforms."""
    if row.kind == "r2c":
        return rng.standard_normal(row.shape).astype(REAL_DTYPES[row.precision])
    if row.kind == "c2c":
        values = rng.standard_normal(row.shape) + 1j * rng.standard_normal(row.shape)
        return values.astype(COMPLEX_DTYPES[row.precision])
    # c2r: the half spectrum of a real signal, so that the input is a
    # consistent Hermitian spectrum whatever the library does with it.
    signal = rng.standard_normal(row.shape)
    spectrum = np.fft.rfftn(signal, s=row.lengths, axes=row.axes)
    return np.ascontiguousarray(spectrum.astype(COMPLEX_DTYPES[row.precision]))
