"""What overwrite_x buys: a transform of an intermediate value, fft(x * 2),
with and without letting the result take the intermediate's buffer.

    python benchmarks/buffer_reuse.py [--quick]

Contenders, timed interleaved in one process (medians): ours with and without
overwrite_x under jax.jit (all cores), jnp.fft under jax.jit, numpy.fft, and
scipy.fft (all workers) with and without its own overwrite_x. Complex128
batches of lines of 4096 points, from 4 MiB to 64 MiB. Every contender is
checked against numpy before timing; the exit status is 1 if one disagrees.
"""

from __future__ import annotations

import argparse
import sys

import jax
import jax.numpy as jnp
import numpy as np
import scipy.fft

import jax_apple_fft as af
from bench.contenders import ALL_CORES
from bench.timing import FULL_PLAN, QUICK_PLAN, measure_interleaved

LINE = 4096
BATCHES = (64, 256, 512, 1024)  # 4, 16, 32 and 64 MiB of complex128


def runners(x: np.ndarray, cache: af.PlanCache) -> dict:
    device_x = jax.device_put(x)
    plain = jax.jit(lambda v: af.fft(v * 2, cache=cache))
    reused = jax.jit(lambda v: af.fft(v * 2, cache=cache, overwrite_x=True))
    reference = jax.jit(lambda v: jnp.fft.fft(v * 2))
    return {
        "ours": lambda: plain(device_x).block_until_ready(),
        "ours overwrite_x": lambda: reused(device_x).block_until_ready(),
        "jnp.fft": lambda: reference(device_x).block_until_ready(),
        "numpy": lambda: np.fft.fft(x * 2),
        "scipy": lambda: scipy.fft.fft(x * 2, workers=ALL_CORES),
        "scipy overwrite_x": lambda: scipy.fft.fft(x * 2, workers=ALL_CORES, overwrite_x=True),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds")
    quick = parser.parse_args().quick
    jax.config.update("jax_enable_x64", True)
    cache = af.PlanCache(threads=ALL_CORES)
    rng = np.random.default_rng(0)
    labels = None
    for batch in BATCHES:
        x = rng.standard_normal((batch, LINE)) + 1j * rng.standard_normal((batch, LINE))
        contenders = runners(x, cache)
        expected = np.fft.fft(x * 2)
        for label, run in contenders.items():  # compiled, planned, warm, and checked
            error = np.max(np.abs(np.asarray(run()) - expected)) / np.max(np.abs(expected))
            if not error <= 1e-12:
                print(f"{label} disagrees with numpy: relative error {error:.1e}", file=sys.stderr)
                return 1
        timings = measure_interleaved(contenders, QUICK_PLAN if quick else FULL_PLAN)
        if labels is None:
            labels = list(contenders)
            print(f"{'fft(x * 2), complex128':28s}" + "".join(f"{label:>19s}" for label in labels)
                  + f"{'overwrite/ours':>16s}")
        medians = {label: timing.median for label, timing in timings.items()}
        size = f"{batch} x {LINE} ({x.nbytes >> 20} MiB)"
        print(f"{size:28s}" + "".join(f"{medians[label] * 1e3:17.2f}ms" for label in labels)
              + f"{medians['ours overwrite_x'] / medians['ours']:16.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
