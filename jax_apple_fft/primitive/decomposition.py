"""A transform over sharded axes, planned as local transforms and all-to-alls.

Each device holds one block of the operand. An axis must be whole on a device
when it is transformed, so a sharded transformed axis first hands the minor
mesh axis of its sharding to another dimension with a tiled all-to-all: the
slab decomposition on a 1-D mesh, pencils on a 2-D mesh. The rules:

- the transformed axes that are whole are transformed together, in one call;
  R2C transforms its real axis first, C2R last;
- a sharded one gives its mesh axis to a dimension already transformed, else
  to an untransformed one, else to another one still to be transformed; no
  such dimension is an UnsupportedError naming what to reshard;
- a mesh axis taken by an axis still to be transformed is handed back to the
  axis it came from (transformed by then) before that axis's turn;
- a dimension whose block does not split evenly is zero-padded for the
  exchange and cropped when the mesh axis moves back; a padded dimension is
  never transformed;
- afterwards the moves are undone, last first, until the layout is the one
  asked for (the operand's by default) or a move cannot be undone evenly (a
  real axis whose length changed); then mesh axes move straight to where the
  asked layout wants them, where they split evenly. The result keeps the
  layout reached.

Plans are plain values, built without JAX, so the rules are tested directly.
"""

from __future__ import annotations

import dataclasses
import math

from jax.sharding import PartitionSpec

from jax_apple_fft.errors import UnsupportedError
from jax_apple_fft.primitive.transform_kind import TransformKind

Spec = tuple[tuple[str, ...], ...]  # per dimension, its mesh axes (major first)


@dataclasses.dataclass(frozen=True)
class LocalTransform:
    """The primitive on each device's block, over whole axes."""

    kind: TransformKind
    axes: tuple[int, ...]
    lengths: tuple[int, ...]
    scale: float


@dataclasses.dataclass(frozen=True)
class Exchange:
    """jax.lax.all_to_all(x, mesh_axis, split_dim, concat_dim, tiled=True):
    `mesh_axis` moves from `concat_dim` (made whole) to `split_dim`.
    `split_dim` is zero-padded to `pad_split_to` first, `concat_dim` cropped
    to `crop_concat_to` after (None: as it is)."""

    mesh_axis: str
    split_dim: int
    concat_dim: int
    pad_split_to: int | None = None
    crop_concat_to: int | None = None


@dataclasses.dataclass(frozen=True)
class Decomposition:
    steps: tuple[LocalTransform | Exchange, ...]
    out_spec: Spec


@dataclasses.dataclass
class _Move:
    mesh_axis: str
    whole: int  # the dimension the mesh axis left
    to: int  # the dimension that took it
    unpadded: int | None  # `to`'s block length before padding


def plan(shape: tuple[int, ...], spec: Spec, mesh_sizes: dict[str, int], *,
         kind: TransformKind, axes: tuple[int, ...], lengths: tuple[int, ...], scale: float,
         target: Spec | None = None) -> Decomposition:
    """The steps that transform `axes` of an operand of global `shape`,
    sharded as `spec` (mesh axes of size 1 left out), and the result's spec."""
    state = _State(shape, spec, mesh_sizes)
    for dim, names in enumerate(spec):
        if shape[dim] % math.prod(mesh_sizes[a] for a in names):
            raise UnsupportedError(
                f"{_describe(shape, spec)}: axis {dim} of length {shape[dim]} is split unevenly "
                f"over mesh axes {names}; reshard it evenly or whole")
    steps: list = []
    moves: list[_Move] = []
    length_of = dict(zip(axes, lengths))
    real = axes[-1] if kind != TransformKind.C2C else None
    pending = list(axes)
    unscaled = True  # the first local transform takes the scale
    while pending:
        ready = _ready(pending, state, kind, real)
        if ready:
            step_kind = kind if real in ready else TransformKind.C2C
            ordered = tuple(a for a in axes if a in ready)
            steps.append(LocalTransform(step_kind, ordered, tuple(length_of[a] for a in ordered),
                                        scale if unscaled else 1.0))
            unscaled = False
            if step_kind == TransformKind.R2C:
                state.resize(real, length_of[real] // 2 + 1)
            elif step_kind == TransformKind.C2R:
                state.resize(real, length_of[real])
            pending = [a for a in pending if a not in ready]
            continue
        whole = _to_make_whole(pending, state, kind, real)
        last = moves[-1] if moves else None
        if (last and last.to == whole and last.whole not in pending
                and state.local[last.whole] % mesh_sizes[last.mesh_axis] == 0):
            steps.append(state.undo(last))  # the mesh axis goes back where it came from
            moves.pop()
            continue
        move = _place(whole, pending, state, axes, target)
        if any(m.to == whole and m.unpadded is not None for m in moves):
            move = None  # a padded axis must not be transformed
        if move is None or len(moves) > 4 * len(shape):
            raise UnsupportedError(
                f"{_describe(shape, spec)}: transforming axes {axes} needs axis {whole} whole, and "
                f"no other axis can take its mesh axis {state.spec[whole][-1]!r}; reshard so that "
                f"axis {whole} is not sharded (jax.sharding.reshard, or "
                f"jax.lax.with_sharding_constraint under automatic mesh axes)")
        steps.append(state.apply(move))
        moves.append(move)
    while moves and (state.spec_value() != target or any(m.unpadded is not None for m in moves)):
        move = moves[-1]
        if state.local[move.whole] % mesh_sizes[move.mesh_axis]:
            if any(m.unpadded is not None for m in moves):
                raise UnsupportedError(
                    f"{_describe(shape, spec)}: the result's axis {move.whole} cannot take mesh "
                    f"axis {move.mesh_axis!r} back evenly; reshard so that axis {move.whole} "
                    f"is not sharded")
            break
        steps.append(state.undo(move))
        moves.pop()
    while target is not None and state.spec_value() != target:
        move = _toward(state, target)
        if move is None:
            break
        steps.append(state.apply(move))
    return Decomposition(tuple(steps), state.spec_value())


def _toward(state, target: Spec) -> _Move | None:
    """A move of a minor mesh axis to the dimension `target` asks it on next."""
    for d, names in enumerate(state.spec):
        if not names or names[-1] in target[d]:
            continue
        a = names[-1]
        for e, wanted in enumerate(target):
            here = tuple(state.spec[e])
            if (e != d and wanted[:len(here) + 1] == here + (a,)
                    and state.local[e] % state.sizes[a] == 0):
                return _Move(a, d, e, None)
    return None


def spec_names(sharding, ndim: int, mesh_sizes: dict[str, int]) -> Spec:
    """A named sharding's (or a PartitionSpec's) spec as mesh-axis tuples per
    dimension, without mesh axes of size 1 (they split nothing)."""
    spec = list(sharding if isinstance(sharding, PartitionSpec) else
                getattr(sharding, "spec", ())) + [None] * ndim
    names = []
    for entry in spec[:ndim]:
        entry = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
        names.append(tuple(a for a in entry if mesh_sizes[a] > 1))
    return tuple(names)


def partition_spec(spec: Spec) -> PartitionSpec:
    return PartitionSpec(*(names or None for names in spec))


def explicit_spec(aval) -> Spec | None:
    """The spec of an abstract value sharded over explicit mesh axes; None
    where nothing names a mesh axis (automatic axes, one device)."""
    sharding = getattr(aval, "sharding", None)
    spec = getattr(sharding, "spec", None)
    if not spec or all(entry is None for entry in spec):
        return None
    return spec_names(sharding, len(aval.shape), dict(sharding.mesh.shape))


def _describe(shape, spec) -> str:
    return f"jax_apple_fft: an array of shape {tuple(shape)} sharded as {tuple(spec)}"


class _State:
    """Each dimension's mesh axes and block length on one device."""

    def __init__(self, shape, spec, mesh_sizes):
        self.sizes = mesh_sizes
        self.spec = [list(names) for names in spec] + [[] for _ in range(len(shape) - len(spec))]
        self.local = [n // math.prod(mesh_sizes[a] for a in names)
                      for n, names in zip(shape, self.spec)]

    def spec_value(self) -> Spec:
        return tuple(tuple(names) for names in self.spec)

    def resize(self, dim: int, length: int) -> None:
        self.local[dim] = length  # a transformed axis is whole

    def apply(self, move: _Move) -> Exchange:
        k = self.sizes[move.mesh_axis]
        padded = None if move.unpadded is None else -(-move.unpadded // k) * k
        self.spec[move.whole].pop()
        self.spec[move.to].append(move.mesh_axis)
        self.local[move.whole] *= k
        self.local[move.to] = (padded or self.local[move.to]) // k
        return Exchange(move.mesh_axis, split_dim=move.to, concat_dim=move.whole,
                        pad_split_to=padded)

    def undo(self, move: _Move) -> Exchange:
        k = self.sizes[move.mesh_axis]
        self.spec[move.to].pop()
        self.spec[move.whole].append(move.mesh_axis)
        self.local[move.whole] //= k
        self.local[move.to] = move.unpadded or self.local[move.to] * k
        return Exchange(move.mesh_axis, split_dim=move.whole, concat_dim=move.to,
                        crop_concat_to=move.unpadded)


def _ready(pending, state, kind, real) -> list[int]:
    """The pending axes to transform now: the whole ones, in an order R2C and
    C2R allow."""
    ready = [a for a in pending if not state.spec[a]]
    if kind == TransformKind.R2C and real in pending and real not in ready:
        return []
    if kind == TransformKind.C2R and real in pending and len(ready) < len(pending):
        return [a for a in ready if a != real]
    return ready


def _to_make_whole(pending, state, kind, real) -> int:
    sharded = [a for a in pending if state.spec[a]]
    if kind == TransformKind.R2C and real in sharded:
        return real
    if kind == TransformKind.C2R and len(sharded) > 1 and real in sharded:
        sharded.remove(real)
    return sharded[-1]


def _place(whole: int, pending, state, axes, target: Spec | None) -> _Move | None:
    """Where `whole`'s minor mesh axis goes, by the rules in the docstring.
    An axis done with takes it first where `target` wants it; one still to
    be transformed, last (the mesh axis moves on from there anyway)."""
    name = state.spec[whole][-1]
    k = state.sizes[name]
    others = [d for d in range(len(state.local)) if d != whole]

    def wanted(d):
        here = tuple(state.spec[d])
        return target is not None and target[d][:len(here) + 1] == here + (name,)

    def rank(d):  # asked for first (last if it must move on); transformed; unsharded; longer
        return (wanted(d) == (d in pending), d not in axes, len(state.spec[d]), -state.local[d])

    free = sorted((d for d in others if d not in pending), key=rank)
    for d in free:
        if state.local[d] % k == 0:
            return _Move(name, whole, d, None)
    if free:
        return _Move(name, whole, free[0], state.local[free[0]])
    held = sorted((d for d in others if d in pending), key=rank)
    for d in held:
        if state.local[d] % k == 0:
            return _Move(name, whole, d, None)
    # Padded while `whole` is transformed, then handed back before its own turn.
    return _Move(name, whole, held[0], state.local[held[0]]) if held else None
