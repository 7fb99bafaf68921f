"""Compares builds of the package on chosen rows, in separate processes taken
in turn, with scipy.fft timed in every process as a yardstick.

    python benchmarks/compare_builds.py --build old=DIR --build new=DIR \\
        --only r2c.f64.1d.n32768x64 [--processes 3] [--rounds 21] [--reuse-memory]

Rows are the suite's, or any batch of 1-D lines named as its 1d rows are
(c2c.f64.1d.n65539x32).

Each DIR holds an importable jax_apple_fft, e.g. made at each commit with
`python -m pip install --no-deps --target DIR .`. One process per build in
turn, `--processes` times; each checks ours against numpy, then times
ours-1t, ours-all, scipy-1w and scipy-all interleaved for `--rounds` rounds.
Printed per row and build: the median over processes of each process's
median, and of each process's ours-all / scipy-all ratio (a process that the
machine slows as a whole moves both).

Two builds cannot be loaded in one process, and processes differ (allocator
state, where the kernel maps memory), so one process per build is not
enough.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench import allocator

# Before any large allocation: see allocator.
if "--reuse-memory" in sys.argv:
    allocator.keep_freed_memory()

CHILD_FLAG = "--child"
RATIO = "ours-all/scipy-all"


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="append", default=[], metavar="LABEL=DIR",
                        help="a build to compare: a label and a directory holding jax_apple_fft "
                             "(give two or more)")
    parser.add_argument("--only", nargs="+", required=True, metavar="ROW",
                        help="row names, as in run.py's table, or any c2c/r2c/c2r.f32/f64.1d.nNxB")
    parser.add_argument("--processes", type=int, default=3, help="processes per build (default: 3)")
    parser.add_argument("--rounds", type=int, default=21,
                        help="interleaved rounds per process (default: 21)")
    parser.add_argument("--reuse-memory", action="store_true",
                        help="every process as run.py --reuse-memory (see bench/allocator.py)")
    parser.add_argument(CHILD_FLAG, action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def child(rows: list[str], rounds: int) -> dict[str, dict[str, float]]:
    """Runs in a build's process: the medians of every row, by contender,
    and their ratio ours-all / scipy-all."""
    # Imported here: the parent process never loads jax or any build.
    import jax
    import numpy as np
    from bench.contenders import (
        OURS_ALL_CORES,
        OURS_ONE_THREAD,
        SCIPY_ALL_WORKERS,
        SCIPY_ONE_WORKER,
        all_contenders,
    )
    from bench.measure import run_row
    from bench.suite import row_named
    from bench.timing import FULL_PLAN

    jax.config.update("jax_enable_x64", True)
    wanted = {OURS_ONE_THREAD, OURS_ALL_CORES, SCIPY_ONE_WORKER, SCIPY_ALL_WORKERS}
    contenders = [contender for contender in all_contenders() if contender.label in wanted]
    plan = dataclasses.replace(FULL_PLAN, min_rounds=rounds, max_rounds=rounds, seconds_per_row=0.0)
    medians = {}
    for name in rows:
        result = run_row(row_named(name), contenders, plan, np.random.default_rng(0))
        if result.disagreeing:
            raise SystemExit(f"{name}: {', '.join(result.disagreeing)} disagree with numpy")
        medians[name] = {label: result.median(label) for label in result.timings}
        medians[name][RATIO] = result.median(OURS_ALL_CORES) / result.median(SCIPY_ALL_WORKERS)
    return medians


def run_build(directory: Path, arguments: argparse.Namespace) -> dict[str, dict[str, float]]:
    # The build first on the path, ahead of any installed copy.
    path = os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))
    environment = dict(os.environ, PYTHONPATH=path)
    command = [sys.executable, __file__, CHILD_FLAG, "--rounds", str(arguments.rounds),
               "--only", *arguments.only]
    if arguments.reuse_memory:
        command.append("--reuse-memory")
    finished = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if finished.returncode != 0:
        raise SystemExit(f"the process for {directory} failed:\n{finished.stderr}")
    return json.loads(finished.stdout.strip().splitlines()[-1])


def main() -> int:
    arguments = parse_arguments()
    if arguments.child:
        print(json.dumps(child(arguments.only, arguments.rounds)))
        return 0
    builds = dict(build.split("=", 1) for build in arguments.build if "=" in build)
    if len(builds) < 2 or len(builds) != len(arguments.build):
        print("give two or more builds as --build LABEL=DIR", file=sys.stderr)
        return 2
    unknown = [name for name in arguments.only if not _is_row(name)]
    if unknown:
        print(f"no rows named {sorted(unknown)}; see run.py's table", file=sys.stderr)
        return 2
    # samples[row][build][label]: one median per process
    samples: dict[str, dict[str, dict[str, list[float]]]] = {}
    for index in range(arguments.processes):
        for label, directory in builds.items():
            print(f"process {index + 1}/{arguments.processes}: {label}", file=sys.stderr)
            for row, medians in run_build(Path(directory), arguments).items():
                per_label = samples.setdefault(row, {}).setdefault(label, {})
                for column, value in medians.items():
                    per_label.setdefault(column, []).append(value)
    print(f"{'row':28} {'build':10} " + " ".join(f"{c:>10}" for c in _time_columns(samples))
          + f" {RATIO:>19}")
    for row, by_build in samples.items():
        for label, values in by_build.items():
            times = " ".join(f"{_milliseconds(statistics.median(values[c])):>10}"
                             for c in _time_columns(samples))
            print(f"{row:28} {label:10} {times} {statistics.median(values[RATIO]):19.3f}")
    return 0


def _time_columns(samples: dict[str, dict[str, dict[str, list[float]]]]) -> list[str]:
    """The contenders' labels, in the children's order (the ratio apart)."""
    first = next(iter(next(iter(samples.values())).values()))
    return [column for column in first if column != RATIO]


def _milliseconds(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}ms"


def _is_row(name: str) -> bool:
    from bench.suite import row_named
    try:
        row_named(name)
    except KeyError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
