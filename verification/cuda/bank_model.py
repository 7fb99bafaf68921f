"""Threadgroup-memory wavefronts per request of a plan's Stockham dispatches,
from a model of the banks: no GPU.

Threadgroup memory is modelled as 16 banks of 8-byte words (32 banks of 4
bytes, each complex value two of them). One SIMD group's access of 32 values
takes as many wavefronts as the most distinct words any bank holds among
them, and at least two (one per 16 threads); a request of 16 threads or
fewer, at least one. The model walks every threadgroup access of one group
of a dispatch as the kernel makes it (shaders/fft_group_io.h and
fft_stages.h): the load and store walks, each stage's gather and scatter
where they do not meet device memory in registers, and Bluestein's product.

It tracks ncu's count on the H200 (l1tex bank conflicts over shared-memory
wavefronts) within about 10 points. Before transform_pitch took threads per
transform into account, it put 37/52/37 % of Bluestein 4099's wavefronts in
conflicts where ncu counted 37/63/39 %; Rader 12289's 57/0/57 % against
60/1/60 %; 3^12's 24/22 % against 30/26 %.

    python verification/cuda/bank_model.py --lengths 4099 12289
"""

from __future__ import annotations

import argparse

from jax_apple_fft import _core
from jax_apple_fft.metal.axis_plans import plan_along_axis
from jax_apple_fft.primitive.transform_kind import TransformKind

MAX_THREAD_VALUES = 16  # FFT_MAX_THREAD_VALUES
SIMD_WIDTH = 32
BANKS = 16


def swizzled_slot(f: int) -> int:
    """fft_group_memory.h's slot<true>."""
    return f ^ (((f >> 4) ^ ((f >> 2) & 12) ^ (f >> 8)) & 15)


def requests(dispatch) -> list[dict[int, int]]:
    """Every threadgroup access of one group of `dispatch` in program order,
    each as {thread: word}."""
    p = dispatch["params"]
    n, threads, per_group = p["n"], p["threads_per_transform"], p["per_group"]
    group_threads, radices = p["group_threads"], p["radices"]
    pitch = dispatch["transform_pitch"]
    slot = swizzled_slot if dispatch["kernel"] == "fft_stockham_pow2" else (lambda f: f)
    in_walk, out_walk = p["in"]["walk"], p["out"]["walk"]
    direct_load = (in_walk != "run" and p["pre_mode"] != "c2r_pack"
                   and (n // radices[0]) % threads == 0)
    direct_store = (out_walk != "run" and p["post_mode"] != "r2c_unpack"
                    and (n // radices[-1]) % threads == 0)
    found: list[dict[int, int]] = []

    def thread_at(walk: str, tid: int) -> tuple[int, int]:
        return (tid % per_group, tid // per_group) if walk == "across" else divmod(tid, threads)

    def walk_elements(walk: str) -> None:
        for c in range(MAX_THREAD_VALUES):
            if walk == "run":
                access = {t: slot(t + c * group_threads) for t in range(group_threads)
                          if t + c * group_threads < per_group * n}
            else:
                access = {}
                for t in range(group_threads):
                    local, rank = thread_at(walk, t)
                    if rank + c * threads < n:
                        access[t] = slot(local * pitch + rank + c * threads)
            if access:
                found.append(access)

    def stages(load: bool, store: bool) -> None:
        span = 1
        for s, radix in enumerate(radices):
            butterflies = n // radix
            held = (MAX_THREAD_VALUES + radix - 1) // radix
            for scatter in (False, True):
                if (load and s == 0 and not scatter) or (store and s == len(radices) - 1 and scatter):
                    continue
                for b in range(held):
                    for r in range(radix):
                        access = {}
                        for t in range(group_threads):
                            local, rank = divmod(t, threads)
                            j = rank + b * threads
                            if j >= butterflies:
                                continue
                            if scatter:
                                sub = j // span
                                f = sub * span * radix + j - sub * span + r * span
                            else:
                                f = j + r * butterflies
                            access[t] = slot(local * pitch + f)
                        if access:
                            found.append(access)
            span *= radix

    if not direct_load:
        walk_elements(in_walk)
    if p["convolve"]:
        stages(direct_load, False)
        walk_elements("along")  # the product reads and writes each element
        walk_elements("along")
        stages(False, direct_store)
    else:
        stages(direct_load, direct_store)
    if not direct_store:
        walk_elements(out_walk)
    return found


def wavefronts(access: dict[int, int]) -> tuple[int, int]:
    """(wavefronts, the fewest possible) of one request, SIMD group by SIMD group."""
    taken = fewest = 0
    for first in range(0, max(access) + 1, SIMD_WIDTH):
        words = {w for t, w in access.items() if first <= t < first + SIMD_WIDTH}
        if not words:
            continue
        active = sum(1 for t in access if first <= t < first + SIMD_WIDTH)
        least = 2 if active > SIMD_WIDTH // 2 else 1
        per_bank: dict[int, int] = {}
        for w in words:
            per_bank[w % BANKS] = per_bank.get(w % BANKS, 0) + 1
        taken += max(least, max(per_bank.values()))
        fewest += least
    return taken, fewest


def group_wavefronts(dispatch) -> tuple[int, int]:
    """(wavefronts, the fewest possible) over every access of one group."""
    taken = fewest = 0
    for access in requests(dispatch):
        t, f = wavefronts(access)
        taken, fewest = taken + t, fewest + f
    return taken, fewest


def per_request(dispatch) -> float:
    """Wavefronts over the fewest possible, over every access of one group."""
    taken, fewest = group_wavefronts(dispatch)
    return taken / fewest if fewest else 1.0


def c2c_dispatches(n: int) -> list:
    """The Stockham dispatches of a batched forward c2c of length n."""
    plan, _ = plan_along_axis(TransformKind.C2C, True, n, (max(64, (1 << 20) // n), n), 1, 1.0,
                              _core.NVIDIA_COALESCED_BYTES)
    return [d for d in plan.dispatches if d["kernel"].startswith("fft_stockham")]


def c2c_row(n: int) -> list[float]:
    """per_request of each Stockham dispatch of a batched forward c2c of length n."""
    return [per_request(d) for d in c2c_dispatches(n)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1000, 4099, 12289, 3**12])
    for n in parser.parse_args().lengths:
        passes = c2c_row(n)
        print(f"c2c n={n}: wavefronts per request over the fewest, "
              + " / ".join(f"{x:.2f}" for x in passes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
