"""Every complex length from 1 to 4096, both directions, one small call per length.

The lengths come in four ranges, so that parallel test workers share the sweep.
"""

import numpy as np
import pytest

from metal_inputs import random_complex
from support.accuracy import error_bound, relative_l2_error

RANGES = [(1, 1024), (1025, 2048), (2049, 3072), (3073, 4096)]


@pytest.mark.slow
@pytest.mark.parametrize("first,last", RANGES, ids=[f"{a}-{b}" for a, b in RANGES])
@pytest.mark.parametrize("forward", [True, False], ids=["forward", "inverse"])
def test_every_length_up_to_4096(emulator, forward, first, last):
    rng = np.random.default_rng(first)
    failures = []
    for n in range(first, last + 1):
        x = random_complex(rng, (n,))
        ref = x.astype(np.complex128)
        if forward:
            got, want = emulator.fft(x), np.fft.fft(ref)
        else:
            got, want = emulator.ifft(x), np.fft.ifft(ref)
        error = relative_l2_error(got, want)
        if not error <= error_bound(np.float32, n):
            failures.append((n, error, error_bound(np.float32, n)))
    assert not failures, failures[:20]
