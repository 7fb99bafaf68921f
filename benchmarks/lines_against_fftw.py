"""Batches of lines of any shape: our transform alone against FFTW executing
on its own preallocated arrays, interleaved, in ns per element.

    python benchmarks/lines_against_fftw.py 4096x16 131072x16 [--kind c2r] [--double] [--threads N]

Each shape is LINESxN (a C-contiguous batch, the last axis transformed; N is
the real length for r2c and c2r). Both sides run the same input 11 times in
turn; the medians are printed with their ratio (ours / FFTW: below 1 means
ours is faster). Needs pyFFTW.
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


def compare(kind: str, lines: int, n: int, double: bool, threads: int) -> str:
    real, complex_ = (np.float64, np.complex128) if double else (np.float32, np.complex64)
    precision = Precision.DOUBLE if double else Precision.SINGLE
    rng = np.random.default_rng(0)
    signal = rng.standard_normal((lines, n))
    if kind == "c2c":
        x = (signal + 1j * rng.standard_normal((lines, n))).astype(complex_)
        ours_out = np.empty_like(x)
        arguments = (TransformKind.C2C, True, precision, [lines, n], [1], [n], x, ours_out, 1.0)
        fftw = pyfftw.builders.fft
    elif kind == "r2c":
        x = signal.astype(real)
        ours_out = np.empty((lines, n // 2 + 1), complex_)
        arguments = (TransformKind.R2C, True, precision, [lines, n], [1], [n], x, ours_out, 1.0)
        fftw = pyfftw.builders.rfft
    else:
        x = np.fft.rfft(signal).astype(complex_)
        ours_out = np.empty((lines, n), real)
        arguments = (TransformKind.C2R, False, precision, [lines, n // 2 + 1], [1], [n], x,
                     ours_out, 1.0 / n)
        fftw = pyfftw.builders.irfft
    cache = af.PlanCache(threads=threads)
    ours = lambda: testing.profile_cpu(cache.handle, *arguments)  # noqa: E731
    # Planned without FFTW_DESTROY_INPUT (pyFFTW's default): FFTW's c2r keeps
    # its input, as ours does.
    plan = fftw(x.copy(), n=n, axis=1, threads=threads, planner_effort="FFTW_MEASURE")
    plan.input_array[...] = x
    reps = max(3, int(2e7 // (lines * n)))
    ours_times, fftw_times = [], []
    for _ in range(11):
        ours_times.append(seconds_per_call(ours, reps))
        fftw_times.append(seconds_per_call(plan, reps))
    plan.input_array[...] = x
    plan()
    scale = np.abs(plan.output_array).max()
    if not np.allclose(ours_out, plan.output_array, rtol=1e-3, atol=1e-3 * scale):
        raise AssertionError(f"{kind} {lines}x{n}: ours and FFTW disagree")
    ours_s, fftw_s = np.median(ours_times), np.median(fftw_times)
    per_element = 1e9 / (lines * n)
    return (f"{kind} {lines}x{n} {'float64' if double else 'float32'} {threads}t: "
            f"ours {ours_s * per_element:6.3f} ns/element, FFTW {fftw_s * per_element:6.3f}, "
            f"ratio {ours_s / fftw_s:.2f} ({x.nbytes / 2**20:.2f} MiB in)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="+", metavar="LINESxN")
    parser.add_argument("--kind", choices=("c2c", "r2c", "c2r"), default="c2c")
    parser.add_argument("--double", action="store_true", help="float64 (default float32)")
    parser.add_argument("--threads", type=int, default=1)
    arguments = parser.parse_args()
    for shape in arguments.shapes:
        lines, n = map(int, shape.lower().split("x"))
        print(compare(arguments.kind, lines, n, arguments.double, arguments.threads), flush=True)


if __name__ == "__main__":
    main()
