"""Complex transforms of the Metal kernels, run in the emulator, against numpy in float64."""

import numpy as np
import pytest

from emulator_runner import Emulator
from jax_apple_fft import _core
from metal_inputs import random_complex
from support.accuracy import assert_accurate

POWERS_OF_TWO = [2**k for k in range(0, 20)] + [pytest.param(1 << 20, marks=pytest.mark.slow)]
SMOOTH = [6, 12, 100, 360, 1000, 2187, 3125, 2401, 1331, 2197, 12288, 15015, 100000, 248832,
          11**5]
BLUESTEIN = [17, 4099, 10007, 65539, 2 * 4099, 3 * 10007]
RADER = [2113, 3329, 8191, 12289, 65537]


def check(emulator, x, axis=-1, norm=None):
    ref = x.astype(np.complex128)
    n = x.shape[axis]
    got = emulator.fft(x, axis=axis, norm=norm)
    assert got.dtype == np.complex64
    assert_accurate(got, np.fft.fft(ref, axis=axis, norm=norm), np.complex64, n)
    got = emulator.ifft(x, axis=axis, norm=norm)
    assert_accurate(got, np.fft.ifft(ref, axis=axis, norm=norm), np.complex64, n)


@pytest.mark.parametrize("n", POWERS_OF_TWO)
def test_powers_of_two(emulator, rng, n):
    check(emulator, random_complex(rng, (2 if n <= 4096 else 1, n)))


@pytest.mark.parametrize("n", SMOOTH)
def test_smooth_lengths(emulator, rng, n):
    check(emulator, random_complex(rng, (2, n)))


@pytest.mark.parametrize("n", BLUESTEIN)
def test_bluestein_lengths(emulator, rng, n):
    check(emulator, random_complex(rng, (2, n)))


@pytest.mark.parametrize("n", RADER)
def test_rader_lengths(emulator, rng, n):
    check(emulator, random_complex(rng, (2, n)))


def test_rader_on_a_large_first_element(emulator, rng):
    """Rader's gather subtracts x[0] from every element: a dominant x[0]
    stays within the bound."""
    x = random_complex(rng, (12289,))
    x[0] = 1e4
    check(emulator, x)


@pytest.mark.slow
def test_largest_length(emulator, rng):
    x = random_complex(rng, (1 << 24,))
    got = emulator.fft(x)
    assert_accurate(got, np.fft.fft(x.astype(np.complex128)), np.complex64, 1 << 24)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_axes_and_norms(emulator, rng, axis, norm):
    check(emulator, random_complex(rng, (5, 12, 7)), axis=axis, norm=norm)


@pytest.mark.parametrize("shape,axis", [((3, 4099, 2), 1), ((8192, 3), 0), ((2, 5, 17), 0),
                                        ((2, 11**5, 3), 1), ((4096, 6), 0), ((2, 2048, 5), 1),
                                        ((3000, 4), 0), ((4099, 5), 0), ((2, 65536, 4), 1),
                                        ((12289, 5), 0)])
def test_non_last_axis_of_large_and_bluestein_lengths(emulator, rng, shape, axis):
    check(emulator, random_complex(rng, shape), axis=axis)


def test_large_batch_packs_several_transforms_per_group(emulator, rng):
    check(emulator, random_complex(rng, (1000, 8)))
    check(emulator, random_complex(rng, (300, 60)))


def test_length_argument_pads_and_crops(emulator, rng):
    x = random_complex(rng, (3, 10))
    for n in (7, 16):
        want = np.fft.fft(x.astype(np.complex128), n=n)
        assert_accurate(emulator.fft(x, n=n), want, np.complex64, n)


def test_zero_batch(emulator):
    assert emulator.fft(np.zeros((0, 8), np.complex64)).shape == (0, 8)


def test_nan_and_inf_propagate(emulator):
    x = np.zeros(16, np.complex64)
    x[3] = np.nan
    assert np.isnan(emulator.fft(x)).all()


class NvidiaPlans(Emulator):
    """The plans the CUDA verifier runs (32-byte pieces), in the emulator."""

    coalesced_bytes = _core.NVIDIA_COALESCED_BYTES


@pytest.fixture(scope="module")
def nvidia_emulator():
    return NvidiaPlans()


@pytest.mark.parametrize("shape,axis", [((1, 1 << 19), 1), ((1, 3**10 * 5), 1),
                                        ((4096, 4), 0), ((2048, 5), 0), ((1, 10**6), 1)])
def test_plans_for_nvidia_pieces(nvidia_emulator, rng, shape, axis):
    """Lengths whose route differs with 32-byte pieces: two passes up to
    1024 points each (2^19 = 512 * 1024; 10^6 = 1000 * 1000 with 20 values
    a thread), strided axes split from 4 columns."""
    check(nvidia_emulator, random_complex(rng, shape), axis=axis)
