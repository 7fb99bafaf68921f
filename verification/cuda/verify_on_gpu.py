"""Runs the Metal kernels' dispatch records on an NVIDIA GPU: accuracy,
sanitizer runs, and throughput against VkFFT and cuFFT. A verifier, not a backend.

    python verification/cuda/verify_on_gpu.py accuracy   [--out DIR]
    python verification/cuda/verify_on_gpu.py sanitize   # run under compute-sanitizer
    python verification/cuda/verify_on_gpu.py racy       # the planted missing barrier
    python verification/cuda/verify_on_gpu.py throughput [--out DIR] [--gib 1]
        [--nvrtc-option=-maxrregcount=64 ...] [--only c2c] [--lengths 1024 4096]
        [--run-kernel-as fft_stockham_smooth7=fft_stockham ...] [--generic]
        [--variant-shaders OTHER/shaders]   # another kernel tree, same plans, same buffers
    python verification/cuda/verify_on_gpu.py instructions [--lengths 1024 4096]  # needs ncu

`throughput` and `instructions` time or count VkFFT beside us where pyvkfft
is importable (built by build_vkfft.sh: vkfft_reference.py).

Kernels run as the Apple executor builds them, with each dispatch's pipeline
constants (--generic: without, as the emulator runs them). `accuracy` runs
both builds: the one without on every case, the one with on every case but
the n = 1..4096 sweep, of which it takes a sample (fixed_shape_sample).

Sanitizer runs, one tool at a time:
    compute-sanitizer --tool racecheck --racecheck-report hazard \\
        python verification/cuda/verify_on_gpu.py sanitize
    (and --tool synccheck, memcheck, initcheck; `racy` must report a hazard)

Run from the repository root with the package installed (its _core builds
the plans) and CuPy. Results print as tables; --out also writes JSON.
FFT_VERIFY_CUBIN_CACHE=DIR keeps the kernels built with pipeline constants
in DIR, to be reused by later runs (on a fresh machine, bring DIR along).
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "metal"))

import cuda_source  # noqa: E402
from cuda_executor import CudaPlanRunner, cuda_available  # noqa: E402
from jax_apple_fft import _core  # noqa: E402
from jax_apple_fft.runtime.accuracy import error_bound, relative_l2_error  # noqa: E402
from plan_runner import C2C, C2R, R2C, MetalPlanRunner  # noqa: E402
import vkfft_reference  # noqa: E402

import cupy  # noqa: E402

BLUESTEIN_LENGTHS = (4097, 10007, 65539, 1000003)
RADER_LENGTHS = (2113, 3329, 12289, 65537, 786433)
FOUR_STEP_LENGTHS = (tuple(2**k for k in range(13, 25))
                     + (3 * 4096, 5**7, 4095 * 4095, 3**12, 600**2, 10**6, 5**9 * 7, 20000,
                        5 * 10**5))
REAL_LENGTHS = (1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 64, 100, 127, 128, 255, 256, 1000, 1023,
                1024, 4095, 4096, 4097, 8192, 10007, 65536, 65537, 2**20, 10**6)
NORMS = (None, "ortho", "forward")


def random_complex(rng, shape) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def batch_for(n: int, elements: int = 1 << 16) -> int:
    return max(1, min(8, elements // max(n, 1)))


# --------------------------------------------------------------------------
# Accuracy
# --------------------------------------------------------------------------

def accuracy_cases():
    """(group, description, function producing (got, want, n))."""
    rng = np.random.default_rng(20261201)

    def c2c(n, forward, batch=1, axis=-1, norm=None):
        shape = (batch, n) if axis == -1 else (n, batch)
        x = random_complex(rng, shape)
        reference = np.fft.fft if forward else np.fft.ifft
        return lambda r: ((r.fft if forward else r.ifft)(x, axis=axis, norm=norm),
                          reference(x.astype(np.complex128), axis=axis, norm=norm), n)

    def r2c(n, batch=2, norm=None):
        x = rng.standard_normal((batch, n)).astype(np.float32)
        return lambda r: (r.rfft(x, norm=norm), np.fft.rfft(x.astype(np.float64), norm=norm), n)

    def c2r(n, batch=2, norm=None):
        x = random_complex(rng, (batch, n // 2 + 1))
        return lambda r: (r.irfft(x, n=n, norm=norm),
                          np.fft.irfft(x.astype(np.complex128), n=n, norm=norm), n)

    for forward in (True, False):
        for n in range(1, 4097):
            yield ("c2c n=1..4096 " + ("forward" if forward else "inverse"), f"n={n}",
                   c2c(n, forward))
    for n in FOUR_STEP_LENGTHS:
        yield "four-step", f"n={n}", c2c(n, True, batch=1)
    for n in BLUESTEIN_LENGTHS:
        yield "Bluestein", f"n={n}", c2c(n, True, batch=1)
        yield "Bluestein", f"n={n} inverse", c2c(n, False, batch=1)
    for n in RADER_LENGTHS:
        yield "Rader", f"n={n}", c2c(n, True, batch=1)
        yield "Rader", f"n={n} inverse", c2c(n, False, batch=1)
        yield "Rader", f"r2c n={n}", r2c(n, batch=1)
    for n in REAL_LENGTHS:
        yield "R2C", f"n={n}", r2c(n, batch=1 if n > 4096 else 3)
        if n > 1:
            yield "C2R", f"n={n}", c2r(n, batch=1 if n > 4096 else 3)
    for n in (8, 60, 1024, 4096, 10007, 12289, 65536):
        yield "strided (axis 0)", f"n={n}", c2c(n, True, batch=5, axis=0)
    for norm in NORMS:
        for n in (64, 1000, 4096, 65536):
            yield f"norm={norm}", f"c2c n={n}", c2c(n, False, batch=2, norm=norm)
            yield f"norm={norm}", f"r2c n={n}", r2c(n, norm=norm)
            yield f"norm={norm}", f"c2r n={n}", c2r(n, norm=norm)


def smooth(n: int, primes=(2, 3, 5, 7)) -> bool:
    for p in primes:
        while n % p == 0:
            n //= p
    return n == 1


def fixed_shape_sample(n: int) -> bool:
    """The lengths of the n = 1..4096 sweep that also run with pipeline
    constants (each length is a build of its own): the short ones, every
    7-smooth one, and a spread of the others (11, 13 and Bluestein)."""
    return n <= 64 or smooth(n) or n % 143 == 0 or n % 101 == 0


class PlanCollector(MetalPlanRunner):
    """Plans the cases without running them, to build their kernels first."""

    def __init__(self):
        self.plans = []

    def run(self, plan, x, out_shape, out_dtype):
        self.plans.append(plan)
        return np.zeros(out_shape, out_dtype)


def run_accuracy(runner: CudaPlanRunner, fixed_shapes: CudaPlanRunner | None = None,
                 only: str | None = None) -> dict:
    """Every case on `runner` (of the groups whose name starts with `only`);
    with `fixed_shapes`, the cases of fixed_shape_sample again on it, as
    groups of their own."""
    cases = [(group, what, case, runner) for group, what, case in accuracy_cases()
             if only is None or group.startswith(only)]
    if fixed_shapes is not None:
        sampled = [(group + " [constants]", what, case, fixed_shapes)
                   for group, what, case, _ in cases if not group.startswith("c2c n=1..4096")
                   or fixed_shape_sample(int(what[2:]))]
        collector = PlanCollector()
        for _, _, case, _ in sampled:
            case(collector)
        fixed_shapes.prepare(collector.plans)
        cases += sampled
    groups: dict[str, dict] = {}
    for group, what, case, on in cases:
        got, want, n = case(on)
        error, bound = relative_l2_error(got, want), error_bound(np.float32, n)
        g = groups.setdefault(group, {"cases": 0, "failures": [], "worst_ratio": 0.0})
        g["cases"] += 1
        g["worst_ratio"] = max(g["worst_ratio"], error / bound)
        if not error <= bound:
            g["failures"].append({"case": what, "error": error, "bound": bound})
    print(f"{'group':32s} {'cases':>6s} {'fails':>6s} {'worst error/bound':>18s}")
    for group, g in groups.items():
        print(f"{group:32s} {g['cases']:6d} {len(g['failures']):6d} {g['worst_ratio']:18.3f}")
    return groups


# --------------------------------------------------------------------------
# Sanitizer runs: one plan of each kind, once each
# --------------------------------------------------------------------------

SANITIZER_CASES = (
    ("single group, one transform", C2C, True, 1024, (1, 1024)),
    ("several transforms per group", C2C, True, 16, (64, 16)),
    ("odd radices", C2C, False, 3 * 5 * 7 * 13, (3, 1365)),
    ("radix 10", C2C, True, 1000, (3, 1000)),
    ("four-step", C2C, True, 1 << 16, (2, 1 << 16)),
    ("four-step in three passes", C2C, False, 11**5, (2, 11**5)),
    ("four-step in three passes, 2^k", C2C, True, 1 << 21, (1, 1 << 21)),
    ("three passes, every end in registers", C2C, True, 3**12, (1, 3**12)),
    ("split passes of 20 values a thread", C2C, True, 10**6, (1, 10**6)),
    ("Bluestein", C2C, True, 4097, (2, 4097)),
    ("Bluestein in one group", C2C, True, 97, (5, 97)),
    ("Rader", C2C, False, 3329, (3, 3329)),
    ("R2C Rader", R2C, True, 3329, (2, 3329)),
    ("R2C beyond one group", R2C, True, 1 << 14, (2, 1 << 14)),
    ("C2R beyond one group", C2R, False, 1 << 14, (2, (1 << 13) + 1)),
    ("R2C", R2C, True, 1000, (3, 1000)),
    ("C2R", C2R, False, 1000, (3, 501)),
    ("R2C odd", R2C, True, 999, (2, 999)),
    ("C2R odd", C2R, False, 999, (2, 500)),
)


def run_sanitize(runner: CudaPlanRunner) -> None:
    rng = np.random.default_rng(7)
    runner.prepare([runner.plan(kind, forward, n, in_shape, axis=1)[0]
                    for _, kind, forward, n, in_shape in SANITIZER_CASES])
    for what, kind, forward, n, in_shape in SANITIZER_CASES:
        plan, out_shape = runner.plan(kind, forward, n, in_shape, axis=1)
        x = (rng.standard_normal(in_shape).astype(np.float32) if kind == R2C
             else random_complex(rng, in_shape))
        runner.run(plan, x, out_shape, np.float32 if kind == C2R else np.complex64)
        print(f"ran {what}: {len(plan.dispatches)} dispatches", flush=True)
    cupy.cuda.runtime.deviceSynchronize()


def run_racy() -> None:
    """Both reverse kernels on one threadgroup: under racecheck the one
    without its barrier must report a shared-memory hazard. The kernels read
    only FftParams.group_threads; a real plan's dispatch supplies the struct
    and its matching threadgroup size."""
    source = cuda_source.translation_unit(cuda_source.RACY_SOURCE, cuda_source.RACY_KERNELS)
    runner = CudaPlanRunner(kernels=cuda_source.RACY_KERNELS, source=source)
    plan, _ = CudaPlanRunner.plan(C2C, True, 4096, (1, 4096), axis=1)
    dispatch = plan.dispatches[0]
    threads = dispatch["threads"][0]
    assert dispatch["params"]["group_threads"] == threads
    x = cupy.arange(threads, dtype=np.float32)
    for kernel in cuda_source.RACY_KERNELS:
        out = cupy.zeros(threads, np.float32)
        params = cupy.asarray(np.frombuffer(dispatch["params_bytes"], np.uint8))
        args = (np.uintp(x.data.ptr), np.uintp(out.data.ptr), *([np.uintp(0)] * 4),
                np.uintp(params.data.ptr))
        runner.generic_entry_points(kernel)[1]((1,), (threads,), args, shared_mem=threads * 8)
        cupy.cuda.runtime.deviceSynchronize()
        reversed_ok = bool(cupy.all(out == x[::-1]))
        print(f"{kernel} on {threads} threads: {'reversed' if reversed_ok else 'WRONG'}",
              flush=True)


# --------------------------------------------------------------------------
# Throughput against VkFFT, cuFFT and a copy
# --------------------------------------------------------------------------

THROUGHPUT_ROWS = (
    *(("c2c", n) for n in (16, 64, 256, 1000, 1024, 2187, 3125, 4096)),
    *(("c2c four-step", n) for n in (1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 3**12, 10**6)),
    # primes: Rader where n - 1 splits four-step (12289, 65537), else Bluestein
    *(("c2c prime", n) for n in (4099, 12289, 65537, 1000003)),
    *(("r2c", n) for n in (1024, 4096, 1 << 16, 1 << 20)),
    *(("c2r", n) for n in (1024, 4096, 1 << 16)),
)
# Transforms over every axis of one array: ours one plan per axis, last axis first.
MULTIDIMENSIONAL_ROWS = (("c2c 2-D", (4096, 4096)), ("r2c 2-D", (4096, 4096)),
                         ("c2c 3-D", (256, 256, 256)))
GROUPS = ("c2c", "c2c four-step", "c2c prime", "r2c", "c2r", "c2c 2-D", "r2c 2-D", "c2c 3-D")


def row_batch(n: int, gib: float) -> int:
    """Transforms of length n in `gib` GiB of complex64, half that above 4096 points."""
    elements = int(gib * (1 << 30)) // 8
    return max(1, elements // n if n <= 4096 else elements // (2 * n))


def throughput_rows(gib: float):
    """(label, n, batch) of the table's one-dimensional rows."""
    for label, n in THROUGHPUT_ROWS:
        yield label, n, row_batch(n, gib)


def planned_rows(runner: CudaPlanRunner, gib: float, only: str | None, lengths: set[int] | None):
    """(label, size, kind name, input shape, output shape, [(plan, in shape, out shape)])
    of each throughput row: one plan per transformed axis. `lengths` picks the
    table's rows of those lengths, and a c2c row of `gib` for any other."""
    rows = list(throughput_rows(gib))
    rows += [("c2c", n, row_batch(n, gib))
             for n in sorted(lengths or ()) if n not in {row[1] for row in rows}]
    for label, n, batch in rows:
        if (only and not label.startswith(only)) or (lengths and n not in lengths):
            continue
        kind = {"r2c": R2C, "c2r": C2R}.get(label, C2C)
        in_shape = (batch, n // 2 + 1) if kind == C2R else (batch, n)
        plan, out_shape = runner.plan(kind, kind != C2R, n, in_shape, axis=1)
        yield (label, f"{n} x {batch}", label[:3], in_shape, out_shape,
               [(plan, in_shape, out_shape)])
    for label, shape in MULTIDIMENSIONAL_ROWS:
        if (only and not label.startswith(only)) or lengths:
            continue
        steps, current = [], shape
        for axis in reversed(range(len(shape))):
            kind = R2C if label.startswith("r2c") and axis == len(shape) - 1 else C2C
            plan, out_shape = runner.plan(kind, True, shape[axis], current, axis=axis)
            steps.append((plan, current, out_shape))
            current = out_shape
        yield label, " x ".join(map(str, shape)), label[:3], shape, current, steps


def time_ms(launch, repeats: int = 20) -> float:
    """Median over `repeats` of CUDA-event time of one launch (after a warm-up)."""
    launch()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    samples = []
    for _ in range(repeats):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        samples.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(samples)


def geometric_mean(values) -> float:
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values))


def run_throughput(runner: CudaPlanRunner, gib: float, only: str | None = None,
                   lengths: set[int] | None = None,
                   variant: CudaPlanRunner | None = None) -> list[dict]:
    """Each row on the same input and output buffers: ours, VkFFT (held to
    Apple's limits and as released, where pyvkfft is importable), cuFFT, and
    a device-to-device copy of the input into the output's bytes. With
    `variant` (a runner built from another kernel tree), its kernels on the
    same plans too, first checked against ours within the accuracy bound."""
    vkfft = vkfft_reference.available()
    columns = ["ours", *(["variant"] if variant else []),
               *(f"vkfft_{c}" for c in vkfft_reference.CONFIGURATIONS if vkfft), "cufft", "copy"]
    print(f"{'row':14s} {'size':>16s} " + " ".join(f"{c + ' ms':>12s}" for c in columns)
          + f" {'ours ms/GiB':>11s} {'VkFFT-apple/ours':>16s} {'cuFFT/ours':>10s}", flush=True)
    planned = list(planned_rows(runner, gib, only, lengths))
    for executor in (runner, variant) if variant else (runner,):
        executor.prepare([plan for *_, steps in planned for plan, _, _ in steps])
    rows = []
    for label, size, name, in_shape, out_shape, steps in planned:
        x = cupy.random.standard_normal(in_shape, np.float32)
        if name != "r2c":
            x = x + 1j * cupy.random.standard_normal(in_shape, np.float32)
            x = x.astype(np.complex64)
        y = cupy.empty(out_shape, np.float32 if name == "c2r" else np.complex64)
        # each step from the last one's output; intermediate results in their own buffers
        buffers = [x] + [cupy.empty(o, np.complex64) for _, _, o in steps[:-1]] + [y]
        held = []

        def resolved(executor):
            launches = []
            for (plan, _, _), source, destination in zip(steps, buffers, buffers[1:]):
                step_launches, step_held = executor.launches(plan, source, destination)
                launches += step_launches
                held.append(step_held)

            def run():
                for function, grid, block, arguments, shared in launches:
                    function(grid, block, arguments, shared_mem=shared)
            return run

        ours = resolved(runner)
        timed = {"ours": ours}
        if variant:
            timed["variant"] = resolved(variant)
            ours()
            expected = y.copy()
            timed["variant"]()
            error = relative_l2_error(cupy.asnumpy(y), cupy.asnumpy(expected))
            if not error <= error_bound(np.float32, max(x.shape)):
                print(f"{label} {size}: the variant's result differs from ours by {error:.2e}")

        axes = tuple(range(1, x.ndim)) if len(steps) == 1 else tuple(range(x.ndim))
        for configuration in vkfft_reference.CONFIGURATIONS if vkfft else ():
            timed[f"vkfft_{configuration}"] = vkfft_reference.transform(configuration, name, x, y,
                                                                        axes=axes)
        timed["cufft"] = {
            "c2c": lambda: cupy.fft.fftn(x, axes=axes),
            "r2c": lambda: cupy.fft.rfftn(x, axes=axes),
            "c2r": lambda: cupy.fft.irfftn(x, s=y.shape[1:], axes=axes)}[name]
        copied = min(x.nbytes, y.nbytes)
        timed["copy"] = lambda: cupy.cuda.runtime.memcpyAsync(
            y.data.ptr, x.data.ptr, copied, cupy.cuda.runtime.memcpyDeviceToDevice, 0)
        row = {"row": label, "size": size}
        for column, launch in timed.items():
            row[f"{column}_ms"] = time_ms(launch)
        row["ours_ms_per_gib"] = row["ours_ms"] / (x.nbytes / (1 << 30))
        row["cufft_ratio"] = row["cufft_ms"] / row["ours_ms"]
        if vkfft:
            row["vkfft_apple_ratio"] = row["vkfft_apple_ms"] / row["ours_ms"]
        if variant:
            row["variant_ratio"] = row["variant_ms"] / row["ours_ms"]
        rows.append(row)
        print(f"{label:14s} {size:>16s} "
              + " ".join(f"{row[c + '_ms']:12.3f}" for c in columns)
              + f" {row['ours_ms_per_gib']:11.3f} {row.get('vkfft_apple_ratio', math.nan):16.2f}"
              f" {row['cufft_ratio']:10.2f}", flush=True)
        del x, y, buffers, held, timed
        cupy.get_default_memory_pool().free_all_blocks()
    for label in GROUPS:
        group = [r for r in rows if r["row"] == label]
        if group:
            text = f"{label}: ours/cuFFT throughput {geometric_mean(r['cufft_ratio'] for r in group):.2f}"
            if vkfft:
                ratios = [r["vkfft_apple_ratio"] for r in group]
                text += (f", VkFFT (Apple limits) time / ours {geometric_mean(ratios):.2f}"
                         f" (worst {min(ratios):.2f})")
            print("geometric mean, " + text)
    if vkfft and rows:
        ratios = [r["vkfft_apple_ratio"] for r in rows]
        print(f"all rows: VkFFT (Apple limits) time / ours, geometric mean "
              f"{geometric_mean(ratios):.2f}, worst {min(ratios):.2f}")
    if variant and rows:
        ratios = [r["variant_ratio"] for r in rows]
        print(f"all rows: variant time / ours, geometric mean {geometric_mean(ratios):.3f}, "
              f"from {min(ratios):.3f} to {max(ratios):.3f}")
    return rows


# --------------------------------------------------------------------------
# Instructions per element, from Nsight Compute
# --------------------------------------------------------------------------

INSTRUCTION_METRIC = "smsp__sass_thread_inst_executed.sum"


def launch_once(lengths: set[int], gib: float, only: str | None = None,
                options: tuple[str, ...] = ()) -> None:
    """Each one-dimensional row of `lengths` once, ours then VkFFT (Apple
    limits), for ncu: the c2c rows alone (what `instructions` counts), or
    the rows whose label starts with `only`. `options` go to NVRTC (e.g.
    -lineinfo, for ncu's source view)."""
    runner = CudaPlanRunner(extra_options=options)
    for label, _, name, in_shape, out_shape, steps in planned_rows(runner, gib, only, lengths):
        if only is None and label != "c2c":
            continue
        (plan, _, _), = steps
        x = cupy.ones(in_shape, np.float32 if name == "r2c" else np.complex64)
        y = cupy.empty(out_shape, np.float32 if name == "c2r" else np.complex64)
        runner.run_on_device(plan, x, y)
        if vkfft_reference.available():
            vkfft_reference.transform("apple", name, x, y, axes=(1,))()
        cupy.cuda.runtime.deviceSynchronize()


def run_instructions(lengths: set[int], gib: float = 1 / 16) -> list[dict]:
    """Thread instructions executed per complex element of each c2c row in
    `lengths`, ours and VkFFT's (Apple limits): this script's launch_once
    under ncu, summed over each side's kernels."""
    import csv
    import io
    import subprocess

    command = ["ncu", "--csv", "--clock-control", "none", "--metrics", INSTRUCTION_METRIC,
               sys.executable, __file__, "launch-once", "--gib", str(gib),
               "--lengths", *map(str, sorted(lengths))]
    report = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    header = report.index('"ID"')
    order = [(n, batch) for label, n, batch in throughput_rows(gib)
             if label == "c2c" and n in lengths]
    # our kernels come row by row, each row's dispatches in plan order; VkFFT's follow ours
    ours_rows = [n for n, batch in order
                 for _ in CudaPlanRunner.plan(C2C, True, n, (batch, n), axis=1)[0].dispatches]
    counted: dict[tuple[str, int], float] = {}
    row_n = None
    records = list(csv.DictReader(io.StringIO(report[header:])))
    print("kernels profiled:", ", ".join(sorted({r["Kernel Name"] for r in records})))
    for record in records:
        name = record["Kernel Name"]
        if name.startswith("cuda_fft"):
            side, row_n = "ours", ours_rows.pop(0)
        elif "VkFFT" in name and row_n is not None:
            side = "vkfft"
        else:
            continue  # the input's own kernels
        value = float(record["Metric Value"].replace(",", ""))
        counted[side, row_n] = counted.get((side, row_n), 0.0) + value
    rows = []
    for n, batch in order:
        row = {"n": n, **{side: counted.get((side, n), math.nan) / (batch * n)
                          for side in ("ours", "vkfft")}}
        rows.append(row)
        print(f"c2c n={n}: instructions per complex element, ours {row['ours']:.0f}, "
              f"VkFFT (Apple limits) {row['vkfft']:.0f}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("accuracy", "sanitize", "racy", "throughput",
                                         "instructions", "launch-once"))
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--gib", type=float, default=1.0,
                        help="input size of each throughput row, GiB of complex64")
    parser.add_argument("--only", help="throughput rows (accuracy: groups) whose label "
                        "starts with this")
    parser.add_argument("--lengths", type=int, nargs="+",
                        help="throughput rows of these n only (a c2c row for n the table lacks)")
    parser.add_argument("--nvrtc-option", action="append", default=[],
                        help="an extra NVRTC option for the kernels (repeatable)")
    parser.add_argument("--variant-shaders", type=pathlib.Path, metavar="DIR",
                        help="throughput: also time the kernels of another shaders/ tree on "
                             "the same plans and buffers (its FftParams and constants must match)")
    parser.add_argument("--generic", action="store_true",
                        help="throughput and sanitize: kernels built without pipeline constants")
    parser.add_argument("--run-kernel-as", action="append", default=[], metavar="KERNEL=OTHER",
                        help="run KERNEL's dispatches with OTHER, whose radices include "
                             "KERNEL's (repeatable)")
    parser.add_argument("--coalesced-bytes", type=int, default=_core.NVIDIA_COALESCED_BYTES,
                        help="plan for a GPU whose coalesced piece is this many bytes (64: the "
                             "plans an Apple GPU runs)")
    arguments = parser.parse_args()
    CudaPlanRunner.coalesced_bytes = arguments.coalesced_bytes
    if not cuda_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    if arguments.what == "racy":
        run_racy()
        return 0
    if arguments.what == "launch-once":
        launch_once(set(arguments.lengths), arguments.gib, arguments.only,
                    tuple(arguments.nvrtc_option))
        return 0
    if arguments.what == "instructions":
        rows = run_instructions(set(arguments.lengths or (1024, 4096)))
        if arguments.out:
            arguments.out.mkdir(parents=True, exist_ok=True)
            (arguments.out / "instructions.json").write_text(json.dumps(rows, indent=1))
        return 0
    started = time.perf_counter()
    options = tuple(arguments.nvrtc_option)
    generic = arguments.generic or arguments.what == "accuracy"
    runner = CudaPlanRunner(extra_options=options, fixed_shapes=not generic,
                            build_in_pool=arguments.what != "sanitize")
    runner.substitutes = dict(pair.split("=", 1) for pair in arguments.run_kernel_as)
    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    result = {"device": device, "params_by_value": runner.params_by_value,
              "coalesced_bytes": runner.coalesced_bytes}
    print(f"FftParams passed {'by value' if runner.params_by_value else 'in device memory'}")
    failed = False
    if arguments.what == "accuracy":
        fixed_shapes = CudaPlanRunner(extra_options=options)
        fixed_shapes.substitutes = runner.substitutes
        result["accuracy"] = run_accuracy(runner, fixed_shapes, arguments.only)
        failed = any(g["failures"] for g in result["accuracy"].values())
    elif arguments.what == "sanitize":
        run_sanitize(runner)
    else:
        variant = None
        if arguments.variant_shaders:
            variant = CudaPlanRunner(extra_options=options, fixed_shapes=not generic,
                                     metal_file=arguments.variant_shaders / "fft_library.metal")
            variant.substitutes = runner.substitutes
        result["throughput"] = run_throughput(runner, arguments.gib, arguments.only,
                                              set(arguments.lengths or ()), variant)
    result["seconds"] = time.perf_counter() - started
    print(f"{device}: {result['seconds']:.0f} s")
    if arguments.out:
        arguments.out.mkdir(parents=True, exist_ok=True)
        (arguments.out / f"{arguments.what}.json").write_text(json.dumps(result, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
