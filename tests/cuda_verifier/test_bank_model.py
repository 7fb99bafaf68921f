"""Threadgroup-memory bank conflicts of the Stockham dispatches, from the
model in bank_model.py (no GPU): a layout change that brings conflicts back
fails here."""

import pytest

import bank_model


@pytest.mark.parametrize("n", [16, 32, 64, 256, 1024, 4096, 1 << 20])
def test_the_swizzled_kernel_takes_no_conflicts(n):
    assert bank_model.c2c_row(n) == [1.0] * len(bank_model.c2c_row(n))


@pytest.mark.parametrize("n,most", [(4099, 1.25), (12289, 1.70)])
def test_prime_passes_spread_their_transforms_over_the_banks(n, most):
    """Bluestein 4099's and Rader 12289's passes hold 36 and 32 short
    transforms per group on 7 and 8 threads each: transform_pitch keeps them
    at most `most` wavefronts per request over the fewest (2.08 and 2.67 at a
    pitch of n, 1.60 and 2.21 at n | 1)."""
    assert max(bank_model.c2c_row(n)) <= most


@pytest.mark.parametrize("n,pass_index,most", [(800000, 0, 3100), (200000, 0, 2650),
                                               (4099, 0, 1000), (12289, 0, 1300)])
def test_odd_radices_first_take_fewer_wavefronts(n, pass_index, most):
    """The first strided passes of 800000 (800 = 5 * 5 * 8 * 4), 200000 (400 =
    5 * 5 * 8 * 2), Bluestein 4099 (84 = 3 * 7 * 4) and Rader 12289 (96 = 3 * 8
    * 4) run their odd radices first: a group's accesses take 3036, 2587, 984
    and 1280 wavefronts, where even radices first take 4532, 3728, 1456 and
    2040."""
    dispatch = bank_model.c2c_dispatches(n)[pass_index]
    assert dispatch["params"]["radices"][0] % 2 == 1
    assert bank_model.group_wavefronts(dispatch)[0] <= most


def test_split_passes_without_walks_exchange_less():
    """10^6's passes of 1000 = 10^3 on 50 threads load and store both ends in
    registers: 1520 wavefronts a group of 4 transforms, where 8 * 5^3 on the 63
    threads of a walk took 3463 and 3196."""
    for dispatch in bank_model.c2c_dispatches(10**6):
        assert dispatch["params"]["threads_per_transform"] == 50
        assert bank_model.group_wavefronts(dispatch)[0] <= 1600


def test_a_stride_of_eight_conflicts():
    """The model can fail: radix 8 first at 40 points (8 * 5 on 5 threads)
    writes its outputs 8 apart, two banks for 16 threads."""
    assert bank_model.c2c_dispatches(40)[0]["params"]["radices"][0] == 8
    assert bank_model.c2c_row(40)[0] > 1.5
