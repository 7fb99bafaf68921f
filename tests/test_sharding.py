"""Transforms of sharded arrays, on 8 CPU devices in a child process (the
device count is fixed when jax starts). The primitive's result keeps the
input's sharding and varying manual axes, so it runs per shard inside
shard_map under its default checks, and differentiates there."""

from __future__ import annotations

from subprocess_testing import check_ok, run_python

EIGHT_DEVICES = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}

PRELUDE = """
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
import jax_apple_fft as af
assert jax.device_count() == 8, jax.devices()
mesh = jax.make_mesh((8,), ("x",))
rng = np.random.default_rng(0)
x = (rng.standard_normal((16, 4, 64)) + 1j * rng.standard_normal((16, 4, 64))).astype(np.complex64)
sharded = lambda a: jax.device_put(a, NamedSharding(mesh, P("x")))
per_shard = lambda f: jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
def close(a, b, tol=1e-4):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    assert np.max(np.abs(a - b)) <= tol * max(1.0, np.max(np.abs(b))), np.max(np.abs(a - b))
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
    close(per_shard(f)(sharded(a)), jax.jit(f)(a))
    # Each device transforms its own shard: no data moves between devices.
    text = per_shard(f).lower(sharded(a)).compile().as_text()
    assert not any(op in text for op in ("all-gather", "all-to-all", "collective-permute")), text
""", env=EIGHT_DEVICES))


def test_gradients_and_vmap_inside_shard_map():
    # The cotangent of a per-shard transform varies over the mesh axis as its
    # input does; a result that dropped the input's vma failed here.
    check_ok(run_python(PRELUDE + """
loss = lambda v: jnp.sum(jnp.abs(af.fft(v)) ** 2)
close(per_shard(jax.grad(loss))(sharded(x)), jax.grad(loss)(x))
real_loss = lambda v: jnp.sum(af.rfft(v).real * 3.0)
r = x.real.copy()
close(per_shard(jax.grad(real_loss))(sharded(r)), jax.grad(real_loss)(r))
batched = jax.vmap(lambda v: af.fftn(v, axes=(0, 1)))
close(per_shard(batched)(sharded(x)), batched(x))
""", env=EIGHT_DEVICES))


def test_result_keeps_the_input_sharding():
    check_ok(run_python(PRELUDE + """
for f, a in [(af.fft, x), (af.rfft, x.real.copy()), (lambda v: af.irfft(v, n=64), x[..., :33].copy())]:
    out = jax.jit(f)(sharded(a))
    assert out.sharding.spec == P("x", None, None), out.sharding
    close(out, jax.jit(f)(a))
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
    close(out, jax.jit(f)(a))
    assert out.sharding.spec[0] == "x", out.sharding
    text = g.lower(sharded(a)).compile().as_text()
    assert not any(op in text for op in ("all-gather", "all-to-all", "collective-permute")), text
# grad under jit keeps it per shard
loss = lambda v: jnp.sum(jnp.abs(af.fft(v)) ** 2)
close(jax.jit(jax.grad(loss))(sharded(x)), jax.grad(loss)(x))
# and so does the drop-in for jnp.fft
with af.enabled():
    g = jax.jit(jnp.fft.rfft)
    close(g(sharded(x.real.copy())), np.fft.rfft(x.real).astype(np.complex64))
    text = g.lower(sharded(x.real.copy())).compile().as_text()
    assert "jax_apple_fft_cpu" in text
    assert not any(op in text for op in ("all-gather", "all-to-all", "collective-permute")), text
""", env=EIGHT_DEVICES))


def test_a_sharded_transformed_axis_is_made_whole_first():
    # Not yet distributed: the partitioner gathers a sharded transformed axis
    # before the transform. The real axis of R2C changes length, so the result
    # is not sharded along it.
    check_ok(run_python(PRELUDE + """
along = lambda a: jax.device_put(a, NamedSharding(mesh, P(None, None, "x")))
close(jax.jit(af.fft)(along(x)), np.fft.fft(x).astype(np.complex64))
out = jax.jit(af.rfft)(along(x.real.copy()))
close(out, np.fft.rfft(x.real).astype(np.complex64))
assert out.sharding.spec[2] is None, out.sharding
""", env=EIGHT_DEVICES))
