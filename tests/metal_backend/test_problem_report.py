"""`python -m jax_apple_fft`: the report a user pastes into a problem report,
run as a user runs it (a fresh process), with and without --emulated."""

import os
import re
import subprocess
import sys

import jax
import pytest

import jax_apple_fft as af
from jax_apple_fft import problem_report
from jax_apple_fft.metal import self_check
from metal_backend_testing import PLANTED_FAILURE

METAL = af.backends()["metal"]


def run_report(tmp_path, *args):
    root = os.path.dirname(os.path.dirname(af.__file__))
    env = {**os.environ, "JAX_APPLE_FFT_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-m", "jax_apple_fft", *args], env=env,
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
    return result.stdout.splitlines()


def line(lines, prefix):
    (found,) = [x for x in lines if x.startswith(prefix)]
    return found


def test_the_report_says_what_runs_here(tmp_path):
    lines = run_report(tmp_path)
    assert lines[0] == f"jax_apple_fft {af.__version__}"
    assert line(lines, "python ").startswith(f"python {sys.version.split()[0]}")
    assert line(lines, f"jax {jax.__version__}, ").startswith(f"jax {jax.__version__}, jaxlib ")
    assert "machine" in line(lines, "platform ")
    assert line(lines, "jax devices: ").count("cpu:") == len(jax.devices("cpu"))
    for name, info in af.backends().items():
        state = "available" if info.available else "unavailable"
        assert re.match(rf"  {name} +{state} +{re.escape(info.reason)}", line(lines, f"  {name} "))
    if not METAL.available:
        assert line(lines, "metal device: ") == "metal device: unavailable"
        assert line(lines, "self-check: ").startswith("self-check: not run, Metal is unavailable")
        assert len(lines) < 20
    else:
        assert line(lines, "self-check result: ") == \
            f"self-check result: passed ({len(self_check.CHECKS)} of {len(self_check.CHECKS)} checks)"


def test_the_emulated_report_runs_the_self_check_and_times(tmp_path):
    lines = run_report(tmp_path, "--emulated")
    assert line(lines, "stored verdict for metal-emulated: ") == \
        f"stored verdict for metal-emulated: none [{tmp_path / 'self_check.json'}]"
    checks = [x for x in lines if x.startswith("  pass  ")]
    assert [x.split(":")[0].removeprefix("  pass  ") for x in checks] == \
        [c.family for c in self_check.CHECKS]
    n = len(self_check.CHECKS)
    assert line(lines, "self-check result: ") == f"self-check result: passed ({n} of {n} checks)"
    assert re.fullmatch(rf"tensors: {n} calls, [0-9,]+ bytes bound in place, "
                        r"0 bytes staged \(copied\)", line(lines, "tensors: "))
    assert "fft_stockham_pow2" in line(lines, "kernels the checks dispatch: ")
    assert re.search(r"metal-emulated [0-9.]+ us, cpu [0-9.]+ us", line(lines, "commit-and-wait: "))
    assert re.match(r" +2\^12 +[0-9.]+ +[0-9.]+ +[0-9.e-]+$", line(lines, "    2^12 "))
    assert len(lines) < 40
    assert not (tmp_path / "self_check.json").exists()  # the report runs checks, stores nothing


def test_a_failing_check_is_reported_and_fails_the_command(monkeypatch, capsys):
    monkeypatch.setenv("JAX_APPLE_FFT_CACHE_DIR", "off")
    monkeypatch.setattr(self_check, "CHECKS", (self_check.CHECKS[0], PLANTED_FAILURE))
    assert problem_report.main(["--emulated"]) == 1
    text = capsys.readouterr().out
    assert "  FAIL  planted failure: fftn (64,)" in text
    assert "relative L2 error" in text and "above the bound" in text
    assert "self-check result: FAILED (1 of 2 checks)" in text
    assert "stored verdict for metal-emulated: persistence off" in text


@pytest.mark.skipif(METAL.available, reason="Metal is available here")
def test_the_report_never_fails_where_metal_is_missing():
    lines = []
    assert problem_report.report(False, lines.append) is True
    assert not any("self-check result" in x for x in lines)
