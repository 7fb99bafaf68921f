"""The auto rule's self-check, with the emulator standing in for the GPU:
run once at trace time (inside jit, from two threads), its verdict kept in
memory and on disk per device and version, a failure sending auto to the
CPU with one warning, and explicit backends never consulting it."""

import json
import os
import threading
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from jax_apple_fft import version
from jax_apple_fft.metal import self_check
from jax_apple_fft.runtime import backends as backends_module
from jax_apple_fft.runtime import device_verdicts, verdict_file
from subprocess_testing import check_ok, run_python
from metal_backend_testing import PLANTED_FAILURE

LARGE = 1 << 16  # auto's threshold
EMULATOR = af.backends()["metal-emulated"]
QUICK_CHECKS = (self_check.CHECKS[0], self_check.CHECKS[6])


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A verdict file of the test's own, and a process that has decided nothing."""
    monkeypatch.setenv(verdict_file.CACHE_DIR_VARIABLE, str(tmp_path))
    device_verdicts.forget()
    yield tmp_path / verdict_file.FILE_NAME
    device_verdicts.forget()


@pytest.fixture
def emulator_as_gpu(monkeypatch, store):
    """The emulator is the device "auto" may choose; a short self-check."""
    monkeypatch.setattr(backends_module, "_auto_gpu", lambda: ("metal-emulated", EMULATOR))
    monkeypatch.setattr(self_check, "CHECKS", QUICK_CHECKS)
    return store


@pytest.fixture
def planted_failure(monkeypatch, emulator_as_gpu):
    monkeypatch.setattr(self_check, "CHECKS", (QUICK_CHECKS[0], PLANTED_FAILURE))
    return emulator_as_gpu


def chosen(x, f=af.fft) -> str:
    """The backend tracing f(x) records (a new function each time: JAX
    reuses the traces of a function it has seen)."""
    (eqn,) = [e for e in jax.make_jaxpr(lambda v: f(v))(x).eqns
              if e.primitive.name == "apple_fft"]
    return eqn.params["backend"]


def large(n=LARGE):
    return jnp.ones((n,), jnp.complex64)


def runs_during(f):
    before = device_verdicts.self_check_runs()
    result = f()
    return result, device_verdicts.self_check_runs() - before


def test_auto_chooses_the_gpu_once_its_self_check_passed(emulator_as_gpu):
    assert runs_during(lambda: chosen(jnp.ones(64, jnp.complex64))) == ("cpu", 0)  # too small
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 1)
    assert runs_during(lambda: chosen(large(2 * LARGE))) == ("metal-emulated", 0)
    record = json.loads(emulator_as_gpu.read_text())["verdicts"]
    assert list(record.values()) == [{"passed": True, "failure": ""}]


def test_a_failed_self_check_sends_auto_to_the_cpu_and_warns_once(planted_failure):
    with pytest.warns(af.MetalSelfCheckWarning) as caught:
        assert runs_during(lambda: chosen(large())) == ("cpu", 1)
    (warning,) = caught
    message = str(warning.message)
    assert "planted failure: fftn (64,)" in message
    assert "python -m jax_apple_fft" in message and str(planted_failure) in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert chosen(large()) == "cpu"
        assert runs_during(lambda: chosen(large(2 * LARGE), af.ifft)) == ("cpu", 0)


def test_a_stored_failure_is_not_rerun_and_warns_in_each_process(planted_failure, monkeypatch):
    with pytest.warns(af.MetalSelfCheckWarning):
        chosen(large())
    device_verdicts.forget()  # as a new process sees it
    monkeypatch.setattr(self_check, "CHECKS", QUICK_CHECKS)  # would pass if rerun
    with pytest.warns(af.MetalSelfCheckWarning, match="planted failure"):
        assert runs_during(lambda: chosen(large())) == ("cpu", 0)


def test_first_contact_inside_jit_vmap_and_grad_runs_eagerly(emulator_as_gpu):
    x = (np.arange(LARGE) % 7).astype(np.complex64)
    y, runs = runs_during(lambda: jax.jit(lambda v: af.fft(v) * 2)(x))
    assert runs == 1
    np.testing.assert_allclose(np.asarray(y), 2 * np.fft.fft(x), rtol=1e-4, atol=1e-2)
    device_verdicts.forget()
    emulator_as_gpu.unlink()
    loss = jax.vmap(jax.grad(lambda v: jnp.sum(jnp.abs(af.fft(v)) ** 2)))
    text, runs = runs_during(lambda: jax.jit(loss).lower(np.ones((2, LARGE), np.float32)).as_text())
    assert runs == 1 and "jax_apple_fft_metal" in text


def test_first_contact_while_the_drop_in_lowers(emulator_as_gpu):
    af.enable(backend="auto")
    try:
        text, runs = runs_during(lambda: jax.jit(jnp.fft.fft).lower(large()).as_text())
    finally:
        af.disable()
    assert runs == 1 and "jax_apple_fft_metal" in text


def test_two_threads_tracing_at_once_run_it_once(emulator_as_gpu):
    start = threading.Barrier(2)
    chosen_by = [None, None]

    def trace(i):
        start.wait()
        chosen_by[i] = chosen(large())

    threads = [threading.Thread(target=trace, args=(i,)) for i in range(2)]
    _, runs = runs_during(lambda: [t.start() for t in threads] + [t.join() for t in threads])
    assert runs == 1 and chosen_by == ["metal-emulated"] * 2


def test_another_process_reads_the_stored_verdict(emulator_as_gpu):
    code = """
        import jax.numpy as jnp
        import jax_apple_fft as af
        from jax_apple_fft.metal import self_check
        from jax_apple_fft.runtime import backends, device_verdicts
        backends._auto_gpu = lambda: ("metal-emulated", af.backends()["metal-emulated"])
        self_check.CHECKS = self_check.CHECKS[:1]
        x = jnp.ones((1 << 16,), jnp.complex64)
        print(af.fft(x).dtype, jnp.abs(af.fft(x)[0]), device_verdicts.self_check_runs())
        import jax
        print(jax.make_jaxpr(af.fft)(x))
    """
    root = os.path.dirname(os.path.dirname(af.__file__))
    env = {verdict_file.CACHE_DIR_VARIABLE: str(emulator_as_gpu.parent),
           "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    first = check_ok(run_python(code, env=env))
    second = check_ok(run_python(code, env=env))
    assert first.splitlines()[0] == "complex64 65536.0 1"
    assert second.splitlines()[0] == "complex64 65536.0 0"
    assert "backend=metal-emulated" in second


def test_a_new_package_version_runs_it_again(emulator_as_gpu, monkeypatch):
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 1)
    monkeypatch.setattr(version, "__version__", "0.0.0+other")
    device_verdicts.forget()
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 1)
    keys = list(json.loads(emulator_as_gpu.read_text())["verdicts"])
    assert len(keys) == 2 and any("jax_apple_fft 0.0.0+other" in k for k in keys)


@pytest.mark.parametrize("content", ["{not json", "[]", '{"format": 1, "verdicts": []}',
                                     '{"format": 1, "verdicts": {"k": 3}}', "\x00\xff"])
def test_a_corrupt_file_is_ignored_and_replaced(emulator_as_gpu, content):
    emulator_as_gpu.write_text(content)
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 1)
    record = json.loads(emulator_as_gpu.read_text())
    assert list(record["verdicts"].values()) == [{"passed": True, "failure": ""}]


def test_a_stored_verdict_of_the_wrong_shape_is_rerun(emulator_as_gpu):
    k = device_verdicts.key("metal-emulated", EMULATOR.reason)
    emulator_as_gpu.write_text(json.dumps({"format": 1, "verdicts": {k: {"passed": "yes"}}}))
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 1)


def test_an_unwritable_place_keeps_the_verdict_in_memory(emulator_as_gpu, monkeypatch, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv(verdict_file.CACHE_DIR_VARIABLE, str(blocker / "below_a_file"))
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 1)
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_persistence_can_be_turned_off(emulator_as_gpu, monkeypatch):
    monkeypatch.setenv(verdict_file.CACHE_DIR_VARIABLE, "off")
    assert verdict_file.path() is None
    assert runs_during(lambda: chosen(large())) == ("metal-emulated", 1)
    assert not emulator_as_gpu.exists()


def test_the_default_place_is_the_user_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv(verdict_file.CACHE_DIR_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr("sys.platform", "linux")
    assert verdict_file.path() == tmp_path / "jax_apple_fft" / "self_check.json"
    monkeypatch.setattr("sys.platform", "darwin")
    assert verdict_file.path().parts[-4:] == ("Library", "Caches", "jax_apple_fft",
                                              "self_check.json")


def test_explicit_backends_never_consult_it(planted_failure, monkeypatch):
    def consulted(*args):
        raise AssertionError("an explicit backend consulted the self-check")

    monkeypatch.setattr(device_verdicts, "verdict", consulted)
    monkeypatch.setattr(device_verdicts, "auto_may_choose", consulted)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert chosen(large(), lambda v: af.fft(v, backend="metal-emulated")) == "metal-emulated"
        assert chosen(large(), lambda v: af.fft(v, backend="cpu")) == "cpu"
        if not af.backends()["metal"].available:
            with pytest.raises(af.BackendUnavailableError):
                af.fft(large(), backend="metal")
