"""Fixtures shared by the jax_apple_fft tests. The helper functions (the
numpy oracle, tolerances, input makers) are in fft_testing.py."""

from __future__ import annotations

import os
import pathlib
import sys

# `python -m pytest` puts the working directory first on sys.path; from the
# repository root, the source tree's package (which has no compiled _core)
# would then shadow the installed one. Tests run against the installed one.
_REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
if not any((_REPOSITORY / "jax_apple_fft").glob("_core*")):
    sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _REPOSITORY]

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

# The tests exercise this package's CPU path: where JAX's default device is
# another (a GPU), arrays not placed explicitly still go to the CPU.
jax.config.update("jax_default_device", jax.devices("cpu")[0])


@pytest.fixture(autouse=True, scope="session")
def _verdicts_of_this_run(tmp_path_factory):
    """Metal self-check verdicts go to the test run's own directory, not the
    user's cache: each run checks afresh and leaves nothing behind."""
    os.environ["JAX_APPLE_FFT_CACHE_DIR"] = str(tmp_path_factory.mktemp("verdicts"))


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
