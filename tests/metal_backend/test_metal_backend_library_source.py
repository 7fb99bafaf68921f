"""The text a Mac compiles at run time when no .metallib was built: the
kernel library with its quoted includes inlined, each file once."""

import pathlib
import re

import pytest

from jax_apple_fft import _core

SHADERS = pathlib.Path(__file__).resolve().parents[2] / "shaders"
KERNELS = ("fft_stockham", "fft_stockham_pow2", "fft_stockham_smooth7", "fft_r2c_unpack",
           "fft_c2r_pack", "fft_c2r_expand", "fft_permute")


@pytest.fixture(scope="module")
def source():
    return _core.testing.metal_library_source(str(SHADERS / "fft_library.metal"))


def test_every_kernel_once(source):
    for name in KERNELS:
        assert len(re.findall(rf"kernel void {name}\(", source)) == 1, name


def test_quoted_includes_are_inlined_once(source):
    assert not re.search(r'^\s*#include "', source, re.MULTILINE)
    assert "#pragma once" not in source
    assert source.count("struct FftParams {") == 1
    assert source.count("inline float2 complex_mul(") == 1


def test_system_includes_stay(source):
    assert source.count("#include <metal_stdlib>") == 1


def test_missing_source_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="cannot read Metal shader source"):
        _core.testing.metal_library_source(str(tmp_path / "missing.metal"))
