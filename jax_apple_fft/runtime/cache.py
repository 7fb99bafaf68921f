"""Plan caches: the owners of plans, scratch memory and worker threads."""

from __future__ import annotations

import dataclasses
import threading
import weakref
from typing import Any

import jax

from jax_apple_fft import _core

__all__ = ["CacheStats", "MetalTransferStats", "PlanCache", "default_cache"]

DEFAULT_MAX_ENTRIES: int = _core.DEFAULT_MAX_ENTRIES
DEFAULT_MAX_BYTES: int = _core.DEFAULT_MAX_BYTES
MAX_THREADS = 1 << 16


@dataclasses.dataclass(frozen=True)
class CacheStats:
    """A snapshot of a PlanCache's counters.

    ``retained_bytes`` is what the cache itself keeps (``plan_bytes`` +
    ``scratch_bytes``) and never exceeds ``max_bytes`` between calls.
    Plans evicted while a compiled executable still uses them stay alive
    (shared ownership); they are counted in ``evicted_in_use`` and
    ``evicted_in_use_bytes``, not in ``retained_bytes``. ``worker_threads``
    is how many worker threads are alive now: they start when a transform
    needs them and exit after idling a few seconds. ``worker_start_failures``
    counts workers the system refused to start; transforms then run on the
    threads that exist.
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
    worker_threads: int
    worker_start_failures: int


@dataclasses.dataclass(frozen=True)
class MetalTransferStats:
    """How a Metal executor bound the caller's tensors, summed over calls.

    ``bytes_wrapped``: bytes of input and output tensors bound in place (on a
    Mac, inside page-rounded wrappers, but counted exactly); ``bytes_staged``:
    tensor bytes copied because wrapping failed, which should stay zero. The
    executor's own workspace and the plans' tables are not counted.
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
      threads: threads a transform may use, counting the calling thread
        (at most 65536). Defaults to the cores this process may run on.
    """

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        threads: int | None = None,
    ) -> None:
        threads = _core.available_cores() if threads is None else threads
        for name, value in (("max_entries", max_entries), ("max_bytes", max_bytes)):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if (not isinstance(threads, int) or isinstance(threads, bool)
                or not 1 <= threads <= MAX_THREADS):
            raise ValueError(f"threads must be an integer from 1 to {MAX_THREADS}, "
                             f"got {threads!r}")
        self._native = _core.NativePlanCache(max_entries, max_bytes, threads)

    @classmethod
    def _process_default(cls) -> PlanCache:
        cache = cls.__new__(cls)
        cache._native = _core.NativePlanCache.process_default()
        return cache

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
        """The integer that names this cache inside compiled computations.

        0 for the default cache, which every process has, so computations
        that use it can be exported (``jax.export``) or restored from JAX's
        persistent compilation cache in another process. Any other cache has
        a random 63-bit handle that no other process holds: code traced with
        it fails clearly elsewhere.
        """
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
_process_default: PlanCache | None = None
_other_clients: weakref.WeakKeyDictionary[Any, PlanCache] = weakref.WeakKeyDictionary()


def default_cache(client: Any | None = None) -> PlanCache:
    """The PlanCache of a JAX CPU client (the default CPU client if None).

    The default CPU client's cache is the process's default cache (handle
    0), built with default limits and one thread per available core. Another
    CPU client gets a cache of its own the first time it is asked for, kept
    while the client lives.
    """
    global _process_default
    current = jax.devices("cpu")[0].client
    if client is None:
        client = current
    elif not isinstance(client, type(current)) or client.platform != "cpu":
        raise TypeError(f"default_cache needs a JAX CPU client (such as "
                        f"jax.devices('cpu')[0].client), got {type(client).__name__}")
    with _defaults_lock:
        if client is current:
            if _process_default is None:
                _process_default = PlanCache._process_default()
            return _process_default
        cache = _other_clients.get(client)
        if cache is None:
            cache = _other_clients[client] = PlanCache()
        return cache
