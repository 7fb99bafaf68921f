"""The Metal self-check: its transforms cover every route of the planner,
pass on the emulator, and report a planted failure by name."""

import numpy as np
import pytest

import jax_apple_fft as af
from jax_apple_fft.metal import self_check
from jax_apple_fft.metal.self_check import CHECKS
from metal_backend_testing import PLANTED_FAILURE


def dispatches(check):
    return [d for plan in check.plans() for d in plan.dispatches]


def one_dispatch(check):
    (d,) = dispatches(check)
    return d


# What the planner's records must show for each family of checks.
ROUTES = {
    "single group": lambda c: one_dispatch(c)["params"]["per_group"] == 1,
    "several transforms per group": lambda c: one_dispatch(c)["params"]["per_group"] > 1,
    "odd radices 3, 5, 7": lambda c: one_dispatch(c)["kernel"] == "fft_stockham_smooth7"
        and {3, 5, 7} <= set(one_dispatch(c)["params"]["radices"]),
    "odd radices 11, 13": lambda c: one_dispatch(c)["kernel"] == "fft_stockham"
        and {11, 13} <= set(one_dispatch(c)["params"]["radices"]),
    "four-step": lambda c: len(dispatches(c)) == 2
        and not any(d["params"]["convolve"] for d in dispatches(c)),
    "four-step, three passes": lambda c: len(dispatches(c)) == 3
        and not any(d["params"]["convolve"] for d in dispatches(c)),
    "Bluestein, one pass": lambda c: one_dispatch(c)["params"]["convolve"] == 1,
    "Bluestein, four-step": lambda c: [d["params"]["convolve"] for d in dispatches(c)]
        == [0, 1, 0],
    "Rader": lambda c: [d["params"]["convolve"] for d in dispatches(c)] == [0, 2, 0, 0]
        and dispatches(c)[0]["params"]["pre_mode"] == "rader_gather"
        and dispatches(c)[-1]["kernel"] == "fft_permute",
    "R2C, one pass": lambda c: one_dispatch(c)["params"]["post_mode"] == "r2c_unpack",
    "R2C, unpack pass": lambda c: dispatches(c)[-1]["kernel"] == "fft_r2c_unpack",
    "C2R, one pass": lambda c: one_dispatch(c)["params"]["pre_mode"] == "c2r_pack",
    "C2R, pack pass": lambda c: dispatches(c)[0]["kernel"] == "fft_c2r_pack",
    "several axes": lambda c: len(c.plans()) > 1,
    "several axes, C2R": lambda c: len(c.plans()) > 1 and c.transform == "irfftn",
}

KERNELS = {"fft_stockham_pow2", "fft_stockham_smooth7", "fft_stockham", "fft_r2c_unpack",
           "fft_c2r_pack", "fft_permute"}


def test_every_family_is_checked_and_takes_its_route():
    assert {c.family for c in CHECKS} == set(ROUTES)
    for check in CHECKS:
        assert ROUTES[check.family](check), check.name


def test_every_kernel_is_dispatched():
    assert {d["kernel"] for c in CHECKS for d in dispatches(c)} == KERNELS


def test_checks_reach_the_sizes_auto_sends_to_the_gpu():
    from jax_apple_fft.runtime.backends import METAL_AUTO_MIN_ELEMENTS
    assert max(np.prod(c.shape) for c in CHECKS) >= METAL_AUTO_MIN_ELEMENTS


def test_self_check_passes_on_the_emulator():
    report = self_check.run_self_check("metal-emulated")
    assert report.passed, report.first_failure
    assert len(report.results) == len(CHECKS)
    assert all(0 < r.error <= r.check.bound() for r in report.results)
    assert report.transfer.calls == len(CHECKS)
    assert report.transfer.bytes_wrapped > 0 and report.transfer.bytes_staged == 0
    assert report.first_failure == ""


def test_a_planted_failure_is_named():
    report = self_check.run_self_check("metal-emulated", (CHECKS[0], PLANTED_FAILURE))
    assert not report.passed
    assert [r.passed for r in report.results] == [True, False]
    assert report.first_failure.startswith("planted failure: fftn (64,)")
    assert "above the bound" in report.first_failure


@pytest.mark.skipif(af.backends()["metal"].available, reason="Metal is available here")
def test_a_check_that_raises_fails_without_raising():
    report = self_check.run_self_check("metal", CHECKS[:1])
    assert not report.passed and report.results[0].error is None
    assert "BackendUnavailableError" in report.first_failure
    assert report.transfer is None
