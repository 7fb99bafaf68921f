"""PlanCache behaviour: lookups at compile time, keys, LRU eviction by
entries and by bytes, clear/close, plans kept alive by executables,
failed builds, statistics, and thread counts."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import subprocess
import sys
import textwrap
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_apple_fft as af
from jax_apple_fft._core import testing
from jax_apple_fft.primitive.transform_kind import Precision, TransformKind
from fft_testing import make_input
from subprocess_testing import CPU_ONLY
from support.accuracy import assert_accurate

C2C, R2C, C2R = TransformKind.C2C, TransformKind.R2C, TransformKind.C2R


def compile_and_run(cache, n, *, name="fft", batch=2, dtype="float32", rng=None, **kwargs):
    """Compiles a brand-new jitted function (so its plans are looked up now),
    runs it and checks the result against numpy. Returns the function."""
    rng = rng or np.random.default_rng(n)
    real_in = name in ("rfft", "rfftn", "ihfft")
    x = make_input(rng, (batch, n), dtype, complex_=not real_in)
    f = jax.jit(lambda v: getattr(af, name)(v, cache=cache, **kwargs))
    out = f(x)
    x64 = x.astype(np.float64 if real_in else np.complex128)
    assert_accurate(out, getattr(np.fft, name)(x64, **kwargs), out.dtype, n)
    return f, x


def plan_bytes(kind, n, precision=Precision.SINGLE):
    """What one line plan costs, measured on a throwaway cache."""
    probe = af.PlanCache()
    in_n = n // 2 + 1 if kind == C2R else n
    testing.describe_cpu(probe.handle, kind, True, precision, [1, in_n], [1], [n])
    stats = probe.stats()
    assert stats.entries == 1
    return stats.plan_bytes


def counts(cache):
    s = cache.stats()
    return s.hits, s.misses


def lookups(cache, n, **kwargs):
    """Compiles a new function for length n; returns (new hits, new misses).
    How many lookups one compilation makes is the backend's business (a pass
    may ask for its plan more than once); whether they hit or miss is not."""
    h0, m0 = counts(cache)
    compile_and_run(cache, n, **kwargs)
    h1, m1 = counts(cache)
    return h1 - h0, m1 - m0


def assert_consistent(cache):
    s = cache.stats()
    assert s.retained_bytes == s.plan_bytes + s.scratch_bytes
    assert s.retained_bytes <= cache.max_bytes
    assert s.entries <= cache.max_entries
    # Every miss was built, failed, or waited for another thread's build.
    assert s.misses == s.builds + s.failed_builds + s.waits
    assert s.evictions <= s.builds
    return s


# --------------------------------------------------------------------------
# Lookups happen when a computation is compiled
# --------------------------------------------------------------------------

def test_miss_and_build_on_first_compile_then_hit(rng):
    cache = af.PlanCache()
    assert cache.stats() == af.CacheStats(**{f.name: 0 for f in dataclasses.fields(af.CacheStats)})
    f, x = compile_and_run(cache, 24, rng=rng)
    s = cache.stats()
    assert (s.misses, s.builds, s.entries) == (1, 1, 1)
    assert s.plan_bytes > 0
    first = counts(cache)
    # Running the compiled function again does not look anything up.
    f(x)
    f(x)
    assert counts(cache) == first
    # Another function that needs a complex line of length 24 hits.
    compile_and_run(cache, 24, name="ifft", batch=5, norm="ortho", rng=rng)
    s = cache.stats()
    assert (s.misses, s.builds, s.entries) == (1, 1, 1)
    assert s.hits > first[0]
    assert_consistent(cache)


def test_plans_are_per_line_length(rng):
    """fft2 of a 16x16 array needs one complex plan of length 16: the second
    axis hits the plan the first one built."""
    cache = af.PlanCache()
    x = make_input(rng, (16, 16), "float32", complex_=True)
    out = jax.jit(lambda v: af.fft2(v, cache=cache))(x)
    assert_accurate(out, np.fft.fft2(x.astype(np.complex128)), np.complex64, 256)
    s = cache.stats()
    assert (s.misses, s.builds, s.entries) == (1, 1, 1)
    assert s.hits >= 1


def test_keys_separate_real_complex_and_precision(rng):
    cache = af.PlanCache()
    x = make_input(rng, (4, 16), "float32", complex_=False)
    jax.jit(lambda v: af.rfftn(v, cache=cache))(x)  # real 16 (axis 1) + complex 4 (axis 0)
    s = cache.stats()
    assert (s.entries, s.builds, s.misses) == (2, 2, 2)
    hits = s.hits
    jax.jit(lambda v: af.fft(v, axis=0, cache=cache))(x)  # complex 4 again: hit
    s = cache.stats()
    assert (s.entries, s.builds, s.misses) == (2, 2, 2)
    assert s.hits > hits
    hits = s.hits
    jax.jit(lambda v: af.fft(v, cache=cache))(x)  # complex 16: not the real 16
    s = cache.stats()
    assert (s.entries, s.builds, s.misses) == (3, 3, 3)
    with jax.enable_x64(True):
        jax.jit(lambda v: af.fft(v, axis=0, cache=cache))(x.astype(np.float64))  # double: miss
    s = cache.stats()
    assert (s.entries, s.builds, s.misses) == (4, 4, 4)
    assert_consistent(cache)


# --------------------------------------------------------------------------
# Eviction
# --------------------------------------------------------------------------

def test_lru_eviction_at_max_entries(rng):
    """Lengths 8, 16, 32 are one plan each (A, B, C); two fit."""
    cache = af.PlanCache(max_entries=2)

    def hit(n, **kwargs):
        new_hits, new_misses = lookups(cache, n, rng=rng, **kwargs)
        assert new_misses == 0 or new_hits == 0
        return new_misses == 0 and new_hits > 0

    assert not hit(8)                      # A built
    assert not hit(16)                     # B built
    assert hit(8, name="ifft")             # A used: B is now least recent
    assert (cache.stats().entries, cache.stats().evictions) == (2, 0)
    assert not hit(32)                     # C built, evicting B
    assert (cache.stats().entries, cache.stats().evictions) == (2, 1)
    assert hit(8)                          # A survived (order: A, C)
    assert not hit(16)                     # B was evicted; rebuilt, evicting C
    assert (cache.stats().entries, cache.stats().evictions) == (2, 2)
    assert hit(8)                          # A still there
    assert hit(16)
    assert not hit(32)                     # C was the one to go
    s = assert_consistent(cache)
    assert (s.builds, s.evictions) == (5, 3)


def test_eviction_at_max_bytes():
    """Plans only (describe_cpu runs nothing, so no scratch is involved)."""
    sizes = (64, 96, 128)
    costs = [plan_bytes(C2C, n) for n in sizes]
    budget = sum(costs) - 1  # all three never fit; any two do
    cache = af.PlanCache(max_bytes=budget)
    def prepare(n):
        testing.describe_cpu(cache.handle, C2C, True, Precision.SINGLE, [1, n], [1], [n])

    for n in sizes[:2]:
        prepare(n)
    s = cache.stats()
    assert (s.entries, s.plan_bytes, s.evictions) == (2, costs[0] + costs[1], 0)
    prepare(sizes[2])
    s = assert_consistent(cache)
    assert (s.entries, s.evictions) == (2, 1)
    assert s.plan_bytes == costs[1] + costs[2]  # the oldest (64) went
    misses = s.misses
    prepare(sizes[1])                            # still there: no miss
    assert cache.stats().misses == misses
    prepare(sizes[0])                            # rebuilt, evicting 128 (least recent)
    s = assert_consistent(cache)
    assert s.plan_bytes == costs[0] + costs[1]
    assert (s.misses, s.evictions, s.entries) == (misses + 1, 2, 2)


def test_byte_budget_holds_with_scratch(rng):
    """Running transforms allocates scratch; what the cache keeps stays
    within max_bytes, and results stay right."""
    cache = af.PlanCache(max_bytes=6 * 1024, threads=2)
    for n in (8, 30, 64, 100, 256, 17, 512):
        f, x = compile_and_run(cache, n, batch=9, rng=rng)
        f(x)
        assert_consistent(cache)
    assert cache.stats().evictions >= 1


def test_plan_larger_than_budget_is_not_kept(rng):
    cache = af.PlanCache(max_bytes=16)
    for _ in range(2):
        compile_and_run(cache, 128, rng=rng)
    s = assert_consistent(cache)
    assert s.entries == 0 and s.plan_bytes == 0
    assert s.builds == s.misses >= 2  # built for each compilation, never kept
    assert s.hits == 0


def test_zero_max_entries_keeps_nothing(rng):
    cache = af.PlanCache(max_entries=0)
    compile_and_run(cache, 12, rng=rng)
    compile_and_run(cache, 12, rng=rng)
    s = cache.stats()
    assert s.entries == 0 and s.hits == 0
    assert s.builds == s.misses >= 2


# --------------------------------------------------------------------------
# clear, close, plans held by executables
# --------------------------------------------------------------------------

def test_clear_empties_plans_and_scratch(rng):
    cache = af.PlanCache()
    for n in (8, 20):
        f, x = compile_and_run(cache, n, batch=6, rng=rng)
        f(x)
    s = cache.stats()
    assert s.entries == 2 and s.scratch_bytes > 0
    cache.clear()
    s = assert_consistent(cache)
    assert (s.entries, s.plan_bytes, s.scratch_bytes, s.retained_bytes) == (0, 0, 0, 0)
    # The counters are history, not contents: they survive clear().
    assert (s.misses, s.builds) == (2, 2)
    compile_and_run(cache, 8, rng=rng)
    assert cache.stats().misses == 3


def test_evicted_plan_stays_alive_for_its_executable(rng):
    cache = af.PlanCache()
    f, x = compile_and_run(cache, 40, rng=rng)
    held = cache.stats().plan_bytes
    cache.clear()
    s = cache.stats()
    assert s.entries == 0 and s.retained_bytes == 0
    assert s.evicted_in_use >= 1
    assert s.evicted_in_use_bytes >= held > 0
    # The compiled function still works, with its own (evicted) plan.
    out = f(x)
    assert_accurate(out, np.fft.fft(x.astype(np.complex128)), np.complex64, 40)
    assert cache.stats().misses == 1  # nothing was rebuilt
    # Once the executable is gone, so is the plan.
    del f, out
    gc.collect()
    assert cache.stats().evicted_in_use == 0


def test_lru_eviction_of_a_plan_in_use(rng):
    cache = af.PlanCache(max_entries=1)
    f, x = compile_and_run(cache, 10, rng=rng)
    compile_and_run(cache, 14, rng=rng)
    s = cache.stats()
    assert (s.entries, s.evictions) == (1, 1)
    assert s.evicted_in_use >= 1
    assert_accurate(f(x), np.fft.fft(x.astype(np.complex128)), np.complex64, 10)


def test_closed_cache(rng):
    cache = af.PlanCache()
    f, x = compile_and_run(cache, 16, rng=rng)
    assert not cache.closed
    cache.close()
    assert cache.closed
    s = cache.stats()
    assert s.entries == 0 and s.retained_bytes == 0
    with pytest.raises(af.CacheClosedError):
        jax.make_jaxpr(lambda v: af.fft(v, cache=cache))(x)
    with pytest.raises(af.CacheClosedError):
        af.rfft(np.ones(8, np.float32), cache=cache)
    with pytest.raises(af.CacheClosedError):
        jax.jit(lambda v: af.ifft(v, cache=cache))(x)
    # An executable compiled before the close holds the plans it resolved and
    # runs on, as it does after their eviction; small and large alike.
    assert_accurate(f(x), np.fft.fft(x.astype(np.complex128)), np.complex64, 16)
    cache.close()  # idempotent
    cache.clear()
    assert cache.closed
    assert "closed" in repr(cache)


def test_compiled_code_runs_after_close_whatever_its_size():
    # Small computations run synchronously and large ones asynchronously in
    # JAX, which reports an FFI error as ValueError in one and JaxRuntimeError
    # in the other: a closed cache raises no error there at all.
    for shape in ((8,), (512, 2048)):
        cache = af.PlanCache()
        x = np.ones(shape, np.complex64)
        f = jax.jit(lambda v: af.fft(v, cache=cache))
        jax.block_until_ready(f(x))
        cache.close()
        assert_accurate(f(x), np.fft.fft(x.astype(np.complex128)), np.complex64, shape[-1])


# --------------------------------------------------------------------------
# Failed builds
# --------------------------------------------------------------------------

_FAILED_BUILD_CHILD = textwrap.dedent("""
    import dataclasses, json, sys
    import jax_apple_fft as af
    from jax_apple_fft._core import testing
    from jax_apple_fft.primitive.transform_kind import Precision, TransformKind

    def snapshot(cache):
        return dataclasses.asdict(cache.stats())

    print("ready", flush=True)
    sys.stdin.readline()
    report = {}
    huge = 2 ** 60
    for label, cache in (("fresh", af.PlanCache()), ("default", af.default_cache())):
        before = snapshot(cache)
        errors = []
        for attempt in range(2):  # a failed key is retried, and fails again
            try:
                testing.describe_cpu(cache.handle, TransformKind.C2C, True, Precision.SINGLE,
                                    [huge], [0], [huge])
                errors.append(None)
            except af.PlanBuildError as e:
                errors.append(str(e))
        report[label] = {"before": before, "after": snapshot(cache), "errors": errors}
    # The cache still serves normal lengths afterwards.
    import numpy as np
    x = np.arange(8, dtype=np.float32)
    ok = np.allclose(np.asarray(af.rfft(x)), np.fft.rfft(x), atol=1e-4)
    report["still_works"] = bool(ok)
    print(json.dumps(report), flush=True)
""")


def _rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="watches /proc/<pid>/status")
def test_failed_plan_build_raises_and_leaves_no_entry(tmp_path):
    """A length of 2**60 cannot be planned: PlanBuildError, failed_builds
    counted, no entry left, and it must fail fast. Run in a child process
    watched for memory, so that a build that tries to allocate its way there
    is stopped (and reported) long before it can exhaust the machine."""
    env = {**os.environ, **CPU_ONLY}
    root = os.path.dirname(os.path.dirname(af.__file__))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    # The child starts in an empty directory so that `import jax_apple_fft`
    # finds the package under test, not a source tree in the working directory.
    child = subprocess.Popen([sys.executable, "-c", _FAILED_BUILD_CHILD], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        ready = child.stdout.readline().strip()
        assert ready == "ready", f"child did not start: {child.stderr.read()[-2000:]}"
        baseline = _rss_bytes(child.pid)
        child.stdin.write("go\n")
        child.stdin.flush()
        start, peak, stopped = time.monotonic(), 0, None
        while child.poll() is None:
            try:
                peak = max(peak, _rss_bytes(child.pid) - baseline)
            except FileNotFoundError:
                break
            if peak > 1 << 30:
                stopped = f"grew by {peak >> 20} MiB"
            elif time.monotonic() - start > 120:
                stopped = "ran for over 120 s"
            if stopped:
                child.kill()
                break
            time.sleep(0.005)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert stopped is None, (
        f"planning length 2**60 did not fail fast: the process {stopped} before it was stopped")
    assert child.returncode == 0, f"child died with status {child.returncode}: {err[-2000:]}"
    report = json.loads(out.strip().splitlines()[-1])
    for label in ("fresh", "default"):
        r = report[label]
        assert all(e is not None for e in r["errors"]), r
        assert all("could not build plan" in e for e in r["errors"]), r
        assert r["after"]["failed_builds"] == r["before"]["failed_builds"] + 2
        assert r["after"]["entries"] == r["before"]["entries"]
        assert r["after"]["builds"] == r["before"]["builds"]
        assert r["after"]["plan_bytes"] == r["before"]["plan_bytes"]
    assert report["fresh"]["after"]["failed_builds"] == 2
    assert report["fresh"]["after"]["entries"] == 0
    assert report["still_works"]


def test_failed_build_error_type():
    assert af.PlanBuildError is af.errors.PlanBuildError
    assert issubclass(af.PlanBuildError, RuntimeError)


# --------------------------------------------------------------------------
# Threads, construction, identity
# --------------------------------------------------------------------------

@pytest.mark.parametrize("name,shape,kwargs,bitwise", [
    ("fft", (256, 512), {}, True),                 # 2 tasks' worth of lines
    ("rfftn", (128, 1024), {}, True),
    ("irfftn", (96, 1025), {"axes": (0, 1)}, True),
    ("ifft", (1000, 130), {"axis": 0}, True),
    # Few long lines: with two threads, narrower SIMD groups keep both busy,
    # so the two caches group lines differently and round differently.
    ("fft", (8, 1 << 16), {}, False),
    ("rfftn", (2, 1 << 18), {}, False),
    ("irfftn", (4, 1 << 17), {"axes": (1,)}, False),
    ("fft", (2, 1 << 18), {}, True),               # two passes of short lines
])
def test_threads_one_and_two_agree(name, shape, kwargs, bitwise, rng):
    real_in = name == "rfftn"
    x = make_input(rng, shape, "float32", complex_=not real_in)
    one = af.PlanCache(threads=1)
    two = af.PlanCache(threads=2)
    assert (one.threads, two.threads) == (1, 2)
    a = np.asarray(jax.jit(lambda v: getattr(af, name)(v, cache=one, **kwargs))(x))
    b = np.asarray(jax.jit(lambda v: getattr(af, name)(v, cache=two, **kwargs))(x))
    if bitwise:
        np.testing.assert_array_equal(a, b)
    else:
        assert_accurate(a, b.astype(np.complex128 if np.iscomplexobj(b) else np.float64), a.dtype,
                       int(np.prod(shape)))
    ref = getattr(np.fft, name)(x.astype(np.float64 if real_in else np.complex128), **kwargs)
    assert_accurate(b, ref, b.dtype, int(np.prod(shape)))


def _threads_named(name: str) -> set[str]:
    """Ids of this process's threads called `name`; threads ending meanwhile are left out."""
    found = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                if comm.read().strip() == name:
                    found.add(task)
        except OSError:
            pass
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="thread names read from /proc")
def test_workers_carry_the_library_name():
    """A cache of n threads starts up to n - 1 workers when a transform needs
    them, named for profilers and top -H."""
    before = _threads_named("jax_apple_fft")
    cache = af.PlanCache(threads=3)
    assert cache.stats().worker_threads == 0  # none before a transform needs them
    x = np.ones((1024, 1024), np.complex64)  # 2^20 points: more tasks than threads
    jax.block_until_ready(jax.jit(lambda v: af.fft(v, cache=cache))(x))
    assert cache.stats().worker_threads == 2
    deadline = time.monotonic() + 10  # a worker names itself once it runs
    while len(_threads_named("jax_apple_fft") - before) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(_threads_named("jax_apple_fft") - before) == 2
    cache.close()


@pytest.mark.parametrize("kwargs", [
    {"max_entries": -1}, {"max_bytes": -5}, {"threads": 0}, {"threads": True},
    {"max_entries": 1.5}, {"max_bytes": None}, {"threads": "2"}, {"threads": 2**16 + 1},
    {"max_bytes": 2**64},
])
def test_constructor_validates(kwargs):
    with pytest.raises(ValueError):
        af.PlanCache(**kwargs)


def test_limits_and_identity():
    c = af.PlanCache(max_entries=7, max_bytes=12345, threads=1)
    assert (c.max_entries, c.max_bytes, c.threads) == (7, 12345, 1)
    d = af.PlanCache()
    assert d.threads >= 1
    assert isinstance(c.handle, int) and c.handle != d.handle
    assert af.default_cache() is af.default_cache()
    assert isinstance(af.default_cache(), af.PlanCache)
    assert af.default_cache() is not c
    assert "entries=0/7" in repr(c)


def test_default_cache_is_used_when_none_given(rng):
    cache = af.default_cache()
    before = cache.stats()
    n = 4 * 3 * 5 * 7  # a length no other test uses
    x = make_input(rng, (3, n), "float32", complex_=True)
    jax.jit(lambda v: af.fft(v))(x)
    after = cache.stats()
    assert after.misses + after.hits > before.misses + before.hits
    assert after.builds > before.builds
    # Another function needing the same plans finds them all in the default cache.
    jax.jit(lambda v: af.fft(v) * 2)(x)
    again = cache.stats()
    assert again.builds == after.builds and again.hits > after.hits
    assert_consistent(cache)


def test_four_step_plans_keep_tables_of_about_sqrt_n():
    # A long line runs as two passes of about sqrt(n) points with twiddles
    # between them; the plan keeps O(sqrt(n)) bytes of tables, not an n-point
    # table as large as the input.
    def plan_bytes(n):
        cache = af.PlanCache(threads=1)
        af.fft(np.zeros(n, np.complex64), cache=cache).block_until_ready()
        return cache.stats().plan_bytes

    small, large = plan_bytes(2**18), plan_bytes(2**24)
    assert large < 2**24 * 8 // 32, large  # an n-point complex64 table alone is 2**24 * 8
    assert large < 16 * small, (small, large)  # n grows 64-fold, sqrt(n) 8-fold


def test_default_budget_is_an_eighth_of_physical_memory():
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert af.PlanCache().max_bytes == max(256 << 20, physical // 8)


def test_default_budget_keeps_a_long_prime_lines_scratch_between_calls():
    """An 8388593-point complex64 line (Bluestein) needs about 540 MB of plan
    and scratch: the default budget keeps its scratch for the next call,
    where 256 MiB freed it after every call (and the call re-faulted it)."""
    n = 8388593
    x = jnp.asarray(np.random.default_rng(0).standard_normal(n).astype(np.complex64))
    small = af.PlanCache(max_bytes=256 << 20)
    default = af.PlanCache()
    if os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") < 8 << 30:
        pytest.skip("physical memory below 8 GiB: the default budget is below this line's needs")
    for cache in (small, default):
        f = jax.jit(lambda v, cache=cache: af.fft(v, cache=cache))
        f(x).block_until_ready()
        f(x).block_until_ready()
    assert small.stats().scratch_bytes < 1 << 20
    stats = default.stats()
    assert stats.scratch_bytes > 256 << 20 and stats.transient_scratch == 0
