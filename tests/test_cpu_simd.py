"""The CPU kernels' SIMD levels: a process runs the widest level its CPU has,
or the one JAX_APPLE_FFT_CPU_SIMD names, says which, and refuses one that
cannot run. Each level runs in a child process of its own (the level is
chosen once per process) and must match numpy and every other level."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import jax_apple_fft as af
from jax_apple_fft import _core
from subprocess_testing import check_ok, run_python
from support.accuracy import error_bound, relative_l2_error

LEVELS = _core.cpu_simd_levels()
PACKAGE_ROOT = str(pathlib.Path(af.__file__).resolve().parent.parent)

# (function, input shape, n): short batched lines, a four-step length, and
# Bluestein (1031) and Rader (113, 257) lengths.
CASES = [
    ("fft", (37, 8), None),
    ("rfft", (29, 16), None),
    ("irfft", (23, 9), 16),
    ("fft", (2, 1 << 16), None),
    ("rfft", (3, 1 << 16), None),
    ("fft", (5, 1031), None),
    ("fft", (3, 113), None),
    ("irfft", (4, 129), 257),
]

_CHILD = """
import sys
import jax
jax.config.update("jax_enable_x64", True)
import numpy as np
import jax_apple_fft as af
from jax_apple_fft import _core

cases, inputs = eval(sys.argv[1]), np.load(sys.argv[2])
outputs = {}
for i, (name, shape, n) in enumerate(cases):
    for dtype in ("single", "double"):
        x = inputs[f"{i}-{dtype}"]
        outputs[f"{i}-{dtype}"] = np.asarray(getattr(af, name)(x, n=n, backend="cpu"))
np.savez(sys.argv[3], **outputs)
cache = af.PlanCache(threads=1)
batched = _core.testing.describe_cpu(cache.handle, _core.TransformKind.C2C, True,
                                     _core.Precision.SINGLE, [64, 16], [1], [16])
print(_core.cpu_simd(), batched.split(" lanes ")[1].split()[0])
print(af.backends()["cpu"].reason)
"""


def _inputs(tmp_path) -> tuple[dict, str]:
    rng = np.random.default_rng(0)
    arrays = {}
    for i, (name, shape, _) in enumerate(CASES):
        x = rng.standard_normal(shape)
        if name != "rfft":
            x = x + 1j * rng.standard_normal(shape)
        arrays[f"{i}-double"] = x
        arrays[f"{i}-single"] = x.astype(np.complex64 if np.iscomplexobj(x) else np.float32)
    path = str(tmp_path / "inputs.npz")
    np.savez(path, **arrays)
    return arrays, path


def _run_child(tmp_path, level: str | None, inputs_path: str):
    out = str(tmp_path / f"outputs-{level}.npz")
    env = {"PYTHONPATH": PACKAGE_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env["JAX_APPLE_FFT_CPU_SIMD"] = level or ""
    stdout = check_ok(run_python(_CHILD, repr(CASES), inputs_path, out, env=env))
    reported, backend_reason = stdout.splitlines()[-2:]
    return reported.split(), backend_reason, dict(np.load(out))


@pytest.mark.slow
def test_every_level_matches_numpy_and_the_others(tmp_path):
    arrays, inputs_path = _inputs(tmp_path)
    results = {}
    for level in LEVELS:
        (reported, lanes), backend_reason, outputs = _run_child(tmp_path, level, inputs_path)
        assert reported == level, f"forced {level}, ran {reported}"
        assert f"({level} kernels)" in backend_reason
        results[level] = outputs
        results[level + " lanes"] = int(lanes)
    for i, (name, shape, n) in enumerate(CASES):
        want = getattr(np.fft, name)(arrays[f"{i}-double"], n=n)
        for dtype, precision in (("single", np.float32), ("double", np.float64)):
            bound = error_bound(precision, n or shape[-1])
            for level in LEVELS:
                got = results[level][f"{i}-{dtype}"]
                err = relative_l2_error(got, want)
                assert err <= bound, f"{level} {name}{shape} n={n} {dtype}: error {err:.2e}"
                # The levels run the same algorithm in lanes of different
                # widths: they agree far more closely than either meets the bound.
                first = results[LEVELS[0]][f"{i}-{dtype}"]
                agree = relative_l2_error(got, first)
                assert agree <= bound / 4, f"{level} vs {LEVELS[0]} on {name}{shape} {dtype}: {agree:.2e}"
    widths = [results[level + " lanes"] for level in LEVELS]
    assert widths == sorted(widths) and len(set(widths)) == len(widths), widths


def test_the_default_is_the_widest_level_the_cpu_has(tmp_path):
    _, inputs_path = _inputs(tmp_path)
    (reported, _), _, _ = _run_child(tmp_path, None, inputs_path)
    assert reported == LEVELS[-1] == _core.cpu_simd()


def test_a_level_that_cannot_run_here_is_refused_clearly():
    result = run_python("""
        import numpy as np
        import jax_apple_fft as af
        from jax_apple_fft import _core
        try:
            _core.cpu_simd()
        except ValueError as e:
            print("accessor:", e)
        try:
            af.fft(np.ones((4, 8), np.complex64), backend="cpu").block_until_ready()
        except Exception as e:
            print("transform:", type(e).__name__, e)
    """, env={"PYTHONPATH": PACKAGE_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
              "JAX_APPLE_FFT_CPU_SIMD": "avx512"})
    out = check_ok(result)
    lines = {line.split(":")[0]: line for line in out.splitlines() if ":" in line}
    for where in ("accessor", "transform"):
        assert "JAX_APPLE_FFT_CPU_SIMD=avx512" in lines[where], out
        assert "not one this build has" in lines[where], out
        assert "the levels that run here are: " + ", ".join(LEVELS) in lines[where], out
