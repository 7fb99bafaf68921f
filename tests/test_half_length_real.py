"""Long real lines, which the CPU backend runs as complex lines of half the
length (a four-step split over every thread) between a pack or unpack of the
bins: every kind, sign and norm against numpy's float64 result, fewer lines
than threads and more, and the plan that takes that path."""

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("x64")

import jax_apple_fft as af
from jax_apple_fft._core import testing
from jax_apple_fft.primitive.transform_kind import Precision, TransformKind
from support.accuracy import assert_accurate, error_bound, relative_l2_error

R2C, C2R = TransformKind.R2C, TransformKind.C2R
N = 1 << 17  # half of it, 2^16, is the shortest four-step length
CACHE = af.PlanCache(threads=4)


def test_the_plan_takes_half_length():
    plan = testing.describe_cpu(CACHE.handle, R2C, True, Precision.SINGLE, [1, N], [1], [N])
    assert "c2c axis 1 n 256" in plan and "unpack axis 1 n 131072 lines 1" in plan, plan
    plan = testing.describe_cpu(CACHE.handle, C2R, False, Precision.SINGLE, [1, N // 2 + 1], [1],
                                [N])
    assert plan.startswith("pack axis 1 n 131072 lines 1"), plan
    # As many lines as there are threads and more, and on one thread.
    for lines, cache in ((4, CACHE), (9, CACHE), (9, af.PlanCache(threads=1))):
        plan = testing.describe_cpu(cache.handle, R2C, True, Precision.DOUBLE, [lines, N], [1], [N])
        assert f"unpack axis 1 n 131072 lines {lines}" in plan, plan


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("norm", (None, "ortho", "forward"))
@pytest.mark.parametrize("lines", (1, 3, 9))
def test_rfft_and_irfft(dtype, norm, lines):
    rng = np.random.default_rng(lines)
    x = rng.standard_normal((lines, N)).astype(dtype)
    spectrum = af.rfft(x, norm=norm, cache=CACHE, backend="cpu")
    want = np.fft.rfft(x.astype(np.float64), norm=norm)
    assert relative_l2_error(spectrum, want) <= error_bound(dtype, N)
    back = af.irfft(np.asarray(spectrum), n=N, norm=norm, cache=CACHE, backend="cpu")
    want = np.fft.irfft(np.asarray(spectrum).astype(np.complex128), n=N, norm=norm)
    assert relative_l2_error(back, want) <= error_bound(dtype, N)


def assert_fused_where_one_at_a_time(plan, op):
    """Unsplit complex lines of half the length, transformed one at a time,
    pack (C2R, op "pack") or unpack (R2C, "unpack") each line in the line
    kernel, on its way in or out; in SIMD groups (where their widest group
    fits half of L2, as the SIMD level decides) that is a pass of its own."""
    passes = plan.splitlines()
    complex_pass = next(line for line in passes if line.startswith("c2c"))
    separate = any(line.startswith(f"{op} axis") for line in passes)
    if " lanes 1 " in complex_pass:
        assert f" {op}s" in complex_pass and not separate, plan
    else:
        assert f" {op}s" not in complex_pass and separate, plan


@pytest.mark.parametrize("norm", (None, "ortho", "forward"))
@pytest.mark.parametrize("threads,lines", ((4, 1), (4, 3), (4, 64), (1, 1), (1, 64)))
def test_lines_packed_or_unpacked_in_the_line_kernel(threads, lines, norm):
    # float64 lines of 2^15 run as complex lines of 2^14, unsplit: every kind,
    # both signs, every norm, one line at a time (with AVX2: a group of lines
    # overflows half of L2) or in groups.
    n = 1 << 15
    cache = CACHE if threads == 4 else af.PlanCache(threads=1)
    for kind, op, shape in ((R2C, "unpack", [lines, n]), (C2R, "pack", [lines, n // 2 + 1])):
        plan = testing.describe_cpu(cache.handle, kind, True, Precision.DOUBLE, shape, [1], [n])
        assert_fused_where_one_at_a_time(plan, op)
        assert lines > 1 or f" {op}s" in plan, plan  # a lone line is always alone
    x = np.random.default_rng(lines).standard_normal((lines, n))
    for ours, numpy_fn in ((af.rfft, np.fft.rfft), (af.ihfft, np.fft.ihfft)):
        got = ours(x, norm=norm, cache=cache, backend="cpu")
        assert relative_l2_error(got, numpy_fn(x, norm=norm)) <= error_bound(np.float64, n)
    bins = np.fft.rfft(x)
    bins[:, [0, -1]] += 1j  # dropped, as numpy drops them
    for ours, numpy_fn in ((af.irfft, np.fft.irfft), (af.hfft, np.fft.hfft)):
        got = ours(bins, n=n, norm=norm, cache=cache, backend="cpu")
        assert relative_l2_error(got, numpy_fn(bins, n=n, norm=norm)) <= error_bound(np.float64, n)


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_the_other_signs(dtype):
    # ihfft is the inverse-sign R2C, hfft the forward-sign C2R.
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, N)).astype(dtype)
    assert relative_l2_error(af.ihfft(x, cache=CACHE, backend="cpu"),
                             np.fft.ihfft(x.astype(np.float64))) <= error_bound(dtype, N)
    half = np.fft.ihfft(x.astype(np.float64)).astype(np.complex64 if dtype == np.float32
                                                     else np.complex128)
    assert relative_l2_error(af.hfft(half, n=N, cache=CACHE, backend="cpu"),
                             np.fft.hfft(half.astype(np.complex128), n=N)) <= error_bound(dtype, N)


def test_dc_and_nyquist_imaginary_parts_are_ignored():
    rng = np.random.default_rng(3)
    bins = (rng.standard_normal(N // 2 + 1) + 1j * rng.standard_normal(N // 2 + 1))
    got = af.irfft(bins.astype(np.complex128)[None], n=N, cache=CACHE, backend="cpu")
    assert relative_l2_error(got[0], np.fft.irfft(bins, n=N)) <= error_bound(np.float64, N)


def test_rfftn_and_irfftn_with_a_long_last_axis():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, N)).astype(np.float64)
    spectrum = af.rfftn(x, cache=CACHE, backend="cpu")
    assert relative_l2_error(spectrum, np.fft.rfftn(x)) <= error_bound(np.float64, x.size)
    back = af.irfftn(np.asarray(spectrum), s=x.shape, cache=CACHE, backend="cpu")
    assert relative_l2_error(back, x) <= error_bound(np.float64, x.size)


# On 4 threads a full SIMD group each takes 32 lines of float32, 16 of float64;
# with fewer, complex lines from 2^14 points (float32) or 2^15 (float64) split
# four-step, and real lines of twice that run at half the length.
SHORT = {np.float32: 1 << 15, np.float64: 1 << 16}


def test_too_few_lines_for_full_groups_split_shorter_lines():
    def plan(precision, lines, n):
        return testing.describe_cpu(CACHE.handle, R2C, True, precision, [lines, n], [1], [n])

    assert "twiddled 128x128" in plan(Precision.SINGLE, 3, 1 << 15)
    assert "unpack axis 1 n 32768 lines 3" in plan(Precision.SINGLE, 3, 1 << 15)
    assert plan(Precision.SINGLE, 32, 1 << 15).startswith("r2c axis 1 n 32768 lines 32")
    assert plan(Precision.DOUBLE, 3, 1 << 14).startswith("r2c axis 1 n 16384 lines 3")
    # float64 lines from 2^15 run at half the length, split or not.
    for lines in (3, 64):
        unsplit = plan(Precision.DOUBLE, lines, 1 << 15)
        assert unsplit.startswith(f"c2c axis 1 n 16384 lines {lines}"), unsplit
        assert_fused_where_one_at_a_time(unsplit, "unpack")
    assert "twiddled 128x256" in plan(Precision.DOUBLE, 3, 1 << 16)


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("lines", (1, 5))
def test_too_few_lines_for_full_groups_every_kind(dtype, lines):
    n = SHORT[dtype]
    rng = np.random.default_rng(lines)
    x = rng.standard_normal((lines, n)).astype(dtype)
    spectrum = af.rfft(x, cache=CACHE, backend="cpu")
    assert relative_l2_error(spectrum, np.fft.rfft(x.astype(np.float64))) <= error_bound(dtype, n)
    back = af.irfft(np.asarray(spectrum), n=n, norm="ortho", cache=CACHE, backend="cpu")
    want = np.fft.irfft(np.asarray(spectrum).astype(np.complex128), n=n, norm="ortho")
    assert relative_l2_error(back, want) <= error_bound(dtype, n)
    z = (x[:, : n // 2] + 1j * x[:, n // 2:]).astype(np.complex64 if dtype == np.float32
                                                      else np.complex128)
    assert relative_l2_error(af.ifft(z, cache=CACHE, backend="cpu"),
                             np.fft.ifft(z.astype(np.complex128))) <= error_bound(dtype, n // 2)


@pytest.mark.parametrize("lines", (2, 40))
@pytest.mark.parametrize("norm", (None, "forward"))
def test_double_lines_at_half_length_unsplit(lines, norm):
    # float64 lines of 2^15 points: complex lines of 2^14 with no four-step split.
    n = 1 << 15
    assert testing.describe_cpu(CACHE.handle, R2C, True, Precision.DOUBLE, [lines, n], [1],
                                [n]).startswith(f"c2c axis 1 n {n // 2} lines {lines}")
    x = np.random.default_rng(lines).standard_normal((lines, n))
    spectrum = af.rfft(x, norm=norm, cache=CACHE, backend="cpu")
    assert relative_l2_error(spectrum, np.fft.rfft(x, norm=norm)) <= error_bound(np.float64, n)
    back = af.irfft(spectrum, n=n, norm=norm, cache=CACHE, backend="cpu")
    assert relative_l2_error(back, x) <= error_bound(np.float64, n)


def test_double_lines_not_a_power_of_two_stay_whole():
    # 98304 = 3 * 2^15 float64 lines in numbers that no four-step split takes:
    # pocketfft's real transform of the whole line, both ways.
    n, lines = 3 << 15, 21
    for kind, forward, shape, name in ((R2C, True, [lines, n], "r2c"),
                                       (C2R, False, [lines, n // 2 + 1], "c2r")):
        plan = testing.describe_cpu(CACHE.handle, kind, forward, Precision.DOUBLE, shape, [1], [n])
        assert plan.splitlines()[0].startswith(f"{name} axis 1 n {n} "), plan
    x = np.random.default_rng(n).standard_normal((lines, n))
    spectrum = af.rfft(x, cache=CACHE, backend="cpu")
    assert_accurate(spectrum, np.fft.rfft(x), np.complex128, n)
    assert_accurate(af.irfft(spectrum, n=n, cache=CACHE, backend="cpu"), x, np.float64, n)
