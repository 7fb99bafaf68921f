"""Many Python threads sharing one small PlanCache: compiling and running
different shapes at once, racing for the same plan, and sharing one
compiled executable."""

from __future__ import annotations

import threading
import time

import jax
import numpy as np

import jax_apple_fft as af
from fft_testing import make_input
from support.accuracy import assert_accurate

N_THREADS = 8


def _run_threads(target, n_threads=N_THREADS):
    """Starts the threads together and returns the exceptions they raised."""
    barrier = threading.Barrier(n_threads)
    errors = []
    lock = threading.Lock()

    def body(i):
        try:
            barrier.wait(timeout=60)
            target(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            with lock:
                errors.append((i, e))

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors


# Each thread gets its own transform and line length.
THREAD_JOBS = [
    ("fft", 12, {}),
    ("ifft", 30, {"norm": "ortho"}),
    ("rfft", 64, {}),
    ("irfft", 21, {"n": 40}),
    ("hfft", 9, {"n": 17}),
    ("ihfft", 50, {"norm": "forward"}),
    ("fft", 97, {}),
    ("rfft", 128, {"n": 100}),
]


def test_threads_with_different_shapes_share_a_small_cache():
    cache = af.PlanCache(max_entries=4, max_bytes=64 * 1024, threads=2)
    results = {}

    def work(i):
        name, m, kwargs = THREAD_JOBS[i]
        rng = np.random.default_rng(i)
        real_in = name in ("rfft", "ihfft")
        f = jax.jit(lambda v: getattr(af, name)(v, cache=cache, **kwargs))
        worst = 0.0
        for rep in range(6):
            x = make_input(rng, (3 + rep, m), "float32", complex_=not real_in)
            out = np.asarray(f(x))
            ref = getattr(np.fft, name)(x.astype(np.float64 if real_in else np.complex128),
                                        **kwargs)
            assert_accurate(out, ref, out.dtype, max(m, kwargs.get("n", 0)))
            worst = max(worst, float(np.max(np.abs(out - ref))))
        results[i] = worst

    errors = _run_threads(work)
    assert not errors, errors
    assert sorted(results) == list(range(N_THREADS))
    s = cache.stats()
    assert s.retained_bytes == s.plan_bytes + s.scratch_bytes
    assert s.retained_bytes <= 64 * 1024
    assert s.entries <= 4
    assert s.misses == s.builds + s.failed_builds + s.waits
    assert s.failed_builds == 0
    # Eight distinct lines through four slots: something was evicted.
    assert s.evictions >= 1


def test_racing_for_one_plan_builds_it_once():
    """Eight threads compile functions needing the same plan at once: one
    build; the others hit or wait for it."""
    cache = af.PlanCache()
    outs = [None] * N_THREADS
    n = 210  # below the length where a second (single long line) layout exists
    x = make_input(np.random.default_rng(0), (4, n), "float32", complex_=True)

    def work(i):
        f = jax.jit(lambda v: af.fft(v, norm="ortho", cache=cache) * (i + 1))
        outs[i] = np.asarray(f(x)) / (i + 1)

    errors = _run_threads(work)
    assert not errors, errors
    s = cache.stats()
    assert s.builds == 1
    assert s.entries == 1
    assert s.hits + s.misses >= N_THREADS
    assert s.misses - s.waits == 1
    ref = np.fft.fft(x.astype(np.complex128), norm="ortho")
    for out in outs:
        assert_accurate(out, ref, np.complex64, n)


def test_one_executable_called_from_many_threads():
    """Calls of one compiled function run concurrently, each with its own
    scratch, on a cache with worker threads."""
    cache = af.PlanCache(threads=2)
    f = jax.jit(lambda v: af.irfftn(v, s=(96, 254), axes=(0, 1), cache=cache))
    inputs = [make_input(np.random.default_rng(i), (96, 128), "float32", complex_=True)
              for i in range(N_THREADS)]
    outs = [None] * N_THREADS

    def work(i):
        for _ in range(3):
            outs[i] = np.asarray(f(inputs[i]))

    errors = _run_threads(work)
    assert not errors, errors
    for i in range(N_THREADS):
        ref = np.fft.irfftn(inputs[i].astype(np.complex128), s=(96, 254), axes=(0, 1))
        assert_accurate(outs[i], ref, np.float32, 96 * 254)
    s = cache.stats()
    assert s.retained_bytes == s.plan_bytes + s.scratch_bytes <= cache.max_bytes
    assert s.misses == s.builds  # compiled once: one real and one complex plan
    assert s.entries == 2


def test_clear_while_other_threads_compute():
    """clear() from one thread while others keep compiling and running."""
    cache = af.PlanCache(max_entries=3, max_bytes=32 * 1024)
    stop = threading.Event()

    def work(i):
        if i == 0:
            for _ in range(40):
                cache.clear()
                cache.stats()
                time.sleep(0.01)
            stop.set()
            return
        rng = np.random.default_rng(i)
        n = 8 * i + 3
        count = 0
        while not stop.is_set() or count < 2:
            f = jax.jit(lambda v: af.rfft(v, cache=cache))
            x = make_input(rng, (5, n), "float32", complex_=False)
            assert_accurate(f(x), np.fft.rfft(x.astype(np.float64)), np.complex64, n)
            count += 1

    errors = _run_threads(work, n_threads=4)
    assert not errors, errors
    s = cache.stats()
    assert s.retained_bytes <= cache.max_bytes
    assert s.entries <= 3
