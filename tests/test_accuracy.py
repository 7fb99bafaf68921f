"""The accuracy contract (docs/accuracy.md): relative L2 error within
5 * eps * log2(n) of numpy's float64 FFT, at every kind of length."""

import jax
import numpy as np
import pytest

import jax_apple_fft as af
from support.accuracy import error_bound, relative_l2_error

LENGTHS = [1, 2, 3, 7, 16, 97, 1000, 1536, 4095, 4096, 4099, 10007, 65536, 65537, 1 << 20]


@pytest.mark.parametrize("n", LENGTHS)
def test_single_precision_c2c_and_real_transforms_meet_the_bound(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    r = rng.standard_normal(n)
    limit = error_bound(np.float32, n)
    assert relative_l2_error(af.fft(x.astype(np.complex64)), np.fft.fft(x)) <= limit
    assert relative_l2_error(af.ifft(x.astype(np.complex64)), np.fft.ifft(x)) <= limit
    assert relative_l2_error(af.rfft(r.astype(np.float32)), np.fft.rfft(r)) <= limit
    half = np.fft.rfft(r)
    back = af.irfft(half.astype(np.complex64), n=n)
    assert relative_l2_error(back, np.fft.irfft(half, n=n)) <= limit


@pytest.mark.parametrize("n", [5, 4096, 10007, 65537])
def test_double_precision_meets_the_bound(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    r = rng.standard_normal(n)
    limit = error_bound(np.float64, n)
    with jax.enable_x64(True):
        got = af.fft(x)
        assert got.dtype == np.complex128
        assert relative_l2_error(got, np.fft.fft(x)) <= limit
        assert relative_l2_error(af.ifft(x), np.fft.ifft(x)) <= limit
        half = np.fft.rfft(r)
        assert relative_l2_error(af.rfft(r), half) <= limit
        assert relative_l2_error(af.irfft(half, n=n), np.fft.irfft(half, n=n)) <= limit


# Complex lines of 2^16 points and more are transformed in two passes of
# short lines (four-step, csrc/cpu/four_step.h): square and lopsided
# splits, a prime factor (Bluestein rows), batches, both directions, a long
# last axis of a 2-D transform, and a long axis that is not the last (no
# split).
@pytest.mark.parametrize("dtype,shape,axes", [
    (np.complex128, (2, 1 << 16), (1,)),
    (np.complex128, (1, 3 << 16), (1,)),
    (np.complex128, (2, 17 * 4099), (1,)),
    (np.complex128, (3, 1 << 17), (0, 1)),
    (np.complex128, (1 << 16, 3), (0,)),
    (np.complex64, (4, 1 << 17), (1,)),
    (np.complex64, (3, 1 << 16), (1,)),
    (np.complex64, (1, 3 * 5 * 7 * 11 * 13 * 17), (1,)),
])
def test_long_lines_meet_the_bound(dtype, shape, axes):
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    n = int(np.prod([shape[a] for a in axes]))
    limit = error_bound(dtype, n)
    with jax.enable_x64(True):
        for norm in (None, "ortho"):
            got = af.fftn(x.astype(dtype), axes=axes, norm=norm)
            assert got.dtype == dtype
            assert relative_l2_error(got, np.fft.fftn(x, axes=axes, norm=norm)) <= limit
            back = af.ifftn(x.astype(dtype), axes=axes, norm=norm)
            assert relative_l2_error(back, np.fft.ifftn(x, axes=axes, norm=norm)) <= limit


# Batches of real float64 lines too long for a SIMD group of them to fit in
# half of L2 are transformed one line at a time (csrc/cpu/cpu_planner.cc);
# float32 lines and shorter ones stay in groups.
@pytest.mark.parametrize("dtype,shape", [
    (np.float64, (8, 1 << 15)),
    (np.float64, (5, 1 << 16)),
    (np.float64, (9, 1 << 14)),
    (np.float32, (9, 1 << 15)),
])
def test_batches_of_long_real_lines_meet_the_bound(dtype, shape):
    rng = np.random.default_rng(shape[1])
    r = rng.standard_normal(shape)
    n = shape[1]
    limit = error_bound(dtype, n)
    with jax.enable_x64(True):
        for norm in (None, "ortho"):
            got = af.rfft(r.astype(dtype), norm=norm)
            assert relative_l2_error(got, np.fft.rfft(r, norm=norm)) <= limit
            half = np.fft.rfft(r)
            back = af.irfft(half.astype(np.result_type(dtype, np.complex64)), n=n, norm=norm)
            assert back.dtype == dtype
            assert relative_l2_error(back, np.fft.irfft(half, n=n, norm=norm)) <= limit


# Real lines along a non-last axis: gathered several SIMD groups at a time
# where the lines lie side by side (the planner's bunch rule), one group
# at a time where a group spans rows of a narrow last axis.
@pytest.mark.parametrize("dtype,shape,axis", [
    (np.float64, (4096, 256), 0),
    (np.float32, (1000, 96, 2), 0),
    (np.float32, (2, 4095, 40), 1),
    (np.float64, (64, 1024, 3), 1),
])
def test_real_lines_along_a_non_last_axis_meet_the_bound(dtype, shape, axis):
    rng = np.random.default_rng(shape[axis])
    r = rng.standard_normal(shape)
    n = shape[axis]
    limit = error_bound(dtype, n)
    with jax.enable_x64(True):
        for norm in (None, "ortho"):
            got = af.rfft(r.astype(dtype), axis=axis, norm=norm)
            assert relative_l2_error(got, np.fft.rfft(r, axis=axis, norm=norm)) <= limit
            half = np.fft.rfft(r, axis=axis)
            back = af.irfft(half.astype(np.result_type(dtype, np.complex64)), n=n, axis=axis,
                            norm=norm)
            assert back.dtype == dtype
            assert relative_l2_error(back, np.fft.irfft(half, n=n, axis=axis, norm=norm)) <= limit
