"""Runs one row of ours in a loop for a while, for a sampling profiler to watch.

    python benchmarks/profile_row.py c2c.f32.1d.n4096x512 [--threads N] [--seconds S]
    python benchmarks/profile_row.py --list
"""

from __future__ import annotations

import argparse
import sys
import time

import jax
import numpy as np

from bench.contenders import ALL_CORES, ours
from bench.inputs import make_input
from bench.suite import full_suite


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("row", nargs="?", help="a row name, as printed by --list or in the table")
    parser.add_argument("--list", action="store_true", help="print the row names and exit")
    parser.add_argument("--threads", type=int, default=ALL_CORES,
                        help="the PlanCache's threads (default: all cores)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to loop (default: 10)")
    return parser.parse_args()


def main() -> int:
    arguments = parse_arguments()
    rows = {row.name: row for row in full_suite()}
    if arguments.list or arguments.row is None:
        print("\n".join(rows))
        return 0
    if arguments.row not in rows:
        print(f"no row named {arguments.row!r}; see --list", file=sys.stderr)
        return 2
    jax.config.update("jax_enable_x64", True)
    row = rows[arguments.row]
    run = ours(arguments.threads)(row, make_input(row, np.random.default_rng(0)))  # compiled and warm

    calls = 0
    started = time.perf_counter()
    deadline = started + arguments.seconds
    while time.perf_counter() < deadline:
        run()
        calls += 1
    elapsed = time.perf_counter() - started
    print(f"{row.name}, threads={arguments.threads}: {calls} calls in {elapsed:.1f} s, "
          f"{elapsed / calls * 1e6:.1f} us per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
