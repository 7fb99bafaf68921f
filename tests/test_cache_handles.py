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
