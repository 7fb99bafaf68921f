"""vmap (several in_axes, nested), jit against eager, and what the jaxpr
records (one primitive per transform, the resolved backend)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from fft_testing import (
    REAL_INPUT,
    expected_dtype,
    make_input,
    numpy_reference,
)
from support.accuracy import assert_accurate

# (name, per-example shape, keyword arguments)
VMAP_CASES = [
    ("fft", (6,), {}),
    ("ifft", (4, 5), {"axis": 0, "norm": "ortho"}),
    ("rfft", (3, 7), {"axis": -1}),
    ("rfft", (8, 3), {"axis": 0, "n": 6}),
    ("irfft", (5,), {"n": 9}),
    ("irfft", (4, 3), {"axis": 0}),
    ("hfft", (2, 4), {"norm": "forward"}),
    ("ihfft", (7,), {}),
    ("fftn", (3, 4, 5), {"axes": (0, 2)}),
    ("rfftn", (3, 4, 5), {"axes": (2, 0), "norm": "ortho"}),
    ("irfftn", (3, 4, 5), {"axes": (1, 0), "s": (5, 4)}),
    ("rfft2", (4, 6), {}),
    ("irfft2", (4, 4), {"s": (4, 7)}),
]
VMAP_IDS = [f"{n}-{s}-{k}" for n, s, k in VMAP_CASES]


def _f(name, kwargs):
    return functools.partial(getattr(af, name), **kwargs)


def _loop(f, xb, in_axis):
    """The unbatched reference: f on each slice, stacked on axis 0."""
    return np.stack([np.asarray(f(np.take(xb, i, axis=in_axis)))
                     for i in range(xb.shape[in_axis])])


@pytest.mark.parametrize("in_axis", (0, 1, -1))
@pytest.mark.parametrize("name,shape,kwargs", VMAP_CASES, ids=VMAP_IDS)
def test_vmap_in_axes(name, shape, kwargs, in_axis, rng):
    f = _f(name, kwargs)
    batch = 3
    full_ndim = len(shape) + 1
    pos = in_axis % full_ndim
    xb_shape = list(shape)
    xb_shape.insert(pos, batch)
    xb = make_input(rng, tuple(xb_shape), "float32", complex_=name not in REAL_INPUT)
    out = jax.vmap(f, in_axes=in_axis)(xb)
    loop = _loop(f, xb, pos)
    assert out.shape == loop.shape
    assert out.dtype == expected_dtype(name, "float32")
    # Same kernels, same lines: batched equals the loop to rounding.
    assert_accurate(out, loop, out.dtype, 64, factor=0.1)
    # And both equal numpy, slice by slice.
    for i in range(batch):
        ref = numpy_reference(name, np.take(xb, i, axis=pos), **kwargs)
        assert_accurate(out[i], ref, out.dtype, int(np.prod(shape)))


@pytest.mark.parametrize("out_axis", (0, 1, -1))
def test_vmap_out_axes(out_axis, rng):
    x = make_input(rng, (4, 3, 6), "float32", complex_=False)
    out = jax.vmap(af.rfft, in_axes=1, out_axes=out_axis)(x)
    ref = np.moveaxis(np.fft.rfft(x.astype(np.float64), axis=-1), 1, out_axis)
    assert_accurate(out, ref, np.complex64, 6)


def test_nested_vmap(rng):
    """vmap over two batch dimensions (inner in_axes=1, outer in_axes=0) of
    a per-example 2-D transform over axes (1, 0)."""
    x = make_input(rng, (2, 5, 3, 4), "float32", complex_=True)  # (outer, a, inner, b)
    f = functools.partial(af.fftn, axes=(1, 0), norm="ortho")
    inner = jax.vmap(f, in_axes=1)          # example (a, b) with batch on axis 1
    outer = jax.vmap(inner, in_axes=0)
    out = outer(x)
    assert out.shape == (2, 3, 5, 4)
    ref = np.fft.fftn(x.astype(np.complex128), axes=(3, 1), norm="ortho")  # over (b, a)
    ref = np.moveaxis(ref, 2, 1)
    assert_accurate(out, ref, np.complex64, 20)
    loop = np.stack([np.stack([np.asarray(f(x[i, :, j, :])) for j in range(3)])
                     for i in range(2)])
    assert_accurate(out, loop, np.complex64, 20, factor=0.1)


def test_vmap_of_grad_and_jit(x64, rng):
    xb = rng.standard_normal((4, 9))
    w = rng.standard_normal(5)

    def loss(module):
        return lambda v: jnp.sum(w * jnp.abs(module.rfft(v, norm="ortho")) ** 2)

    ours = jax.jit(jax.vmap(jax.grad(loss(af))))(xb)
    theirs = jax.vmap(jax.grad(loss(jnp.fft)))(xb)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-10, atol=1e-12)


def test_vmap_records_shifted_axes(rng):
    """Under vmap the transform stays one primitive; its axes move past the
    batch dimension."""
    x = jnp.zeros((4, 3, 6), jnp.float32)
    jaxpr = jax.make_jaxpr(jax.vmap(functools.partial(af.rfftn, axes=(0, 1)), in_axes=1))(x)
    eqns = [e for e in jaxpr.eqns if e.primitive.name == "apple_fft"]
    assert len(eqns) == 1
    assert eqns[0].params["axes"] == (0, 2)
    assert eqns[0].params["lengths"] == (4, 6)


# --------------------------------------------------------------------------
# jit
# --------------------------------------------------------------------------

JIT_CASES = [
    ("fft", (3, 10), {"norm": "ortho"}),
    ("ifft", (10, 3), {"axis": 0, "n": 7}),
    ("rfft", (5, 9), {"n": 12}),
    ("irfft", (4, 6), {"norm": "forward"}),
    ("hfft", (6,), {"n": 11}),
    ("ihfft", (2, 8), {}),
    ("fftn", (3, 4, 5), {"s": (4, 6), "axes": (0, 2)}),
    ("ifftn", (3, 4, 5), {}),
    ("rfftn", (6, 5), {"norm": "forward"}),
    ("irfftn", (6, 5), {"s": (5, 9), "axes": (0, 1)}),
    ("fft2", (2, 3, 4), {}),
    ("irfft2", (3, 4), {"axes": (1, 0)}),
]


@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("name,shape,kwargs", JIT_CASES,
                         ids=[f"{n}-{s}-{k}" for n, s, k in JIT_CASES])
def test_jit_equals_eager(name, shape, kwargs, dtype, rng):
    with jax.enable_x64(dtype == "float64"):
        x = make_input(rng, shape, dtype, complex_=name not in REAL_INPUT)
        f = _f(name, kwargs)
        eager = f(x)
        jitted = jax.jit(f)(x)
        assert jitted.dtype == eager.dtype == expected_dtype(name, dtype)
        np.testing.assert_array_equal(np.asarray(jitted), np.asarray(eager))
        assert_accurate(jitted, numpy_reference(name, x, **kwargs), jitted.dtype, 64)


def test_jit_with_static_arguments(rng):
    x = make_input(rng, (4, 9), "float32", complex_=False)
    f = jax.jit(af.rfft, static_argnames=("n", "axis", "norm"))
    for n, axis, norm in ((None, -1, None), (6, 0, "ortho"), (12, 1, "forward")):
        out = f(x, n=n, axis=axis, norm=norm)
        ref = np.fft.rfft(x.astype(np.float64), n=n, axis=axis, norm=norm)
        assert_accurate(out, ref, np.complex64, 12)


def test_jit_inside_larger_computation(rng):
    """A convolution through rfft/irfft inside one jitted function."""
    a = rng.standard_normal(16).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)

    @jax.jit
    def circular_convolution(u, v):
        return af.irfft(af.rfft(u) * af.rfft(v), n=u.shape[-1])

    out = circular_convolution(a, b)
    ref = np.array([sum(a[j] * b[(i - j) % 16] for j in range(16)) for i in range(16)])
    assert_accurate(out, ref, np.float32, 16, factor=2)


def test_jit_compiled_function_is_reused(rng):
    """Calling a compiled function again does not touch the plan cache."""
    cache = af.PlanCache()
    f = jax.jit(lambda v: af.fft(v, cache=cache))
    x = make_input(rng, (2, 12), "float32", complex_=True)
    first = f(x)
    before = cache.stats()
    for _ in range(3):
        again = f(x)
    after = cache.stats()
    assert (after.hits, after.misses, after.builds) == (before.hits, before.misses, before.builds)
    np.testing.assert_array_equal(np.asarray(first), np.asarray(again))


# --------------------------------------------------------------------------
# The jaxpr
# --------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ("auto", "cpu"))
def test_jaxpr_shows_resolved_backend(backend):
    x = jnp.zeros((4, 8), jnp.float32)
    text = str(jax.make_jaxpr(lambda v: af.rfft(v, backend=backend))(x))
    assert "apple_fft" in text
    assert "backend=cpu" in text
    assert "backend=auto" not in text


@pytest.mark.parametrize("name,kind,forward", [
    ("fft2", "C2C", True),
    ("ifftn", "C2C", False),
    ("rfftn", "R2C", True),
    ("irfftn", "C2R", False),
    ("hfft", "C2R", True),
    ("ihfft", "R2C", False),
])
def test_one_primitive_per_transform(name, kind, forward):
    """A multi-axis transform is a single apple_fft equation, with numpy's
    normalisation fused into its scale."""
    x = jnp.zeros((4, 6, 5), jnp.complex64 if kind != "R2C" else jnp.float32)
    jaxpr = jax.make_jaxpr(lambda v: getattr(af, name)(v, norm="ortho"))(x)
    eqns = [e for e in jaxpr.eqns if e.primitive.name == "apple_fft"]
    assert len(eqns) == 1
    params = eqns[0].params
    assert params["transform"].kind.name == kind
    assert params["transform"].forward is forward
    assert params["backend"] == "cpu"
    assert params["scale"] == pytest.approx(1 / np.sqrt(np.prod(params["lengths"])))
    assert params["cache"].plan_cache() is af.default_cache()
