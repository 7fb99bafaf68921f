"""The compiled extension as a process sees it: what it exports, that it can
be loaded first, before or without jax, and under python -OO."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

import jax_apple_fft
from subprocess_testing import check_ok, run_python

CORE = pathlib.Path(jax_apple_fft._core.__file__)


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("nm"),
                    reason="reads the ELF dynamic symbol table with nm")
def test_module_exports_only_its_init_function():
    # Anything else exported (a statically linked C++ runtime, say) can become
    # the copy that another extension loaded later binds to.
    listing = subprocess.run(["nm", "-D", "--defined-only", str(CORE)], capture_output=True,
                             text=True, check=True).stdout
    names = sorted(line.split()[-1] for line in listing.splitlines() if line.strip())
    assert names == ["PyInit__core"]


def test_package_imported_first_then_floats_formatted():
    check_ok(run_python("""
        import jax_apple_fft as af
        import ml_dtypes, numpy as np
        assert str(np.float32(1.5)) == "1.5" and str(np.float64(0.1)) == "0.1"
        assert str(ml_dtypes.bfloat16(1.5)) == "1.5"
        assert "2.5" in str(np.array([2.5, 1], dtype=ml_dtypes.float8_e4m3fn))
        import jax.numpy as jnp
        assert abs(complex(af.fft(jnp.ones(4))[0]) - 4) < 1e-6
    """))


def test_extension_loaded_alone_then_ml_dtypes():
    check_ok(run_python(f"""
        import ctypes
        ctypes.CDLL({str(CORE)!r})
        import ml_dtypes, numpy as np
        print(np.array([1.25], dtype=ml_dtypes.bfloat16), ml_dtypes.bfloat16(3.5))
    """))


def test_a_cache_alive_at_exit_is_not_reported_as_a_leak():
    result = run_python("""
        import ctypes
        import jax, jax.numpy as jnp
        import jax_apple_fft as af
        cache = af.PlanCache(threads=1)
        print(jax.jit(lambda x: af.fft(x, cache=cache))(jnp.ones(8)).shape)
        # A reference nothing releases before exit, as JAX's C++ caches hold
        # the parameters of what they compiled.
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(cache))
    """)
    assert check_ok(result).strip() == "(8,)"
    assert "leaked" not in result.stderr, result.stderr


def test_import_under_optimize_flag_OO():
    out = check_ok(run_python("""
        import jax_apple_fft as af, jax.numpy as jnp
        print(af.fft.__doc__, float(af.irfft(jnp.ones(5))[0]))
    """, flags=["-OO"]))
    assert out.split() == ["None", "1.0"]


def test_python_m_pytest_from_the_repository_root():
    # `python -m pytest` puts the working directory on sys.path, where the
    # source tree's package (no compiled _core) must not shadow the installed one.
    root = pathlib.Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_errors.py::test_error_hierarchy"],
        cwd=root, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_a_source_tree_without_core_says_so_on_import(tmp_path):
    # Python run in a source checkout imports its package, which has no
    # compiled _core unless one was built there.
    shutil.copytree(pathlib.Path(jax_apple_fft.__file__).parent, tmp_path / "jax_apple_fft",
                    ignore=shutil.ignore_patterns("_core*", "__pycache__"))
    result = run_python("import jax_apple_fft", cwd=tmp_path)
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("ImportError: jax_apple_fft: the compiled module _core is "
                                "missing"), result.stderr
    assert "pip install ." in last_line and "circular" not in result.stderr
