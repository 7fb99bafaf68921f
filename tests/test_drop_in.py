"""The drop-in: with enable(), JAX's own FFTs (jnp.fft, jax.scipy.signal,
lax.fft) lower to this package's FFI target, with JAX's results, dtypes and
derivatives; disable() brings JAX's lowering back."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.scipy import signal

import jax_apple_fft as af

CALLS = [
    ("fft", (3, 16), {}),
    ("ifft", (4, 10), {"norm": "ortho"}),
    ("rfft", (2, 15), {}),
    ("irfft", (3, 9), {"n": 16}),
    ("hfft", (5,), {"norm": "forward"}),
    ("ihfft", (6,), {}),
    ("fft2", (4, 6), {}),
    ("rfftn", (3, 4, 5), {}),
    ("irfftn", (3, 4, 5), {"axes": (0, 2)}),
    ("fftn", (3, 0), {}),  # zero-length: an empty result, as jnp gives
]


@pytest.fixture(autouse=True)
def restore():
    yield
    af.disable()


def _input(rng, name, shape):
    x = rng.standard_normal(shape)
    if name not in ("rfft", "rfftn", "ihfft"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(np.complex64 if np.iscomplexobj(x) else np.float32)


def _hlo(f, *args):
    return jax.jit(f).lower(*args).as_text()


@pytest.mark.parametrize("name,shape,kwargs", CALLS, ids=[f"{c[0]}-{c[1]}" for c in CALLS])
def test_jnp_fft_runs_through_us_with_jnp_results(name, shape, kwargs, rng):
    x = _input(rng, name, shape)
    f = lambda v: getattr(jnp.fft, name)(v, **kwargs)
    stock = np.asarray(jax.jit(f)(x))
    assert "jax_apple_fft_cpu" not in _hlo(f, x)
    with af.enabled():
        ours = jax.jit(f)(x)
        hlo = _hlo(f, x)
    assert ours.dtype == stock.dtype and ours.shape == stock.shape
    np.testing.assert_allclose(np.asarray(ours), stock, rtol=2e-5, atol=2e-5 * max(1, shape[-1]))
    if x.size:
        assert "jax_apple_fft_cpu" in hlo and "stablehlo.fft" not in hlo


def test_disable_restores_jax_lowering(rng):
    x = _input(rng, "fft", (8,))
    af.enable()
    assert af.is_enabled() and "jax_apple_fft_cpu" in _hlo(jnp.fft.fft, x)
    af.disable()
    assert not af.is_enabled()
    hlo = _hlo(jnp.fft.fft, x)
    assert "stablehlo.fft" in hlo and "jax_apple_fft_cpu" not in hlo
    af.disable()  # idempotent


def test_context_manager_restores_the_state_before(rng):
    x = _input(rng, "fft", (8,))
    cache = af.PlanCache(threads=1)
    with af.enabled():
        with af.enabled(cache=cache):
            jax.jit(jnp.fft.fft)(x)
        assert af.is_enabled()
    assert not af.is_enabled()
    assert cache.stats().builds >= 1


def test_gradients_and_vmap_are_jax_rules(rng):
    x = _input(rng, "rfft", (4, 12))
    loss = lambda v: (jnp.sum(jnp.abs(jnp.fft.rfft(v)) ** 2)
                      + jnp.sum(jnp.sin(jnp.fft.irfft(jnp.fft.rfft(v) * 1j))))
    stock_grad = np.asarray(jax.grad(loss)(x))
    stock_vmap = np.asarray(jax.vmap(jnp.fft.fft)(x))
    assert np.abs(stock_grad).max() > 0
    with af.enabled():
        np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(loss))(x)), stock_grad,
                                   rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(np.asarray(jax.vmap(jnp.fft.fft)(x)), stock_vmap,
                                   rtol=1e-5, atol=1e-4)


def test_unmodified_scipy_signal_stft(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    stft = lambda v: signal.stft(v, nperseg=64)[2]
    stock = np.asarray(jax.jit(stft)(x))
    with af.enabled():
        ours = jax.jit(stft)(x)
        assert "jax_apple_fft_cpu" in _hlo(stft, x)
    np.testing.assert_allclose(np.asarray(ours), stock, rtol=1e-4, atol=1e-5)


def test_double_precision(x64, rng):
    x = rng.standard_normal((3, 20)) + 1j * rng.standard_normal((3, 20))
    stock = np.asarray(jnp.fft.ifft(x))
    with af.enabled():
        ours = jax.jit(jnp.fft.ifft)(x)
    assert ours.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(ours), stock, rtol=1e-12, atol=1e-12)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        af.enable(backend="gpu")
    with pytest.raises(TypeError):
        af.enable(cache="default")
    assert not af.is_enabled()
