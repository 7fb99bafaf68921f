"""How XLA's SPMD partitioner splits a transform of a sharded array.

Under `jit` with an operand sharded over several devices, the CPU custom
call is wrapped in `custom_partitioning` with a Shardy rule that maps each
operand axis to the same result axis (a resized real axis gets its own
factor). Each device then runs the steps `decomposition.plan` chooses for the
operand's sharding: only local transforms when the transformed axes are
whole, all-to-alls over the mesh between them when some are sharded.
Inside `shard_map` the call is already per shard and is lowered as it is.
"""

from __future__ import annotations

import string
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax.experimental.custom_partitioning import custom_partitioning
from jax.sharding import NamedSharding

from jax_apple_fft.primitive import decomposition
from jax_apple_fft.primitive.transform_kind import TransformKind


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


def partitioned(local_transform: Callable, *, ndim: int, kind: TransformKind,
                axes: tuple[int, ...], lengths: tuple[int, ...], scale: float,
                out_spec: decomposition.Spec | None):
    """The transform as a custom_partitioning function. `local_transform(x,
    kind=, axes=, lengths=, scale=, fresh=)` transforms a block whose `axes`
    are whole; `fresh` says the block is an earlier step's result. The steps
    end in `out_spec` where they can, else in the layout the partitioner
    asks of the result."""
    wrapped = custom_partitioning(lambda x: local_transform(
        x, kind=kind, axes=axes, lengths=lengths, scale=scale, fresh=False))
    resized_axis = None if kind == TransformKind.C2C else axes[-1]

    def decompose(mesh, arg_shapes, result_shape):
        sizes = dict(mesh.shape)
        operand = arg_shapes[0]
        asked = getattr(result_shape, "sharding", None)  # None when inferring it
        target = out_spec
        if target is None and asked is not None:
            target = decomposition.spec_names(asked, ndim, sizes)
        return decomposition.plan(
            operand.shape, decomposition.spec_names(operand.sharding, ndim, sizes), sizes,
            kind=kind, axes=axes, lengths=lengths, scale=scale, target=target)

    def infer(mesh, arg_shapes, result_shape):
        return NamedSharding(mesh, decomposition.partition_spec(
            decompose(mesh, arg_shapes, result_shape).out_spec))

    def partition(mesh, arg_shapes, result_shape):
        plan = decompose(mesh, arg_shapes, result_shape)

        def run(x):
            for i, step in enumerate(plan.steps):
                if isinstance(step, decomposition.Exchange):
                    x = _exchange(x, step)
                else:
                    x = local_transform(x, kind=step.kind, axes=step.axes, lengths=step.lengths,
                                        scale=step.scale, fresh=i > 0)
            return x

        result = NamedSharding(mesh, decomposition.partition_spec(plan.out_spec))
        return mesh, run, result, (arg_shapes[0].sharding,)

    wrapped.def_partition(infer_sharding_from_operands=infer, partition=partition,
                          sharding_rule=_rule(ndim, resized_axis))
    return wrapped
