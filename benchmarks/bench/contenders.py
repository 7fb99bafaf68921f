"""The FFT implementations being compared, each turned into a zero-argument
callable that runs one row's transform to completion."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import scipy.fft

import jax_apple_fft as af
from jax_apple_fft._core import testing
from jax_apple_fft.frontend.arguments import check_norm
from jax_apple_fft.primitive.transform_kind import Precision, Transform, TransformKind

from . import jnp_threads
from .inputs import aligned_empty
from .suite import Row
from .timing import Runner

ALL_CORES = os.cpu_count() or 1

# pyFFTW's FFTW runs on OpenMP threads, which by default spin for a while
# after each call: in interleaved rounds they take the cores of whichever
# contender is timed next. Read when libgomp loads, so set before pyfftw is
# imported; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _with_threads(name: str, threads: int, unit: str) -> str:
    return f"{name}-all" if threads == ALL_CORES else f"{name}-{threads}{unit}"


def ours_label(threads: int) -> str:
    return _with_threads("ours", threads, "t")


def scipy_label(threads: int) -> str:
    return _with_threads("scipy", threads, "w")


def fftw_label(threads: int) -> str:
    return _with_threads("fftw", threads, "t")


OURS_ONE_THREAD = ours_label(1)
OURS_ALL_CORES = ours_label(ALL_CORES)
JNP_FFT = "jnp.fft-1t" if jnp_threads.single_threaded() else "jnp.fft"
DROP_IN = "drop-in"
NUMPY = "numpy"
SCIPY_ONE_WORKER = scipy_label(1)
SCIPY_ALL_WORKERS = scipy_label(ALL_CORES)

TransformCall = Callable[[Any], Any]
Prepare = Callable[[Row, np.ndarray], Runner]


def numpy_style_transform(module: ModuleType, row: Row, **extra: Any) -> TransformCall:
    """``row``'s transform from a module with numpy.fft's API.

    1-D rows use fft/rfft/irfft, the rest fftn/rfftn/irfftn, as a user would.
    Lengths are always passed: irfft of an odd length needs them.
    """
    if len(row.axes) == 1:
        function = {"c2c": module.fft, "r2c": module.rfft, "c2r": module.irfft}[row.kind]
        return functools.partial(function, n=row.lengths[0], axis=row.axes[0],
                                 norm=row.norm, **extra)
    function = {"c2c": module.fftn, "r2c": module.rfftn, "c2r": module.irfftn}[row.kind]
    return functools.partial(function, s=row.lengths, axes=row.axes, norm=row.norm, **extra)


@dataclasses.dataclass(frozen=True)
class Contender:
    label: str
    prepare: Prepare


def _jitted(make_transform: Callable[[Row], TransformCall], *,
            drop_in_cache: af.PlanCache | None = None) -> Prepare:
    """A JAX contender: compiled ahead of time, on a device-resident input,
    blocking on the result. With ``drop_in_cache`` it is compiled under
    ``enable(cache=drop_in_cache)``.

    Compiling and warming happen here, so that no timing ever includes them.
    Compiled ahead of time, a contender keeps its executable when another
    one's enable() or disable() clears JAX's caches.
    """
    def prepare(row: Row, x: np.ndarray) -> Runner:
        device_x = jax.device_put(x)
        rule = af.enabled(cache=drop_in_cache) if drop_in_cache else contextlib.nullcontext()
        with rule:  # applies when lowering
            compiled = jax.jit(make_transform(row)).lower(device_x).compile()

        def run() -> jax.Array:
            return compiled(device_x).block_until_ready()

        run()
        return run
    return prepare


def _eager(make_transform: Callable[[Row], TransformCall]) -> Prepare:
    """A numpy-style contender, called on the numpy array."""
    def prepare(row: Row, x: np.ndarray) -> Runner:
        transform = make_transform(row)
        run = functools.partial(transform, x)
        run()  # builds and caches the library's plan
        return run
    return prepare


def ours(threads: int) -> Prepare:
    cache = af.PlanCache(threads=threads)
    return _jitted(lambda row: numpy_style_transform(af, row, backend="cpu", cache=cache))


def native_label(threads: int) -> str:
    return _with_threads("native", threads, "t")


def native_call(row: Row, x: np.ndarray, cache: af.PlanCache) -> Callable[[], dict]:
    """One call of our transform alone, out of place into a preallocated
    output, through the library's profiling hook (_core.testing.profile_cpu):
    returns the call's profile; the output is `call.out`."""
    dtype = {("c2r", "f32"): np.float32, ("c2r", "f64"): np.float64}.get(
        (row.kind, row.precision), np.complex64 if row.precision == "f32" else np.complex128)
    out = aligned_empty(row.output_shape, dtype)  # as XLA's output would be
    transform = Transform.of(TransformKind[row.kind.upper()], forward=row.kind != "c2r")
    precision = Precision.SINGLE if row.precision == "f32" else Precision.DOUBLE
    scale = transform.scale(check_norm(row.norm), math.prod(row.lengths))
    arguments = (transform.kind, transform.forward, precision, list(x.shape),
                 list(row.axes), list(row.lengths), x, out, scale)

    def call() -> dict:  # holds the cache, whose handle lives as long as it does
        return testing.profile_cpu(cache.handle, *arguments)

    call.out = out
    return call


def native(threads: int) -> Prepare:
    """Our transform alone (native_call; a few microseconds of planning
    lookups per call): what FFTW's column is compared with."""
    cache = af.PlanCache(threads=threads)

    def prepare(row: Row, x: np.ndarray) -> Runner:
        call = native_call(row, x, cache)

        def run() -> np.ndarray:
            call()
            return call.out

        run()
        return run
    return prepare


def scipy_fft(workers: int) -> Prepare:
    return _eager(lambda row: numpy_style_transform(scipy.fft, row, workers=workers))


# Above this prime factor FFTW plans with FFTW_ESTIMATE: FFTW_MEASURE took
# 14 s to plan 1000003 points on one core and over ten minutes at 16777213.
FFTW_MEASURED_PRIME_LIMIT = 1 << 22


def largest_prime_factor(n: int) -> int:
    largest, p = 1, 2
    while p * p <= n:
        while n % p == 0:
            largest, n = p, n // p
        p += 1
    return max(largest, n)


def fftw_planner_effort(row: Row) -> str:
    """FFTW_MEASURE, or FFTW_ESTIMATE where a length has a prime factor above
    FFTW_MEASURED_PRIME_LIMIT."""
    if max(largest_prime_factor(n) for n in row.lengths) > FFTW_MEASURED_PRIME_LIMIT:
        return "FFTW_ESTIMATE"
    return "FFTW_MEASURE"


def fftw(threads: int) -> Prepare:
    """FFTW through pyFFTW at its best: planned outside the timing
    (fftw_planner_effort), executed on its own preallocated, aligned arrays
    (no copy in, no allocation out)."""
    import pyfftw.builders

    def prepare(row: Row, x: np.ndarray) -> Runner:
        one_d = len(row.axes) == 1
        builder = getattr(pyfftw.builders, {"c2c": "fft", "r2c": "rfft", "c2r": "irfft"}[row.kind]
                          + ("" if one_d else "n"))
        lengths = {"n": row.lengths[0], "axis": row.axes[0]} if one_d else \
            {"s": row.lengths, "axes": row.axes}
        plan = builder(x.copy(), **lengths, threads=threads, planner_effort=fftw_planner_effort(row),
                       norm=row.norm or "backward")
        plan.input_array[...] = x  # measuring overwrote it; C2R executions overwrite it too
        return plan
    return prepare


def fftw_available() -> bool:
    try:
        import pyfftw  # noqa: F401 -- GPL, so an optional benchmark contender only
    except ImportError:
        return False
    return True


def drop_in(threads: int) -> Prepare:
    """Unchanged jax.numpy.fft code under enable(): JAX's own argument
    handling (on non-trailing axes, a transpose to the end and back) around
    our transform."""
    return _jitted(lambda row: numpy_style_transform(jnp.fft, row),
                   drop_in_cache=af.PlanCache(threads=threads))


def all_contenders(threads: tuple[int, ...] = (1, ALL_CORES),
                   with_native: bool = False) -> list[Contender]:
    """In table order: ours, ours' transform alone (with `with_native`),
    jnp.fft and the drop-in, numpy, scipy, then FFTW where pyFFTW is
    installed; the multi-threaded ones once per entry of `threads` (the
    drop-in at the most)."""
    return [
        *(Contender(ours_label(t), ours(threads=t)) for t in threads),
        *(Contender(native_label(t), native(threads=t)) for t in threads if with_native),
        Contender(JNP_FFT, _jitted(lambda row: numpy_style_transform(jnp.fft, row))),
        Contender(DROP_IN, drop_in(threads=max(threads))),
        Contender(NUMPY, _eager(lambda row: numpy_style_transform(np.fft, row))),
        *(Contender(scipy_label(t), scipy_fft(workers=t)) for t in threads),
        *(Contender(fftw_label(t), fftw(t)) for t in threads if fftw_available()),
    ]
