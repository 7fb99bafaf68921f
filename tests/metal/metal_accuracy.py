"""Shared helpers of the Metal emulator tests: random data and the accuracy bound."""

import numpy as np

EPS32 = float(np.finfo(np.float32).eps)


def bound(n: int) -> float:
    """Allowed relative L2 error of a float32 FFT of length n."""
    return 5.0 * EPS32 * max(np.log2(max(n, 1)), 1.0)


def relative_error(got, want) -> float:
    want = np.asarray(want)
    diff = np.linalg.norm(np.asarray(got, np.complex128) - want)
    norm = np.linalg.norm(want)
    return float(diff / norm) if norm else float(diff)


def random_complex(rng, shape) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def random_real(rng, shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)
