"""Shared helpers for the jax_apple_fft test suite (imported by the test
modules as ``fft_testing``; the fixtures live in conftest.py).

* ``precision``: a context that turns x64 on for "float64".
* ``make_input``: reproducible random real or complex data.
* ``numpy_reference``: numpy's float64 FFT of the same call (the oracle).

The accuracy bound a result must meet is in support/accuracy.py.

A separate module rather than conftest.py: several conftest.py files exist
under tests/, and ``import conftest`` would pick whichever was loaded last.
"""

from __future__ import annotations

import contextlib
import operator

import jax
import numpy as np

import jax_apple_fft as af

ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2")
ALL_TRANSFORMS = ONE_D + N_D

# Transforms whose input must be real (complex input is a TypeError).
REAL_INPUT = {"rfft", "ihfft", "rfftn", "rfft2"}
# Transforms whose output is real.
REAL_OUTPUT = {"irfft", "hfft", "irfftn", "irfft2"}
# Transforms whose last length defaults to 2 * (m - 1).
COMPLEX_TO_REAL = REAL_OUTPUT
NORMS = (None, "backward", "ortho", "forward")


# --------------------------------------------------------------------------
# 64-bit mode
# --------------------------------------------------------------------------

@contextlib.contextmanager
def precision(dtype_name: str):
    """Enables x64 for "float64" and leaves the default (32-bit) otherwise."""
    if dtype_name == "float64":
        with jax.enable_x64(True):
            yield
    else:
        with jax.enable_x64(False):
            yield


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def real_dtype(dtype_name: str):
    return np.float64 if dtype_name == "float64" else np.float32


def complex_dtype(dtype_name: str):
    return np.complex128 if dtype_name == "float64" else np.complex64


def make_input(rng, shape, dtype_name: str, *, complex_: bool) -> np.ndarray:
    """Standard-normal data of the dtype under test (real or complex)."""
    x = rng.standard_normal(shape)
    if complex_:
        x = x + 1j * rng.standard_normal(shape)
        return x.astype(complex_dtype(dtype_name))
    return x.astype(real_dtype(dtype_name))


def input_for(name: str, rng, shape, dtype_name: str) -> np.ndarray:
    return make_input(rng, shape, dtype_name, complex_=name not in REAL_INPUT)


def expected_dtype(name: str, dtype_name: str):
    if name in REAL_OUTPUT:
        return np.dtype(real_dtype(dtype_name))
    return np.dtype(complex_dtype(dtype_name))


# --------------------------------------------------------------------------
# The oracle
# --------------------------------------------------------------------------

def _resolved_nd_args(name, shape, s, axes):
    """numpy's own default rules made explicit, so that numpy is never called
    with the deprecated forms (s without axes, None entries in s)."""
    ndim = len(shape)
    if name.endswith("2") and axes is None:
        axes = (-2, -1)
    if axes is None:
        axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
    axes = tuple(operator.index(a) for a in axes)
    if s is None:
        s = [None] * len(axes)
    s = list(s)
    c2r = name in COMPLEX_TO_REAL
    for i, (axis, n) in enumerate(zip(axes, s)):
        if n is None:
            n = shape[axis]
            if c2r and i == len(axes) - 1:
                n = 2 * (n - 1)
        s[i] = n
    return tuple(s), axes


def numpy_reference(name: str, x, *, n=None, axis=-1, s=None, axes=None, norm=None):
    """numpy's result for the same call, computed in float64/complex128."""
    x = np.asarray(x)
    x64 = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    fn = getattr(np.fft, name)
    if name in ONE_D:
        return fn(x64, n=n, axis=axis, norm=norm)
    s, axes = _resolved_nd_args(name, x.shape, s, axes)
    return fn(x64, s=s, axes=axes, norm=norm)


def call(name: str, x, **kwargs):
    return getattr(af, name)(x, **kwargs)
