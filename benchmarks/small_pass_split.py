"""The small-pass split rule against passes below 2 MiB kept whole, in one process.

Two caches of the same threads run ours: one as the planner plans on this
machine (its pool's measured wake cost), one told that waking is too dear for
any pass below 2 MiB to share, so that such passes stay whole.
Both are timed interleaved with jnp.fft and scipy.fft on 256² and 512² 2-D
rows and batched 1-D rows of 0.5–4 MiB; the table gives medians in ms.

    python benchmarks/small_pass_split.py --threads 16
"""

from __future__ import annotations

import argparse

from bench import allocator  # noqa: F401 -- the benchmarks' import order
import jax
import jax.numpy as jnp
import numpy as np

import jax_apple_fft as af
from bench import contenders
from bench.contenders import Contender, numpy_style_transform
from bench.measure import run_row
from bench.suite import Row
from bench.timing import FULL_PLAN
from jax_apple_fft._core import testing
from jax_apple_fft.primitive.transform_kind import Precision, Transform, TransformKind

NEVER_SHARED = 1.0  # seconds to wake: no pass below 2 MiB saves that much


def rows() -> list[Row]:
    two_d = [Row(kind, precision, "2d", (n, n), (0, 1))
             for n in (256, 512) for precision in ("f32", "f64") for kind in ("c2c", "r2c", "c2r")]
    one_d = [Row("c2c", precision, "1d", (batch, 1024), (1,))
             for precision in ("f32", "f64") for batch in (64, 256)]
    one_d += [Row(kind, "f32", "1d", (batch, 4096), (1,))
              for kind in ("r2c", "c2r") for batch in (32, 128)]
    return two_d + one_d


def ours(cache: af.PlanCache) -> contenders.Prepare:
    return contenders._jitted(
        lambda row: numpy_style_transform(af, row, backend="cpu", cache=cache))


def tasks(row: Row, cache: af.PlanCache) -> str:
    """The tasks of each pass of ``row``'s plan in ``cache``, e.g. "2+2"."""
    transform = Transform.of(TransformKind[row.kind.upper()], forward=row.kind != "c2r")
    precision = Precision.SINGLE if row.precision == "f32" else Precision.DOUBLE
    plan = testing.describe_cpu(cache.handle, transform.kind, transform.forward, precision,
                                list(row.input_shape), list(row.axes), list(row.lengths))
    return "+".join(line.split("tasks ")[1].split("x")[0]
                    for line in plan.splitlines() if "tasks " in line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=contenders.ALL_CORES)
    parser.add_argument("--wake-us", type=float, metavar="US",
                        help="tell the split cache this wake cost instead of measuring it")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="rows whose name contains any")
    args = parser.parse_args()
    jax.config.update("jax_enable_x64", True)
    measured, fixed = af.PlanCache(threads=args.threads), af.PlanCache(threads=args.threads)
    testing.set_wake_seconds(fixed.handle, NEVER_SHARED)
    if args.wake_us is not None:
        testing.set_wake_seconds(measured.handle, args.wake_us * 1e-6)
    wake = testing.wake_seconds(measured.handle)
    print(f"threads {args.threads}, wake {wake * 1e6:.1f} us")
    field = [Contender("split", ours(measured)), Contender("whole", ours(fixed)),
             Contender("jnp.fft", contenders._jitted(
                 lambda row: numpy_style_transform(jnp.fft, row))),
             Contender(f"scipy-{args.threads}w", contenders.scipy_fft(workers=args.threads))]
    labels = [c.label for c in field]
    header = "".join(f"{label:>12}" for label in labels)
    print(f"{'row':28}{header}{'whole/split':>13}  split tasks")
    rng = np.random.default_rng(0)
    for row in rows():
        if args.only and not any(text in row.name for text in args.only):
            continue
        result = run_row(row, field, FULL_PLAN, rng)
        assert not result.disagreeing, (row.name, result.errors)
        ms = [result.median(label) * 1e3 for label in labels]
        times = "".join(f"{m:12.3f}" for m in ms)
        print(f"{row.name:28}{times}{ms[1] / ms[0]:13.2f}  {tasks(row, measured)}", flush=True)


if __name__ == "__main__":
    main()
