"""Every transform against numpy.fft (computed in float64) as the oracle:
dtypes, norms, axes, n/s crop and pad, awkward sizes, empty batches."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

import jax_apple_fft as af
from fft_testing import (
    COMPLEX_TO_REAL,
    NORMS,
    ONE_D,
    call,
    expected_dtype,
    input_for,
    make_input,
    numpy_reference,
    precision,
)
from support.accuracy import assert_accurate

DTYPES = ("float32", "float64")
# 113 and 257: primes that take Rader's algorithm (docs/accuracy.md).
SIZES = (1, 2, 5, 8, 12, 17, 97, 113, 128, 257)


def _one_d_input_length(name, n):
    """Points along the axis that make an n-point transform by default."""
    return n // 2 + 1 if name in COMPLEX_TO_REAL else n


# --------------------------------------------------------------------------
# One-dimensional transforms
# --------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_D)
def test_one_d_sizes(name, dtype, size, rng):
    """Even, odd, prime, power-of-two and length-1 transforms over 9 lines
    (enough for the SIMD path plus a scalar remainder)."""
    with precision(dtype):
        m = _one_d_input_length(name, size)
        x = input_for(name, rng, (9, m), dtype)
        # C2R defaults to an even length: pass n only where it is needed.
        n = None if name not in COMPLEX_TO_REAL or 2 * (m - 1) == size else size
        out = call(name, x, n=n)
        expected = numpy_reference(name, x, n=n)
        assert_accurate(out, expected, expected_dtype(name, dtype), size)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_D)
def test_one_d_norms(name, dtype, norm, rng):
    with precision(dtype):
        for size in (6, 7):
            m = _one_d_input_length(name, size)
            x = input_for(name, rng, (4, m), dtype)
            out = call(name, x, n=size, norm=norm)
            expected = numpy_reference(name, x, n=size, norm=norm)
            assert_accurate(out, expected, expected_dtype(name, dtype), size)


@pytest.mark.parametrize("n_mode", ("default", "crop", "pad"))
@pytest.mark.parametrize("axis", (0, -2, -1))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_D)
def test_one_d_axis_and_n(name, dtype, axis, n_mode, rng):
    """Transforms along first, middle (negative) and last axes of a 3-D
    array, with the input cropped or zero-padded by n."""
    shape = (6, 5, 7)
    with precision(dtype):
        x = input_for(name, rng, shape, dtype)
        m = shape[axis]
        if name in COMPLEX_TO_REAL:
            n = {"default": None, "crop": m - 1, "pad": 2 * m + 1}[n_mode]
            length = 2 * (m - 1) if n is None else n
        else:
            n = {"default": None, "crop": m - 2, "pad": m + 3}[n_mode]
            length = m if n is None else n
        out = call(name, x, n=n, axis=axis)
        expected = numpy_reference(name, x, n=n, axis=axis)
        assert_accurate(out, expected, expected_dtype(name, dtype), length)


@pytest.mark.parametrize("size", (1, 16, 1009, 4096))
@pytest.mark.parametrize("name", ONE_D)
def test_one_d_single_line(name, size, rng):
    """A 1-D input is planned with the single-long-line layout."""
    m = _one_d_input_length(name, size)
    x = input_for(name, rng, (m,), "float32")
    n = size if name in COMPLEX_TO_REAL else None
    out = call(name, x, n=n)
    assert_accurate(out, numpy_reference(name, x, n=n), expected_dtype(name, "float32"), size)


def test_python_list_input():
    out = af.fft([1.0, 2.0, 0.0, -1.0, 3.0])
    expected = np.fft.fft([1.0, 2.0, 0.0, -1.0, 3.0])
    assert_accurate(out, expected, np.complex64, 5)


def test_hfft_accepts_real_input(rng):
    """numpy's hfft takes real input (as a Hermitian half with zero imaginary part)."""
    x = rng.standard_normal(9).astype(np.float32)
    assert_accurate(af.hfft(x), np.fft.hfft(x.astype(np.float64)), np.float32, 16)


# --------------------------------------------------------------------------
# N-dimensional transforms
# --------------------------------------------------------------------------

# (shape, s, axes, norm)
ND_CASES = [
    ((4, 6), None, None, None),
    ((3, 4, 5), None, None, "ortho"),
    ((3, 4, 5), None, (0, 2), "forward"),
    ((3, 4, 5), None, (-1, 0), "backward"),          # reversed order: axis 0 is last
    ((3, 4, 5), (6, 3), (1, 2), None),               # pad one axis, crop the other
    ((3, 4, 5), (5, 7), None, "ortho"),              # s without axes: last len(s) axes
    ((2, 3, 4, 5), (None, 4), (0, 3), "forward"),    # None keeps the input size
    ((7,), (11,), None, None),
    ((1, 1), (1, 1), None, "ortho"),              # length-1 axes
    ((13, 3), None, (0,), None),                     # prime, single non-last axis
    ((2, 3, 4), None, (-3, -2, -1), "forward"),  # negative axes
]

ND_IDS = [f"{shape}-s{s}-ax{axes}-{norm}" for shape, s, axes, norm in ND_CASES]


def _nd_input_shape(name, shape, s, axes):
    """For C2R transforms the case's shape is the real output shape when no
    s is given; the complex input holds n // 2 + 1 on the last axis."""
    if name not in COMPLEX_TO_REAL or s is not None:
        return shape
    axes = tuple(range(len(shape))) if axes is None else axes
    last = axes[-1] % len(shape)
    return tuple(d // 2 + 1 if i == last else d for i, d in enumerate(shape))


def _nd_length(out_shape, axes, x_ndim, s):
    if axes is None:
        axes = range(x_ndim - (len(s) if s is not None else x_ndim), x_ndim)
    return math.prod(out_shape[a] for a in axes) if out_shape else 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ND_CASES, ids=ND_IDS)
@pytest.mark.parametrize("name", ("fftn", "ifftn", "rfftn", "irfftn"))
def test_nd(name, case, dtype, rng):
    shape, s, axes, norm = case
    with precision(dtype):
        x = input_for(name, rng, _nd_input_shape(name, shape, s, axes), dtype)
        out = call(name, x, s=s, axes=axes, norm=norm)
        expected = numpy_reference(name, x, s=s, axes=axes, norm=norm)
        n = _nd_length(expected.shape, axes, x.ndim, s)
        assert_accurate(out, expected, expected_dtype(name, dtype), n)


ND2_CASES = [
    ((4, 6), None, None, None),
    ((3, 5, 7), None, None, "ortho"),
    ((3, 5, 7), (4, 9), (0, 2), "forward"),
    ((5, 3, 4), (2, 5), (-1, -3), "backward"),
]
ND2_IDS = [f"{shape}-s{s}-ax{axes}-{norm}" for shape, s, axes, norm in ND2_CASES]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ND2_CASES, ids=ND2_IDS)
@pytest.mark.parametrize("name", ("fft2", "ifft2", "rfft2", "irfft2"))
def test_two_d(name, case, dtype, rng):
    shape, s, axes, norm = case
    kwargs = {"s": s, "norm": norm}
    if axes is not None:
        kwargs["axes"] = axes
    with precision(dtype):
        x = input_for(name, rng, _nd_input_shape(name, shape, s, axes or (-2, -1)), dtype)
        out = call(name, x, **kwargs)
        expected = numpy_reference(name, x, **kwargs)
        used = axes or (-2, -1)
        n = math.prod(expected.shape[a] for a in used)
        assert_accurate(out, expected, expected_dtype(name, dtype), n)


# --------------------------------------------------------------------------
# Empty batches
# --------------------------------------------------------------------------

ZERO_BATCH_CASES = (
    [(name, (0, 8), {}) for name in ONE_D]
    + [(name, (0, 8), {"axes": (-1,)}) for name in ("fftn", "ifftn", "rfftn", "irfftn")]
    + [(name, (0, 4, 6), {}) for name in ONE_D]
    + [(name, (0, 4, 6), {"axes": (1, 2)}) for name in ("fftn", "ifftn", "rfftn", "irfftn")]
    + [(name, (0, 4, 6), {}) for name in ("fft2", "ifft2", "rfft2", "irfft2")]
)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,shape,kwargs", ZERO_BATCH_CASES,
                         ids=[f"{n}-{s}-{k}" for n, s, k in ZERO_BATCH_CASES])
def test_zero_size_batch(name, shape, kwargs, dtype, rng):
    """A batch dimension of size 0 gives an empty result of numpy's shape."""
    with precision(dtype):
        x = input_for(name, rng, shape, dtype)
        eager = call(name, x, **kwargs)
        jitted = jax.jit(lambda v: call(name, v, **kwargs))(x)
        expected = numpy_reference(name, x, **kwargs)
        for out in (eager, jitted):
            assert out.shape == expected.shape
            assert out.dtype == expected_dtype(name, dtype)


def test_zero_size_input_padded_by_n():
    """An empty axis with an explicit n is zero-padded, as numpy does."""
    out = af.fft(np.zeros((2, 0), np.float32), n=4)
    expected = np.fft.fft(np.zeros((2, 0)), n=4)
    assert out.shape == expected.shape == (2, 4)
    np.testing.assert_array_equal(np.asarray(out), expected.astype(np.complex64))


# --------------------------------------------------------------------------
# Frequency helpers (re-exported)
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", (1, 4, 7))
def test_frequency_helpers(n):
    np.testing.assert_allclose(af.fftfreq(n, d=0.5), np.fft.fftfreq(n, d=0.5), rtol=1e-6)
    np.testing.assert_allclose(af.rfftfreq(n, d=2.0), np.fft.rfftfreq(n, d=2.0), rtol=1e-6)
    x = np.arange(n * 3).reshape(3, n)
    np.testing.assert_array_equal(af.fftshift(x), np.fft.fftshift(x))
    np.testing.assert_array_equal(af.ifftshift(x, axes=1), np.fft.ifftshift(x, axes=1))
    np.testing.assert_array_equal(af.ifftshift(af.fftshift(x)), x)


def test_numpy_integer_sizes_and_axes(rng):
    """n, s and axes accept numpy integers and sequences, as numpy does."""
    x = make_input(rng, (4, 6), "float32", complex_=True)
    x128 = x.astype(np.complex128)
    out = af.fft(x, n=np.int64(9), axis=np.int32(0))
    assert_accurate(out, np.fft.fft(x128, n=9, axis=0), np.complex64, 9)
    out = af.fftn(x, s=np.array([3, 8]), axes=[1, 0])
    assert_accurate(out, np.fft.fftn(x128, s=[3, 8], axes=[1, 0]), np.complex64, 24)
