"""Fixtures shared by the jax_apple_fft tests. The helper functions (the
numpy oracle, tolerances, input makers) are in fft_testing.py."""

from __future__ import annotations

import jax
import numpy as np
import pytest


@pytest.fixture
def x64():
    """Runs the test body with 64-bit types enabled."""
    with jax.enable_x64(True):
        yield


@pytest.fixture
def rng(request):
    """A generator seeded from the test id: reproducible, and different data
    for each parametrized case."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(request.node.nodeid)) % (2**32)
    return np.random.default_rng(seed)
