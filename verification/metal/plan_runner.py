"""The numpy side of running Metal plans, shared by every instrument that
executes their dispatch records outside the package (the emulator runner
beside this file; the CUDA verifier in verification/cuda).

A subclass supplies ``run(plan, x, out_shape, out_dtype)``; this class plans
numpy.fft-style calls along one axis of C-contiguous arrays and fits the
input to the transform's length, as numpy.fft does.
"""

from __future__ import annotations

import abc

import numpy as np

from jax_apple_fft import _core
from jax_apple_fft.frontend.arguments import check_norm
from jax_apple_fft.metal.axis_plans import plan_along_axis
from jax_apple_fft.primitive.transform_kind import Transform, TransformKind

# Short names for the kinds, as the runners' callers write them.
C2C, R2C, C2R = TransformKind.C2C, TransformKind.R2C, TransformKind.C2R

__all__ = ["C2C", "C2R", "R2C", "MetalPlanRunner"]


def _fit(x: np.ndarray, n: int, axis: int) -> np.ndarray:
    """Crops or zero-pads axis `axis` to length n, as numpy.fft does."""
    if x.shape[axis] == n:
        return x
    if x.shape[axis] > n:
        return np.take(x, np.arange(n), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - x.shape[axis])
    return np.pad(x, pad)


class MetalPlanRunner(abc.ABC):
    """numpy.fft-style transforms along one axis, each run as one Metal plan,
    planned for a GPU whose coalesced piece is `coalesced_bytes`."""

    coalesced_bytes: int = _core.APPLE_COALESCED_BYTES

    @classmethod
    def plan(cls, kind: TransformKind, forward: bool, n: int, in_shape, axis: int,
             scale: float = 1.0):
        """plan_along_axis for this runner's GPU."""
        return plan_along_axis(kind, forward, n, in_shape, axis, scale, cls.coalesced_bytes)

    @abc.abstractmethod
    def run(self, plan, x: np.ndarray, out_shape, out_dtype) -> np.ndarray:
        """Runs every dispatch of `plan` on `x`, returning a new array."""

    def _transform(self, transform: Transform, x, n, axis: int, norm) -> np.ndarray:
        """numpy.fft's rules for n and the input's length, then one plan."""
        kind = transform.kind
        x = np.asarray(x).astype(np.float32 if kind == R2C else np.complex64, copy=False)
        axis = axis % x.ndim
        if n is None:
            n = 2 * (x.shape[axis] - 1) if kind == C2R else x.shape[axis]
        n = int(n)
        x = np.ascontiguousarray(_fit(x, n // 2 + 1 if kind == C2R else n, axis))
        plan, out_shape = self.plan(kind, transform.forward, n, x.shape, axis,
                                    transform.scale(check_norm(norm), n))
        return self.run(plan, x, out_shape, np.float32 if kind == C2R else np.complex64)

    def fft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(Transform.FFT, x, n, axis, norm)

    def ifft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(Transform.IFFT, x, n, axis, norm)

    def rfft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(Transform.RFFT, x, n, axis, norm)

    def irfft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(Transform.IRFFT, x, n, axis, norm)
