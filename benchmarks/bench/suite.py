"""The fixed list of benchmark rows: which transform, on which array."""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Literal

Kind = Literal["c2c", "r2c", "c2r"]
Precision = Literal["f32", "f64"]

KINDS: tuple[Kind, ...] = ("c2c", "r2c", "c2r")
PRECISIONS: tuple[Precision, ...] = ("f32", "f64")

# Each 1-D row holds about this many elements, so large and small n do
# comparable work and every row is large enough to time reliably.
ELEMENTS_PER_1D_ROW = 2**21
ONE_D_LENGTHS = sorted([2**k for k in range(4, 21)] + [1000, 1536, 4095, 65537])
# Lengths of no family above: with a large prime factor (12345 = 3 * 5 * 823),
# mixed radices (5000, 98304), and primes whose p - 1 has a large factor, so
# that they take Bluestein (1000003 - 1 = 2 * 3 * 166667; 16777213 - 1 =
# 4 * 3 * 23 * 89 * 683): lines of 1000003 points of every kind, one line of
# 16777213.
OTHER_LENGTHS = (5000, 12345, 98304)
PRIME = 1000003
LONG_PRIME = 16777213


@dataclasses.dataclass(frozen=True)
class Row:
    """One transform to time.

    ``shape`` is the shape of the signal (for c2r: of the real output, the
    input being its half spectrum); ``axes`` are the transformed axes.
    """

    kind: Kind
    precision: Precision
    group: str
    shape: tuple[int, ...]
    axes: tuple[int, ...]
    norm: str | None = None

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(self.shape[axis] for axis in self.axes)

    @property
    def half_spectrum_shape(self) -> tuple[int, ...]:
        """The complex side of a real transform: n // 2 + 1 on the last axis."""
        last = self.axes[-1]
        return tuple(n // 2 + 1 if axis == last else n for axis, n in enumerate(self.shape))

    @property
    def input_shape(self) -> tuple[int, ...]:
        return self.half_spectrum_shape if self.kind == "c2r" else self.shape

    @property
    def output_shape(self) -> tuple[int, ...]:
        return self.half_spectrum_shape if self.kind == "r2c" else self.shape

    @property
    def transforms(self) -> int:
        """How many independent transforms one call performs."""
        return math.prod(self.shape) // math.prod(self.lengths)

    @property
    def flops(self) -> float:
        """Nominal work of one call: 5 N log2 N per complex transform of N
        points, half that for real ones (the usual convention, not a count)."""
        points = math.prod(self.lengths)
        per_transform = 5 * points * math.log2(points)
        return per_transform * self.transforms * (1.0 if self.kind == "c2c" else 0.5)

    @property
    def name(self) -> str:
        if self.group in ("1d", "tiny", "ortho", "lone", "other", "prime"):
            size = f"n{self.lengths[0]}x{self.transforms}"
        else:
            size = "x".join(map(str, self.shape))
        return f"{self.kind}.{self.precision}.{self.group}.{size}"


def _one_d(kind: Kind, precision: Precision, n: int, group: str = "1d",
           batch: int | None = None, norm: str | None = None) -> Row:
    if batch is None:
        batch = max(1, ELEMENTS_PER_1D_ROW // n)
    return Row(kind, precision, group, (batch, n), (1,), norm)


_ONE_D_NAME = re.compile(r"(c2c|r2c|c2r)\.(f32|f64)\.1d\.n(\d+)x(\d+)")


def row_named(name: str) -> Row:
    """The suite's row of that name, or any batch of 1-D lines named as the
    suite's 1d rows are (``c2c.f64.1d.n65539x32``)."""
    for row in full_suite():
        if row.name == name:
            return row
    match = _ONE_D_NAME.fullmatch(name)
    if not match:
        raise KeyError(f"no row named {name!r}")
    kind, precision, n, batch = match.groups()
    return _one_d(kind, precision, int(n), batch=int(batch))  # type: ignore[arg-type]


def full_suite() -> list[Row]:
    rows: list[Row] = []
    for precision in PRECISIONS:
        for kind in KINDS:
            rows += [_one_d(kind, precision, n) for n in ONE_D_LENGTHS]
            rows.append(Row(kind, precision, "2d", (256, 256), (0, 1)))
            rows.append(Row(kind, precision, "2d", (1024, 1024), (0, 1)))
            rows.append(Row(kind, precision, "3d", (128, 128, 128), (0, 1, 2)))
            # A strided (non-last) axis: the library has to gather each line.
            rows.append(Row(kind, precision, "axis0", (4096, 256), (0,)))
            rows.append(_one_d(kind, precision, 4096, group="ortho", norm="ortho"))
            # One small transform: the time is mostly per-call overhead.
            rows.append(_one_d(kind, precision, 64, group="tiny", batch=1))
            # One long line: fewer lines than threads.
            rows.append(_one_d(kind, precision, 1 << 20, group="lone", batch=1))
            rows += [_one_d(kind, precision, n, group="other") for n in OTHER_LENGTHS]
            rows.append(_one_d(kind, precision, PRIME, group="prime"))
            if kind == "c2c":  # about two minutes a row, most of it numpy's and scipy's
                rows.append(_one_d(kind, precision, LONG_PRIME, group="prime", batch=1))
    return rows


def quick_suite() -> list[Row]:
    return [
        _one_d("c2c", "f32", 256),
        _one_d("c2c", "f32", 4096),
        _one_d("c2c", "f32", 65536),
        _one_d("r2c", "f64", 1000),
        _one_d("c2r", "f32", 4096),
        Row("c2c", "f64", "2d", (256, 256), (0, 1)),
        Row("r2c", "f32", "axis0", (4096, 256), (0,)),
        _one_d("c2c", "f32", 64, group="tiny", batch=1),
    ]
