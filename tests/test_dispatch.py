"""A jitted program holding a large transform alone is dispatched to a worker,
as jnp.fft's is, on a machine of enough cores; a small one, or any on fewer
cores, runs inline (docs/dispatch.md). The tests set the core bound around
this machine's count."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from jax_apple_fft.primitive import lowering
from jax_apple_fft.primitive.lowering import ASYNC_DISPATCH_MIN_BYTES
from support.accuracy import assert_accurate

# XLA's CPU client runs a program inline below this many counted flops.
XLA_INLINE_FLOPS = 1000


@pytest.fixture(autouse=True)
def enough_cores(monkeypatch):
    monkeypatch.setattr(lowering, "ASYNC_DISPATCH_MIN_CORES", 1)


def counted_flops(function, *args) -> float:
    # A fresh function each time: a traced or lowered program is cached per function.
    analysis = jax.jit(lambda *v: function(*v)).lower(*args).compile().cost_analysis()
    if isinstance(analysis, (list, tuple)):  # older jax: one dict per computation
        analysis = analysis[0]
    return analysis.get("flops", 0.0)


def complex_input(shape, dtype=np.complex64):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def fft_01(v):
    return af.fftn(v, axes=(0, 1))


# (transform, input, numpy's transform): outputs of 1 MiB, the bound, or more
LARGE = [
    (af.fft, complex_input((64, 2048)), np.fft.fft),
    (af.rfft, np.ones((256, 1024), np.float32), np.fft.rfft),
    (af.irfft, complex_input((128, 1025)), np.fft.irfft),
    (fft_01, complex_input((512, 512)), lambda v: np.fft.fftn(v, axes=(0, 1))),
]
SMALL = [
    (af.fft, complex_input((64, 2047))),                      # just under the bound
    (af.fft, complex_input((64,))),
    (af.rfft, np.ones((255, 1024), np.float32)),
]


def output_bytes(function, x) -> int:
    out = jax.eval_shape(function, x)
    return int(np.prod(out.shape)) * out.dtype.itemsize


@pytest.mark.parametrize("function,x,reference", LARGE)
def test_large_transforms_count_enough_flops_to_be_dispatched(function, x, reference):
    assert output_bytes(function, x) >= ASYNC_DISPATCH_MIN_BYTES
    assert counted_flops(function, x) >= XLA_INLINE_FLOPS


@pytest.mark.parametrize("function,x", SMALL)
def test_small_transforms_stay_inline(function, x):
    assert output_bytes(function, x) < ASYNC_DISPATCH_MIN_BYTES
    assert counted_flops(function, x) < XLA_INLINE_FLOPS


@pytest.mark.parametrize("function,x,reference", LARGE)
def test_dispatched_transforms_are_exact(function, x, reference):
    got = np.asarray(jax.jit(lambda v: function(v))(x))
    want = reference(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
    assert_accurate(got, want, got.dtype, points=x.size)


def test_overwritten_input_is_dispatched_and_exact():
    x = complex_input((256, 1024))
    f = jax.jit(lambda v: af.fft(v, overwrite_x=True), donate_argnums=0)
    want = np.fft.fft(x.astype(np.complex128))
    assert counted_flops(lambda v: af.fft(v, overwrite_x=True), x) >= XLA_INLINE_FLOPS
    assert_accurate(np.asarray(f(jnp.asarray(x))), want, x.dtype, points=1024)


def test_a_large_call_returns_before_its_transform_is_done():
    # About 16 million points: tens of milliseconds on any CPU, against the
    # tens of microseconds a dispatched call takes to return. A call that ran
    # inline would come back ready every time.
    x = jnp.asarray(complex_input((16, 1 << 20)))
    f = jax.jit(lambda v: af.fft(v))
    jax.block_until_ready(f(x))
    ready_at_return = []
    for _ in range(3):
        y = f(x)
        ready_at_return.append(y.is_ready())
        jax.block_until_ready(y)
    assert not all(ready_at_return)


def test_a_small_call_returns_with_its_result():
    x = jnp.asarray(complex_input((64,)))
    f = jax.jit(lambda v: af.fft(v))
    jax.block_until_ready(f(x))
    assert all(f(x).is_ready() for _ in range(5))


def test_on_fewer_cores_large_transforms_stay_inline(monkeypatch):
    monkeypatch.setattr(lowering, "ASYNC_DISPATCH_MIN_CORES", lowering.usable_cores() + 1)
    for function, x, _ in LARGE:
        assert counted_flops(function, x) < XLA_INLINE_FLOPS


def test_the_drop_in_dispatches_large_transforms_too():
    x = complex_input((64, 2048))
    with af.enabled():
        assert counted_flops(jnp.fft.fft, x) >= XLA_INLINE_FLOPS
        assert counted_flops(jnp.fft.fft, complex_input((64,))) < XLA_INLINE_FLOPS
