"""Lowering to the backend's XLA FFI target, with typed attributes, for the
CPU; other platforms lower as other_platforms.py says.

"cpu" lowers to the CPU target. "metal" and "metal-emulated" lower to the
one Metal target; its `executor` attribute (a MetalExecutorKind) picks the
Apple GPU or the emulator, so the test backend runs the very handler a Mac
runs. Enumerations travel as their C++ values (int32 attributes).
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import dispatch
from jax.interpreters import mlir

from jax_apple_fft.primitive import other_platforms, partitioning
from jax_apple_fft.primitive.definition import fft_p, result_type
from jax_apple_fft.primitive.transform_kind import (
    MetalExecutorKind, Transform, TransformKind, precision_of)
from jax_apple_fft.runtime import registration

_METAL_EXECUTORS = {"metal": MetalExecutorKind.APPLE, "metal-emulated": MetalExecutorKind.EMULATOR}


def _attributes(aval, *, transform, axes, lengths, scale, cache):
    return dict(
        kind=np.int32(transform.kind.value),
        forward=transform.forward,
        precision=np.int32(precision_of(aval.dtype).value),
        in_shape=np.asarray(aval.shape, dtype=np.int64),
        axes=np.asarray(axes, dtype=np.int64),
        lengths=np.asarray(lengths, dtype=np.int64),
        scale=np.float64(scale),
        cache=np.uint64(cache.value),
    )


def _lower_metal(ctx, x, *, transform, axes, lengths, scale, backend, auto_backend, cache):
    # The Metal executors take distinct buffers: overwrite_x is not used here.
    params = dict(axes=axes, lengths=lengths, scale=scale, backend=backend,
                  auto_backend=auto_backend, cache=cache, overwrite_x=False)
    # The Metal kernels run R2C forward and C2R inverse only. The other
    # directions (IHFFT, HFFT, and the transposes of real transforms) follow
    # from conjugation, since the real side is its own conjugate.
    if transform == Transform.IHFFT:
        flipped = lambda v: jnp.conj(fft_p.bind(v, transform=Transform.RFFT, **params))
        return mlir.lower_fun(flipped, multiple_results=False)(ctx, x)
    if transform == Transform.HFFT:
        flipped = lambda v: fft_p.bind(jnp.conj(v), transform=Transform.IRFFT, **params)
        return mlir.lower_fun(flipped, multiple_results=False)(ctx, x)
    registration.ensure_metal_registered()
    (aval,) = ctx.avals_in
    return jax.ffi.ffi_lowering(registration.METAL_TARGET)(
        ctx, x, executor=np.int32(_METAL_EXECUTORS[backend].value),
        **_attributes(aval, transform=transform, axes=axes, lengths=lengths, scale=scale,
                      cache=cache))


# XLA's CPU client runs a program it counts at fewer than 1000 flops inline,
# on the calling thread, and it counts none for a custom call; jnp.fft's
# programs are dispatched to a worker and return at once. A transform whose
# output takes at least ASYNC_DISPATCH_MIN_BYTES, on a machine of at least
# ASYNC_DISPATCH_MIN_CORES usable cores, gets a second operand: a sum of
# DISPATCH_OPERAND_VALUES of its input's values that the target never reads,
# there so that XLA counts enough flops to dispatch it too. Smaller ones, and
# every one on fewer cores, stay inline, where handing the call to a worker
# costs more than it frees (docs/dispatch.md).
ASYNC_DISPATCH_MIN_BYTES = 1 << 20
ASYNC_DISPATCH_MIN_CORES = 4
DISPATCH_OPERAND_VALUES = 2048


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


def dispatches(out_bytes: int) -> bool:
    """Whether a transform of this output size is lowered to be dispatched."""
    return out_bytes >= ASYNC_DISPATCH_MIN_BYTES and usable_cores() >= ASYNC_DISPATCH_MIN_CORES


def _dispatch_operand(x):
    first = x.reshape(-1)[:DISPATCH_OPERAND_VALUES]
    return jnp.sum(jnp.real(first) if jnp.iscomplexobj(first) else first)


def _cpu_call(x, *, transform, axes, lengths, scale, cache, overwrite_x):
    """The CPU target on `x` as it is: the whole array, or one device's block."""
    registration.ensure_cpu_registered()
    out_shape, out_dtype = result_type(x.shape, x.dtype, kind=transform.kind, axes=axes,
                                       lengths=lengths)
    # The CPU backend transforms a complex input in place when XLA hands it
    # the same buffer as the output (each line is read whole before it is
    # written back), so the result may alias the input.
    call = jax.ffi.ffi_call(registration.CPU_TARGET,
                            jax.ShapeDtypeStruct(out_shape, out_dtype),
                            input_output_aliases={0: 0} if overwrite_x else None)
    out_bytes = int(np.prod(out_shape, dtype=np.int64)) * np.dtype(out_dtype).itemsize
    operands = (x, _dispatch_operand(x)) if dispatches(out_bytes) else (x,)
    return call(*operands, **_attributes(x, transform=transform, axes=axes, lengths=lengths,
                                         scale=scale, cache=cache))


def lower_transform(ctx, x, *, transform, axes, lengths, scale, backend, cache,
                    auto_backend=False, overwrite_x=False, out_spec=None,
                    gather_unsupported_layouts=False):
    """The primitive's CPU lowering (also used by the drop-in for lax.fft).
    `gather_unsupported_layouts`: a sharding the decomposition cannot serve
    is gathered as XLA gathers it for its own FFT, instead of raising."""
    if backend in _METAL_EXECUTORS:
        return _lower_metal(ctx, x, transform=transform, axes=axes, lengths=lengths,
                            scale=scale, backend=backend, auto_backend=auto_backend, cache=cache)
    if backend != "cpu":
        raise NotImplementedError(f"no lowering for backend {backend!r} in this build")
    if partitioning.spmd_devices(ctx) <= 1:
        call = lambda v: _cpu_call(v, transform=transform, axes=tuple(axes),
                                   lengths=tuple(lengths), scale=scale, cache=cache,
                                   overwrite_x=overwrite_x)
        return mlir.lower_fun(call, multiple_results=False)(ctx, x)

    def local_transform(v, *, kind, axes, lengths, scale, fresh):
        # A fresh block (an earlier step's result) is no one else's: it may be overwritten.
        return _cpu_call(v, transform=transform.with_kind(kind), axes=axes, lengths=lengths,
                         scale=scale, cache=cache,
                         overwrite_x=kind == TransformKind.C2C and (overwrite_x or fresh))

    call = partitioning.partitioned(local_transform, ndim=len(ctx.avals_in[0].shape),
                                    kind=transform.kind,
                                    axes=tuple(axes), lengths=tuple(lengths), scale=scale,
                                    out_spec=out_spec,
                                    gather_unsupported_layouts=gather_unsupported_layouts)
    return mlir.lower_fun(call, multiple_results=False)(ctx, x)


mlir.register_lowering(fft_p, lower_transform, platform="cpu", cacheable=False)
mlir.register_lowering(fft_p, other_platforms.lower_elsewhere)  # every other platform
# A sharded lowering holds a custom_partitioning call, which needs the
# computation's device assignment: JAX provides it only to primitives in this
# set, and only to lowerings it does not cache.
dispatch.prim_requires_devices_during_lowering.add(fft_p)
