"""Run the Metal FFT kernels on numpy arrays, on any OS.

The emulator executes the very dispatch records a Mac would run, with the
``.metal`` kernels compiled as C++ and one OS thread per GPU thread. It checks
kernels and plans; it is far too slow to be a backend::

    from jax_apple_fft.metal.emulator import Emulator
    emu = Emulator()
    y = emu.fft(x, axis=0, norm="ortho")   # complex64 result

Each ``Emulator`` owns its worker threads; they end when it is garbage collected.
"""

from __future__ import annotations

import numpy as np

from jax_apple_fft import _core

C2C, R2C, C2R = 0, 1, 2
_NORMS = (None, "backward", "ortho", "forward")


def _scale(n: int, norm: str | None, forward: bool) -> float:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    if norm == "ortho":
        return 1.0 / np.sqrt(n)
    scaled_direction = not forward if norm in (None, "backward") else forward
    return 1.0 / n if scaled_direction else 1.0


def _layout(shape: tuple[int, ...], axis: int) -> tuple[int, int, tuple[int, int, int]]:
    """(outer count, inner count, (element, inner, outer) strides) of a C-contiguous array."""
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return outer, inner, (inner, 1, shape[axis] * inner)


def _fit(x: np.ndarray, n: int, axis: int) -> np.ndarray:
    """Crops or zero-pads axis `axis` to length n, as numpy.fft does."""
    if x.shape[axis] == n:
        return x
    if x.shape[axis] > n:
        return np.take(x, np.arange(n), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - x.shape[axis])
    return np.pad(x, pad)


class Emulator:
    """Owns an emulator (its worker threads) and runs Metal plans on numpy arrays."""

    def __init__(self, concurrent_groups: int = 1):
        self._native = _core.MetalEmulator(concurrent_groups)

    @staticmethod
    def plan(kind: int, forward: bool, n: int, in_shape, axis: int, scale: float = 1.0):
        """The Metal plan for a transform along `axis` of C-contiguous arrays."""
        in_shape = tuple(int(d) for d in in_shape)
        out_shape = list(in_shape)
        out_shape[axis] = n // 2 + 1 if kind == R2C else n
        outer, inner, in_strides = _layout(in_shape, axis)
        _, _, out_strides = _layout(tuple(out_shape), axis)
        plan = _core.metal_emulator_plan(kind, forward, n, outer, inner, in_strides, out_strides,
                                         float(scale))
        return plan, tuple(out_shape)

    def run(self, plan, x: np.ndarray, out_shape, out_dtype) -> np.ndarray:
        out = np.empty(out_shape, out_dtype)
        if out.size:
            self._native.run(plan, np.ascontiguousarray(x).reshape(-1).view(np.float32),
                             out.reshape(-1).view(np.float32))
        return out

    def _complex(self, x, n, axis, norm, forward):
        x = np.asarray(x).astype(np.complex64, copy=False)
        axis = axis % x.ndim
        n = x.shape[axis] if n is None else int(n)
        x = np.ascontiguousarray(_fit(x, n, axis))
        plan, out_shape = self.plan(C2C, forward, n, x.shape, axis, _scale(n, norm, forward))
        return self.run(plan, x, out_shape, np.complex64)

    def fft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._complex(x, n, axis, norm, True)

    def ifft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._complex(x, n, axis, norm, False)

    def rfft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        x = np.asarray(x).astype(np.float32, copy=False)
        axis = axis % x.ndim
        n = x.shape[axis] if n is None else int(n)
        x = np.ascontiguousarray(_fit(x, n, axis))
        plan, out_shape = self.plan(R2C, True, n, x.shape, axis, _scale(n, norm, True))
        return self.run(plan, x, out_shape, np.complex64)

    def irfft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        x = np.asarray(x).astype(np.complex64, copy=False)
        axis = axis % x.ndim
        n = 2 * (x.shape[axis] - 1) if n is None else int(n)
        x = np.ascontiguousarray(_fit(x, n // 2 + 1, axis))
        plan, out_shape = self.plan(C2R, False, n, x.shape, axis, _scale(n, norm, False))
        return self.run(plan, x, out_shape, np.float32)
