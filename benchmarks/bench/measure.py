"""One row end to end: prepare every contender, check it, time them together."""

from __future__ import annotations

import dataclasses

import numpy as np

from jax_apple_fft.runtime.accuracy import relative_l2_error

from . import accuracy
from .contenders import Contender
from .inputs import make_input
from .suite import Row
from .timing import Timing, TimingPlan, measure_interleaved


@dataclasses.dataclass(frozen=True)
class RowResult:
    row: Row
    tolerance: float
    errors: dict[str, float]  # relative L2 error of each contender vs numpy in float64
    timings: dict[str, Timing]

    @property
    def disagreeing(self) -> list[str]:
        return [label for label, error in self.errors.items() if not error <= self.tolerance]

    def median(self, label: str) -> float:
        return self.timings[label].median


def run_row(row: Row, contenders: list[Contender], plan: TimingPlan,
            rng: np.random.Generator) -> RowResult:
    x = make_input(row, rng)
    expected = accuracy.reference(row, x)
    runners = {}
    errors = {}
    for contender in contenders:
        run = contender.prepare(row, x)
        errors[contender.label] = relative_l2_error(np.asarray(run()), expected)
        runners[contender.label] = run
    del expected  # large rows: keep only what timing needs in memory
    timings = measure_interleaved(runners, plan)
    return RowResult(row, accuracy.tolerance(row), errors, timings)
