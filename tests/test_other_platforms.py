"""Arrays on other platforms than the CPU (a GPU, a TPU): with backend="auto"
a transform lowered there is JAX's own FFT with this package's semantics; an
explicit backend raises UnsupportedError saying what to do; the drop-in
leaves them to JAX. Checked here through jax.export for those platforms
(the exported module runs on the CPU too), and on a real GPU where there is
one."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af

# (ours, numpy's, real input): every kind, both signs, norms, padding,
# cropping, leading and reordered axes.
CASES = {
    "fft": (af.fft, np.fft.fft, False),
    "ifft-axis0-ortho": (lambda v: af.ifft(v, axis=0, norm="ortho"),
                         lambda v: np.fft.ifft(v, axis=0, norm="ortho"), False),
    "fftn-axes20-n": (lambda v: af.fftn(v, s=(7, 3), axes=(2, 0)),
                      lambda v: np.fft.fftn(v, s=(7, 3), axes=(2, 0)), False),
    "rfftn-axes20": (lambda v: af.rfftn(v, axes=(2, 0)), lambda v: np.fft.rfftn(v, axes=(2, 0)),
                     True),
    "irfftn-s": (lambda v: af.irfftn(v, s=(5, 16), axes=(0, 2)),
                 lambda v: np.fft.irfftn(v, s=(5, 16), axes=(0, 2)), False),
    "hfft-axis1": (lambda v: af.hfft(v, n=11, axis=1), lambda v: np.fft.hfft(v, n=11, axis=1),
                   False),
    "ihfft-forward": (lambda v: af.ihfft(v, axis=0, norm="forward"),
                      lambda v: np.fft.ihfft(v, axis=0, norm="forward"), True),
}


def _input(rng, real: bool):
    x = rng.standard_normal((4, 6, 10))
    return x.astype(np.float32) if real else (x + 1j * rng.standard_normal(x.shape)).astype(
        np.complex64)


def _export(f, x, platform):
    return jax.export.export(jax.jit(f), platforms=[platform])(x)


def _run_on_cpu(exported, x):
    """Runs a module exported for another platform on the CPU: it holds only
    JAX's own operations, which every platform compiles."""
    return np.asarray(dataclasses.replace(exported, platforms=("cpu",)).call(x))


@pytest.mark.parametrize("name", CASES)
def test_auto_lowers_to_jax_fft_elsewhere_with_our_semantics(name, rng):
    f, reference, real = CASES[name]
    x = _input(rng, real)
    exported = _export(f, x, "cuda")
    text = exported.mlir_module()
    assert "stablehlo.fft" in text and "jax_apple_fft_" not in text, text
    want = reference(x)
    np.testing.assert_allclose(_run_on_cpu(exported, x), want, rtol=0,
                               atol=2e-6 * np.abs(want).max())


def test_gradients_lower_elsewhere_too(rng):
    x = _input(rng, True)
    loss = lambda v: jnp.sum(jnp.abs(af.rfftn(v, axes=(0, 2))) ** 2)
    exported = _export(jax.grad(loss), x, "cuda")
    assert "jax_apple_fft_" not in exported.mlir_module()
    np.testing.assert_allclose(_run_on_cpu(exported, x), jax.grad(loss)(x), rtol=1e-5, atol=1e-4)


def test_the_jaxpr_says_the_backend_was_chosen_by_auto(rng):
    x = _input(rng, False)
    for f, chosen_by_auto in [(af.fft, True), (lambda v: af.fft(v, backend="cpu"), False)]:
        text = str(jax.make_jaxpr(f)(x))
        assert f"auto_backend={chosen_by_auto}" in text and "backend=cpu" in text, text


@pytest.mark.parametrize("platform", ["cuda", "rocm", "tpu"])
@pytest.mark.parametrize("backend", ["cpu", "metal-emulated"])
def test_an_explicit_backend_lowered_elsewhere_says_what_to_do(backend, platform, rng):
    x = _input(rng, False)
    with pytest.raises(af.UnsupportedError) as error:
        _export(lambda v: af.fft(v, backend=backend), x, platform)
    message = str(error.value)
    assert f"backend={backend!r}" in message and platform in message
    assert "jax.device_put(x, jax.devices('cpu')[0])" in message
    assert "backend='auto'" in message


def test_the_drop_in_leaves_other_platforms_to_jax(rng):
    x = _input(rng, False)
    with af.enabled():
        assert "jax_apple_fft_cpu" in jax.jit(jnp.fft.fft).lower(x).as_text()
        exported = _export(jnp.fft.fft, x, "cuda")
    text = exported.mlir_module()
    assert "stablehlo.fft" in text and "jax_apple_fft_" not in text


def _gpus():
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


# The lowering this checks on a real GPU is the one exported above.
@pytest.mark.skipif(not _gpus(), reason="needs a GPU; the export tests cover its lowering")
def test_arrays_on_a_gpu(rng):
    gpu = _gpus()[0]
    for name, (f, reference, real) in CASES.items():
        x = _input(rng, real)
        on_gpu = jax.device_put(x, gpu)
        y = jax.jit(f)(on_gpu)
        assert y.devices() == {gpu}, name
        want = reference(x)
        np.testing.assert_allclose(np.asarray(y), want, rtol=0, atol=2e-6 * np.abs(want).max(),
                                   err_msg=name)
        assert "jax_apple_fft_" not in jax.jit(f).lower(on_gpu).as_text(), name
    x = jax.device_put(_input(rng, False), gpu)
    with pytest.raises(af.UnsupportedError):
        jax.jit(lambda v: af.fft(v, backend="cpu"))(x)
    np.testing.assert_allclose(np.asarray(af.fft(jax.device_put(x, jax.devices("cpu")[0]),
                                                 backend="cpu")), np.fft.fft(np.asarray(x)),
                               rtol=0, atol=1e-4)
    with af.enabled():
        np.testing.assert_allclose(np.asarray(jnp.fft.fft(x)), np.fft.fft(np.asarray(x)),
                                   rtol=0, atol=1e-4)
