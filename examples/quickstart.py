"""jax_apple_fft in a minute: jit, grad and vmap through the FFT primitive.

Run: python examples/quickstart.py
"""

import jax
import jax.numpy as jnp
import numpy as np

import jax_apple_fft as af


def smooth(signal: jax.Array, keep: int) -> jax.Array:
    """Low-pass filter: keep the first `keep` frequencies of a real signal."""
    spectrum = af.rfft(signal, norm="ortho")
    mask = jnp.arange(spectrum.shape[-1]) < keep
    return af.irfft(spectrum * mask, n=signal.shape[-1], norm="ortho")


def main() -> None:
    rng = np.random.default_rng(0)
    t = np.linspace(0.0, 1.0, 1024, endpoint=False, dtype=np.float32)
    noisy = np.sin(2 * np.pi * 5 * t) + 0.3 * rng.standard_normal(t.shape).astype(np.float32)

    # jit: the transform runs inside compiled code as an XLA FFI call.
    filtered = jax.jit(smooth, static_argnums=1)(noisy, 16)
    print(f"jit:  filtered signal, rms change {float(jnp.sqrt(jnp.mean((filtered - noisy) ** 2))):.3f}")

    # Agrees with numpy.
    spectrum = af.fft(noisy)
    error = np.abs(np.asarray(spectrum) - np.fft.fft(noisy.astype(np.float64))).max()
    print(f"fft:  max |jax_apple_fft - numpy| = {error:.2e}")

    # grad: energy of the band-limited part with respect to the input.
    energy = lambda x: jnp.sum(smooth(x, 16) ** 2)
    g = jax.jit(jax.grad(energy))(noisy)
    print(f"grad: |d energy / d x| = {float(jnp.linalg.norm(g)):.3f}")

    # vmap: a batch of 2-D transforms, batched into one call with no loop.
    images = rng.standard_normal((8, 64, 64)).astype(np.float32)
    spectra = jax.jit(jax.vmap(af.rfft2))(images)
    print(f"vmap: {images.shape} -> {spectra.shape} {spectra.dtype}")

    # The drop-in: unmodified jnp.fft code, lowered to this package's FFI target.
    with af.enabled():
        hlo = jax.jit(jnp.fft.rfft).lower(noisy).as_text()
        same = np.allclose(jax.jit(jnp.fft.rfft)(noisy), af.rfft(noisy), atol=1e-4)
    target = "jax_apple_fft_cpu" if "jax_apple_fft_cpu" in hlo else "stablehlo.fft"
    print(f"enable(): jnp.fft.rfft runs as {target}, same result: {same}")

    # Which backend ran, as recorded in the jaxpr, and what the cache holds.
    jaxpr = jax.make_jaxpr(af.fft)(noisy)
    backend = jaxpr.eqns[-1].params["backend"]
    print(f"backend used: {backend}")
    for name, info in af.backends().items():
        print(f"  {name}: {'available' if info.available else 'unavailable'} ({info.reason})")
    print(f"plan cache: {af.default_cache().stats()}")


if __name__ == "__main__":
    main()
