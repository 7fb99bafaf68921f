"""Whether a jitted transform returns before it is done, and what a loop that
does Python work between transforms gains from that.

    python benchmarks/async_dispatch.py [--shape 256 4096] [--dtype complex64]
                                        [--iterations 20] [--rounds 7]

For each contender (`jax_apple_fft.fft` on the CPU backend, `jnp.fft.fft`),
jitted, on the same input:
- `returns`: the time until the call returns, against `done`, until its
  result is ready: a call dispatched asynchronously returns first. XLA's
  CPU client runs a program inline, on the calling thread, where its cost
  analysis counts fewer than 1000 flops, and a custom call counts none, so
  `jax_apple_fft` runs inline unless its lowering adds a cost operand
  (docs/dispatch.md); `jax_apple_fft+` is the same transform in a program
  with a small sum beside it, which XLA always dispatches;
- three loops of --iterations: transforms alone (results kept, all awaited
  at the end), Python work alone (pure Python on the calling thread, sized to
  take about one transform's time), and both interleaved. `overlap` is
  (alone + work - both) / min(alone, work): 1 where the work hides entirely
  behind the transforms, 0 where nothing overlaps.
Contenders alternate within each round; medians over --rounds.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import jax_apple_fft as af


def seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def python_work_for(target_seconds: float):
    """Pure Python work on the calling thread (a sum over a range) that takes
    about `target_seconds`: it holds one core, as the Python side of a
    training loop does, and leaves the others to the transform."""
    count = 1000
    while seconds(lambda: sum(range(count))) < target_seconds:
        count *= 2
    count = int(count * target_seconds / seconds(lambda: sum(range(count))))

    def work():
        sum(range(count))
    return work


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", type=int, nargs="+", default=[256, 4096])
    parser.add_argument("--dtype", default="complex64")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=7)
    arguments = parser.parse_args()

    rng = np.random.default_rng(0)
    x = (rng.standard_normal(arguments.shape) + 1j * rng.standard_normal(arguments.shape))
    x = jnp.asarray(x.astype(arguments.dtype))
    contenders = {
        "jax_apple_fft": jax.jit(lambda v: af.fft(v, backend="cpu")),
        # The same transform in a program XLA counts at 1000 flops or more.
        "jax_apple_fft+": jax.jit(lambda v: (af.fft(v, backend="cpu"),
                                             jnp.sum(jnp.abs(v[..., :512])))),
        "jnp.fft": jax.jit(jnp.fft.fft),
    }
    for f in contenders.values():
        jax.block_until_ready(f(x))
    transform = statistics.median(seconds(lambda: contenders["jnp.fft"](x).block_until_ready())
                                  for _ in range(5))
    work = python_work_for(transform)

    samples: dict[str, dict[str, list[float]]] = {
        name: {k: [] for k in ("returns", "done", "alone", "both")} for name in contenders}
    work_alone = []
    for _ in range(arguments.rounds):
        work_alone.append(seconds(lambda: [work() for _ in range(arguments.iterations)]))
        for name, f in contenders.items():
            s = samples[name]
            start = time.perf_counter()
            y = f(x)
            s["returns"].append(time.perf_counter() - start)
            jax.block_until_ready(y)
            s["done"].append(time.perf_counter() - start)

            def alone():
                ys = [f(x) for _ in range(arguments.iterations)]
                jax.block_until_ready(ys)

            def both():
                ys = []
                for _ in range(arguments.iterations):
                    ys.append(f(x))
                    work()
                jax.block_until_ready(ys)
            s["alone"].append(seconds(alone))
            s["both"].append(seconds(both))

    w = statistics.median(work_alone)
    print(f"{jax.__version__=} shape={tuple(arguments.shape)} {arguments.dtype} "
          f"iterations={arguments.iterations} rounds={arguments.rounds}; "
          f"Python work alone {w * 1e3:.2f} ms per loop")
    print(f"{'contender':14s} {'returns ms':>10s} {'done ms':>8s} {'alone ms':>9s} "
          f"{'both ms':>8s} {'overlap':>7s}")
    for name, s in samples.items():
        m = {k: statistics.median(v) for k, v in s.items()}
        overlap = (m["alone"] + w - m["both"]) / min(m["alone"], w)
        print(f"{name:14s} {m['returns'] * 1e3:10.3f} {m['done'] * 1e3:8.3f} "
              f"{m['alone'] * 1e3:9.2f} {m['both'] * 1e3:8.2f} {overlap:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
