"""Helpers of the Metal-path JAX tests: inputs, the float32 accuracy bound,
and a self-check that fails."""

import numpy as np

from jax_apple_fft.metal.self_check import Check

EPS32 = float(np.finfo(np.float32).eps)


def bound(n: int) -> float:
    """Allowed relative L2 error of a float32 transform of n points in all."""
    return 5.0 * EPS32 * max(np.log2(max(n, 2)), 1.0)


def relative_error(got, want) -> float:
    want = np.asarray(want, np.complex128)
    diff = np.linalg.norm(np.asarray(got, np.complex128) - want)
    norm = np.linalg.norm(want)
    return float(diff / norm) if norm else float(diff)


def complex_input(rng, shape) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def real_input(rng, shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def assert_close(got, want, n: int):
    assert relative_error(got, want) <= bound(n), relative_error(got, want)


class WrongReference(Check):
    """A self-check whose reference is off by a factor of 2."""

    def reference(self, x):
        return 2 * super().reference(x)


PLANTED_FAILURE = WrongReference("planted failure", "fftn", (64,))
