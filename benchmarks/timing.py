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

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


def seconds_per_call(run: Runner, calls: int) -> float:
    # Garbage collection is paused, as timeit does, so that a collection
    # triggered by one contender's allocations is not billed to another.
    collecting = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(calls):
            run()
        return (time.perf_counter() - start) / calls
    finally:
        if collecting:
            gc.enable()


def calibrate_inner_loop(run: Runner, min_seconds: float) -> tuple[int, float]:
    """The number of calls that lasts at least ``min_seconds``, and the time per call."""
    calls = 1
    while True:
        per_call = seconds_per_call(run, calls)
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
    for index in range(rounds):
        # Rotating the order gives each contender every position equally often.
        shift = index % len(labels)
        for label in labels[shift:] + labels[:shift]:
            samples[label].append(seconds_per_call(runners[label], inner_loops[label]))
    return {label: Timing(inner_loops[label], samples[label]) for label in labels}
