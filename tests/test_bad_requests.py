"""Requests that once killed the Python process (an abort inside XLA or the
C++ runtime) raise a clear Python exception instead. Each runs in a fresh
interpreter, so that a regression fails the test rather than the session."""

from __future__ import annotations

import json
import sys

import pytest

from subprocess_testing import check_ok, run_python

TOO_LARGE = [
    # Beyond any machine's memory: the kernel kills a process that fills it.
    ("rfft", "np.ones((17, 17), np.float32)", {"n": 2**50}),
    ("fft", "np.ones(3, np.complex64)", {"n": 2**48, "norm": "ortho"}),
    # Beyond 64 bits: XLA aborts.
    ("fft", "np.ones(4, np.complex64)", {"n": 2**60}),
    ("fft", "np.ones(4, np.complex64)", {"n": 2**63}),
    ("ifft", "np.ones(4, np.complex64)", {"n": 2**64 + 3}),
    ("rfft", "np.ones(4, np.float32)", {"n": 2**62}),
    ("fftn", "np.ones((2, 2), np.complex64)", {"s": (2**30, 2**30)}),
    ("fftn", "np.ones((2, 2), np.complex64)", {"s": (2**62, 2)}),
    ("irfftn", "np.ones((2, 2), np.complex64)", {"s": (2**40, 2**40)}),
    ("rfftn", "np.ones((2, 2), np.float32)", {"s": (2**33, 2**33)}),
    # XLA multiplies extents in order: a zero elsewhere does not prevent the overflow.
    ("hfft", "np.ones((12, 3, 8, 0), np.float32)", {"n": 2**63, "axis": -2}),
    ("fftn", "np.ones((0, 4), np.complex64)", {"s": (2**62,), "axes": (1,)}),
]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_shapes_too_large_for_any_allocation(jit):
    out = check_ok(run_python("""
        import json, sys
        import jax, numpy as np
        import jax_apple_fft as af
        results = []
        for name, make, kwargs in json.loads(sys.argv[1]):
            x = eval(make)
            kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}
            f = lambda v: getattr(af, name)(v, **kwargs)
            try:
                (jax.jit(f) if sys.argv[2] == "1" else f)(x)
                results.append("no error")
            except Exception as e:
                results.append(f"{type(e).__name__}: {e}")
        print(json.dumps(results))
    """, json.dumps(TOO_LARGE), "1" if jit else "0"))
    for case, result in zip(TOO_LARGE, json.loads(out.splitlines()[-1])):
        assert result.startswith("ValueError:") and "larger than this machine's memory" in result, \
            (case, result)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_many_threads_under_an_address_space_limit():
    # The address space is capped 1 GiB above what the process uses once
    # XLA's own thread pools exist: room for the data and the compilation,
    # not for a thousand thread stacks (and glibc's per-thread arenas). Workers start as the transform needs
    # them; those the system refuses leave the work to the threads that exist.
    out = check_ok(run_python("""
        import resource
        import jax, jax.numpy as jnp, numpy as np
        import jax_apple_fft as af
        x = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.complex64)
        expected = np.fft.fft(x)
        jnp.ones(4).block_until_ready()
        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * resource.getpagesize()
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 30), hard))
        cache = af.PlanCache(threads=1000)
        y = jax.jit(lambda v: af.fft(v, cache=cache))(x).block_until_ready()
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))  # room for the comparison
        assert np.allclose(np.asarray(y), expected, rtol=1e-3, atol=1e-2)
        s = cache.stats()
        print(s.worker_threads, s.worker_start_failures)
    """))
    alive, refused = map(int, out.split()[-2:])
    assert alive >= 1


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS ignores RLIMIT_AS")
def test_a_thousand_thread_cache_is_cheap_until_used():
    out = check_ok(run_python("""
        import jax_apple_fft as af
        caches = [af.PlanCache(threads=1000) for _ in range(200)]
        print(sum(c.stats().worker_threads for c in caches))
    """, limit_address_space=3 << 30))
    assert out.split() == ["0"]
