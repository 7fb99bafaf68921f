"""Plan caches: the owners of plans, scratch memory and worker threads."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

import jax

from jax_apple_fft import _core
from jax_apple_fft.errors import DefaultCacheError
from jax_apple_fft.primitive.transform_kind import Precision, Transform

__all__ = ["CacheHandle", "CacheStats", "MetalTransferStats", "PlanCache",
           "configure_default_cache", "default_cache"]

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


def _checked_limits(max_entries: int, max_bytes: int, threads: int) -> None:
    for name, value in (("max_entries", max_entries), ("max_bytes", max_bytes)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if (not isinstance(threads, int) or isinstance(threads, bool)
            or not 1 <= threads <= MAX_THREADS):
        raise ValueError(f"threads must be an integer from 1 to {MAX_THREADS}, "
                         f"got {threads!r}")


class PlanCache:
    """Owns FFT plans, twiddle tables, scratch memory and worker threads.

    Bounded by ``max_entries`` plans and ``max_bytes`` bytes (plans plus
    retained scratch), evicting the least recently used plan. Plans are
    resolved when a computation is compiled, so a jitted call does not lock
    the cache while it runs. Safe to use from many threads.

    Args:
      max_entries: most plans kept at once.
      max_bytes: most bytes kept at once (plans and retained scratch).
        Defaults to an eighth of physical memory, at least 256 MiB: a
        transform's scratch is kept for its next call only within it.
      threads: threads a transform may use, counting the calling thread
        (at most 65536). Defaults to the cores this process may run on.

    Two PlanCache objects are equal when they name the same cache (the same
    ``handle``).
    """

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        threads: int | None = None,
    ) -> None:
        threads = _core.available_cores() if threads is None else threads
        _checked_limits(max_entries, max_bytes, threads)
        self._native = _core.NativePlanCache(max_entries, max_bytes, threads)

    @classmethod
    def _named(cls, handle: int) -> PlanCache:
        """The live cache of `handle`, found in the native registry."""
        cache = cls.__new__(cls)
        cache._native = _core.NativePlanCache.named(handle)
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
        """Clears the cache and makes every later use of it an error.

        The default cache cannot be closed (DefaultCacheError): every
        transform without a ``cache=`` uses it; ``clear()`` drops its plans.
        """
        if self.handle == _DEFAULT_HANDLE:
            raise DefaultCacheError(
                "the default PlanCache cannot be closed: every transform without cache= uses "
                "it; call clear() to drop its plans, or pass a PlanCache of your own and close "
                "that")
        self._native.close()

    def cpu_working_bytes(self, transform: Transform, precision: Precision,
                          in_shape: Sequence[int], axes: Sequence[int],
                          lengths: Sequence[int]) -> int:
        """An upper bound of the bytes a CPU transform on this cache's threads
        holds beyond its input and output (temporary, every thread's scratch,
        plan tables), without building its plans. `lengths` as the primitive
        takes them (the real length on a real axis)."""
        return self._native.cpu_working_bytes(transform.kind, transform.forward, precision,
                                              list(in_shape), list(axes), list(lengths))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlanCache) and other.handle == self.handle

    def __hash__(self) -> int:
        return hash(self.handle)

    def __repr__(self) -> str:
        s = self.stats()
        return (
            f"PlanCache(entries={s.entries}/{self.max_entries}, "
            f"retained_bytes={s.retained_bytes}/{self.max_bytes}, threads={self.threads}"
            f"{', closed' if self.closed else ''})"
        )


_DEFAULT_HANDLE = 0


@dataclasses.dataclass(frozen=True)
class CacheHandle:
    """The name of a PlanCache inside traced and compiled code: the
    primitive's ``cache`` parameter and the FFI call's ``cache`` attribute.

    A plain value: it prints the same however much the cache holds
    (``default`` for the default cache, ``#`` and the first hex digits of
    the handle otherwise) and holds no reference to the cache.
    """

    value: int

    @classmethod
    def of(cls, cache: PlanCache) -> CacheHandle:
        return cls(cache.handle)

    def plan_cache(self) -> PlanCache:
        """The PlanCache this handle names in this process; ValueError if none."""
        return default_cache() if self.value == _DEFAULT_HANDLE else PlanCache._named(self.value)

    def __str__(self) -> str:
        return "default" if self.value == _DEFAULT_HANDLE else f"#{self.value:016x}"[:7] + "\u2026"

    __repr__ = __str__


@functools.cache
def _default() -> PlanCache:
    # One Python object for the default cache, which the native registry owns.
    return PlanCache._named(_DEFAULT_HANDLE)


def default_cache(client: Any | None = None) -> PlanCache:
    """The process's default cache: handle 0, the cache of every transform
    that names none.

    Built on first use with the limits :func:`configure_default_cache` set,
    by default the default limits and one thread per core this process may
    run on. Every JAX CPU client of the process shares it; `client`, if
    given, must be one (TypeError otherwise). Without a client, no JAX
    client is started.
    """
    if client is not None:
        current = jax.devices("cpu")[0].client
        if not isinstance(client, type(current)) or client.platform != "cpu":
            raise TypeError(f"default_cache needs a JAX CPU client (such as "
                            f"jax.devices('cpu')[0].client), got {type(client).__name__}")
    return _default()


def configure_default_cache(*, max_entries: int | None = None, max_bytes: int | None = None,
                            threads: int | None = None) -> None:
    """Sets the default cache's limits, as PlanCache's arguments; None keeps
    the one set before. Only before the default cache is first used (a
    transform without ``cache=``, :func:`default_cache`, a compiled call
    naming it): afterwards it raises DefaultCacheError."""
    limits = _core.default_cache_limits()
    given = {"max_entries": max_entries, "max_bytes": max_bytes, "threads": threads}
    limits.update({name: value for name, value in given.items() if value is not None})
    _checked_limits(limits["max_entries"], limits["max_bytes"], limits["threads"])
    try:
        _core.configure_default_cache(limits["max_entries"], limits["max_bytes"],
                                      limits["threads"])
    except RuntimeError as error:
        raise DefaultCacheError(str(error)) from None
