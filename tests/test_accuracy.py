"""The accuracy contract (docs/accuracy.md): relative L2 error within
5 * eps * log2(n) of numpy's float64 FFT, at every kind of length."""

import jax
import numpy as np
import pytest

import jax_apple_fft as af

LENGTHS = [1, 2, 3, 7, 16, 97, 1000, 1536, 4095, 4096, 4099, 10007, 65536, 65537, 1 << 20]


def relative_l2(got, want):
    got, want = np.asarray(got, np.complex128), np.asarray(want, np.complex128)
    return np.linalg.norm(got - want) / max(np.linalg.norm(want), np.finfo(np.float64).tiny)


def bound(n, dtype):
    return 5 * np.finfo(dtype).eps * max(np.log2(n), 1.0)


@pytest.mark.parametrize("n", LENGTHS)
def test_single_precision_c2c_and_real_transforms_meet_the_bound(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    r = rng.standard_normal(n)
    limit = bound(n, np.float32)
    assert relative_l2(af.fft(x.astype(np.complex64)), np.fft.fft(x)) <= limit
    assert relative_l2(af.ifft(x.astype(np.complex64)), np.fft.ifft(x)) <= limit
    assert relative_l2(af.rfft(r.astype(np.float32)), np.fft.rfft(r)) <= limit
    half = np.fft.rfft(r)
    assert relative_l2(af.irfft(half.astype(np.complex64), n=n), np.fft.irfft(half, n=n)) <= limit


@pytest.mark.parametrize("n", [5, 4096, 10007, 65537])
def test_double_precision_meets_the_bound(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    with jax.enable_x64(True):
        got = af.fft(x)
        assert got.dtype == np.complex128
        assert relative_l2(got, np.fft.fft(x)) <= bound(n, np.float64)
