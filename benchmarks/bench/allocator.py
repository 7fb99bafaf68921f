"""Memory reuse for every contender alike (``run.py --reuse-memory``).

By default each contender gets its output memory from glibc as the process's
history dictates: a block of 32 MiB or more is a fresh ``mmap``, a smaller one
comes from the heap unless glibc has just handed the heap's top back to the
system. Fresh memory costs a page fault per page on first touch, expensive on
virtual machines, and which contender gets it on which row changes from run
to run (docs/performance.md, "Noise"). With ``--reuse-memory`` glibc serves
every block from its heap and keeps freed memory, so after the first call no
contender's output is fresh: the run compares transforms, not allocator luck.
It says nothing about the library; the default run is the one users see.
"""

from __future__ import annotations

import ctypes
import ctypes.util

# mallopt parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
KEEP_ALL = 2**31 - 1  # trim only when this much is free at the heap's top


def keep_freed_memory() -> None:
    """Serves every allocation of this process from glibc's heap, never
    returned to the system. Raises RuntimeError where glibc is not the
    allocator (mallopt missing or refusing)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None or not (mallopt(M_MMAP_MAX, 0) and mallopt(M_TRIM_THRESHOLD, KEEP_ALL)):
        raise RuntimeError("--reuse-memory needs glibc's malloc (mallopt)")
