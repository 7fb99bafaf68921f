"""Batches of complex lines of any shape: our transform alone against FFTW
executing on its own preallocated arrays, interleaved, in ns per element.

    python benchmarks/lines_against_fftw.py 4096x16 131072x16 [--double] [--threads N]

Each shape is LINESxN (a C-contiguous batch, the last axis transformed). Both
sides run the same input 11 times in turn; the medians are printed with
their ratio (ours / FFTW: below 1 means ours is faster). Needs pyFFTW.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pyfftw.builders

import jax_apple_fft as af
from jax_apple_fft._core import testing
from jax_apple_fft.primitive.transform_kind import Precision, TransformKind


def seconds_per_call(call, reps: int) -> float:
    start = time.perf_counter()
    for _ in range(reps):
        call()
    return (time.perf_counter() - start) / reps


def compare(lines: int, n: int, double: bool, threads: int) -> str:
    dtype = np.complex128 if double else np.complex64
    precision = Precision.DOUBLE if double else Precision.SINGLE
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((lines, n)) + 1j * rng.standard_normal((lines, n))).astype(dtype)
    ours_out = np.empty_like(x)
    cache = af.PlanCache(threads=threads)
    arguments = (TransformKind.C2C, True, precision, [lines, n], [1], [n], x, ours_out, 1.0)
    ours = lambda: testing.profile_cpu(cache.handle, *arguments)  # noqa: E731
    fftw = pyfftw.builders.fft(x.copy(), n=n, axis=1, threads=threads,
                               planner_effort="FFTW_MEASURE")
    fftw.input_array[...] = x
    reps = max(3, int(2e7 // (lines * n)))
    ours_times, fftw_times = [], []
    for _ in range(11):
        ours_times.append(seconds_per_call(ours, reps))
        fftw_times.append(seconds_per_call(fftw, reps))
    scale = np.abs(fftw.output_array).max()
    if not np.allclose(ours_out, fftw.output_array, rtol=1e-3, atol=1e-3 * scale):
        raise AssertionError(f"{lines}x{n}: ours and FFTW disagree")
    ours_s, fftw_s = np.median(ours_times), np.median(fftw_times)
    per_element = 1e9 / (lines * n)
    return (f"{lines}x{n} {'float64' if double else 'float32'} {threads}t: "
            f"ours {ours_s * per_element:6.3f} ns/element, FFTW {fftw_s * per_element:6.3f}, "
            f"ratio {ours_s / fftw_s:.2f} ({x.nbytes / 2**20:.2f} MiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="+", metavar="LINESxN")
    parser.add_argument("--double", action="store_true", help="complex128 (default complex64)")
    parser.add_argument("--threads", type=int, default=1)
    arguments = parser.parse_args()
    for shape in arguments.shapes:
        lines, n = map(int, shape.lower().split("x"))
        print(compare(lines, n, arguments.double, arguments.threads), flush=True)


if __name__ == "__main__":
    main()
