"""The benchmark suite's contenders compute the transforms they time (the
`native` column and stages.py time our transform through native_call)."""

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))

from bench import contenders  # noqa: E402
from bench.inputs import make_input  # noqa: E402
from bench.suite import Row  # noqa: E402

NUMPY = {"c2c": np.fft.fft, "r2c": np.fft.rfft,
         "c2r": lambda x, axis: np.fft.irfft(x, n=64, axis=axis)}


@pytest.mark.parametrize("kind", ["c2c", "r2c", "c2r"])
@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_the_native_column_transforms_its_row(kind, precision):
    row = Row(kind, precision, "1d", (4, 64), (1,))
    x = make_input(row, np.random.default_rng(0))
    run = contenders.native(1)(row, x)
    tolerance = 1e-4 if precision == "f32" else 1e-12
    np.testing.assert_allclose(run(), NUMPY[kind](x.astype(np.complex128 if kind != "r2c"
                                                            else np.float64), axis=1),
                               rtol=tolerance, atol=tolerance * 64)


def test_inputs_and_the_native_output_are_placed_as_xla_places_buffers():
    """numpy starts a large array 16 bytes into a page; XLA's buffers start
    at multiples of 64 bytes, which decides whether our last pass may stream
    its stores."""
    row = Row("c2c", "f64", "1d", (512, 1024), (1,))
    x = make_input(row, np.random.default_rng(0))
    out = contenders.native(1)(row, x)()
    assert x.ctypes.data % 64 == 0 and out.ctypes.data % 64 == 0
    assert x.flags.c_contiguous and out.flags.c_contiguous


def test_fftw_measures_its_plans_except_for_lengths_with_a_huge_prime_factor():
    """FFTW_MEASURE planned a 16777213-point prime for over ten minutes: the
    suite's prime rows would never finish."""
    effort = contenders.fftw_planner_effort
    assert effort(Row("c2c", "f32", "prime", (16777213,), (0,))) == "FFTW_ESTIMATE"
    assert effort(Row("c2c", "f64", "1d", (31, 65537), (1,))) == "FFTW_MEASURE"
    assert effort(Row("c2c", "f64", "2d", (4096, 4096), (0, 1))) == "FFTW_MEASURE"
    assert contenders.largest_prime_factor(2 * 3 * 16777213) == 16777213


def test_every_contender_of_the_full_suite_has_its_own_plot_style():
    """Eleven contenders (ours, native and scipy at two thread counts, FFTW at
    two): matplotlib's default cycle of ten gave FFTW's second column ours' colour."""
    from bench.plot import contender_styles
    labels = [f"c{i}" for i in range(13)]
    assert len(set(contender_styles(labels).values())) == len(labels)


def test_rows_by_name_include_batches_the_suite_does_not_hold():
    from bench.suite import row_named
    assert row_named("c2c.f32.prime.n16777213x1").group == "prime"
    row = row_named("c2c.f64.1d.n65539x32")
    assert (row.kind, row.precision, row.shape, row.axes) == ("c2c", "f64", (32, 65539), (1,))
    with pytest.raises(KeyError):
        row_named("c2c.f64.2d.n3x3")
