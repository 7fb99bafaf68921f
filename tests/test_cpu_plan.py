"""The CPU plan as the library builds it for a cache (describe_cpu), and the
profile that measures it (profile_cpu): both test instruments of
_core.testing, checked against what they describe."""

import numpy as np
import pytest

import jax_apple_fft as af
from jax_apple_fft._core import testing
from jax_apple_fft.primitive.transform_kind import Precision, TransformKind

C2C, R2C = TransformKind.C2C, TransformKind.R2C
SINGLE, DOUBLE = Precision.SINGLE, Precision.DOUBLE


def test_a_long_line_is_planned_as_two_passes():
    cache = af.PlanCache(threads=2)
    plan = testing.describe_cpu(cache.handle, C2C, True, DOUBLE, [2, 1 << 20], [1],
                                [1 << 20]).splitlines()
    passes = [line for line in plan if not line.startswith("temp")]
    assert len(passes) == 2, plan
    assert "twiddled 1024x1024" in passes[0] and "input->temp" in passes[0]
    assert "from a table" not in passes[0]  # a table of 16 MiB: twiddles formed as used
    assert "temp->output" in passes[1] and passes[1].endswith("last")
    assert plan[-1] == f"temp {2 << 20}"


@pytest.mark.parametrize("lines", (1, 32))
def test_long_lines_read_their_twiddles_from_a_table(lines):
    cache = af.PlanCache(threads=2)
    plan = testing.describe_cpu(cache.handle, C2C, True, SINGLE, [lines, 1 << 16], [1],
                                [1 << 16])
    assert plan.splitlines()[0].endswith("twiddled 256x256 from a table"), plan


def test_one_thread_plans_one_task_per_pass():
    cache = af.PlanCache(threads=1)
    plan = testing.describe_cpu(cache.handle, R2C, True, SINGLE, [64, 4096], [1], [4096])
    assert "tasks 1x" in plan and "r2c axis 1 n 4096 lines 64" in plan


@pytest.mark.parametrize("threads", (1, 2, 4))
def test_profile_runs_the_transform_and_accounts_every_task(threads):
    rng = np.random.default_rng(threads)
    x = (rng.standard_normal((64, 8192)) + 1j * rng.standard_normal((64, 8192))).astype(np.complex64)
    out = np.empty_like(x)
    cache = af.PlanCache(threads=threads)
    profile = testing.profile_cpu(cache.handle, C2C, True, SINGLE, list(x.shape), [1], [8192], x, out)
    np.testing.assert_allclose(out, np.fft.fft(x.astype(np.complex128)), rtol=0, atol=1e-3)
    (one,) = profile["passes"]
    planned = testing.describe_cpu(cache.handle, C2C, True, SINGLE, list(x.shape), [1], [8192])
    tasks = int(planned.split("tasks ")[1].split("x")[0])
    assert sum(one["tasks"]) == tasks
    assert 1 <= len(one["busy_seconds"]) <= threads
    assert all(b >= 0 for b in one["busy_seconds"]) and profile["seconds"] >= one["seconds"] > 0


def test_profile_in_place_and_bad_buffers():
    x = np.ones((4, 16), np.complex128)
    cache = af.PlanCache(threads=1)
    testing.profile_cpu(cache.handle, C2C, True, DOUBLE, [4, 16], [1], [16], x, x)
    np.testing.assert_allclose(x[:, 0], 16)
    with pytest.raises(ValueError, match="exactly"):
        testing.profile_cpu(cache.handle, C2C, True, DOUBLE, [4, 16], [1], [16], x,
                            np.ones((4, 8), np.complex128))


def _tasks(cache, shape, axes, precision=SINGLE):
    plan = testing.describe_cpu(cache.handle, C2C, True, precision, shape, axes,
                                [shape[a] for a in axes])
    return [int(line.split("tasks ")[1].split("x")[0])
            for line in plan.splitlines() if not line.startswith("temp")]


def test_a_small_pass_shares_over_threads_that_wake_cheaply():
    cache = af.PlanCache(threads=16)
    testing.set_wake_seconds(cache.handle, 5e-6)
    # 0.5 MiB a pass: 256 lines in SIMD groups of at most 8, one group a task.
    tasks = _tasks(cache, [256, 256], [0, 1])
    assert len(tasks) == 2 and all(16 <= t <= 64 for t in tasks), tasks


def test_a_small_pass_stays_one_task_when_waking_is_dear():
    cache = af.PlanCache(threads=16)
    testing.set_wake_seconds(cache.handle, 1e-3)
    assert _tasks(cache, [256, 256], [0, 1]) == [1, 1]


def test_planning_large_passes_starts_no_worker_to_measure_the_wake():
    """Measuring the wake cost starts every worker, so it is measured only
    where a pass below 2 MiB could share: planning 8 MiB passes on a
    thousand-thread cache leaves its workers unstarted."""
    cache = af.PlanCache(threads=1000)
    _tasks(cache, [1024, 1024], [0, 1])
    assert cache.stats().worker_threads == 0


def test_a_large_pass_shares_however_dear_waking_is():
    cache = af.PlanCache(threads=16)
    testing.set_wake_seconds(cache.handle, 1.0)
    # 1024 x 1024 complex float32: 8 MiB a pass, four tasks per thread.
    assert _tasks(cache, [1024, 1024], [0, 1]) == [64, 64]


def test_the_wake_cost_is_measured_once_and_bounded():
    cache = af.PlanCache(threads=2)
    first = testing.wake_seconds(cache.handle)
    assert 0 < first <= 1e-3
    assert testing.wake_seconds(cache.handle) == first
    assert testing.wake_seconds(af.PlanCache(threads=1).handle) == 0
    with pytest.raises(ValueError, match="at least 0"):
        testing.set_wake_seconds(cache.handle, -1.0)
