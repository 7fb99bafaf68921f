"""Real transforms (R2C and C2R) of the Metal kernels, run in the emulator."""

import numpy as np
import pytest

from metal_inputs import random_complex, random_real
from support.accuracy import assert_accurate

LENGTHS = (list(range(1, 65)) + [100, 127, 128, 1000, 3329, 4095, 4096, 4097, 8192, 10007, 12289,
                                 65536, 65537]
           + [pytest.param(1 << 20, marks=pytest.mark.slow)])


@pytest.mark.parametrize("n", LENGTHS)
def test_rfft_and_irfft(emulator, rng, n):
    x = random_real(rng, (2, n))
    got = emulator.rfft(x)
    assert got.shape == (2, n // 2 + 1)
    assert_accurate(got, np.fft.rfft(x.astype(np.float64)), np.complex64, n)

    spectrum = random_complex(rng, (2, n // 2 + 1))
    got = emulator.irfft(spectrum, n=n)
    assert got.dtype == np.float32 and got.shape == (2, n)
    assert_accurate(got, np.fft.irfft(spectrum.astype(np.complex128), n=n), np.float32, n)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 4096, 4099])
def test_irfft_ignores_imaginary_dc_and_nyquist(emulator, rng, n):
    spectrum = random_complex(rng, (n // 2 + 1,))
    spectrum[0] += 5j
    if n % 2 == 0:
        spectrum[-1] -= 3j
    want = np.fft.irfft(spectrum.astype(np.complex128), n=n)
    assert_accurate(emulator.irfft(spectrum, n=n), want, np.float32, n)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_axes_and_norms(emulator, rng, axis, norm):
    x = random_real(rng, (6, 9, 4))
    n = x.shape[axis]
    got = emulator.rfft(x, axis=axis, norm=norm)
    want = np.fft.rfft(x.astype(np.float64), axis=axis, norm=norm)
    assert_accurate(got, want, np.complex64, n)
    spectrum = np.fft.rfft(x.astype(np.float64), axis=axis).astype(np.complex64)
    got = emulator.irfft(spectrum, n=n, axis=axis, norm=norm)
    want = np.fft.irfft(spectrum.astype(np.complex128), n=n, axis=axis, norm=norm)
    assert_accurate(got, want, np.float32, n)


@pytest.mark.parametrize("shape", [(16384, 4), (4098, 5), (9, 6)])
def test_non_last_axis_whose_passes_interleave_the_columns(emulator, rng, shape):
    """Along axis 0 the later axis' columns stay neighbours in every pass,
    the packing pass's scratch included."""
    n = shape[0]
    x = random_real(rng, shape)
    got = emulator.rfft(x, axis=0)
    assert_accurate(got, np.fft.rfft(x.astype(np.float64), axis=0), np.complex64, n)
    spectrum = random_complex(rng, (n // 2 + 1, shape[1]))
    got = emulator.irfft(spectrum, n=n, axis=0)
    assert_accurate(got, np.fft.irfft(spectrum.astype(np.complex128), n=n, axis=0), np.float32, n)
