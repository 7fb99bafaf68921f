"""The `out_sharding` argument of the n-dimensional transforms: the layout a
transform over sharded axes ends in (docs/sharding.md)."""

from __future__ import annotations

import jax
from jax.sharding import AxisType, NamedSharding, PartitionSpec

from jax_apple_fft.primitive import decomposition

OutSharding = NamedSharding | PartitionSpec | None


def _mesh(out_sharding, x):
    if isinstance(out_sharding, NamedSharding):
        return out_sharding.mesh
    mesh = getattr(jax.typeof(x).sharding, "mesh", None)
    if mesh is None or not mesh.axis_names:
        mesh = jax.sharding.get_abstract_mesh()
    return mesh


def target_spec(out_sharding: OutSharding, x, *, name: str) -> decomposition.Spec | None:
    """The primitive's out_spec for `out_sharding`, given the operand `x`."""
    if out_sharding is None:
        return None
    if not isinstance(out_sharding, (NamedSharding, PartitionSpec)):
        raise TypeError(f"{name}: out_sharding must be a NamedSharding, a PartitionSpec or None, "
                        f"got {out_sharding!r}")
    mesh = _mesh(out_sharding, x)
    if not mesh.axis_names:
        raise ValueError(f"{name}: out_sharding={out_sharding} names no mesh: pass a "
                         f"NamedSharding, or call inside jax.sharding.use_mesh")
    spec = out_sharding.spec if isinstance(out_sharding, NamedSharding) else out_sharding
    return decomposition.spec_names(spec, x.ndim, dict(mesh.shape))


def constrain(y: jax.Array, out_sharding: OutSharding) -> jax.Array:
    """`y` with the sharding asked for: nothing moves where the transform
    already ended there."""
    if out_sharding is None:
        return y
    mesh = _mesh(out_sharding, y)
    if isinstance(out_sharding, PartitionSpec):
        out_sharding = NamedSharding(mesh, out_sharding)
    if mesh.axis_types and all(t == AxisType.Explicit for t in mesh.axis_types):
        return jax.sharding.reshard(y, out_sharding)
    return jax.lax.with_sharding_constraint(y, out_sharding)
