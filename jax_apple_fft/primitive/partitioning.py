"""How XLA's SPMD partitioner splits a transform of a sharded array.

Under `jit` with an operand sharded over several devices, the CPU custom
call is wrapped in `custom_partitioning` with a Shardy rule that maps each
operand axis to the same result axis (a resized real axis gets its own
factor). Each device then runs the steps `decomposition.plan` chooses for the
operand's sharding: only local transforms when the transformed axes are
whole, all-to-alls over the mesh between them when some are sharded.
Inside `shard_map` the call is already per shard and is lowered as it is.

A sharding the decomposition cannot serve (a 1-D transform of a sharded
line, an axis split unevenly) raises UnsupportedError. The partitioner runs
inside XLA's compiler, which reports a Python exception as an INTERNAL
JaxRuntimeError holding its traceback; a handler of JAX's compile errors
turns that back into the UnsupportedError. The drop-in serves such a
sharding as XLA serves its own FFT instead: the transformed axes are
gathered (XLA reshards the operand to the layout the partition asks for).
"""

from __future__ import annotations

import collections
import math
import string
import threading
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax._src import compiler
from jax.experimental.custom_partitioning import custom_partitioning
from jax.sharding import NamedSharding

from jax_apple_fft.errors import UnsupportedError
from jax_apple_fft.primitive import decomposition
from jax_apple_fft.primitive.transform_kind import TransformKind

# Messages of the UnsupportedErrors the partitioner raised lately, to
# recognise them in the compile errors that carry them.
_refusals: collections.deque[str] = collections.deque(maxlen=16)
_refusals_lock = threading.Lock()


def _as_unsupported_error(error: Exception) -> UnsupportedError | None:
    """The UnsupportedError a compile error carries from the partitioner, if
    it carries one (JAX raises it from the compile error)."""
    text = str(error)
    if "custom_partitioner" not in text:
        return None
    with _refusals_lock:
        message = next((m for m in _refusals if m in text), None)
    return None if message is None else UnsupportedError(message)


compiler.register_xla_runtime_error_handler(_as_unsupported_error)


def spmd_devices(ctx) -> int:
    """Devices the lowering is partitioned over automatically: 1 for a single
    device and inside shard_map's manual axes."""
    return getattr(ctx.module_context.axis_context, "num_devices", 1)


def _rule(ndim: int, resized_axis: int | None) -> str:
    """The Shardy rule 'a b c -> a b d': each axis keeps its factor, except a
    real axis whose length changes."""
    factors = list(string.ascii_lowercase[:ndim])
    out = list(factors)
    if resized_axis is not None:
        out[resized_axis] = "z"
    return f"{' '.join(factors)} -> {' '.join(out)}"


def _exchange(x, step: decomposition.Exchange):
    if step.pad_split_to is not None:
        widths = [(0, 0)] * x.ndim
        widths[step.split_dim] = (0, step.pad_split_to - x.shape[step.split_dim])
        x = jnp.pad(x, widths)
    x = jax.lax.all_to_all(x, step.mesh_axis, step.split_dim, step.concat_dim, tiled=True)
    if step.crop_concat_to is not None:
        x = jax.lax.slice_in_dim(x, 0, step.crop_concat_to, axis=step.concat_dim)
    return x


def _gathered(shape, spec: decomposition.Spec, sizes, axes) -> decomposition.Spec:
    """The layout XLA's partitioner gives its own FFT's operand: the
    transformed axes whole, the others as they are where they split evenly."""
    return tuple(() if d in axes or shape[d] % math.prod(sizes[a] for a in names) else names
                 for d, names in enumerate(spec))


def partitioned(local_transform: Callable, *, ndim: int, kind: TransformKind,
                axes: tuple[int, ...], lengths: tuple[int, ...], scale: float,
                out_spec: decomposition.Spec | None, gather_unsupported_layouts: bool = False):
    """The transform as a custom_partitioning function. `local_transform(x,
    kind=, axes=, lengths=, scale=, fresh=)` transforms a block whose `axes`
    are whole; `fresh` says the block is an earlier step's result. The steps
    end in `out_spec` where they can, else in the layout the partitioner
    asks of the result. An operand sharding the steps cannot serve raises
    UnsupportedError, or with `gather_unsupported_layouts` is gathered."""
    wrapped = custom_partitioning(lambda x: local_transform(
        x, kind=kind, axes=axes, lengths=lengths, scale=scale, fresh=False))
    resized_axis = None if kind == TransformKind.C2C else axes[-1]

    def decompose(mesh, arg_shapes, result_shape):
        """The plan, and the operand layout it starts from (None: the operand's)."""
        sizes = dict(mesh.shape)
        operand = arg_shapes[0]
        asked = getattr(result_shape, "sharding", None)  # None when inferring it
        target = out_spec
        if target is None and asked is not None:
            target = decomposition.spec_names(asked, ndim, sizes)
        spec = decomposition.spec_names(operand.sharding, ndim, sizes)
        plan = lambda start, target: decomposition.plan(
            operand.shape, start, sizes, kind=kind, axes=axes, lengths=lengths, scale=scale,
            target=target)
        try:
            return plan(spec, target), None
        except UnsupportedError as error:
            if not gather_unsupported_layouts:
                with _refusals_lock:
                    _refusals.append(str(error))
                raise
        gathered = _gathered(operand.shape, spec, sizes, axes)
        return plan(gathered, None), gathered

    def infer(mesh, arg_shapes, result_shape):
        return NamedSharding(mesh, decomposition.partition_spec(
            decompose(mesh, arg_shapes, result_shape)[0].out_spec))

    def partition(mesh, arg_shapes, result_shape):
        plan, operand_spec = decompose(mesh, arg_shapes, result_shape)

        def run(x):
            for i, step in enumerate(plan.steps):
                if isinstance(step, decomposition.Exchange):
                    x = _exchange(x, step)
                else:
                    x = local_transform(x, kind=step.kind, axes=step.axes, lengths=step.lengths,
                                        scale=step.scale, fresh=i > 0)
            return x

        result = NamedSharding(mesh, decomposition.partition_spec(plan.out_spec))
        operand = (arg_shapes[0].sharding if operand_spec is None else
                   NamedSharding(mesh, decomposition.partition_spec(operand_spec)))
        return mesh, run, result, (operand,)

    wrapped.def_partition(infer_sharding_from_operands=infer, partition=partition,
                          sharding_rule=_rule(ndim, resized_axis))
    return wrapped
