"""Threadgroup-memory bank conflicts of the Stockham dispatches, from the
model in bank_model.py (no GPU): a layout change that brings conflicts back
fails here."""

import pytest

import bank_model


@pytest.mark.parametrize("n", [1024, 4096, 1 << 20])
def test_the_swizzled_kernel_takes_no_conflicts(n):
    assert bank_model.c2c_row(n) == [1.0] * len(bank_model.c2c_row(n))


@pytest.mark.parametrize("n,most", [(4099, 1.25), (12289, 1.45)])
def test_prime_passes_spread_their_transforms_over_the_banks(n, most):
    """Bluestein 4099's and Rader 12289's passes hold 36 and 32 short
    transforms per group on 7 and 8 threads each: transform_pitch keeps them
    at most `most` wavefronts per request over the fewest (2.08 and 2.33 at a
    pitch of n or n | 1)."""
    assert max(bank_model.c2c_row(n)) <= most


def test_a_stride_of_eight_conflicts():
    """The model can fail: radix 8 first at 1000 points writes its outputs 8
    apart, two banks for 16 threads."""
    assert bank_model.c2c_row(1000)[0] > 1.5
