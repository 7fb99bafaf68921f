"""Interleaved timing: every round times each contender once, so slow drifts
in machine load hit all contenders alike instead of whichever ran last."""

from __future__ import annotations

import dataclasses
import gc
import math
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

try:
    import resource
except ImportError:  # a Unix module: elsewhere page faults are not counted
    resource = None

Runner = Callable[[], Any]


@dataclasses.dataclass(frozen=True)
class TimingPlan:
    min_measurement_seconds: float  # the inner loop repeats calls until a measurement lasts this long
    min_rounds: int
    max_rounds: int
    seconds_per_row: float  # rounds are added, up to max_rounds, to fill this


FULL_PLAN = TimingPlan(min_measurement_seconds=2e-3, min_rounds=7, max_rounds=51, seconds_per_row=2.5)
QUICK_PLAN = TimingPlan(min_measurement_seconds=2e-3, min_rounds=3, max_rounds=5, seconds_per_row=0.3)


@dataclasses.dataclass(frozen=True)
class Timing:
    inner_loop: int
    samples: list[float]  # seconds per call, one per round
    page_faults: list[float]  # minor page faults per call, one per round

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def median_page_faults(self) -> float:
        return statistics.median(self.page_faults) if self.page_faults else math.nan


def _minor_page_faults() -> int:
    # First touches of fresh memory: their cost is the allocator's and the
    # kernel's, and varies with the process's history (docs/performance.md).
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource else 0


def timed_calls(run: Runner, calls: int) -> tuple[float, float]:
    """Seconds and minor page faults per call, over ``calls`` calls."""
    # Garbage collection is paused, as timeit does, so that a collection
    # triggered by one contender's allocations is not billed to another.
    collecting = gc.isenabled()
    gc.disable()
    try:
        faults = _minor_page_faults()
        start = time.perf_counter()
        for _ in range(calls):
            run()
        seconds = time.perf_counter() - start
        return seconds / calls, (_minor_page_faults() - faults) / calls
    finally:
        if collecting:
            gc.enable()


def calibrate_inner_loop(run: Runner, min_seconds: float) -> tuple[int, float]:
    """The number of calls that lasts at least ``min_seconds``, and the time per call."""
    calls = 1
    while True:
        per_call, _ = timed_calls(run, calls)
        if per_call * calls >= min_seconds:
            return calls, per_call
        calls = min(calls * 100, math.ceil(1.2 * min_seconds / per_call))


def measure_interleaved(runners: Mapping[str, Runner], plan: TimingPlan) -> dict[str, Timing]:
    labels = list(runners)
    inner_loops: dict[str, int] = {}
    round_seconds = 0.0
    for label in labels:
        calls, per_call = calibrate_inner_loop(runners[label], plan.min_measurement_seconds)
        inner_loops[label] = calls
        round_seconds += calls * per_call
    rounds = round(plan.seconds_per_row / round_seconds)
    rounds = max(plan.min_rounds, min(plan.max_rounds, rounds))

    samples: dict[str, list[float]] = {label: [] for label in labels}
    faults: dict[str, list[float]] = {label: [] for label in labels}
    for index in range(rounds):
        # Rotating the order gives each contender every position equally often.
        shift = index % len(labels)
        for label in labels[shift:] + labels[:shift]:
            seconds, page_faults = timed_calls(runners[label], inner_loops[label])
            samples[label].append(seconds)
            faults[label].append(page_faults)
    return {label: Timing(inner_loops[label], samples[label], faults[label] if resource else [])
            for label in labels}
