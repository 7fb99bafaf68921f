"""The Metal path's plans, pipelines and tables live in the PlanCache, and
the executors bind XLA's buffers in place: staged bytes stay zero."""

import functools

import jax
import numpy as np
import pytest

import jax_apple_fft as af
from metal_backend_testing import complex_input, real_input


def test_plans_and_pipelines_are_cache_entries(backend, cache, rng):
    af.fft(complex_input(rng, (2, 16)), backend=backend, cache=cache)
    s = cache.stats()
    # One plan ("metal.fft"), its tables as the device reads them
    # ("metal.tables.metal.fft") and one pipeline (fft_stockham).
    assert (s.entries, s.builds, s.misses) == (3, 3, 3)
    assert s.plan_bytes > 16 * 8  # holds the twiddle table of length 16
    assert s.retained_bytes == s.plan_bytes + s.scratch_bytes


def test_second_call_site_hits_the_cache(backend, cache, rng):
    x = complex_input(rng, (2, 16))
    af.fft(x, backend=backend, cache=cache)
    before = cache.stats()
    jax.jit(lambda v: af.fft(v, backend=backend, cache=cache) * 2)(x)
    after = cache.stats()
    assert after.builds == before.builds
    assert after.hits == before.hits + 3  # plan, tables, pipeline


def test_kernels_share_one_pipeline_each(backend, cache, rng):
    # R2C of even lengths beyond one group: two Stockham passes and the unpack
    # kernel, three pipelines (a pipeline fixes its dispatch's shape and modes,
    # not the batch), which a second batch size shares.
    af.rfft(real_input(rng, (1 << 14,)), backend=backend, cache=cache)
    af.rfft(real_input(rng, (3, 1 << 14)), backend=backend, cache=cache)
    s = cache.stats()
    assert s.entries == 2 + 2 + 3  # two plans and their tables, three pipelines shared by both
    assert s.hits == 3  # the second plan's three pipelines


def test_bluestein_tables_are_accounted(backend, cache, rng):
    af.fft(complex_input(rng, (17,)), backend=backend, cache=cache)
    # Chirp (17) and spectrum (35 = 5 * 7 >= 2 * 17 - 1) tables plus stage twiddles (35), float2 each.
    assert cache.stats().plan_bytes >= (17 + 35 + 35) * 8


def test_buffers_are_wrapped_never_staged(backend, cache, rng):
    x = complex_input(rng, (4, 32))
    r = real_input(rng, (4, 32))
    af.fftn(x, backend=backend, cache=cache)
    af.rfftn(r, backend=backend, cache=cache)
    af.irfftn(np.fft.rfftn(r).astype(np.complex64), backend=backend, cache=cache)
    stats = cache.metal_stats()[backend]
    assert stats.calls == 3
    assert stats.bytes_staged == 0
    # Each call's input and output tensors, exactly: page rounding, the
    # workspace and the tables are not the caller's bytes.
    assert stats.bytes_wrapped == x.nbytes * 2 + (r.nbytes + 4 * 17 * 8) * 2


def test_no_executor_until_used(cache):
    assert cache.metal_stats() == {}


def test_eviction_keeps_compiled_calls_working(backend, rng):
    small = af.PlanCache(max_entries=2)
    try:
        f = jax.jit(functools.partial(af.fft, backend=backend, cache=small))
        x = complex_input(rng, (8,))
        f(x)
        af.fft(complex_input(rng, (12,)), backend=backend, cache=small)  # evicts f's plan
        assert small.stats().evictions >= 1
        np.testing.assert_allclose(f(x), np.fft.fft(x), rtol=1e-5, atol=1e-5)
    finally:
        small.close()


def test_clear_drops_plans_and_pipelines(backend, cache, rng):
    af.fft(complex_input(rng, (8,)), backend=backend, cache=cache)
    cache.clear()
    assert cache.stats().entries == 0


def test_closed_cache_is_refused(backend, rng):
    closed = af.PlanCache()
    closed.close()
    with pytest.raises(af.CacheClosedError):
        af.fft(complex_input(rng, (8,)), backend=backend, cache=closed)


def test_length_beyond_the_planner_is_a_clear_error(backend, cache):
    # 2^24 + 1 points: beyond the Metal planner; the error comes from compilation.
    x = jax.ShapeDtypeStruct(((1 << 24) + 1,), np.complex64)
    f = jax.jit(functools.partial(af.fft, backend=backend, cache=cache))
    with pytest.raises(Exception, match="2\\^24|too large"):
        f.lower(x).compile()
    assert cache.stats().entries == 0
