"""Transforms of sharded arrays, on 8 CPU devices in a child process (the
device count is fixed when jax starts), and across 4 processes. Whole
transformed axes run per shard (inside shard_map too, under its default
checks); sharded ones are distributed with all-to-alls (slab, pencil)."""

from __future__ import annotations

import pathlib

import pytest

from subprocess_testing import CPU_ONLY, check_ok, run_python

# The children compare results with the tests' own helpers.
SUPPORT = f"import sys\nsys.path.insert(0, {str(pathlib.Path(__file__).resolve().parent)!r})\n"

EIGHT_DEVICES = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}

PRELUDE = SUPPORT + """
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
import jax_apple_fft as af
assert jax.device_count() == 8, jax.devices()
mesh = jax.make_mesh((8,), ("x",))
rng = np.random.default_rng(0)
x = (rng.standard_normal((16, 4, 64)) + 1j * rng.standard_normal((16, 4, 64))).astype(np.complex64)
sharded = lambda a: jax.device_put(a, NamedSharding(mesh, P("x")))
per_shard = lambda f: jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
from support.accuracy import assert_agree
"""


def test_transforms_run_per_shard_inside_shard_map():
    check_ok(run_python(PRELUDE + """
cases = [
    (af.fft, x), (af.ifft, x), (lambda v: af.fftn(v, axes=(1, 2)), x),
    (af.rfft, x.real.copy()), (lambda v: af.irfft(v, n=64), x[..., :33].copy()),
    (lambda v: af.rfftn(v, axes=(1, 2)), x.real.copy()),
    (lambda v: af.fft(v, axis=1, norm="ortho"), x),
]
for f, a in cases:
    assert_agree(per_shard(f)(sharded(a)), jax.jit(f)(a))
    # Each device transforms its own shard: no data moves between devices.
    text = per_shard(f).lower(sharded(a)).compile().as_text()
    assert not any(op in text for op in ("all-gather", "all-to-all", "collective-permute")), text
""", env=EIGHT_DEVICES))


def test_gradients_and_vmap_inside_shard_map():
    # The cotangent of a per-shard transform varies over the mesh axis as its
    # input does; a result that dropped the input's vma failed here.
    check_ok(run_python(PRELUDE + """
loss = lambda v: jnp.sum(jnp.abs(af.fft(v)) ** 2)
assert_agree(per_shard(jax.grad(loss))(sharded(x)), jax.grad(loss)(x))
real_loss = lambda v: jnp.sum(af.rfft(v).real * 3.0)
r = x.real.copy()
assert_agree(per_shard(jax.grad(real_loss))(sharded(r)), jax.grad(real_loss)(r))
batched = jax.vmap(lambda v: af.fftn(v, axes=(0, 1)))
assert_agree(per_shard(batched)(sharded(x)), batched(x))
""", env=EIGHT_DEVICES))


def test_result_keeps_the_input_sharding():
    check_ok(run_python(PRELUDE + """
for f, a in [(af.fft, x), (af.rfft, x.real.copy()), (lambda v: af.irfft(v, n=64), x[..., :33].copy())]:
    out = jax.jit(f)(sharded(a))
    assert out.sharding.spec == P("x", None, None), out.sharding
    assert_agree(out, jax.jit(f)(a))
""", env=EIGHT_DEVICES))


def test_jit_transforms_each_shard_without_collectives():
    # Under plain jit the partitioner splits the custom call by its rule: the
    # untransformed axes keep their sharding and nothing moves between devices.
    check_ok(run_python(PRELUDE + """
cases = [
    (af.fft, x), (af.ifft, x), (lambda v: af.fftn(v, axes=(1, 2)), x),
    (af.rfft, x.real.copy()), (lambda v: af.irfft(v, n=64), x[..., :33].copy()),
    (lambda v: af.rfftn(v, axes=(1, 2), norm="ortho"), x.real.copy()),
    (lambda v: af.fft(v, overwrite_x=True), x),
]
for f, a in cases:
    g = jax.jit(f)
    out = g(sharded(a))
    assert_agree(out, jax.jit(f)(a))
    assert out.sharding.spec[0] == "x", out.sharding
    text = g.lower(sharded(a)).compile().as_text()
    assert not any(op in text for op in ("all-gather", "all-to-all", "collective-permute")), text
# grad under jit keeps it per shard
loss = lambda v: jnp.sum(jnp.abs(af.fft(v)) ** 2)
assert_agree(jax.jit(jax.grad(loss))(sharded(x)), jax.grad(loss)(x))
# and so does the drop-in for jnp.fft
with af.enabled():
    g = jax.jit(jnp.fft.rfft)
    assert_agree(g(sharded(x.real.copy())), np.fft.rfft(x.real).astype(np.complex64))
    text = g.lower(sharded(x.real.copy())).compile().as_text()
    assert "jax_apple_fft_cpu" in text
    assert not any(op in text for op in ("all-gather", "all-to-all", "collective-permute")), text
""", env=EIGHT_DEVICES))


DISTRIBUTED = PRELUDE + """
from jax.sharding import AxisType
import itertools
COLLECTIVES = ("all-gather", "all-to-all", "collective-permute", "all-reduce")
def collectives(g, a):
    text = g.lower(a).compile().as_text()
    return {op: text.count(op + "(") for op in COLLECTIVES}
def meshes(axis_type):
    return (jax.make_mesh((8,), ("x",), axis_types=(axis_type,)),
            jax.make_mesh((4, 2), ("x", "y"), axis_types=(axis_type,) * 2))
c = (rng.standard_normal((16, 8, 24)) + 1j * rng.standard_normal((16, 8, 24))).astype(np.complex64)
r = c.real.copy()
"""


@pytest.mark.slow
def test_fftn_over_sharded_axes_is_distributed_with_all_to_alls():
    # Slab (1-D mesh) and pencil (2-D mesh) decompositions, every kind and
    # norm, explicit and automatic mesh axes: equal to numpy, no gather.
    check_ok(run_python(DISTRIBUTED + """
for axis_type in (AxisType.Explicit, AxisType.Auto):
    slab_mesh, pencil_mesh = meshes(axis_type)
    layouts = [(slab_mesh, P("x")), (slab_mesh, P(None, "x")), (pencil_mesh, P("x", "y")),
               (pencil_mesh, P(("x", "y")))]
    for (m, spec), norm in itertools.product(layouts, (None, "ortho", "forward")):
        cases = [  # function, input, numpy's result, transformed axes
            (lambda v: af.fftn(v, norm=norm), c, np.fft.fftn(c, norm=norm), (0, 1, 2)),
            (lambda v: af.ifftn(v, norm=norm), c, np.fft.ifftn(c, norm=norm), (0, 1, 2)),
            (lambda v: af.rfftn(v, norm=norm), r, np.fft.rfftn(r, norm=norm), (0, 1, 2)),
            (lambda v: af.irfftn(v, s=(16, 8, 24), norm=norm), c[..., :13].copy(),
             np.fft.irfftn(c[..., :13], s=(16, 8, 24), axes=(0, 1, 2), norm=norm), (0, 1, 2)),
            (lambda v: af.fftn(v, axes=(0, 2), norm=norm), c,
             np.fft.fftn(c, axes=(0, 2), norm=norm), (0, 2)),
        ]
        for f, a, want, axes in cases:
            xs = jax.device_put(a, NamedSharding(m, spec))
            g = jax.jit(f)
            out = g(xs)
            assert_agree(out, want.astype(out.dtype))
            ops = collectives(g, xs)
            assert ops["all-gather"] == ops["collective-permute"] == ops["all-reduce"] == 0, ops
            sharded = any(i in axes and entry is not None for i, entry in enumerate(spec))
            assert (ops["all-to-all"] >= 2) == sharded, (spec, axes, ops)
            if axis_type == AxisType.Explicit:
                assert out.sharding.spec[:2] == spec[:2] or out.sharding.spec[0] == spec[0], (
                    spec, out.sharding.spec)
""", env=EIGHT_DEVICES, timeout=900))


@pytest.mark.slow
def test_uneven_half_spectra_gradients_and_the_inverse():
    check_ok(run_python(DISTRIBUTED + """
slab_mesh, pencil_mesh = meshes(AxisType.Explicit)
# 2-D rfftn sharded on axis 0: the 25 bins of the real axis are padded for the exchange.
w = rng.standard_normal((16, 48)).astype(np.float32)
ws = jax.device_put(w, NamedSharding(slab_mesh, P("x")))
spectrum = jax.jit(af.rfftn)(ws)
assert_agree(spectrum, np.fft.rfftn(w).astype(np.complex64))
assert spectrum.sharding.spec == P("x", None), spectrum.sharding
back = jax.jit(lambda v: af.irfftn(v, s=w.shape))(spectrum)
assert_agree(back, w)
# The real axis sharded: its mesh axis stays on another axis, no gather.
rs = jax.device_put(r, NamedSharding(slab_mesh, P(None, None, "x")))
out = jax.jit(af.rfftn)(rs)
assert_agree(out, np.fft.rfftn(r).astype(np.complex64))
assert "x" in out.sharding.spec and out.sharding.spec[2] is None, out.sharding
assert collectives(jax.jit(af.rfftn), rs)["all-gather"] == 0
# The inverse undoes the forward, and gradients flow through the exchanges.
cs = jax.device_put(c, NamedSharding(pencil_mesh, P("x", "y")))
assert_agree(jax.jit(lambda v: af.ifftn(af.fftn(v)))(cs), c)
weights = jnp.arange(24.0)
loss = lambda v: jnp.sum(jnp.abs(af.fftn(v) * weights) ** 2)
assert_agree(jax.jit(jax.grad(loss))(cs), jax.grad(loss)(c))
real_loss = lambda v: jnp.sum(jnp.abs(af.rfftn(v)) ** 2)
assert_agree(jax.jit(jax.grad(real_loss))(jax.device_put(r, NamedSharding(slab_mesh, P("x")))),
      jax.grad(real_loss)(r))
assert collectives(jax.jit(jax.grad(loss)), cs)["all-gather"] == 0
""", env=EIGHT_DEVICES, timeout=900))


@pytest.mark.slow
def test_out_sharding_takes_the_transposed_layout_with_one_exchange():
    check_ok(run_python(DISTRIBUTED + """
for axis_type in (AxisType.Explicit, AxisType.Auto):
    slab_mesh, pencil_mesh = meshes(axis_type)
    transposed = NamedSharding(slab_mesh, P(None, "x"))
    cs = jax.device_put(c, NamedSharding(slab_mesh, P("x")))
    forward = jax.jit(lambda v: af.fftn(v, out_sharding=transposed))
    y = forward(cs)
    assert_agree(y, np.fft.fftn(c).astype(np.complex64))
    assert y.sharding.spec[:2] == (None, "x"), y.sharding
    assert collectives(forward, cs) == {"all-gather": 0, "all-to-all": 1, "collective-permute": 0,
                                        "all-reduce": 0}, collectives(forward, cs)
    back = jax.jit(lambda v: af.ifftn(v, out_sharding=NamedSharding(slab_mesh, P("x"))))
    assert_agree(back(y), c)
    assert collectives(back, y)["all-to-all"] == 1
    # Pencil: P("x", "y") to P(None, "x", "y") in two exchanges.
    ps = jax.device_put(c, NamedSharding(pencil_mesh, P("x", "y")))
    pencil = jax.jit(lambda v: af.fftn(v, out_sharding=NamedSharding(pencil_mesh, P(None, "x", "y"))))
    assert_agree(pencil(ps), np.fft.fftn(c).astype(np.complex64))
    assert collectives(pencil, ps)["all-to-all"] == 2
    # A layout the exchanges do not pass through is resharded to; rfft2 too.
    other = jax.jit(lambda v: af.rfft2(v, axes=(0, 1), out_sharding=NamedSharding(slab_mesh, P(None, None, "x"))))
    rs = jax.device_put(r, NamedSharding(slab_mesh, P("x")))
    out = other(rs)
    assert_agree(out, np.fft.rfft2(r, axes=(0, 1)).astype(np.complex64))
    assert out.sharding.spec[2] == "x" and collectives(other, rs)["all-gather"] == 0
    # Gradients come back in the operand's layout.
    loss = lambda v: jnp.sum(jnp.abs(af.fftn(v, out_sharding=transposed) * jnp.arange(24.0)) ** 2)
    assert_agree(jax.jit(jax.grad(loss))(cs), jax.grad(lambda v: jnp.sum(jnp.abs(af.fftn(v) * jnp.arange(24.0)) ** 2))(c))
# Automatic axes: an R2C over its sharded real axis, whose result the
# partitioner would replicate (an all-gather after it), stays distributed.
auto_mesh, _ = meshes(AxisType.Auto)
rs = jax.device_put(r, NamedSharding(auto_mesh, P(None, None, "x")))
kept = jax.jit(lambda v: af.rfftn(v, out_sharding=NamedSharding(auto_mesh, P("x"))))
assert_agree(kept(rs), np.fft.rfftn(r).astype(np.complex64))
assert collectives(kept, rs)["all-gather"] == 0 and collectives(kept, rs)["all-to-all"] == 2
# A PartitionSpec takes the operand's mesh (explicit axes)
slab_mesh, _ = meshes(AxisType.Explicit)
cs = jax.device_put(c, NamedSharding(slab_mesh, P("x")))
assert jax.jit(lambda v: af.fft2(v, axes=(0, 1), out_sharding=P(None, "x")))(cs).sharding.spec[:2] == (None, "x")
""", env=EIGHT_DEVICES, timeout=900))


def test_gradient_of_a_real_transform_over_its_sharded_real_axis():
    # Explicit axes: the cotangent must come back in the operand's layout;
    # the forward left the mesh axis elsewhere (the half spectrum does not
    # split over 8 devices). Failed with "Expected cotangent type
    # float32[16,8,24@x] but got float32[16@x,8,24]".
    check_ok(run_python(DISTRIBUTED + """
slab_mesh, _ = meshes(AxisType.Explicit)
rs = jax.device_put(r, NamedSharding(slab_mesh, P(None, None, "x")))
loss = lambda v: jnp.sum(jnp.abs(af.rfftn(v)) ** 2)
g = jax.jit(jax.grad(loss))(rs)
assert g.sharding.spec == P(None, None, "x"), g.sharding
assert_agree(g, jax.grad(loss)(r))
""", env=EIGHT_DEVICES))


def test_what_cannot_be_distributed_raises_instead_of_gathering():
    # Automatic axes: raised by the partitioner inside XLA's compiler, and
    # raised again from XLA's error as the UnsupportedError it was.
    check_ok(run_python(DISTRIBUTED + """
from jax_apple_fft.errors import UnsupportedError
line = c.reshape(-1)
for axis_type in (AxisType.Explicit, AxisType.Auto):
    slab_mesh, _ = meshes(axis_type)
    try:
        jax.jit(af.fft)(jax.device_put(line, NamedSharding(slab_mesh, P("x"))))
    except UnsupportedError as e:
        assert "reshard so that axis 0 is not sharded" in str(e) and "Traceback" not in str(e), e
    else:
        raise AssertionError("a 1-D transform of a sharded line was gathered")
""", env=EIGHT_DEVICES))


@pytest.mark.slow
def test_drop_in_gives_jnp_results_for_every_sharded_case():
    # enable() never breaks working code: the layouts above, and one the
    # decomposition refuses (a sharded line, gathered as XLA does), give through
    # jnp.fft what stock JAX gives, with explicit and automatic mesh axes.
    check_ok(run_python(DISTRIBUTED + """
line = c.reshape(-1)
fftn_02 = lambda v: jnp.fft.fftn(v, axes=(0, 2), norm="ortho")
irfftn = lambda v: jnp.fft.irfftn(v, s=(16, 8, 24))
for axis_type in (AxisType.Explicit, AxisType.Auto):
    slab_mesh, pencil_mesh = meshes(axis_type)
    cases = [(m, spec, f, a) for m, spec in [(slab_mesh, P("x")), (slab_mesh, P(None, "x")),
                                             (pencil_mesh, P("x", "y")),
                                             (pencil_mesh, P(("x", "y")))]
             for f, a in [(jnp.fft.fftn, c), (jnp.fft.ifftn, c), (jnp.fft.rfftn, r),
                          (irfftn, c[..., :13].copy()), (fftn_02, c)]]
    cases += [(slab_mesh, P("x"), jnp.fft.fft, line), (pencil_mesh, P("x", "y"), jnp.fft.ifft2, c)]
    if axis_type == AxisType.Auto:  # explicit axes: JAX refuses the 13 bins over 8 devices
        cases.append((slab_mesh, P(None, None, "x"), jnp.fft.rfft, r))
    for m, spec, f, a in cases:
        xs = jax.device_put(a, NamedSharding(m, spec))
        stock = jax.jit(f)(xs)
        with af.enabled():
            compiled = jax.jit(f).lower(xs).compile()
        assert "jax_apple_fft_cpu" in compiled.as_text()
        ours = compiled(xs)
        assert_agree(ours, stock)
        assert ours.sharding.is_equivalent_to(stock.sharding, a.ndim), (ours.sharding, stock.sharding)
""", env=EIGHT_DEVICES))


MULTI_PROCESS_WORKER = SUPPORT + """
process, processes, port = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
import jax
jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.config.update("jax_num_cpu_devices", 2)
jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=processes,
                           process_id=process)
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import NamedSharding, PartitionSpec as P
import jax_apple_fft as af
from support.accuracy import assert_accurate
assert jax.device_count() == 2 * processes and jax.local_device_count() == 2
mesh = jax.make_mesh((processes, 2), ("x", "y"))
rng = np.random.default_rng(0)
x = (rng.standard_normal((16, 8, 12)) + 1j * rng.standard_normal((16, 8, 12))).astype(np.complex64)
want = np.fft.fftn(x)
for spec in (P(("x", "y")), P("x", "y")):  # slab over all devices, pencil
    xs = jax.make_array_from_callback(x.shape, NamedSharding(mesh, spec), lambda i: x[i])
    got = multihost_utils.process_allgather(jax.jit(af.fftn)(xs), tiled=True)
    assert_accurate(got, want, np.complex64, x.size)
    print("ok", spec, flush=True)
jax.distributed.shutdown()
"""


@pytest.mark.slow
def test_distributed_fftn_across_processes():
    # Four processes of two CPU devices each, one mesh, gloo collectives.
    import os
    import socket
    import subprocess
    import sys
    import tempfile
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    children = [subprocess.Popen([sys.executable, "-c", MULTI_PROCESS_WORKER, str(i), "4", port],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 cwd=tempfile.gettempdir(), env={**os.environ, **CPU_ONLY})
                for i in range(4)]
    outputs = [child.communicate(timeout=600)[0] for child in children]
    for child, output in zip(children, outputs):
        assert child.returncode == 0 and output.count("ok") == 2, output[-3000:]
