"""Long prime lines, which the CPU backend runs as Bluestein's convolution in
passes of its own (chirp in, two four-step transforms around the kernel,
chirp out): complex and real, every sign, norm and layout against numpy's
float64 result, and the plans that take that path."""

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("x64")

import jax_apple_fft as af
from jax_apple_fft._core import testing
from jax_apple_fft.primitive.transform_kind import Precision, TransformKind
from support.accuracy import error_bound, relative_l2_error

P = 32771  # a prime whose p - 1 = 2 * 5 * 29 * 113: not Rader's
CACHE = af.PlanCache(threads=4)


def complex_input(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def test_the_plan_takes_chirp_passes():
    plan = testing.describe_cpu(CACHE.handle, TransformKind.C2C, True, Precision.DOUBLE, [2, P],
                                [1], [P]).splitlines()
    assert plan[0].startswith("chirp-in axis 1 n 32771 lines 2 input->work"), plan
    assert plan[3].startswith("chirp-kernel") and plan[6].startswith("chirp-out"), plan
    assert plan[6].endswith("last") and "m 65610" in plan[6], plan
    assert "work 131220" in plan, plan
    # A full SIMD group of lines per thread: pocketfft's line plans.
    one_thread = af.PlanCache(threads=1)
    plan = testing.describe_cpu(one_thread.handle, TransformKind.C2C, True, Precision.DOUBLE,
                                [64, P], [1], [P])
    assert plan.startswith("c2c axis 1 n 32771 lines 64") and "chirp" not in plan, plan
    plan = testing.describe_cpu(CACHE.handle, TransformKind.R2C, True, Precision.SINGLE, [P],
                                [0], [P]).splitlines()
    assert plan[0].startswith("chirp-in axis 0 n 32771 lines 1 input->work"), plan
    assert plan[6].startswith("chirp-out") and "of r2c" in plan[6], plan
    plan = testing.describe_cpu(CACHE.handle, TransformKind.C2R, False, Precision.SINGLE,
                                [P // 2 + 1], [0], [P])
    assert plan.startswith("chirp-in") and "of c2r" in plan, plan


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128))
@pytest.mark.parametrize("norm", (None, "ortho", "forward"))
def test_fft_and_ifft(dtype, norm):
    x = complex_input((3, P), dtype, 1)
    want = np.fft.fft(x.astype(np.complex128), norm=norm)
    got = af.fft(x, norm=norm, cache=CACHE, backend="cpu")
    assert relative_l2_error(got, want) <= error_bound(dtype, P)
    want = np.fft.ifft(x.astype(np.complex128), norm=norm)
    got = af.ifft(x, norm=norm, cache=CACHE, backend="cpu")
    assert relative_l2_error(got, want) <= error_bound(dtype, P)


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128))
def test_strided_axis_and_more_axes(dtype):
    x = complex_input((P, 5), dtype, 2)
    got = af.fft(x, axis=0, cache=CACHE, backend="cpu")
    assert relative_l2_error(got, np.fft.fft(x.astype(np.complex128), axis=0)) <= \
        error_bound(dtype, P)
    got = af.fftn(x, cache=CACHE, backend="cpu")
    assert relative_l2_error(got, np.fft.fftn(x.astype(np.complex128))) <= \
        error_bound(dtype, 5 * P)


@pytest.mark.parametrize("threads", (1, 16))
def test_one_thread_and_many(threads):
    cache = af.PlanCache(threads=threads)
    x = complex_input((3, P), np.complex128, 3)
    assert relative_l2_error(af.fft(x, cache=cache, backend="cpu"), np.fft.fft(x)) <= \
        error_bound(np.complex128, P)


def test_the_complex_axis_of_rfftn():
    # rfftn's complex axis (after the real one) takes the chirp passes too.
    r = np.random.default_rng(4).standard_normal((P, 6))
    assert relative_l2_error(af.rfftn(r, cache=CACHE, backend="cpu"), np.fft.rfftn(r)) <= \
        error_bound(np.float64, 6 * P)


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("norm", (None, "ortho", "forward"))
def test_real_lines(dtype, norm):
    x = np.random.default_rng(5).standard_normal((2, P)).astype(dtype)
    bound = error_bound(dtype, P)
    spectrum = af.rfft(x, norm=norm, cache=CACHE, backend="cpu")
    assert relative_l2_error(spectrum, np.fft.rfft(x.astype(np.float64), norm=norm)) <= bound
    # The zero bin's imaginary part is ignored, as numpy does.
    bins = np.asarray(spectrum).copy()
    bins[:, 0] += 1j
    want = np.fft.irfft(np.asarray(spectrum).astype(np.complex128), n=P, norm=norm)
    assert relative_l2_error(af.irfft(bins, n=P, norm=norm, cache=CACHE, backend="cpu"),
                             want) <= bound
    assert relative_l2_error(af.ihfft(x, norm=norm, cache=CACHE, backend="cpu"),
                             np.fft.ihfft(x.astype(np.float64), norm=norm)) <= bound
    assert relative_l2_error(af.hfft(bins, n=P, norm=norm, cache=CACHE, backend="cpu"),
                             np.fft.hfft(bins.astype(np.complex128), n=P, norm=norm)) <= bound


def test_real_lines_along_a_strided_axis():
    x = np.random.default_rng(6).standard_normal((P, 3))
    got = af.rfft(x, axis=0, cache=CACHE, backend="cpu")
    assert relative_l2_error(got, np.fft.rfft(x, axis=0)) <= error_bound(np.float64, P)
    back = af.irfft(np.asarray(got), n=P, axis=0, cache=CACHE, backend="cpu")
    assert relative_l2_error(back, x) <= error_bound(np.float64, P)
