"""Random input arrays for a row, in the row's precision, and arrays placed
as XLA places its buffers."""

from __future__ import annotations

import math

import numpy as np

from .suite import Row

REAL_DTYPES = {"f32": np.float32, "f64": np.float64}
COMPLEX_DTYPES = {"f32": np.complex64, "f64": np.complex128}

# Bytes at whose multiples XLA's CPU buffers start (pyFFTW's arrays start at
# multiples of its SIMD alignment, 32 with AVX). numpy starts a large array
# 16 bytes into a page, where 32-byte vector stores straddle cache lines and
# streaming stores are refused: our transform alone ran c2c float64
# 64 x 32768 1.6 times slower into such an output than into an aligned one.
BUFFER_ALIGNMENT = 64


def aligned_empty(shape: tuple[int, ...], dtype) -> np.ndarray:
    """An uninitialised C-contiguous array starting at a multiple of BUFFER_ALIGNMENT."""
    dtype = np.dtype(dtype)
    size = math.prod(shape) * dtype.itemsize
    raw = np.empty(size + BUFFER_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % BUFFER_ALIGNMENT
    return raw[start:start + size].view(dtype).reshape(shape)


def aligned(x: np.ndarray) -> np.ndarray:
    """A copy of `x` as aligned_empty places it."""
    y = aligned_empty(x.shape, x.dtype)
    y[...] = x
    return y


def make_input(row: Row, rng: np.random.Generator) -> np.ndarray:
    """A C-contiguous numpy array that every contender transforms, placed
    as XLA places its buffers."""
    if row.kind == "r2c":
        return aligned(rng.standard_normal(row.shape).astype(REAL_DTYPES[row.precision]))
    if row.kind == "c2c":
        values = rng.standard_normal(row.shape) + 1j * rng.standard_normal(row.shape)
        return aligned(values.astype(COMPLEX_DTYPES[row.precision]))
    # c2r: the half spectrum of a real signal, so that the input is a
    # consistent Hermitian spectrum whatever the library does with it.
    signal = rng.standard_normal(row.shape)
    spectrum = np.fft.rfftn(signal, s=row.lengths, axes=row.axes)
    return aligned(spectrum.astype(COMPLEX_DTYPES[row.precision]))
