"""Lines whose length has a large prime factor p, which the CPU backend runs
as a four-step split of n / p lines of p points and p lines of n / p where
SIMD groups would not hold the whole lines (cpu_planner.h,
large_factor_split): complex and real, every sign, norm and layout against
numpy's float64 result, and the plans that take that path. Three float32
lines never fill a machine's widest SIMD group, so the plans asked for here
split on any machine."""

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("x64")

import jax_apple_fft as af
from jax_apple_fft._core import testing
from jax_apple_fft.primitive.transform_kind import Precision, TransformKind
from support.accuracy import assert_accurate

CACHE = af.PlanCache(threads=4)
# 3 * 5 * 823; 127 * 128 (Rader's algorithm for 127); 2 * 1009 (a factor
# below 16); 4099 * 12 (Bluestein's for 4099 inside pocketfft); 127 * 8.
LENGTHS = (12345, 16256, 2018, 49188, 1016)


def complex_input(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def plan_of(kind, forward, shape, n, cache=CACHE):
    return testing.describe_cpu(cache.handle, kind, forward, Precision.SINGLE, shape,
                                [len(shape) - 1], [n]).splitlines()


def test_the_plan_splits_at_the_largest_prime_factor():
    plan = plan_of(TransformKind.C2C, True, [3, 12345], 12345)
    assert plan[0].startswith("c2c axis 1 n 15 lines 2469 input->temp"), plan
    assert "twiddled 15x823" in plan[0], plan
    assert plan[1].startswith("c2c axis 2 n 823 lines 45 temp->output"), plan
    assert plan[2] == "temp 37035", plan
    # The shorter factor is the rows', whichever is prime.
    assert "twiddled 127x128" in plan_of(TransformKind.C2C, True, [3, 16256], 16256)[0]
    for n in LENGTHS:
        assert "twiddled" in plan_of(TransformKind.C2C, False, [3, n], n)[0], n


@pytest.mark.parametrize("n", (97 * 64, 137 * 96, 8192, 823, 3 * 5 * 7 * 11 * 13))
def test_lengths_without_a_large_factor_stay_whole(n):
    plan = plan_of(TransformKind.C2C, True, [3, n], n)
    assert len(plan) == 2 and "twiddled" not in plan[0], plan


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128))
@pytest.mark.parametrize("norm", (None, "ortho", "forward"))
@pytest.mark.parametrize("n", LENGTHS)
def test_fft_and_ifft(n, dtype, norm):
    x = complex_input((3, n), dtype, n)
    wide = x.astype(np.complex128)
    assert_accurate(af.fft(x, norm=norm, cache=CACHE, backend="cpu"),
                    np.fft.fft(wide, norm=norm), dtype, n)
    assert_accurate(af.ifft(x, norm=norm, cache=CACHE, backend="cpu"),
                    np.fft.ifft(wide, norm=norm), dtype, n)


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("n", (2 * 12345, 12345, 2 * 16256))
def test_rfft_and_irfft(n, dtype):
    r = np.random.default_rng(n).standard_normal((5, n)).astype(dtype)
    complex_dtype = np.result_type(dtype, np.complex64)
    spectrum = np.fft.rfft(r.astype(np.float64))
    assert_accurate(af.rfft(r, cache=CACHE, backend="cpu"), spectrum, complex_dtype, n)
    assert_accurate(af.irfft(spectrum.astype(complex_dtype), n=n, cache=CACHE, backend="cpu"),
                    np.fft.irfft(spectrum, n=n), dtype, n)


@pytest.mark.parametrize("threads", (1, 16))
@pytest.mark.parametrize("lines", (1, 7, 40))
def test_threads_and_batches(threads, lines):
    cache = af.PlanCache(threads=threads)
    x = complex_input((lines, 12345), np.complex64, lines)
    assert_accurate(af.fft(x, cache=cache, backend="cpu"), np.fft.fft(x.astype(np.complex128)),
                    np.complex64, 12345)


def test_strided_axis_and_more_axes():
    # A strided axis is not split (no free temporary); fftn's last axis is.
    x = complex_input((2018, 6), np.complex128, 5)
    assert_accurate(af.fft(x, axis=0, cache=CACHE, backend="cpu"), np.fft.fft(x, axis=0),
                    np.complex128, 2018)
    y = complex_input((6, 2018), np.complex64, 6)
    assert_accurate(af.fftn(y, cache=CACHE, backend="cpu"), np.fft.fftn(y.astype(np.complex128)),
                    np.complex64, 6 * 2018)
