import numpy as np
import pytest

from jax_apple_fft.metal.emulator import Emulator


@pytest.fixture(scope="session")
def emulator():
    return Emulator()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
