"""grad, jvp and vmap through the Metal path, using the primitive's own
transpose and batching rules. float32 only (Metal has no float64), so the
numerical checks use a step of 1: the transforms are linear, and central
differences of a linear map are exact up to rounding."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jax_apple_fft as af
from metal_backend_testing import complex_input, real_input
from support.accuracy import assert_accurate

REAL_INPUT = {"rfft", "ihfft", "rfftn"}

GRAD_CASES = [
    ("fft", (6,), {}),
    ("ifft", (5,), {"norm": "ortho"}),
    ("rfft", (6,), {}),
    ("rfft", (5,), {"norm": "forward"}),
    ("irfft", (4,), {}),
    ("irfft", (3,), {"n": 5}),
    ("hfft", (4,), {"norm": "ortho"}),
    ("ihfft", (5,), {}),
    ("fftn", (3, 4), {}),
    ("rfftn", (3, 4), {}),
    ("irfftn", (3, 3), {"s": (3, 4)}),
]


def transform(name, backend, cache, kwargs):
    return functools.partial(getattr(af, name), backend=backend, cache=cache, **kwargs)


def make(rng, name, shape):
    return real_input(rng, shape) if name in REAL_INPUT else complex_input(rng, shape)


@pytest.mark.parametrize("name,shape,kwargs", GRAD_CASES)
def test_check_grads(name, shape, kwargs, backend, cache, rng):
    f = transform(name, backend, cache, kwargs)
    check_grads(f, (make(rng, name, shape),), order=2, modes=("fwd", "rev"), eps=1.0,
                atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("name,shape,kwargs", GRAD_CASES)
def test_transpose_dot_product(name, shape, kwargs, backend, cache, rng):
    """Re(sum(f(x) * y)) == Re(sum(x * f^T(y)))."""
    f = transform(name, backend, cache, kwargs)
    x = make(rng, name, shape)
    fx = f(x)
    y = complex_input(rng, fx.shape) if jnp.iscomplexobj(fx) else real_input(rng, fx.shape)
    (ft_y,) = jax.linear_transpose(f, x)(y)
    assert ft_y.shape == x.shape and ft_y.dtype == x.dtype
    pairing = lambda a, b: float(np.real(np.sum(np.asarray(a, np.complex128) *
                                                np.asarray(b, np.complex128))))
    scale = np.linalg.norm(np.asarray(fx)) * np.linalg.norm(y) + 1.0
    assert abs(pairing(fx, y) - pairing(x, ft_y)) <= 1e-5 * scale


def test_gradient_matches_jax_numpy(backend, cache, rng):
    x = real_input(rng, (4, 6))
    loss = lambda fft: lambda v: jnp.sum(jnp.abs(fft(v)) ** 2)
    ours = jax.grad(loss(functools.partial(af.rfft2, backend=backend, cache=cache)))(x)
    theirs = jax.grad(loss(jnp.fft.rfft2))(x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


def test_vmap_joins_the_batch(backend, cache, rng):
    x = complex_input(rng, (3, 4, 8))
    f = jax.vmap(functools.partial(af.fft, backend=backend, cache=cache), in_axes=1)
    jaxpr = jax.make_jaxpr(f)(x)
    eqns = [e for e in jaxpr.eqns if e.primitive.name == "apple_fft"]
    assert len(eqns) == 1 and eqns[0].params["backend"] == backend
    assert_accurate(f(x), np.moveaxis(np.fft.fft(x.astype(np.complex128)), 1, 0), np.complex64, 96)


def test_vmap_of_multi_axis_real_transform(backend, cache, rng):
    x = real_input(rng, (2, 4, 6))
    got = jax.vmap(functools.partial(af.rfftn, backend=backend, cache=cache))(x)
    assert_accurate(got, np.fft.rfftn(x.astype(np.float64), axes=(1, 2)), np.complex64, 48)


def test_jit_reuses_the_compiled_call(backend, cache, rng):
    f = jax.jit(functools.partial(af.ifft, backend=backend, cache=cache))
    for _ in range(3):
        x = complex_input(rng, (2, 12))
        assert_accurate(f(x), np.fft.ifft(x.astype(np.complex128)), np.complex64, 24)
    assert cache.metal_stats()[backend].calls == 3
