"""How compiled code names its cache across processes: the default cache's
handle means the default cache in any process, so exported computations run
elsewhere; a user cache's handle means nothing in another process, so code
traced with it fails there with a clear error instead of binding to another
process's cache."""

from __future__ import annotations

import numpy as np
import pytest

import jax_apple_fft as af
from subprocess_testing import check_ok, run_python

_EXPORT = """
    import sys
    import jax, numpy as np
    import jax_apple_fft as af
    cache = af.default_cache() if sys.argv[2] == "default" else af.PlanCache(threads=2)
    f = jax.jit(lambda v: af.rfft(v, cache=cache) * 2)
    safety = [jax.export.DisabledSafetyCheck.custom_call("jax_apple_fft_cpu")]
    exported = jax.export.export(f, disabled_checks=safety)(
        jax.ShapeDtypeStruct((3, 20), np.float32))
    open(sys.argv[1], "wb").write(exported.serialize())
    print(cache.handle)
"""

_RUN = """
    import sys
    import jax, numpy as np
    import jax_apple_fft as af
    # Handles of the same size as the exporting process's, before the load.
    others = [af.PlanCache(threads=1) for _ in range(4)]
    af.register_targets()
    exported = jax.export.deserialize(open(sys.argv[1], "rb").read())
    x = np.arange(60, dtype=np.float32).reshape(3, 20)
    try:
        y = np.asarray(exported.call(x))
    except Exception as e:
        print("error:", e)
    else:
        print("max error:", float(np.max(np.abs(y - 2 * np.fft.rfft(x)))))
"""


def _export_then_run(tmp_path, which):
    path = str(tmp_path / "exported.bin")
    handle = int(check_ok(run_python(_EXPORT, path, which)).split()[-1])
    return handle, check_ok(run_python(_RUN, path)).strip().splitlines()[-1]


def test_default_cache_works_in_another_process(tmp_path):
    handle, result = _export_then_run(tmp_path, "default")
    assert handle == 0
    assert result.startswith("max error:") and float(result.split()[-1]) < 1e-3, result


def test_user_cache_fails_clearly_in_another_process(tmp_path):
    handle, result = _export_then_run(tmp_path, "user")
    assert handle != 0
    assert result.startswith("error:") and "does not exist in this process" in result, result


def test_user_handles_are_large_and_distinct():
    handles = {af.PlanCache(threads=1).handle for _ in range(64)}
    assert len(handles) == 64 and 0 not in handles
    assert min(handles) > 2**32  # not small integers that another process would reuse
    assert af.default_cache().handle == 0


@pytest.mark.parametrize("client", [object(), "cpu", 3, None.__class__])
def test_default_cache_needs_a_cpu_client(client):
    with pytest.raises(TypeError, match="CPU client"):
        af.default_cache(client)


def test_default_cache_of_the_current_client_is_the_process_default():
    import jax

    assert af.default_cache(jax.devices("cpu")[0].client) is af.default_cache()
    assert np.asarray(af.fft(np.ones(4, np.complex64)))[0] == 4


@pytest.mark.parametrize("which", ["default", "own"])
def test_a_jaxpr_prints_the_same_before_and_after_the_cache_works(which):
    import jax

    cache = af.default_cache() if which == "default" else af.PlanCache(threads=1)
    f = lambda v: af.rfft(af.ifft(v, cache=cache).real, cache=cache)
    x = np.ones((3, 24 * 7), np.complex64)  # lengths no other test uses
    before = str(jax.make_jaxpr(f)(x))
    entries = cache.stats().entries
    jax.block_until_ready(jax.jit(f)(x))
    assert cache.stats().entries > entries  # the cache has worked
    assert str(jax.make_jaxpr(f)(x)) == before
    shown = "cache=default" if which == "default" else f"cache=#{cache.handle:016x}"[:13] + "\u2026"
    assert before.count(shown) == 2, before
    for statistic in ("entries", "bytes", "threads", "PlanCache"):
        assert statistic not in before, before


def test_a_handle_finds_its_cache_while_it_lives():
    from jax_apple_fft.runtime.cache import CacheHandle

    cache = af.PlanCache(threads=1)
    assert CacheHandle.of(cache).plan_cache() == cache
    assert CacheHandle(0).plan_cache() is af.default_cache()
    handle = CacheHandle.of(cache)
    del cache
    with pytest.raises(ValueError, match="no live PlanCache"):
        handle.plan_cache()


def test_a_cache_dropped_before_compilation_is_a_clear_error():
    import jax

    # The primitive holds only the handle: a cache made inside the traced
    # function is released before XLA compiles the call.
    f = jax.jit(lambda v: af.fft(v, cache=af.PlanCache(threads=1)))
    with pytest.raises(Exception, match="does not exist in this process"):
        f(np.ones(8, np.complex64))


def test_the_default_cache_cannot_be_closed():
    with pytest.raises(af.DefaultCacheError, match="clear()"):
        af.default_cache().close()
    assert not af.default_cache().closed
    assert np.asarray(af.fft(np.ones(4, np.complex64)))[0] == 4


def test_the_default_cache_is_configured_before_its_first_use():
    out = check_ok(run_python("""
        from jax._src import xla_bridge
        import jax_apple_fft as af
        af.configure_default_cache(max_entries=7, threads=2)
        af.configure_default_cache(max_bytes=12345)  # the others keep their values
        try:
            af.configure_default_cache(threads=0)
        except ValueError as e:
            print("invalid:", e)
        cache = af.default_cache()
        print("client started:", bool(xla_bridge._backends))
        print(cache.max_entries, cache.max_bytes, cache.threads)
        try:
            af.configure_default_cache(threads=1)
        except af.DefaultCacheError as e:
            print("refused:", e)
        print(float(af.fft([1j, 0, 0, 0])[0].imag), cache.stats().entries > 0)
    """)).splitlines()
    assert out[0].startswith("invalid: threads must be")
    assert out[1:3] == ["client started: False", "7 12345 2"]
    assert out[3].startswith("refused: the default PlanCache is already in use")
    assert out[4] == "1.0 True"
