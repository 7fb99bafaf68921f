"""Derivatives: numerical gradient checks, the transpose of every kind
(dot-product test), agreement with jax.numpy.fft's derivatives, hessian,
jvp and vjp."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import jax_apple_fft as af
from fft_testing import NORMS, REAL_INPUT, make_input

# (name, input shape, keyword arguments). Inputs are complex unless the
# transform needs real input. Small sizes: even, odd and 2-D.
GRAD_CASES = [
    ("fft", (5,), {}),
    ("fft", (6,), {"norm": "ortho"}),
    ("ifft", (5,), {"norm": "forward"}),
    ("ifft", (6,), {}),
    ("rfft", (5,), {}),
    ("rfft", (6,), {"norm": "ortho"}),
    ("irfft", (4,), {}),                       # n = 6
    ("irfft", (3,), {"n": 5, "norm": "forward"}),
    ("hfft", (4,), {"norm": "ortho"}),
    ("hfft", (3,), {"n": 5}),
    ("ihfft", (5,), {}),
    ("ihfft", (6,), {"norm": "forward"}),
    ("fftn", (3, 4), {}),
    ("fftn", (3, 4), {"norm": "ortho"}),
    ("ifftn", (3, 4), {"norm": "forward"}),
    ("rfftn", (3, 4), {}),
    ("rfftn", (3, 5), {"norm": "forward"}),
    ("irfftn", (3, 3), {"s": (3, 4)}),
    ("irfftn", (3, 3), {"s": (3, 5), "norm": "ortho"}),
    ("irfftn", (4, 3), {"axes": (1, 0), "s": (5, 4)}),
]
GRAD_IDS = [f"{n}-{shape}-{kw}" for n, shape, kw in GRAD_CASES]


@pytest.fixture(autouse=True, params=["standard", "strict"])
def dtype_promotion(request):
    """Every test here runs under both promotion modes: no rule may depend on
    implicit promotion (JAX's own test harness runs in strict mode)."""
    with jax.numpy_dtype_promotion(request.param):
        yield request.param


def _transform(name, kwargs):
    return functools.partial(getattr(af, name), **kwargs)


@pytest.mark.parametrize("name,shape,kwargs", GRAD_CASES, ids=GRAD_IDS)
def test_check_grads_order_two(name, shape, kwargs, x64, rng):
    """Forward and reverse mode, to second order, against finite differences.
    The square makes second derivatives non-zero, so the transposes of the
    transposes are exercised too."""
    f = _transform(name, kwargs)
    x = make_input(rng, shape, "float64", complex_=name not in REAL_INPUT)

    def g(v):
        y = f(v)
        return y * y

    check_grads(g, (x,), order=2, modes=("fwd", "rev"))


# --------------------------------------------------------------------------
# Transposes: the dot-product test
# --------------------------------------------------------------------------

TRANSPOSE_CASES = [
    ("fft", (6,), {}),
    ("fft", (2, 7), {"norm": "ortho"}),
    ("ifft", (7,), {}),
    ("ifft", (3, 6), {"axis": 0, "norm": "forward"}),
    ("rfft", (8,), {}),
    ("rfft", (9,), {"norm": "ortho"}),
    ("rfft", (4, 5), {"axis": 0, "norm": "forward"}),
    ("irfft", (5,), {}),                           # n = 8 (even)
    ("irfft", (5,), {"n": 9}),                     # odd
    ("irfft", (2, 4), {"n": 7, "norm": "ortho"}),
    ("irfft", (4, 3), {"axis": 0, "norm": "forward"}),
    ("hfft", (5,), {}),
    ("hfft", (5,), {"n": 9, "norm": "ortho"}),
    ("ihfft", (8,), {}),
    ("ihfft", (9,), {"norm": "forward"}),
    ("fftn", (3, 4, 5), {"axes": (0, 2)}),
    ("ifftn", (3, 4), {"norm": "ortho"}),
    ("rfftn", (4, 6), {}),                         # even last length
    ("rfftn", (4, 7), {"norm": "ortho"}),           # odd last length
    ("rfftn", (3, 4, 5), {"axes": (2, 0), "norm": "forward"}),
    ("irfftn", (4, 4), {}),                        # s = (4, 6)
    ("irfftn", (4, 4), {"s": (4, 7), "norm": "ortho"}),
    ("irfftn", (3, 4, 5), {"axes": (2, 0), "s": (5, 6), "norm": "forward"}),
    ("irfft2", (3, 4), {"s": (3, 5)}),
]
TRANSPOSE_IDS = [f"{n}-{shape}-{kw}" for n, shape, kw in TRANSPOSE_CASES]


def _pairing(a, b) -> float:
    """JAX's transpose pairing: bilinear, no conjugation."""
    a = np.asarray(a).astype(np.complex128)
    b = np.asarray(b).astype(np.complex128)
    return float(np.real(np.sum(a * b)))


@pytest.mark.parametrize("name,shape,kwargs", TRANSPOSE_CASES, ids=TRANSPOSE_IDS)
def test_transpose_dot_product(name, shape, kwargs, x64, rng):
    """Re(sum(f(x) * y)) == Re(sum(x * f^T(y))) for random x and y."""
    f = _transform(name, kwargs)
    x = make_input(rng, shape, "float64", complex_=name not in REAL_INPUT)
    fx = f(x)
    y = make_input(rng, fx.shape, "float64", complex_=jnp.iscomplexobj(fx))
    (ft_y,) = jax.linear_transpose(f, x)(y)
    assert ft_y.shape == x.shape
    assert ft_y.dtype == x.dtype
    lhs = _pairing(fx, y)
    rhs = _pairing(x, ft_y)
    scale = np.linalg.norm(np.asarray(fx)) * np.linalg.norm(y) + 1.0
    assert abs(lhs - rhs) <= 1e-12 * scale, (lhs, rhs)


@pytest.mark.parametrize("name,shape,kwargs", TRANSPOSE_CASES, ids=TRANSPOSE_IDS)
def test_transpose_matches_jax_numpy(name, shape, kwargs, x64, rng):
    """The transposes agree with those of jax.numpy.fft."""
    ours = _transform(name, kwargs)
    theirs = functools.partial(getattr(jnp.fft, name), **kwargs)
    x = make_input(rng, shape, "float64", complex_=name not in REAL_INPUT)
    out_shape = theirs(x).shape
    y = make_input(rng, out_shape, "float64", complex_=jnp.iscomplexobj(theirs(x)))
    (a,) = jax.linear_transpose(ours, x)(y)
    (b,) = jax.linear_transpose(theirs, x)(y)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------
# Agreement with jax.numpy.fft's gradients
# --------------------------------------------------------------------------

GRAD_VS_JNP = [
    ("fft", (6,), {}),
    ("ifft", (2, 5), {"norm": "ortho"}),
    ("rfft", (7,), {}),
    ("rfft", (3, 8), {"axis": 0, "norm": "forward"}),
    ("irfft", (5,), {}),
    ("irfft", (5,), {"n": 9, "norm": "ortho"}),
    ("hfft", (4,), {"n": 7}),
    ("ihfft", (6,), {"norm": "forward"}),
    ("fftn", (3, 4), {}),
    ("rfftn", (3, 5), {"norm": "ortho"}),
    ("irfftn", (3, 4), {"s": (3, 5)}),
    ("irfft2", (4, 4), {}),
]


@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("name,shape,kwargs", GRAD_VS_JNP,
                         ids=[f"{n}-{s}-{k}" for n, s, k in GRAD_VS_JNP])
def test_grad_matches_jax_numpy(name, shape, kwargs, dtype, rng):
    """grad of a weighted sum(|f(x)|^2) equals the same with jnp.fft."""
    with jax.enable_x64(dtype == "float64"):
        x = make_input(rng, shape, dtype, complex_=name not in REAL_INPUT)
        out_shape = getattr(jnp.fft, name)(x, **kwargs).shape
        w = rng.uniform(0.5, 2.0, out_shape)

        def loss(module):
            f = getattr(module, name)
            return lambda v: jnp.sum(w * jnp.abs(f(v, **kwargs)) ** 2)

        ours = jax.grad(loss(af))(x)
        theirs = jax.grad(loss(jnp.fft))(x)
        assert ours.dtype == theirs.dtype
        tol = 1e-10 if dtype == "float64" else 2e-4
        scale = float(np.max(np.abs(np.asarray(theirs))))
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=tol,
                                   atol=tol * scale)


def test_grad_of_rfft_power_is_analytic(x64, rng):
    """d/dx sum |fft(x)|^2 = 2 n x (Parseval), independently of jnp."""
    x = rng.standard_normal(10)
    g = jax.grad(lambda v: jnp.sum(jnp.abs(af.fft(v)) ** 2))(x)
    np.testing.assert_allclose(np.asarray(g), 2 * 10 * x, rtol=1e-12)


# --------------------------------------------------------------------------
# hessian, jvp, vjp
# --------------------------------------------------------------------------

def _spectral_loss(module, w):
    def loss(v):
        spec = module.rfft(jnp.sin(v))
        back = module.irfft(spec * jnp.asarray(w, spec.dtype), n=v.shape[-1])
        return jnp.sum(back ** 3) + jnp.sum(jnp.abs(module.fft(v)) ** 4) * 1e-3
    return loss


@pytest.mark.parametrize("n", (6, 7))
def test_hessian(n, x64, rng):
    x = rng.standard_normal(n)
    w = rng.standard_normal(n // 2 + 1) + 1j * rng.standard_normal(n // 2 + 1)
    ours = jax.hessian(_spectral_loss(af, w))(x)
    theirs = jax.hessian(_spectral_loss(jnp.fft, w))(x)
    assert ours.shape == (n, n)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(ours).T, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-9, atol=1e-9)


def test_hessian_under_jit(x64, rng):
    x = rng.standard_normal(8)
    w = rng.standard_normal(5)
    ours = jax.jit(jax.hessian(_spectral_loss(af, w)))(x)
    theirs = jax.hessian(_spectral_loss(jnp.fft, w))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name,shape,kwargs", [
    ("fft", (4, 6), {"axis": 0}),
    ("rfft", (7,), {"norm": "ortho"}),
    ("irfft", (3, 5), {"n": 9}),
    ("hfft", (5,), {}),
    ("rfftn", (3, 4, 5), {"axes": (0, 2)}),
    ("irfftn", (4, 3), {"s": (4, 5), "axes": (0, 1)}),
])
def test_jvp_is_the_transform_of_the_tangent(name, shape, kwargs, x64, rng):
    complex_in = name not in REAL_INPUT
    x = make_input(rng, shape, "float64", complex_=complex_in)
    t = make_input(rng, shape, "float64", complex_=complex_in)
    f = _transform(name, kwargs)
    primal, tangent = jax.jvp(f, (x,), (t,))
    np_f = functools.partial(getattr(np.fft, name), **kwargs)
    np.testing.assert_allclose(np.asarray(primal), np_f(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tangent), np_f(t), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,shape,kwargs", [
    ("ifft", (6,), {}),
    ("rfft", (3, 6), {"axis": 0}),
    ("irfft", (5,), {"n": 8, "norm": "forward"}),
    ("ihfft", (7,), {}),
    ("rfftn", (4, 5), {}),
    ("irfftn", (2, 3, 4), {"axes": (0, 2)}),
])
def test_vjp(name, shape, kwargs, x64, rng):
    complex_in = name not in REAL_INPUT
    x = make_input(rng, shape, "float64", complex_=complex_in)
    f = _transform(name, kwargs)
    g = functools.partial(getattr(jnp.fft, name), **kwargs)
    out, f_vjp = jax.vjp(f, x)
    out_ref, g_vjp = jax.vjp(g, x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(out_ref), rtol=1e-12, atol=1e-12)
    ct = make_input(rng, out.shape, "float64", complex_=jnp.iscomplexobj(out))
    (a,) = f_vjp(ct)
    (b,) = g_vjp(ct)
    assert a.dtype == x.dtype
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("norm", NORMS)
def test_grad_through_jit_and_norms(norm, x64, rng):
    x = rng.standard_normal((3, 6))
    w = rng.standard_normal((3, 4))

    def loss(module):
        return lambda v: jnp.sum(w * jnp.real(module.rfft(v, norm=norm)) ** 2)

    ours = jax.jit(jax.grad(loss(af)))(x)
    theirs = jax.grad(loss(jnp.fft))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-10, atol=1e-12)
