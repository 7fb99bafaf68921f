"""Run the Metal FFT kernels on numpy arrays, on any OS.

The emulator executes the very dispatch records a Mac would run, with the
``.metal`` kernels compiled as C++ and one OS thread per GPU thread. It checks
kernels and plans; it is far too slow to be a backend::

    from emulator_runner import Emulator   # with verification/metal on sys.path
    emu = Emulator()
    y = emu.fft(x, axis=0, norm="ortho")   # complex64 result

Each ``Emulator`` owns its worker threads; they end when it is garbage collected.
"""

from __future__ import annotations

import numpy as np

from jax_apple_fft import _core
from plan_runner import MetalPlanRunner

__all__ = ["Emulator"]


class Emulator(MetalPlanRunner):
    """Owns an emulator (its worker threads) and runs Metal plans on numpy arrays."""

    def __init__(self, concurrent_groups: int = 1):
        self._native = _core.testing.MetalEmulator(concurrent_groups)

    def run(self, plan, x: np.ndarray, out_shape, out_dtype) -> np.ndarray:
        out = np.empty(out_shape, out_dtype)
        if out.size:
            self._native.run(plan, np.ascontiguousarray(x).reshape(-1).view(np.float32),
                             out.reshape(-1).view(np.float32))
        return out
