"""Which backend runs: explicit requests never fall back, float64 is refused
on Metal, and the "auto" rule is decided at trace time and visible in the jaxpr."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from jax_apple_fft.runtime import backends as backends_module
from jax_apple_fft.runtime import device_verdicts

ON_APPLE_SILICON = af.backends()["metal"].available


def backend_in_jaxpr(f, x) -> str:
    (eqn,) = [e for e in jax.make_jaxpr(f)(x).eqns if e.primitive.name == "apple_fft"]
    return eqn.params["backend"]


def test_backends_lists_every_backend():
    info = af.backends()
    assert set(info) == {"cpu", "metal", "metal-emulated"}
    assert info["cpu"].available and info["metal-emulated"].available
    assert info["metal"].reason
    if info["metal"].available:
        assert info["metal"].library in ("metallib", "source")


def test_unknown_backend_is_a_value_error():
    with pytest.raises(ValueError, match="backend must be one of"):
        af.fft(np.ones(4, np.complex64), backend="gpu")


@pytest.mark.skipif(ON_APPLE_SILICON, reason="Metal is available here")
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_metal_is_unavailable_here(dtype):
    # Availability is checked first: on a machine without Metal, float64 input
    # too hears that Metal is missing, the obstacle to fix first.
    with jax.enable_x64(True):
        with pytest.raises(af.BackendUnavailableError, match="backend='cpu'"):
            af.fft(np.ones(4, dtype), backend="metal")


@pytest.mark.parametrize("name,dtype", [("fft", np.complex128), ("rfft", np.float64),
                                        ("irfft", np.complex128)])
def test_double_precision_is_unsupported_on_the_metal_path(name, dtype, backend):
    with jax.enable_x64(True):
        with pytest.raises(af.UnsupportedError, match="float32/complex64 only"):
            getattr(af, name)(np.ones(8, dtype), backend=backend)


def test_metal_emulated_is_never_chosen_by_auto():
    x = jnp.ones((1 << 17,), jnp.complex64)
    assert backend_in_jaxpr(af.fft, x) in ("cpu", "metal")


@pytest.fixture
def metal_available(monkeypatch):
    """Pretends Metal is available and its self-check passed, to check the
    rule (tracing only, nothing runs)."""
    info = af.BackendInfo("metal", True, "pretended by the test", "source")
    monkeypatch.setattr(backends_module, "_metal_info", lambda: info)
    monkeypatch.setitem(device_verdicts._verdicts, device_verdicts.key("metal", info.reason),
                        device_verdicts.Verdict(passed=True))


@pytest.mark.parametrize("shape,dtype,expected", [
    ((1 << 16,), jnp.complex64, "metal"),
    ((256, 256), jnp.float32, "metal"),
    (((1 << 16) - 1,), jnp.complex64, "cpu"),
    ((1 << 16,), jnp.complex128, "cpu"),
    ((4, 8), jnp.complex64, "cpu"),
])
def test_auto_rule(metal_available, shape, dtype, expected):
    with jax.enable_x64(True):
        x = jnp.ones(shape, dtype)
        f = af.rfftn if jnp.issubdtype(dtype, jnp.floating) else af.fftn
        assert backend_in_jaxpr(f, x) == expected


def test_auto_counts_the_padded_size(metal_available):
    x = jnp.ones((1000,), jnp.complex64)
    assert backend_in_jaxpr(lambda v: af.fft(v, n=1 << 16), x) == "metal"


def test_auto_is_cpu_without_metal():
    if ON_APPLE_SILICON:
        pytest.skip("Metal is available here")
    assert backend_in_jaxpr(af.fft, jnp.ones((1 << 17,), jnp.complex64)) == "cpu"


def test_explicit_backend_is_recorded(backend):
    assert backend_in_jaxpr(lambda v: af.fft(v, backend=backend), jnp.ones(8, jnp.complex64)) \
        == backend
