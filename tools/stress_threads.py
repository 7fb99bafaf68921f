"""Stress run of the CPU backend with many worker threads and several callers.

Loops jitted transforms of every kind (C2C, R2C, C2R; 1-D along the last and
the first axis, 2-D, 3-D, strided) through PlanCaches of the thread counts
given, from several Python threads at once, for a set time per thread count,
and checks every result against numpy. A crash or a wrong result ends it
with a non-zero exit status.

    python tools/stress_threads.py --threads 16 32 --minutes 2 --callers 3
"""

from __future__ import annotations

import argparse
import sys
import threading
import time

import jax
import numpy as np

jax.config.update("jax_platforms", "cpu")  # where a GPU is the default device too
jax.config.update("jax_enable_x64", True)  # for the float64 cases; the others pass float32

import jax_apple_fft as af

# (name, shape, kwargs): the shapes that once crashed a 16-thread pool, and
# one of each other kind and layout.
CASES = [
    ("fftn", (4096, 256), {"axes": (0,)}),
    ("fft", (16384, 256), {}),
    ("fft2", (1536, 1536), {}),
    ("fftn", (3000, 1200), {}),
    ("ifft", (64, 4096), {"norm": "ortho"}),
    ("rfft", (512, 2048), {}),
    ("irfft", (512, 1025), {}),
    ("rfftn", (64, 64, 64), {}),
    ("irfftn", (48, 40, 33), {}),
    ("rfft", (2048, 300), {"axis": 0}),
    ("hfft", (256, 129), {"norm": "forward"}),
    ("fft", (3, 65536), {}),
    ("fft", (17, 9), {}),
    # short contiguous lines each in its own vectors (csrc/cpu/line_vectors.h)
    ("fft", (32768, 16), {}),
    ("ifft", (65536, 4), {}),
    ("rfft", (16384, 16), {}),
    ("rfft", (4096, 128), {}),
    ("irfft", (16384, 9), {}),
    ("irfft", (4096, 65), {}),
    ("hfft", (16384, 17), {"norm": "ortho"}),
    # fewer lines than a full SIMD group per thread: four-step from 2^14, real
    # lines at half the length; one line reads its twiddles from a table
    ("fft", (3, 16384), {}),
    ("rfft", (5, 32768), {}),
    ("irfft", (5, 16385), {}),
    ("ifft", (1, 65536), {}),
    # lines split at a large prime factor: 12345 = 15 x 823, 16256 = 127 x 128
    ("fft", (169, 12345), {}),
    ("ifft", (3, 16256), {}),
]
# float64 real lines of 2^15 and 2^16 points: complex lines of half the length,
# each packed or unpacked inside the line kernel.
DOUBLE_CASES = [
    ("rfft", (6, 32768), {}),
    ("irfft", (6, 16385), {}),
    ("ihfft", (3, 65536), {}),
    ("hfft", (3, 32769), {"norm": "ortho"}),
]
ALL_CASES = [(case, np.float32) for case in CASES] + [(case, np.float64) for case in DOUBLE_CASES]


def make_input(rng, name, shape, real_type):
    real = name in ("rfft", "rfftn", "ihfft")
    x = rng.standard_normal(shape).astype(real_type)
    if not real:
        x = (x + 1j * rng.standard_normal(shape)).astype(np.result_type(real_type, np.complex64))
    return x


def worker(cache, seed, deadline, counts, errors):
    try:
        run_cases(cache, seed, deadline, counts, errors)
    except Exception as e:  # noqa: BLE001 - any failure ends the run, reported
        errors.append(f"{type(e).__name__}: {e}")


def run_cases(cache, seed, deadline, counts, errors):
    rng = np.random.default_rng(seed)
    compiled = {}
    while time.monotonic() < deadline and not errors:
        index = int(rng.integers(len(ALL_CASES)))
        (name, shape, kwargs), real_type = ALL_CASES[index]
        if index not in compiled:
            x = make_input(rng, name, shape, real_type)
            f = jax.jit(lambda v, name=name, kwargs=kwargs: getattr(af, name)(v, cache=cache,
                                                                              **kwargs))
            expected = getattr(np.fft, name)(x.astype(np.complex128 if np.iscomplexobj(x)
                                                      else np.float64), **kwargs)
            compiled[index] = (f, x, expected, np.linalg.norm(expected.ravel()))
        f, x, expected, scale = compiled[index]
        y = np.asarray(f(x))
        error = np.linalg.norm((y - expected).ravel()) / max(scale, 1e-30)
        if not error < 1e-4:
            errors.append(f"{name}{shape} {kwargs}: relative error {error:.3g}")
        counts[0] += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--minutes", type=float, default=2.0, help="per thread count")
    parser.add_argument("--callers", type=int, default=3, help="Python threads calling at once")
    args = parser.parse_args()
    print(f"jax {jax.__version__}, {af._core.available_cores()} cores", flush=True)
    for threads in args.threads:
        cache = af.PlanCache(threads=threads)
        deadline = time.monotonic() + 60 * args.minutes
        counts, errors = [0], []
        callers = [threading.Thread(target=worker, args=(cache, seed, deadline, counts, errors))
                   for seed in range(args.callers)]
        start = time.monotonic()
        for t in callers:
            t.start()
        for t in callers:
            t.join()
        s = cache.stats()
        print(f"threads={threads} callers={args.callers}: {counts[0]} transforms in "
              f"{time.monotonic() - start:.0f} s, {len(errors)} wrong, workers alive "
              f"{s.worker_threads}, start failures {s.worker_start_failures}", flush=True)
        if errors or counts[0] == 0:
            print("\n".join(errors[:10]))
            return 1
        cache.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
