"""numpy.fft semantics on the Metal path: every transform, norms, axes,
padding and cropping, multi-axis, and every kernel strategy (single group,
four-step, Bluestein, odd and even real lengths)."""

import jax
import numpy as np
import pytest

import jax_apple_fft as af
from metal_backend_testing import complex_input, real_input
from support.accuracy import assert_accurate

NORMS = (None, "backward", "ortho", "forward")
REAL_INPUT = {"rfft", "ihfft", "rfftn", "rfft2"}


def make(rng, name, shape):
    return real_input(rng, shape) if name in REAL_INPUT else complex_input(rng, shape)


def check(name, x, backend, cache, **kwargs):
    got = getattr(af, name)(x, backend=backend, cache=cache, **kwargs)
    want = getattr(np.fft, name)(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64),
                                 **kwargs)
    dtype = np.float32 if want.dtype.kind == "f" else np.complex64
    assert_accurate(got, want, dtype, max(x.size, got.size))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_axis_transforms_and_norms(name, norm, backend, cache, rng):
    check(name, make(rng, name, (3, 10)), backend, cache, norm=norm)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_every_axis(name, axis, backend, cache, rng):
    check(name, make(rng, name, (6, 5, 4)), backend, cache, axis=axis)


@pytest.mark.parametrize("name,n", [("fft", 7), ("fft", 16), ("rfft", 9), ("irfft", 11),
                                    ("irfft", 4), ("ihfft", 5)])
def test_length_pads_and_crops(name, n, backend, cache, rng):
    check(name, make(rng, name, (2, 8)), backend, cache, n=n)


@pytest.mark.parametrize("n,strategy", [(1, "one point"), (13, "radix 13"), (17, "Bluestein"),
                                        (4096, "largest single group"), (8192, "four-step"),
                                        (3329, "Rader")])
def test_kernel_strategies(n, strategy, backend, cache, rng):
    del strategy
    check("fft", complex_input(rng, (n,)), backend, cache)
    check("rfft", real_input(rng, (n,)), backend, cache)


@pytest.mark.parametrize("name,shape,kwargs", [
    ("fftn", (4, 6, 5), {}),
    ("ifftn", (4, 6, 5), {"axes": (0, 2), "norm": "ortho"}),
    ("fftn", (3, 4, 5), {"axes": (2, 0)}),
    ("fft2", (5, 6), {"s": (4, 8)}),
    ("rfftn", (4, 6, 5), {}),
    ("rfftn", (4, 6, 5), {"axes": (2, 0), "norm": "forward"}),
    ("rfft2", (6, 7), {}),
    ("irfftn", (4, 6, 4), {}),
    ("irfftn", (4, 6, 4), {"s": (4, 5), "axes": (0, 2)}),
    ("irfftn", (3, 4, 5), {"axes": (2, 1), "norm": "ortho"}),
    ("irfft2", (5, 3), {"s": (5, 4)}),
    ("fft2", (3329, 3), {}),  # Rader along axis 0 in place on the output
    ("ifftn", (2, 3, 3329), {"axes": (2, 0)}),
])
def test_multi_axis(name, shape, kwargs, backend, cache, rng):
    check(name, make(rng, name, shape), backend, cache, **kwargs)


def test_irfftn_leaves_its_input_intact(backend, cache, rng):
    x = complex_input(rng, (4, 5))
    keep = x.copy()
    af.irfftn(jax.numpy.asarray(x), backend=backend, cache=cache)
    np.testing.assert_array_equal(x, keep)


@pytest.mark.parametrize("shape,name", [((0, 8), "fft"), ((3, 0, 4), "rfft"), ((0, 5), "irfft")])
def test_zero_size_arrays(shape, name, backend, cache, rng):
    x = make(rng, name, shape)
    got = getattr(af, name)(x, backend=backend, cache=cache)
    want = getattr(np.fft, name)(x)
    assert got.shape == want.shape and got.size == 0


def test_integer_input_is_promoted_to_float32(backend, cache):
    got = af.fft(np.arange(8), backend=backend, cache=cache)
    assert_accurate(got, np.fft.fft(np.arange(8)), np.complex64, 8)


def test_nan_propagates(backend, cache, rng):
    x = complex_input(rng, (16,))
    x[3] = np.nan
    assert np.isnan(np.asarray(af.fft(x, backend=backend, cache=cache))).all()

