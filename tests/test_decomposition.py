"""The decomposition of a transform over sharded axes (primitive/decomposition.py),
checked without devices: each plan is run on numpy blocks, one per device of
a simulated mesh, with all-to-alls done by hand, and the reassembled result
is compared with numpy's transform of the whole array."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from jax_apple_fft.errors import UnsupportedError
from jax_apple_fft.primitive.decomposition import Exchange, LocalTransform, plan
from jax_apple_fft.primitive.transform_kind import TransformKind

C2C, R2C, C2R = TransformKind.C2C, TransformKind.R2C, TransformKind.C2R


def _block_slices(shape, spec, sizes, coords):
    """The slices of the global array one device holds."""
    slices = []
    for n, names in zip(shape, spec):
        parts = math.prod(sizes[a] for a in names)
        index = 0
        for a in names:  # major first
            index = index * sizes[a] + coords[a]
        slices.append(slice(index * (n // parts), (index + 1) * (n // parts)))
    return tuple(slices)


def _local(x, step: LocalTransform, forward: bool):
    axes, lengths = list(step.axes), list(step.lengths)
    if step.kind == R2C:
        y = np.fft.rfftn(x, s=lengths, axes=axes)
    elif step.kind == C2R:
        y = np.fft.irfftn(x, s=lengths, axes=axes, norm="forward")  # unscaled
    else:
        y = np.fft.fftn(x, axes=axes) if forward else np.fft.ifftn(x, axes=axes, norm="forward")
    return y * step.scale


def _exchange(blocks, step: Exchange, sizes):
    k = sizes[step.mesh_axis]
    out = {}
    for coords, block in blocks.items():
        if step.pad_split_to is not None:
            widths = [(0, 0)] * block.ndim
            widths[step.split_dim] = (0, step.pad_split_to - block.shape[step.split_dim])
            block = np.pad(block, widths)
        blocks[coords] = block
    for coords in blocks:
        group = [coords_with(coords, step.mesh_axis, i) for i in range(k)]
        j = dict(coords)[step.mesh_axis]
        pieces = [np.array_split(blocks[c], k, axis=step.split_dim)[j] for c in group]
        y = np.concatenate(pieces, axis=step.concat_dim)
        if step.crop_concat_to is not None:
            y = np.take(y, range(step.crop_concat_to), axis=step.concat_dim)
        out[coords] = y
    return out


def coords_with(coords, name, value):
    return tuple((a, value if a == name else c) for a, c in coords)


def run_plan(x, spec, sizes, *, kind, forward, axes, lengths, scale=1.0, target=None):
    """The plan's result on `x` distributed over the simulated mesh, reassembled."""
    decomposition = plan(x.shape, spec, sizes, kind=kind, axes=axes, lengths=lengths,
                         scale=scale, target=target)
    names = list(sizes)
    devices = [tuple(zip(names, c)) for c in itertools.product(*(range(sizes[a]) for a in names))]
    blocks = {d: x[_block_slices(x.shape, spec, sizes, dict(d))] for d in devices}
    for step in decomposition.steps:
        if isinstance(step, Exchange):
            blocks = _exchange(blocks, step, sizes)
        else:
            blocks = {d: _local(b, step, forward) for d, b in blocks.items()}
    any_block = next(iter(blocks.values()))
    parts = [math.prod(sizes[a] for a in names) for names in decomposition.out_spec]
    shape = [n * p for n, p in zip(any_block.shape, parts)]
    out = np.zeros(shape, any_block.dtype)
    for d, b in blocks.items():
        out[_block_slices(shape, decomposition.out_spec, sizes, dict(d))] = b
    return out, decomposition


def _reference(x, kind, forward, axes, lengths):
    if kind == R2C:
        return np.fft.rfftn(x, s=lengths, axes=axes)
    if kind == C2R:
        return np.fft.irfftn(x, s=lengths, axes=axes, norm="forward")
    return np.fft.fftn(x, axes=axes) if forward else np.fft.ifftn(x, axes=axes, norm="forward")


def _input(shape, kind, axes, lengths, rng):
    if kind == C2R:
        shape = list(shape)
        shape[axes[-1]] = lengths[-1] // 2 + 1
    x = rng.standard_normal(shape)
    return x if kind == R2C else x + 1j * rng.standard_normal(shape)


X, Y = ("x",), ("y",)
CASES = [  # shape, spec, mesh sizes, axes
    ((16, 8, 12), (X, (), ()), {"x": 8}, (0, 1, 2)),  # slab
    ((16, 8, 12), ((), X, ()), {"x": 4}, (0, 1, 2)),
    ((8, 8, 12), (X, Y, ()), {"x": 4, "y": 2}, (0, 1, 2)),  # pencil
    ((8, 8, 12), (X + Y, (), ()), {"x": 2, "y": 4}, (0, 1, 2)),
    ((8, 12), (X, Y), {"x": 2, "y": 2}, (0, 1)),  # both axes of a 2-D array
    ((16, 32), (X, ()), {"x": 8}, (0, 1)),  # R2C: 17 bins padded to 24 for 8 devices
    ((6, 8, 10), ((), (), X), {"x": 2}, (0, 1, 2)),  # the real axis sharded
    ((4, 16, 6), (X, Y, ()), {"x": 2, "y": 2}, (1, 2)),  # a sharded batch axis
    ((4, 16, 10), (X, (), ()), {"x": 4}, (1,)),  # batch moves to the transformed axis
]


@pytest.mark.parametrize("shape,spec,sizes,axes", CASES)
@pytest.mark.parametrize("kind,forward", [(C2C, True), (C2C, False), (R2C, True), (C2R, False)])
def test_plans_equal_the_whole_transform(shape, spec, sizes, axes, kind, forward):
    rng = np.random.default_rng(len(shape) * 7 + kind.value)
    lengths = tuple(shape[a] for a in axes)
    x = _input(shape, kind, axes, lengths, rng)
    if kind == C2R and x.shape[axes[-1]] % math.prod(sizes[a] for a in spec[axes[-1]]):
        with pytest.raises(UnsupportedError, match="unevenly"):
            run_plan(x, spec, sizes, kind=kind, forward=forward, axes=axes, lengths=lengths)
        return
    got, decomposition = run_plan(x, spec, sizes, kind=kind, forward=forward, axes=axes,
                                  lengths=lengths, scale=0.5)
    want = 0.5 * _reference(x, kind, forward, axes, lengths)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
    transforms = [s for s in decomposition.steps if isinstance(s, LocalTransform)]
    assert sorted(a for s in transforms for a in s.axes) == sorted(axes)
    assert [s.scale for s in transforms].count(0.5) == 1 and math.prod(
        s.scale for s in transforms) == 0.5
    if kind == C2C:
        assert decomposition.out_spec == spec  # the operand's layout comes back


def test_slab_is_two_exchanges_and_stops_at_the_transposed_layout_when_asked():
    x = _input((16, 8, 12), C2C, (0, 1, 2), (16, 8, 12), np.random.default_rng(1))
    args = dict(kind=C2C, forward=True, axes=(0, 1, 2), lengths=(16, 8, 12))
    _, same = run_plan(x, (X, (), ()), {"x": 8}, **args)
    assert [type(s) for s in same.steps] == [LocalTransform, Exchange, LocalTransform, Exchange]
    got, transposed = run_plan(x, (X, (), ()), {"x": 8}, target=((), X, ()), **args)
    assert [type(s) for s in transposed.steps] == [LocalTransform, Exchange, LocalTransform]
    assert transposed.out_spec == ((), X, ())
    np.testing.assert_allclose(got, np.fft.fftn(x), rtol=1e-10, atol=1e-9)


def test_a_transposed_pencil_is_two_exchanges():
    x = _input((8, 8, 12), C2C, (0, 1, 2), (8, 8, 12), np.random.default_rng(5))
    got, d = run_plan(x, (X, Y, ()), {"x": 4, "y": 2}, kind=C2C, forward=True, axes=(0, 1, 2),
                      lengths=(8, 8, 12), target=((), X, Y))
    assert sum(isinstance(s, Exchange) for s in d.steps) == 2 and d.out_spec == ((), X, Y)
    np.testing.assert_allclose(got, np.fft.fftn(x), rtol=1e-10, atol=1e-9)


def test_a_layout_no_undo_reaches_is_reached_by_moves_where_they_split_evenly():
    # C2R back to the operand of an R2C whose real axis was sharded: the
    # forward left the mesh axis on axis 0; the inverse ends with it on axis 2.
    spectrum = _input((8, 6, 12), C2R, (0, 1, 2), (8, 6, 12), np.random.default_rng(6))
    got, d = run_plan(spectrum, (X, (), ()), {"x": 4}, kind=C2R, forward=False, axes=(0, 1, 2),
                      lengths=(8, 6, 12), target=((), (), X))
    assert d.out_spec == ((), (), X)
    np.testing.assert_allclose(got, _reference(spectrum, C2R, False, (0, 1, 2), (8, 6, 12)),
                               rtol=1e-10, atol=1e-9)


def test_pencil_is_four_exchanges():
    _, d = run_plan(_input((8, 8, 12), C2C, (0, 1, 2), (8, 8, 12), np.random.default_rng(2)),
                    (X, Y, ()), {"x": 4, "y": 2}, kind=C2C, forward=True, axes=(0, 1, 2),
                    lengths=(8, 8, 12))
    assert sum(isinstance(s, Exchange) for s in d.steps) == 4


def test_a_half_spectrum_that_does_not_split_is_padded_and_cropped():
    _, d = run_plan(_input((16, 32), R2C, (0, 1), (16, 32), np.random.default_rng(3)),
                    (X, ()), {"x": 8}, kind=R2C, forward=True, axes=(0, 1), lengths=(16, 32))
    exchanges = [s for s in d.steps if isinstance(s, Exchange)]
    assert exchanges[0].pad_split_to == 24 and exchanges[-1].crop_concat_to == 17


def test_a_sharded_real_axis_leaves_its_mesh_axis_where_it_went():
    # 10 // 2 + 1 = 6 bins do not split over 4 devices: the result stays sharded elsewhere.
    _, d = run_plan(np.random.default_rng(4).standard_normal((8, 6, 12)), ((), (), X), {"x": 4},
                    kind=R2C, forward=True, axes=(0, 1, 2), lengths=(8, 6, 12))
    assert d.out_spec[2] == () and X in d.out_spec


@pytest.mark.parametrize("shape,spec,sizes,axes,match", [
    ((64,), (X,), {"x": 8}, (0,), "reshard so that axis 0 is not sharded"),
    ((12, 8), (X, ()), {"x": 8}, (0, 1), "unevenly"),
])
def test_what_cannot_be_decomposed_says_what_to_reshard(shape, spec, sizes, axes, match):
    with pytest.raises(UnsupportedError, match=match):
        plan(shape, spec, sizes, kind=C2C, axes=axes, lengths=tuple(shape[a] for a in axes),
             scale=1.0)


def test_unsharded_transformed_axes_need_no_exchange():
    d = plan((16, 8, 12), (X, (), ()), {"x": 8}, kind=C2C, axes=(1, 2), lengths=(8, 12),
             scale=1.0)
    assert d.steps == (LocalTransform(C2C, (1, 2), (8, 12), 1.0),) and d.out_spec == (X, (), ())
