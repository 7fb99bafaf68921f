"""How XLA's SPMD partitioner splits a transform of a sharded array.

Under `jit` with an operand sharded over several devices, the CPU custom
call is wrapped in `custom_partitioning` with a Shardy rule: the untransformed
axes keep their sharding and each device transforms its own shard (no
collective); the transformed axes must be whole on each device, so where one
is sharded the partitioner gathers it first (transforms over sharded axes
are not yet distributed; docs/sharding.md). Inside `shard_map` the call is
already per shard and is lowered as it is.
"""

from __future__ import annotations

import string

from jax.experimental.custom_partitioning import custom_partitioning
from jax.sharding import NamedSharding, PartitionSpec


def spmd_devices(ctx) -> int:
    """Devices the lowering is partitioned over automatically: 1 for a single
    device and inside shard_map's manual axes."""
    return getattr(ctx.module_context.axis_context, "num_devices", 1)


def _rule(ndim: int, axes: tuple[int, ...], resized_axis: int | None) -> tuple[str, tuple[str, ...]]:
    """The Shardy rule 'a b c -> a b d' (a resized real axis gets its own
    factor) and the factors that must stay whole: the transformed ones."""
    factors = list(string.ascii_lowercase[:ndim])
    out = list(factors)
    if resized_axis is not None:
        out[resized_axis] = "z"
    transformed = tuple(factors[a] for a in axes) + (("z",) if resized_axis is not None else ())
    return f"{' '.join(factors)} -> {' '.join(out)}", transformed


def _unsharded(sharding, axes: tuple[int, ...]) -> NamedSharding:
    """`sharding` with the transformed axes whole."""
    spec = list(sharding.spec) + [None] * (max(axes) + 1 - len(sharding.spec))
    for a in axes:
        spec[a] = None
    return NamedSharding(sharding.mesh, PartitionSpec(*spec))


def per_shard(call, *, ndim: int, axes: tuple[int, ...], resized_axis: int | None):
    """`call` (array -> array, on whatever shard it is given) as a
    custom_partitioning function that runs it on every device's shard."""
    wrapped = custom_partitioning(call)

    def infer(mesh, arg_shapes, result_shape):
        return _unsharded(arg_shapes[0].sharding, axes)

    def partition(mesh, arg_shapes, result_shape):
        sharding = _unsharded(arg_shapes[0].sharding, axes)
        return mesh, call, sharding, (sharding,)

    rule, whole = _rule(ndim, axes, resized_axis)
    wrapped.def_partition(infer_sharding_from_operands=infer, partition=partition,
                          sharding_rule=rule, need_replication_factors=whole)
    return wrapped
