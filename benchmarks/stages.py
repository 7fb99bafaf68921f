"""Where a row's time goes, for each thread count: the jitted call on a fresh
output, the jitted call in place on warm memory, our transform alone, and
its passes with each thread's busy time.

    python benchmarks/stages.py --only c2c.f32.1d.n4096x512 --threads 1 2 16

Columns, medians over rounds (ms):
  call       jax.jit(fft)(x): XLA allocates a fresh output each call
  in place   jax.jit(fft(x, overwrite_x=True), donate_argnums=0), each call
             fed one of a list of prepared copies (C2C only): warm memory,
             no output allocation
  native     our transform alone on numpy buffers in use (out of place),
             through the same plans, timed inside the library
  passes     each pass's wall time, and its threads' busy time as
             mean / max over the threads that ran tasks (balance: max busy
             / wall, 1.0 = no waiting)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench import allocator  # noqa: F401 -- the benchmarks' import order
import jax
import jax.numpy as jnp
import numpy as np

import jax_apple_fft as af
from bench.contenders import ALL_CORES, native_call, numpy_style_transform
from bench.inputs import make_input
from bench.report import machine_info, machine_line
from bench.suite import full_suite

ROUNDS = 15
COPIES = 8  # prepared inputs per round of the in-place variant


def median_ms(samples: list[float]) -> float:
    return 1e3 * statistics.median(samples)


def time_call(run, rounds: int = ROUNDS) -> float:
    run()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return median_ms(samples)


def time_in_place(row, x: np.ndarray, cache) -> float:
    """Per call, on donated prepared copies: nothing is allocated or copied
    during a timed call."""
    transform = numpy_style_transform(af, row, backend="cpu", cache=cache, overwrite_x=True)
    compiled = jax.jit(transform, donate_argnums=0)
    samples = []
    # Copies made by XLA: a device_put of an aligned numpy array may share the
    # array's memory, and jax copies a donated buffer of that kind inside the
    # call (seen with jax 0.11 and 0.12: 36-45 against 8.5-12 ms, c2c float64
    # 16 x 131072 on 2 threads).
    on_device = jax.device_put(x)
    for _ in range(ROUNDS):
        copies = [jnp.copy(on_device) for _ in range(COPIES)]
        jax.block_until_ready(copies)
        for copy in copies:
            start = time.perf_counter()
            compiled(copy).block_until_ready()
            samples.append(time.perf_counter() - start)
    return median_ms(samples[COPIES:])  # the first round warms the compilation


def native_profiles(row, x: np.ndarray, cache) -> list[dict]:
    call = native_call(row, x, cache)
    call()  # warms the plans and the output
    return [call() for _ in range(ROUNDS)]


def pass_summary(profiles: list[dict]) -> str:
    parts = []
    for index in range(len(profiles[0]["passes"])):
        passes = [p["passes"][index] for p in profiles]
        wall = statistics.median(p["seconds"] for p in passes)
        busy_mean = statistics.median(statistics.mean(p["busy_seconds"]) for p in passes)
        busy_max = statistics.median(max(p["busy_seconds"]) for p in passes)
        threads = statistics.median(len(p["busy_seconds"]) for p in passes)
        parts.append(f"{1e3 * wall:.2f} ({1e3 * busy_mean:.2f}/{1e3 * busy_max:.2f} on "
                     f"{threads:g}t, balance {busy_max / wall:.2f})")
    return "; ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", required=True, metavar="TEXT",
                        help="rows whose name contains one of these (see run.py's table)")
    parser.add_argument("--threads", nargs="+", type=int, default=[1, ALL_CORES])
    arguments = parser.parse_args()
    jax.config.update("jax_enable_x64", True)
    rows = [row for row in full_suite() if any(t in row.name for t in arguments.only)]
    if not rows:
        print(f"no rows named {arguments.only}", file=sys.stderr)
        return 1
    print(machine_line(machine_info(), tuple(arguments.threads)))
    print(f"{'row':28s} {'threads':>7s} {'call':>8s} {'in place':>8s} {'native':>8s}  passes: "
          f"wall (busy mean/max on threads, balance)")
    rng = np.random.default_rng(20240601)
    for row in rows:
        x = make_input(row, rng)
        for threads in arguments.threads:
            cache = af.PlanCache(threads=threads)
            transform = jax.jit(numpy_style_transform(af, row, backend="cpu", cache=cache))
            device_x = jax.device_put(x)
            call = time_call(lambda: transform(device_x).block_until_ready())
            in_place = time_in_place(row, x, cache) if row.kind == "c2c" else float("nan")
            profiles = native_profiles(row, x, cache)
            native = median_ms([p["seconds"] for p in profiles])
            print(f"{row.name:28s} {threads:7d} {call:8.2f} {in_place:8.2f} {native:8.2f}  "
                  f"{pass_summary(profiles)}", flush=True)
            del cache, transform, device_x
    return 0


if __name__ == "__main__":
    sys.exit(main())
