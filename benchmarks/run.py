"""Runs the FFT benchmark suite and writes the table, a JSON file and a plot.

    python benchmarks/run.py [--quick] [--out DIR] [--only TEXT ...] [--jnp-single-thread]
                             [--reuse-memory] [--threads N ...]
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

from bench import allocator, jnp_threads

# Before jax is imported: see jnp_threads.
if "--jnp-single-thread" in sys.argv:
    jnp_threads.request_single_thread()
# Before any large allocation: see allocator.
if "--reuse-memory" in sys.argv:
    allocator.keep_freed_memory()

import jax
import numpy as np
from tqdm import tqdm

from bench.contenders import ALL_CORES, all_contenders
from bench.measure import RowResult, run_row
from bench.plot import plot_throughput
from bench.report import format_table, machine_info, machine_line, to_json
from bench.suite import full_suite, quick_suite
from bench.timing import FULL_PLAN, QUICK_PLAN

SEED = 20240601


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a handful of rows and few rounds (under a minute)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results",
                        help="directory for the JSON, table and plot (default: benchmarks/results)")
    parser.add_argument("--only", nargs="+", metavar="TEXT",
                        help="run only the rows whose name contains one of these")
    parser.add_argument("--jnp-single-thread", action="store_true",
                        help="run jnp.fft on one thread (XLA flag " + jnp_threads.SINGLE_THREAD_FLAG + "), "
                             "to compare it with ours-1t; the column is then named jnp.fft-1t")
    parser.add_argument("--threads", nargs="+", type=int, metavar="N",
                        help="thread counts for ours, scipy and FFTW, e.g. --threads 1 2 16 "
                             "(default: 1 and every core)")
    parser.add_argument("--native", action="store_true",
                        help="add our transform alone (native-*: out of place on buffers in use, "
                             "no XLA), the column to compare with FFTW's")
    parser.add_argument("--reuse-memory", action="store_true",
                        help="have glibc serve every contender's memory from its heap and keep "
                             "it, so that no output is fresh memory (see bench/allocator.py)")
    return parser.parse_args()


def report_mismatch(result: RowResult) -> None:
    details = ", ".join(f"{label} error {result.errors[label]:.2e}" for label in result.disagreeing)
    banner = "!" * 78
    tqdm.write(f"{banner}\nNUMERICAL MISMATCH in {result.row.name}: {details} "
               f"(tolerance {result.tolerance:.2e})\n{banner}", file=sys.stderr)


def main() -> int:
    arguments = parse_arguments()
    # Needed for the float64 rows; float32 rows pass explicit float32 arrays.
    jax.config.update("jax_enable_x64", True)

    rows = quick_suite() if arguments.quick else full_suite()
    if arguments.only:
        rows = [row for row in rows if any(text in row.name for text in arguments.only)]
    plan = QUICK_PLAN if arguments.quick else FULL_PLAN
    threads = tuple(sorted(set(arguments.threads or (1, ALL_CORES))))
    contenders = all_contenders(threads, with_native=arguments.native)
    labels = [contender.label for contender in contenders]
    rng = np.random.default_rng(SEED)
    machine = machine_info()

    started = time.perf_counter()
    results: list[RowResult] = []
    progress = tqdm(rows, unit="row", file=sys.stderr)
    for row in progress:
        progress.set_postfix_str(row.name)
        result = run_row(row, contenders, plan, rng)
        if result.disagreeing:
            report_mismatch(result)
        results.append(result)
    wall_seconds = time.perf_counter() - started

    table = machine_line(machine, threads) + "\n" + format_table(results, labels)
    if arguments.reuse_memory:
        table = "memory: --reuse-memory (glibc heap only, freed memory kept)\n" + table
    print(table)

    arguments.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    stem = arguments.out / f"fft-bench-{stamp}{'-quick' if arguments.quick else ''}"
    document = to_json(results, labels, plan, arguments.quick, arguments.reuse_memory,
                       wall_seconds, machine, threads)
    stem.with_suffix(".json").write_text(json.dumps(document, indent=1) + "\n")
    stem.with_suffix(".txt").write_text(table + "\n")
    plot_throughput(results, labels, stem.with_suffix(".png"))
    print(f"\n{len(results)} rows in {wall_seconds:.0f} s; wrote {stem}.{{json,txt,png}}")
    return 1 if any(result.disagreeing for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
