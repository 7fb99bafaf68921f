"""What the build and the distribution promise: the FFI API the module is
compiled against, one version, the metadata, and an sdist that holds what a
build needs and nothing else."""

from __future__ import annotations

import importlib.metadata
import pathlib
import re
import tarfile
import tomllib

import scikit_build_core.build

import jax_apple_fft
from jax_apple_fft import _core

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent


def _pyproject() -> dict:
    with open(REPOSITORY / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def _cmake_setting(name: str) -> str:
    text = (REPOSITORY / "cmake" / "XlaFfiHeaders.cmake").read_text()
    return re.search(rf'set\({name} "([^"]+)"\)', text).group(1)


def _lowest(requirement_name: str) -> str:
    for requirement in _pyproject()["project"]["dependencies"]:
        match = re.fullmatch(rf"{requirement_name}>=([\d.]+),<[\d.]+", requirement)
        if match:
            return match.group(1)
    raise AssertionError(f"no {requirement_name} range in pyproject.toml")


def test_the_module_is_compiled_against_the_oldest_supported_ffi_api():
    # jaxlib refuses handlers compiled against a newer FFI API than its own.
    assert _lowest("jaxlib") == _lowest("jax") == _cmake_setting("JAX_APPLE_FFT_OLDEST_JAXLIB")
    major, minor = _cmake_setting("JAX_APPLE_FFT_OLDEST_FFI_API").split(".")
    assert _core.ffi_api_version() == (int(major), int(minor))


def test_installed_metadata():
    metadata = importlib.metadata.metadata("jax_apple_fft")
    assert metadata["Version"] == jax_apple_fft.__version__
    assert metadata["License-Expression"] == "BSD-3-Clause"
    assert "Typing :: Typed" in metadata.get_all("Classifier")
    assert any(r.startswith("numpy>=1.25") for r in metadata.get_all("Requires-Dist"))
    package = pathlib.Path(jax_apple_fft.__file__).parent
    assert (package / "py.typed").is_file()
    assert any((package / "licenses").glob("LICENSE-pocketfft*"))


def test_sdist_holds_what_a_build_needs_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.chdir(REPOSITORY)
    name = scikit_build_core.build.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / name) as sdist:
        members = [m.split("/", 1)[1] for m in sdist.getnames() if "/" in m]
    top = {m.split("/")[0] for m in members}
    assert top == {"CMakeLists.txt", "LICENSE", "PKG-INFO", "README.md", "cmake", "csrc",
                   "jax_apple_fft", "pyproject.toml", "shaders"}, top
    assert "jax_apple_fft/py.typed" in members
    assert not [m for m in members if m.endswith((".so", ".whl", ".pyc"))]
