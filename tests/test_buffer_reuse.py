"""overwrite_x: the result of a complex transform may take its input's buffer.

XLA then hands the CPU backend one buffer as both input and output, so the
transform runs in place; these tests check the aliasing is declared, that
in-place results are right for every pass layout (contiguous, strided and
bunched, several axes, long lines split in two passes), and that no value a
caller can see ever changes.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from support.accuracy import assert_accurate


def _complex(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _aliased(text: str) -> bool:
    return "output_operand_alias" in text


@pytest.mark.parametrize("name", ["fft", "ifft", "fftn", "ifftn", "fft2", "ifft2"])
def test_overwrite_x_declares_the_alias(name):
    x = jnp.zeros((4, 8), jnp.complex64)
    function = getattr(af, name)
    assert _aliased(jax.jit(lambda v: function(v, overwrite_x=True)).lower(x).as_text())
    assert not _aliased(jax.jit(lambda v: function(v)).lower(x).as_text())


def test_real_transforms_take_no_overwrite_x():
    with pytest.raises(TypeError):
        af.rfft(jnp.zeros(8), overwrite_x=True)


def test_overwrite_x_must_be_a_bool():
    with pytest.raises(TypeError, match="overwrite_x"):
        af.fft(jnp.zeros(8, jnp.complex64), overwrite_x="yes")


# Every layout of CPU pass, transformed in place (a donated argument becomes
# the result): contiguous lines in SIMD groups and one at a time, strided
# lines gathered in bunches, several axes, a leftover line, and long lines
# split into a column and a row pass; a large output of single lines, whose
# lines do not start on cache-line boundaries.
@pytest.mark.parametrize("dtype,shape,axes", [
    (np.complex64, (37, 96), (1,)),
    (np.complex128, (3, 5000), (1,)),
    (np.complex64, (512, 40), (0,)),
    (np.complex128, (6, 10, 12), (0, 1, 2)),
    (np.complex128, (12, 9, 7), (0, 2)),
    (np.complex128, (3, 1 << 16), (1,)),
    (np.complex64, (2, 1 << 17), (1,)),
    (np.complex128, (40, 16383), (1,)),  # 10 MiB on memory in use: streaming stores
])
def test_in_place_results_match_numpy(dtype, shape, axes):
    x = _complex(shape, dtype)
    n = int(np.prod([shape[a] for a in axes]))
    with jax.enable_x64(True):
        for forward in (True, False):
            ours = af.fftn if forward else af.ifftn
            theirs = np.fft.fftn if forward else np.fft.ifftn
            f = jax.jit(lambda v: ours(v, axes=axes, norm="ortho", overwrite_x=True),
                        donate_argnums=0)
            argument = jnp.asarray(x)
            address = argument.unsafe_buffer_pointer()
            result = f(argument)
            assert result.unsafe_buffer_pointer() == address  # one buffer in and out
            expected = theirs(x.astype(np.complex128), axes=axes, norm="ortho")
            assert_accurate(result, expected, dtype, n)


def test_an_intermediate_gives_its_buffer():
    x = jnp.asarray(_complex((8, 64), np.complex64))
    f = jax.jit(lambda v: af.fft(v * 2, overwrite_x=True))  # v * 2 is dead afterwards
    assert _aliased(f.lower(x).as_text())
    entry = f.lower(x).compile().as_text().split("ENTRY")[1]
    assert " copy(" not in entry  # the alias costs no separate copy
    assert_accurate(f(x), np.fft.fft(np.asarray(x) * 2), np.complex64, 64)


def test_donated_argument_becomes_the_result():
    x = _complex((64, 256), np.complex64)
    f = jax.jit(lambda v: af.fft(v, overwrite_x=True), donate_argnums=0)
    argument = jnp.asarray(x)
    address = argument.unsafe_buffer_pointer()
    result = f(argument)
    assert argument.is_deleted()
    assert result.unsafe_buffer_pointer() == address  # transformed in place
    assert_accurate(result, np.fft.fft(x), np.complex64, 256)


def test_an_argument_still_needed_keeps_its_value():
    x = _complex((16, 128), np.complex64)
    argument = jnp.asarray(x)

    @jax.jit
    def f(v):
        return af.fft(v, overwrite_x=True), v + 0  # v is needed after the transform

    spectrum, same = f(argument)
    np.testing.assert_array_equal(np.asarray(argument), x)  # not donated: untouched
    np.testing.assert_array_equal(np.asarray(same), x)
    assert_accurate(spectrum, np.fft.fft(x), np.complex64, 128)


def test_grad_and_vmap_keep_overwrite_x():
    x = _complex((4, 32), np.complex64)

    def loss(v):
        return jnp.sum(jnp.abs(af.fft(v * 1, overwrite_x=True)) ** 2)

    def reference(v):
        return jnp.sum(jnp.abs(jnp.fft.fft(v * 1)) ** 2)

    np.testing.assert_allclose(jax.grad(loss)(x), jax.grad(reference)(x), rtol=1e-4, atol=1e-3)
    batched = jax.vmap(lambda v: af.fft(v * 1, overwrite_x=True))(x)
    assert_accurate(batched, np.fft.fft(x), np.complex64, 32)
