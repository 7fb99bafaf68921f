"""The Metal self-check: a few transforms of each kernel family, run on a
Metal backend and compared with a float64 reference.

``backend="auto"`` chooses the GPU only after these pass on it
(runtime/device_verdicts.py); ``python -m jax_apple_fft`` prints them. Each
check is an ordinary call of the package's own transforms with an explicit
backend, so it exercises the whole path a user's call takes: primitive,
lowering, FFI target, PlanCache, planner, executor and the GPU's kernels.

The checks run eagerly with concrete arrays even when asked for while a
computation is being traced or lowered (``jax.ensure_compile_time_eval``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import jax
import numpy as np

from jax_apple_fft.frontend import transforms
from jax_apple_fft.metal.axis_plans import plan_along_axis
from jax_apple_fft.primitive.transform_kind import Transform, TransformKind
from jax_apple_fft.runtime.accuracy import error_bound, relative_l2_error
from jax_apple_fft.runtime.cache import MetalTransferStats, PlanCache

__all__ = ["CHECKS", "Check", "CheckResult", "SelfCheckReport", "run_self_check"]

_SEED = 7


@dataclasses.dataclass(frozen=True)
class Check:
    """One transform of the self-check: ``transform`` (an n-dimensional
    function of this package and of numpy.fft) of a random input of
    ``shape`` over ``axes``. ``family`` names the planner's route it takes."""

    family: str
    transform: str
    shape: tuple[int, ...]
    axes: tuple[int, ...] = (-1,)
    norm: str | None = None

    @property
    def name(self) -> str:
        return f"{self.family}: {self.transform} {self.shape} axes={self.axes}"

    @property
    def real_input(self) -> bool:
        return self.transform == "rfftn"

    def lengths(self) -> tuple[int, ...]:
        """The transform's length along each of its axes."""
        lengths = [self.shape[a] for a in self.axes]
        if self.transform == "irfftn":
            lengths[-1] = 2 * (lengths[-1] - 1)
        return tuple(lengths)

    def make_input(self) -> np.ndarray:
        rng = np.random.default_rng(_SEED + sum(self.shape))
        if self.real_input:
            return rng.standard_normal(self.shape).astype(np.float32)
        return (rng.standard_normal(self.shape)
                + 1j * rng.standard_normal(self.shape)).astype(np.complex64)

    def reference(self, x: np.ndarray) -> np.ndarray:
        """numpy's transform in double precision."""
        wide = x.astype(np.float64 if self.real_input else np.complex128)
        return getattr(np.fft, self.transform)(wide, axes=self.axes, norm=self.norm)

    def bound(self) -> float:
        """The accuracy contract's relative L2 bound for float32 (docs/accuracy.md)."""
        return error_bound(np.float32, math.prod(self.lengths()))

    def plans(self) -> list:
        """The Metal planner's plan for each transformed axis, in the order a
        program runs them (R2C's real axis first, C2R's last), laid out as in
        a C-contiguous array: the planner's decisions, for inspection."""
        transform = {"fftn": Transform.FFT, "ifftn": Transform.IFFT,
                     "rfftn": Transform.RFFT, "irfftn": Transform.IRFFT}[self.transform]
        steps = [(axis % len(self.shape), n, TransformKind.C2C)
                 for axis, n in zip(self.axes, self.lengths())]
        steps[-1] = (*steps[-1][:2], transform.kind)
        if transform.kind == TransformKind.R2C:
            steps.insert(0, steps.pop())
        plans, shape = [], self.shape
        for axis, n, step_kind in steps:
            plan, shape = plan_along_axis(step_kind, transform.forward, n, shape, axis)
            plans.append(plan)
        return plans


# One or more checks per route of the Metal planner (docs/metal.md). Small
# enough for the emulator to run them all in a few seconds.
CHECKS: tuple[Check, ...] = (
    Check("single group", "fftn", (1024,)),
    Check("several transforms per group", "ifftn", (32, 64), norm="ortho"),
    Check("odd radices 3, 5, 7", "fftn", (945,)),
    Check("odd radices 11, 13", "fftn", (4004,)),
    Check("four-step", "fftn", (8192,)),
    Check("four-step, three passes", "fftn", (11**5,)),
    Check("Bluestein, one pass", "fftn", (17,)),
    Check("Bluestein, four-step", "ifftn", (4097,), norm="forward"),
    Check("Rader", "fftn", (2113,)),
    Check("R2C, one pass", "rfftn", (2, 2048)),
    Check("R2C, unpack pass", "rfftn", (16384,)),
    Check("C2R, one pass", "irfftn", (2, 1025)),
    Check("C2R, pack pass", "irfftn", (8193,)),
    Check("several axes", "fftn", (64, 128), axes=(0, 1)),
    Check("several axes, C2R", "irfftn", (32, 33), axes=(0, 1)),
)


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """``error`` is the relative L2 error (None when the call failed);
    ``failure`` says why the check failed, empty when it passed."""

    check: Check
    error: float | None
    failure: str

    @property
    def passed(self) -> bool:
        return not self.failure


@dataclasses.dataclass(frozen=True)
class SelfCheckReport:
    """The results of every check on one backend, and how its executor bound
    the tensors (None if it never ran)."""

    backend: str
    results: tuple[CheckResult, ...]
    transfer: MetalTransferStats | None
    cache_entries: int

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def first_failure(self) -> str:
        """The first failing check and why, or "" when all passed."""
        for r in self.results:
            if not r.passed:
                return f"{r.check.name}: {r.failure}"
        return ""


def _run_one(check: Check, backend: str, cache: PlanCache) -> CheckResult:
    x = check.make_input()
    try:
        got = np.asarray(getattr(transforms, check.transform)(
            x, axes=check.axes, norm=check.norm, backend=backend, cache=cache))
    except Exception as e:  # noqa: BLE001 - any failure on the device is the finding
        return CheckResult(check, None, f"{type(e).__name__}: {e}"[:500])
    want = check.reference(x)
    if got.shape != want.shape:
        return CheckResult(check, None, f"shape {got.shape}, expected {want.shape}")
    error = relative_l2_error(got, want)
    if not error <= check.bound():  # NaN fails too
        return CheckResult(check, error,
                           f"relative L2 error {error:.3g} above the bound {check.bound():.3g}")
    return CheckResult(check, error, "")


def run_self_check(backend: str, checks: tuple[Check, ...] | None = None,
                   on_result: Callable[[CheckResult], None] | None = None) -> SelfCheckReport:
    """Runs `checks` (default: CHECKS) on `backend` ("metal" or
    "metal-emulated") with a PlanCache of their own, eagerly, even inside a
    trace, handing each result to `on_result` as it comes. A check that
    raises fails; nothing here raises."""
    checks = CHECKS if checks is None else checks
    cache = PlanCache()
    results = []
    try:
        with (jax.ensure_compile_time_eval(), jax.transfer_guard("allow"),
              jax.default_device(jax.devices("cpu")[0])):
            for check in checks:
                results.append(_run_one(check, backend, cache))
                if on_result is not None:
                    on_result(results[-1])
        return SelfCheckReport(backend, tuple(results), cache.metal_stats().get(backend),
                               cache.stats().entries)
    finally:
        cache.close()
