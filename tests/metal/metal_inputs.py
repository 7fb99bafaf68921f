"""Random float32 data for the Metal emulator tests."""

import numpy as np


def random_complex(rng, shape) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def random_real(rng, shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)
