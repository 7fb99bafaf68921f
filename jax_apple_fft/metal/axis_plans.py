"""The Metal planner's plan for a transform along one axis of a C-contiguous
array: how the self-check shows the planner's decisions, and what the plan
runners of verification/metal run."""

from __future__ import annotations

import numpy as np

from jax_apple_fft import _core
from jax_apple_fft.primitive.transform_kind import TransformKind


def _layout(shape: tuple[int, ...], axis: int) -> tuple[int, int, tuple[int, int, int]]:
    """(outer count, inner count, (element, inner, outer) strides) of a C-contiguous array."""
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return outer, inner, (inner, 1, shape[axis] * inner)


def plan_along_axis(kind: TransformKind, forward: bool, n: int, in_shape, axis: int,
                    scale: float = 1.0, coalesced_bytes: int = _core.APPLE_COALESCED_BYTES
                    ) -> tuple[_core.MetalPlan, tuple[int, ...]]:
    """The Metal plan for a transform of length n along `axis` of C-contiguous
    arrays of `in_shape`, and the output's shape; `coalesced_bytes` is the
    coalesced piece of the GPU it is for (Apple's unless told)."""
    in_shape = tuple(int(d) for d in in_shape)
    out_shape = list(in_shape)
    out_shape[axis] = n // 2 + 1 if kind == TransformKind.R2C else n
    outer, inner, in_strides = _layout(in_shape, axis)
    _, _, out_strides = _layout(tuple(out_shape), axis)
    plan = _core.metal_emulator_plan(kind, forward, n, outer, inner, in_strides, out_strides,
                                     float(scale), int(coalesced_bytes))
    return plan, tuple(out_shape)
