"""Properties that hold for any input (hypothesis): linearity, Parseval,
round trips, Hermitian symmetry and the shift theorem."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jax_apple_fft as af
from fft_testing import NORMS, REAL_INPUT, make_input
from support.accuracy import assert_accurate, error_bound

# Every new shape compiles a new executable: keep the example counts modest.
SETTINGS = settings(max_examples=40, deadline=None)

lengths = st.integers(min_value=1, max_value=40)
batches = st.integers(min_value=0, max_value=3)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
norms = st.sampled_from(NORMS)
dtypes = st.sampled_from(("float32", "float64"))


def _context(dtype):
    return jax.enable_x64(dtype == "float64")


# Each property compares results of our own transforms with each other, so
# the contract's bound is allowed once for every transform involved: twice
# for a round trip or a symmetry, four times where three transforms and the
# float32 rounding of a combined input meet (linearity, the shift theorem).
# The energy of values within relative error e is within 2e + e^2, so
# Parseval's identity holds within twice the bound.
TWO_TRANSFORMS = 2.0
THREE_TRANSFORMS_AND_A_ROUNDING = 4.0


def _close(actual, expected, dtype, n, factor=TWO_TRANSFORMS):
    assert_accurate(actual, expected, dtype, n, factor=factor, exact_dtype=False)


# --------------------------------------------------------------------------
# Linearity
# --------------------------------------------------------------------------

@SETTINGS
@given(name=st.sampled_from(["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]),
       n=lengths.filter(lambda n: n >= 2), batch=batches, seed=seeds, norm=norms)
def test_linearity(name, n, batch, seed, norm):
    rng = np.random.default_rng(seed)
    complex_in = name not in REAL_INPUT
    m = n // 2 + 1 if name in ("irfft", "hfft") else n
    shape = (batch, m) if batch else (m,)
    x = make_input(rng, shape, "float32", complex_=complex_in)
    y = make_input(rng, shape, "float32", complex_=complex_in)
    if name in ("fft", "ifft"):
        a, b = np.complex64(rng.standard_normal() + 1j), np.complex64(-0.5 + 2j)
    else:  # R-linear only: real coefficients
        a, b = np.float32(rng.standard_normal()), np.float32(-1.5)
    f = getattr(af, name)
    lhs = f(a * x + b * y, n=n, norm=norm)
    rhs = a * np.asarray(f(x, n=n, norm=norm)) + b * np.asarray(f(y, n=n, norm=norm))
    _close(lhs, rhs, np.float32, n, factor=THREE_TRANSFORMS_AND_A_ROUNDING)


@SETTINGS
@given(shape=st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(2, 9)), seed=seeds)
def test_linearity_nd(shape, seed):
    rng = np.random.default_rng(seed)
    x = make_input(rng, shape, "float32", complex_=False)
    y = make_input(rng, shape, "float32", complex_=False)
    lhs = af.rfftn(3 * x - 2 * y)
    rhs = 3 * np.asarray(af.rfftn(x)) - 2 * np.asarray(af.rfftn(y))
    _close(lhs, rhs, np.float32, math.prod(shape), factor=THREE_TRANSFORMS_AND_A_ROUNDING)


# --------------------------------------------------------------------------
# Parseval (unitary under norm="ortho")
# --------------------------------------------------------------------------

@SETTINGS
@given(n=lengths, batch=batches, seed=seeds, dtype=dtypes)
def test_parseval_fft(n, batch, seed, dtype):
    rng = np.random.default_rng(seed)
    with _context(dtype):
        x = make_input(rng, (batch, n), dtype, complex_=True)
        out = np.asarray(af.fft(x, norm="ortho")).astype(np.complex128)
        energy_in = np.sum(np.abs(x.astype(np.complex128)) ** 2, axis=-1)
        energy_out = np.sum(np.abs(out) ** 2, axis=-1)
        np.testing.assert_allclose(energy_out, energy_in, rtol=2 * error_bound(dtype, n))


@SETTINGS
@given(n=lengths, seed=seeds, dtype=dtypes)
def test_parseval_rfft(n, seed, dtype):
    """The half spectrum counts each inner bin twice."""
    rng = np.random.default_rng(seed)
    with _context(dtype):
        x = make_input(rng, (2, n), dtype, complex_=False)
        out = np.asarray(af.rfft(x, norm="ortho")).astype(np.complex128)
        weights = np.full(out.shape[-1], 2.0)
        weights[0] = 1.0
        if n % 2 == 0:
            weights[-1] = 1.0
        energy_out = np.sum(weights * np.abs(out) ** 2, axis=-1)
        energy_in = np.sum(x.astype(np.float64) ** 2, axis=-1)
        np.testing.assert_allclose(energy_out, energy_in, rtol=2 * error_bound(dtype, n))


@SETTINGS
@given(shape=st.tuples(st.integers(1, 7), st.integers(1, 7), st.integers(1, 7)), seed=seeds)
def test_parseval_fftn(shape, seed):
    rng = np.random.default_rng(seed)
    x = make_input(rng, shape, "float32", complex_=True)
    out = np.asarray(af.fftn(x, norm="ortho")).astype(np.complex128)
    np.testing.assert_allclose(np.sum(np.abs(out) ** 2),
                               np.sum(np.abs(x.astype(np.complex128)) ** 2),
                               rtol=2 * error_bound(np.float32, math.prod(shape)))


# --------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------

@SETTINGS
@given(n=lengths, batch=batches, seed=seeds, norm=norms, dtype=dtypes)
def test_ifft_of_fft(n, batch, seed, norm, dtype):
    rng = np.random.default_rng(seed)
    with _context(dtype):
        x = make_input(rng, (batch, n), dtype, complex_=True)
        back = af.ifft(af.fft(x, norm=norm), norm=norm)
        assert back.dtype == x.dtype
        _close(back, x, dtype, n)


@SETTINGS
@given(n=lengths, batch=batches, seed=seeds, norm=norms, dtype=dtypes)
def test_irfft_of_rfft(n, batch, seed, norm, dtype):
    """With n given, odd lengths come back too."""
    rng = np.random.default_rng(seed)
    with _context(dtype):
        x = make_input(rng, (batch, n), dtype, complex_=False)
        back = af.irfft(af.rfft(x, norm=norm), n, norm=norm)
        assert back.dtype == x.dtype
        _close(back, x, dtype, n)


@SETTINGS
@given(n=lengths, seed=seeds, norm=norms)
def test_hfft_of_ihfft(n, seed, norm):
    rng = np.random.default_rng(seed)
    x = make_input(rng, (3, n), "float32", complex_=False)
    back = af.hfft(af.ihfft(x, norm=norm), n, norm=norm)
    _close(back, x, np.float32, n)


@SETTINGS
@given(shape=st.lists(st.integers(1, 8), min_size=1, max_size=3), seed=seeds, norm=norms,
       data=st.data())
def test_irfftn_of_rfftn(shape, seed, norm, data):
    """Round trip over a random, ordered subset of the axes with s given."""
    ndim = len(shape)
    axes = data.draw(st.permutations(range(ndim)).flatmap(
        lambda p: st.integers(1, ndim).map(lambda k: tuple(p[:k]))))
    rng = np.random.default_rng(seed)
    x = make_input(rng, tuple(shape), "float32", complex_=False)
    s = tuple(shape[a] for a in axes)
    back = af.irfftn(af.rfftn(x, axes=axes, norm=norm), s, axes=axes, norm=norm)
    _close(back, x, np.float32, math.prod(s))


# Values at the bottom of float32's normal range give spectra below it, which
# the CPU transform flushes to zero, as jnp.fft does (docs/accuracy.md); the
# bound holds above.
NORMAL_FLOAT32 = st.floats(-1e3, 1e3, width=32).filter(lambda v: v == 0 or abs(v) >= 1e-30)


@SETTINGS
@given(x=hnp.arrays(np.float32, st.tuples(st.integers(1, 4), st.integers(1, 24)),
                    elements=NORMAL_FLOAT32))
def test_round_trip_on_structured_data(x):
    """Hypothesis' own arrays: zeros, repeats and extreme but finite values."""
    n = x.shape[-1]
    back = af.irfft(af.rfft(x), n)
    _close(back, x, np.float32, n)


# --------------------------------------------------------------------------
# Structure of the spectrum
# --------------------------------------------------------------------------

@SETTINGS
@given(n=lengths, seed=seeds)
def test_rfft_is_half_of_fft_and_hermitian(n, seed):
    rng = np.random.default_rng(seed)
    x = make_input(rng, (2, n), "float32", complex_=False)
    full = np.asarray(af.fft(x)).astype(np.complex128)
    half = np.asarray(af.rfft(x))
    _close(half, full[:, : n // 2 + 1], np.float32, n)
    mirrored = np.conj(full[:, (-np.arange(n)) % n])
    _close(full, mirrored, np.float32, n)


@SETTINGS
@given(n=lengths.filter(lambda n: n >= 2), shift=st.integers(-50, 50), seed=seeds)
def test_shift_theorem(n, shift, seed):
    rng = np.random.default_rng(seed)
    x = make_input(rng, (n,), "float32", complex_=True)
    rolled = af.fft(np.roll(x, shift))
    k = np.arange(n)
    expected = np.asarray(af.fft(x)).astype(np.complex128) * np.exp(-2j * np.pi * k * shift / n)
    _close(rolled, expected, np.float32, n, factor=THREE_TRANSFORMS_AND_A_ROUNDING)


@pytest.mark.parametrize("n", (7, 16))
def test_convolution_theorem(n, rng):
    a = rng.standard_normal(n)
    b = rng.standard_normal(n)
    with jax.enable_x64(True):
        conv = af.irfft(af.rfft(a) * af.rfft(b), n)
    direct = np.array([sum(a[j] * b[(i - j) % n] for j in range(n)) for i in range(n)])
    _close(conv, direct, np.float64, n)
