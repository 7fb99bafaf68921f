"""The planner's dispatch records run on an NVIDIA GPU (CUDA executor) and
meet the accuracy bound, and agree with the emulator running the same
records. Skipped without CuPy and a CUDA device; the same records run in the
emulator everywhere (tests/metal)."""

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
from cuda_executor import CudaPlanRunner, cuda_available  # noqa: E402
from support.accuracy import assert_accurate  # noqa: E402
from verify_on_gpu import random_complex  # noqa: E402

from emulator_runner import Emulator  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no CUDA device")

@pytest.fixture(scope="module")
def runner():
    return CudaPlanRunner()


@pytest.mark.parametrize("n", list(range(1, 65)) + [97, 128, 1000, 2048, 4095, 4096,
                                                    1 << 16, 3 * 4096, 4097, 10007])
@pytest.mark.parametrize("forward", (True, False), ids=("forward", "inverse"))
def test_c2c_meets_the_bound(runner, n, forward):
    x = random_complex(np.random.default_rng(n), (3, n))
    got = runner.fft(x) if forward else runner.ifft(x)
    want = (np.fft.fft if forward else np.fft.ifft)(x.astype(np.complex128))
    assert_accurate(got, want, np.complex64, n, exact_dtype=False)


@pytest.mark.parametrize("n", (2, 3, 16, 17, 1000, 4096, 4097, 65536))
@pytest.mark.parametrize("norm", (None, "ortho", "forward"))
def test_real_transforms_meet_the_bound(runner, n, norm):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, n)).astype(np.float32)
    assert_accurate(runner.rfft(x, norm=norm), np.fft.rfft(x.astype(np.float64), norm=norm),
                    np.complex64, n, exact_dtype=False)
    z = random_complex(rng, (2, n // 2 + 1))
    assert_accurate(runner.irfft(z, n=n, norm=norm),
                    np.fft.irfft(z.astype(np.complex128), n=n, norm=norm),
                    np.float32, n, exact_dtype=False)


@pytest.mark.parametrize("n", (8, 60, 4096, 10007))
def test_strided_axis(runner, n):
    x = random_complex(np.random.default_rng(n), (n, 5))
    assert_accurate(runner.fft(x, axis=0), np.fft.fft(x.astype(np.complex128), axis=0),
                    np.complex64, n, exact_dtype=False)


@pytest.mark.parametrize("n", (64, 4096, 1 << 16, 4097))
def test_agrees_with_the_emulator(runner, n):
    """Two executors of the same records: equal to float rounding."""
    x = random_complex(np.random.default_rng(n), (2, n))
    ours, emulated = runner.fft(x), Emulator().fft(x)
    assert_accurate(ours, emulated.astype(np.complex128), np.complex64, n, exact_dtype=False)
