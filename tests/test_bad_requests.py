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
@pytest.mark.parametrize("attempt", range(4))
def test_many_threads_under_an_address_space_limit(attempt):
    # The address space is capped 1 GiB above what the process uses once
    # XLA's own thread pools exist: room for the data and the compilation,
    # not for a thousand thread stacks (and glibc's per-thread arenas). Workers start as the transform needs
    # them; those the system refuses leave the work to the threads that exist.
    # Once the stacks fill the address space, a worker's scratch cannot be
    # had: the task is left to the calling thread, with no throw on the
    # worker (whose first throw would allocate the C++ runtime's thread-local
    # state, and glibc aborts the process when it cannot). glibc gives each
    # new thread its own malloc arena up to 8 per core: the arena limit of a
    # 128-core machine makes every worker's first allocation fail here, as it
    # does on machines of 16 cores and more; the limit is then hit at a point
    # that varies from run to run, hence several runs.
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
    """, env={"GLIBC_TUNABLES": "glibc.malloc.arena_max=1024"}))
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


# Eager and jit: the padded input, the output and the four-step temporary of
# 2^31 complex64 points (16 GiB each) cannot fit 4 GiB of address space more.
REFUSAL_UNDER_A_LIMIT = """
    import resource, sys, time
    import jax, numpy as np
    import jax_apple_fft as af

    def rss():
        with open("/proc/self/status") as status:
            return next(int(l.split()[1]) << 10 for l in status if l.startswith("VmRSS:"))

    x = np.ones(4, np.complex64)
    af.fft(x).block_until_ready()  # compiles what the small call needs
    with open("/proc/self/statm") as statm:
        used = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (used + int(sys.argv[1]), resource.RLIM_INFINITY))
    f = jax.jit(lambda v: af.fft(v, n=int(sys.argv[2]))) if sys.argv[3] == "1" else \\
        lambda v: af.fft(v, n=int(sys.argv[2]))
    before, start = rss(), time.monotonic()
    try:
        y = f(x).block_until_ready()
        print("ran", float(abs(np.asarray(y)).max()))
    except ValueError as e:
        print("refused", time.monotonic() - start, rss() - before, str(e).replace(chr(10), " "))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_a_transform_beyond_available_memory_is_refused_before_allocating(jit):
    out = check_ok(run_python(REFUSAL_UNDER_A_LIMIT, str(4 << 30), str(2**31), "1" if jit else "0"))
    verdict, seconds, grown, message = out.strip().splitlines()[-1].split(" ", 3)
    assert verdict == "refused", out
    assert float(seconds) < 5 and int(grown) < 64 << 20, out
    assert "larger than this machine's memory available" in message and "RLIMIT_AS" in message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
def test_the_check_counts_the_whole_peak_not_the_array():
    # 2^26 complex64 points: a 512 MiB array, well below physical memory (the
    # rule before), but with its padded copy and the four-step temporary
    # 1.5 GiB at the peak: refused under 1 GiB more address space...
    out = check_ok(run_python(REFUSAL_UNDER_A_LIMIT, str(1 << 30), str(2**26), "1"))
    assert out.strip().splitlines()[-1].startswith("refused "), out
    # ...where a call that fits runs (96 MiB at its peak).
    out = check_ok(run_python(REFUSAL_UNDER_A_LIMIT, str(1 << 30), str(2**22), "1"))
    assert out.strip().splitlines()[-1] == "ran 4.0", out
