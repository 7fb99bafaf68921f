"""Fixtures of the Metal-path JAX tests: every test runs once per executor.

"metal-emulated" runs everywhere (the emulator behind the same FFI target);
"metal" runs only where the Apple GPU is available and is skipped elsewhere.
"""

import pytest

import jax_apple_fft as af

EXECUTORS = ("metal-emulated", "metal")


@pytest.fixture(params=EXECUTORS)
def backend(request):
    if request.param == "metal" and not af.backends()["metal"].available:
        pytest.skip(f"Metal is unavailable: {af.backends()['metal'].reason}")
    return request.param


@pytest.fixture
def cache():
    """A fresh cache per test, so its statistics belong to the test alone."""
    c = af.PlanCache()
    yield c
    c.close()
