"""Refuses, at trace time, a transform whose peak memory exceeds what this
process can still have, before anything is allocated: where the system
overcommits memory, the kernel would otherwise kill the process that fills
it, and a limit on the address space would fail the call halfway.

The peak of one call is counted as: the input's padded or cropped copy (when
its shape changes), the output, and for the CPU backend what the native
planner reports for the plan (the temporary of a four-step split, every
thread's scratch, the plan tables: PlanCache.cpu_working_bytes).
The input itself already exists. Each call is checked on its own: arrays
held elsewhere are in use already, so they show in what is available, not in
the peak."""

from __future__ import annotations

import functools
import math
import os
import resource
import sys
from collections.abc import Sequence

import numpy as np

from jax_apple_fft.primitive.transform_kind import Transform, precision_of
from jax_apple_fft.runtime.cache import PlanCache

# A transform may use this share of the memory available to it; the rest is
# left to XLA's own buffers and the allocator's rounding.
USABLE_SHARE = 0.9


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _kib_field_bytes(path: str, field: str) -> int | None:
    """A "Field:  N kB" line of a /proc file, in bytes."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _cgroup_headroom() -> int | None:
    """The memory left under this process's cgroup limit, if one is set."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":  # cgroup v2
            base = "/sys/fs/cgroup" + path.rstrip("/")
            limit, used = _read_int(base + "/memory.max"), _read_int(base + "/memory.current")
            if limit is None:  # "max", or not visible from here: the root's files
                limit, used = _read_int("/sys/fs/cgroup/memory.max"), _read_int(
                    "/sys/fs/cgroup/memory.current")
        elif "memory" in controllers.split(","):  # cgroup v1
            base = "/sys/fs/cgroup/memory"
            limit = _read_int(base + "/memory.limit_in_bytes")
            used = _read_int(base + "/memory.usage_in_bytes")
        else:
            continue
        if limit is not None and used is not None and limit < (1 << 60):
            return max(0, limit - used)
    return None


def _rlimit_headroom() -> int | None:
    """What RLIMIT_AS and RLIMIT_DATA still allow this process to map."""
    headroom = None
    for limit, used in ((resource.RLIMIT_AS, _kib_field_bytes("/proc/self/status", "VmSize")),
                        (resource.RLIMIT_DATA, _kib_field_bytes("/proc/self/status", "VmData"))):
        soft, _ = resource.getrlimit(limit)
        if soft != resource.RLIM_INFINITY and used:
            left = max(0, soft - used)
            headroom = left if headroom is None else min(headroom, left)
    return headroom


@functools.cache
def physical_memory() -> int:
    """This machine's physical memory in bytes (sys.maxsize where unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return sys.maxsize


def available_memory() -> tuple[int, str]:
    """The bytes this process can still allocate, and what bounded them.

    Linux: the least of MemAvailable, the cgroup's limit less its usage, and
    RLIMIT_AS/RLIMIT_DATA less what the process maps. Elsewhere (macOS): the
    physical memory, which counts neither other processes nor compression."""
    candidates = [(physical_memory(), "physical memory")]
    if sys.platform.startswith("linux"):
        for value, what in ((_kib_field_bytes("/proc/meminfo", "MemAvailable"), "MemAvailable"),
                            (_cgroup_headroom(), "the cgroup's memory limit"),
                            (_rlimit_headroom(), "RLIMIT_AS/RLIMIT_DATA")):
            if value is not None:
                candidates.append((value, what))
    return min(candidates)


def peak_bytes(*, transform: Transform, x_shape: Sequence[int],
               fitted: Sequence[int], dtype, axes: Sequence[int], lengths: Sequence[int],
               result: Sequence[int], result_dtype, backend: str, cache: PlanCache) -> int:
    """The bytes a call allocates at its peak beyond its (existing) input of
    `x_shape`, padded or cropped to `fitted` before the transform."""
    fitted = list(fitted)
    itemsize = np.dtype(dtype).itemsize
    total = math.prod(result) * np.dtype(result_dtype).itemsize
    if fitted != list(x_shape):
        total += math.prod(fitted) * itemsize
    if backend == "cpu":
        total += cache.cpu_working_bytes(transform, precision_of(dtype), fitted, axes, lengths)
    return total


def check_peak_memory(name: str, peak: int) -> None:
    """Raises ValueError where `peak` bytes exceed USABLE_SHARE of the
    memory available now (see available_memory)."""
    available, bound = available_memory()
    if peak > USABLE_SHARE * available:
        raise ValueError(
            f"{name}: this transform needs about {peak} bytes at its peak (output, padded "
            f"input, working memory), larger than this machine's memory available to this "
            f"process ({available} bytes, bounded by {bound}); transform smaller pieces or "
            f"free memory first")
