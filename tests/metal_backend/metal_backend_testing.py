"""Helpers of the Metal-path JAX tests: inputs and a self-check that fails."""

import numpy as np

from jax_apple_fft.metal.self_check import Check


def complex_input(rng, shape) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def real_input(rng, shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


class WrongReference(Check):
    """A self-check whose reference is off by a factor of 2."""

    def reference(self, x):
        return 2 * super().reference(x)


PLANTED_FAILURE = WrongReference("planted failure", "fftn", (64,))
