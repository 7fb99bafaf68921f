"""The emulator's plan runner lives in verification/metal, outside the package."""

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "verification" / "metal"))
from emulator_runner import Emulator  # noqa: E402


@pytest.fixture(scope="session")
def emulator():
    return Emulator()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
