"""What fresh memory costs on this machine: writing a block that has just
been mapped, against writing the same block again.

    python benchmarks/first_touch.py [--mib 32] [--repeats 20] [--small-pages]

A transform's output is fresh memory whenever the allocator maps it anew
(docs/performance.md, "Left on the table"): every page is then faulted in
and zeroed by the kernel before the transform's first store lands. This
script measures that cost apart from any FFT: one memset over a block just
mapped with huge-page advice (as the library advises its outputs; none
with --small-pages), then over a block in use, by one thread and by two threads taking half each.
Medians of --repeats.
"""

from __future__ import annotations

import argparse
import ctypes
import mmap
import statistics
import sys
import threading
import time

libc = ctypes.CDLL(None)
libc.memset.restype = ctypes.c_void_p
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]


def write_in_parts(address: int, size: int, threads: int) -> float:
    """Seconds for `threads` threads to fill [address, address + size), a
    part each. ctypes lets go of the GIL, so the parts run at once."""
    part = size // threads
    workers = [threading.Thread(target=libc.memset, args=(address + i * part, 1, part))
               for i in range(threads)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start


def fresh_block(size: int, huge_pages: bool) -> mmap.mmap:
    block = mmap.mmap(-1, size)
    if huge_pages and hasattr(mmap, "MADV_HUGEPAGE"):
        block.madvise(mmap.MADV_HUGEPAGE)
    return block


def address_of(block: mmap.mmap) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(block))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=32, help="block size in MiB (default: 32)")
    parser.add_argument("--repeats", type=int, default=20, help="medians of this many (default: 20)")
    parser.add_argument("--small-pages", action="store_true", help="no huge-page advice")
    arguments = parser.parse_args()
    huge_pages = not arguments.small_pages
    size = arguments.mib << 20
    print(f"{arguments.mib} MiB, {'huge-page advice' if huge_pages else 'small pages'}, "
          f"medians of {arguments.repeats}")
    for threads in (1, 2):
        fresh = []
        for _ in range(arguments.repeats):
            block = fresh_block(size, huge_pages)
            fresh.append(write_in_parts(address_of(block), size, threads))
            block.close()
        block = fresh_block(size, huge_pages)
        write_in_parts(address_of(block), size, threads)  # now in use
        in_use = [write_in_parts(address_of(block), size, threads)
                  for _ in range(arguments.repeats)]
        block.close()
        print(f"{threads} thread(s): fresh {statistics.median(fresh) * 1e3:6.2f} ms, "
              f"in use {statistics.median(in_use) * 1e3:6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
