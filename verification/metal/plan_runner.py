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

from jax_apple_fft.frontend.arguments import check_norm, norm_scale
from jax_apple_fft.metal.axis_plans import C2C, C2R, R2C, plan_along_axis

__all__ = ["C2C", "C2R", "R2C", "MetalPlanRunner"]


def _scale(n: int, norm: str | None, forward: bool) -> float:
    """The factor a transform of n points applies under `norm`, by the
    front end's own rules (the forward transform scales under "forward")."""
    return norm_scale(check_norm(norm), n, inverse=not forward)


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
    """numpy.fft-style transforms along one axis, each run as one Metal plan."""

    plan = staticmethod(plan_along_axis)

    @abc.abstractmethod
    def run(self, plan, x: np.ndarray, out_shape, out_dtype) -> np.ndarray:
        """Runs every dispatch of `plan` on `x`, returning a new array."""

    def _transform(self, kind: int, x, n, axis: int, norm, forward: bool) -> np.ndarray:
        """numpy.fft's rules for n and the input's length, then one plan."""
        x = np.asarray(x).astype(np.float32 if kind == R2C else np.complex64, copy=False)
        axis = axis % x.ndim
        if n is None:
            n = 2 * (x.shape[axis] - 1) if kind == C2R else x.shape[axis]
        n = int(n)
        x = np.ascontiguousarray(_fit(x, n // 2 + 1 if kind == C2R else n, axis))
        plan, out_shape = self.plan(kind, forward, n, x.shape, axis, _scale(n, norm, forward))
        return self.run(plan, x, out_shape, np.float32 if kind == C2R else np.complex64)

    def fft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(C2C, x, n, axis, norm, True)

    def ifft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(C2C, x, n, axis, norm, False)

    def rfft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(R2C, x, n, axis, norm, True)

    def irfft(self, x, n=None, axis=-1, norm=None) -> np.ndarray:
        return self._transform(C2R, x, n, axis, norm, False)
