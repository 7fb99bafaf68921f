"""Plan caches: the owners of plans, scratch memory and worker threads."""

from __future__ import annotations

import dataclasses
import os
import threading
from typing import Any

import jax

from jax_apple_fft import _core

__all__ = ["CacheStats", "MetalTransferStats", "PlanCache", "default_cache"]

DEFAULT_MAX_ENTRIES = 256
DEFAULT_MAX_BYTES = 256 << 20


def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS has no sched_getaffinity
        return os.cpu_count() or 1


@dataclasses.dataclass(frozen=True)
class CacheStats:
    """A snapshot of a PlanCache's counters.

    ``retained_bytes`` is what the cache itself keeps (``plan_bytes`` +
    ``scratch_bytes``) and never exceeds ``max_bytes`` between calls.
    Plans evicted while a compiled executable still uses them stay alive
    (shared ownership); they are counted in ``evicted_in_use`` and
    ``evicted_in_use_bytes``, not in ``retained_bytes``.
    """

    hits: int
    misses: int
    builds: int
    failed_builds: int
    waits: int
    evictions: int
    entries: int
    plan_bytes: int
    scratch_bytes: int
    retained_bytes: int
    evicted_in_use: int
    evicted_in_use_bytes: int
    transient_scratch: int


@dataclasses.dataclass(frozen=True)
class MetalTransferStats:
    """How a Metal executor bound the caller's tensors, summed over calls.

    ``bytes_wrapped`` were bound in place (on a Mac: the page-rounded ranges
    wrapped without a copy); ``bytes_staged`` were copied because wrapping
    failed, and should stay zero.
    """

    calls: int
    bytes_wrapped: int
    bytes_staged: int


class PlanCache:
    """Owns FFT plans, twiddle tables, scratch memory and worker threads.

    Bounded by ``max_entries`` plans and ``max_bytes`` bytes (plans plus
    retained scratch), evicting the least recently used plan. Plans are
    resolved when a computation is compiled, so a jitted call does not lock
    the cache while it runs. Safe to use from many threads.

    Args:
      max_entries: most plans kept at once.
      max_bytes: most bytes kept at once (plans and retained scratch).
      threads: threads a transform may use, counting the calling thread.
        Defaults to the cores this process may run on.
    """

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        threads: int | None = None,
    ) -> None:
        threads = _available_cores() if threads is None else threads
        for name, value in (("max_entries", max_entries), ("max_bytes", max_bytes)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        self._native = _core.NativePlanCache(max_entries, max_bytes, threads)

    @property
    def max_entries(self) -> int:
        return self._native.max_entries

    @property
    def max_bytes(self) -> int:
        return self._native.max_bytes

    @property
    def threads(self) -> int:
        return self._native.threads

    @property
    def closed(self) -> bool:
        return self._native.closed

    @property
    def handle(self) -> int:
        """The integer that names this cache inside compiled computations."""
        return self._native.handle

    def stats(self) -> CacheStats:
        return CacheStats(**self._native.stats())

    def metal_stats(self) -> dict[str, MetalTransferStats]:
        """How each Metal executor this cache has run reached the tensors.

        Keyed by backend ("metal", "metal-emulated"); an executor appears once
        a computation using it has been compiled with this cache. Metal plans
        and pipelines are ordinary entries of :meth:`stats`.
        """
        return {name: MetalTransferStats(**counters)
                for name, counters in self._native.metal_stats().items()}

    def clear(self) -> None:
        """Drops every plan and idle scratch buffer (plans in use stay alive)."""
        self._native.clear()

    def close(self) -> None:
        """Clears the cache and makes every later use of it an error."""
        self._native.close()

    def __repr__(self) -> str:
        s = self.stats()
        return (
            f"PlanCache(entries={s.entries}/{self.max_entries}, "
            f"retained_bytes={s.retained_bytes}/{self.max_bytes}, threads={self.threads}"
            f"{', closed' if self.closed else ''})"
        )


_defaults_lock = threading.Lock()
_defaults: dict[int, tuple[Any, PlanCache]] = {}


def default_cache(client: Any | None = None) -> PlanCache:
    """The PlanCache of a JAX CPU client (the current default CPU client if None).

    Each client gets its own cache the first time it is asked for.
    """
    if client is None:
        client = jax.devices("cpu")[0].client
    with _defaults_lock:
        entry = _defaults.get(id(client))
        if entry is None or entry[0] is not client:
            entry = (client, PlanCache())
            _defaults[id(client)] = entry
        return entry[1]
