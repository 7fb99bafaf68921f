"""What fresh memory costs on this machine: writing a block that has just
been mapped, against writing the same block again.

    python benchmarks/first_touch.py [--mib 32] [--repeats 20] [--idle 3] [--small-pages]
                                     [--threads 1 2 16]

A transform's output is fresh memory whenever the allocator maps it anew
(docs/performance.md, "Fresh output memory"): every page is then faulted in
and zeroed by the kernel before the transform's first store lands. This
script measures that cost apart from any FFT: one memset over a private
block just mapped with huge-page advice (as the library advises its outputs;
none with --small-pages), then over a block in use, by each of --threads
threads taking a part each. Fresh blocks are timed twice: mapped right after
the previous one was unmapped, so the kernel hands back pages it has just
freed, and mapped after --idle seconds with nothing mapped. A virtual
machine whose kernel reports free memory to its host (virtio-balloon free
page reporting) gives the host those idle pages back, and the next touch of
each then waits for the host as well. Two more columns split a fresh
output's cost as the library pays it: "populate", the threads asking the
kernel for their parts' pages at once (MADV_POPULATE_WRITE, as
populate_output does: page supply and zeroing without a fault per page), and
"unmap", giving the written block back (munmap, which stops every thread that
touched it to flush its TLB). Medians of --repeats (of 5 after idling).
"""

from __future__ import annotations

import argparse
import ctypes
import mmap
import statistics
import sys
import threading
import time

IDLE_REPEATS = 5  # each costs --idle seconds

libc = ctypes.CDLL(None)
libc.memset.restype = ctypes.c_void_p
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_POPULATE_WRITE = 23  # Linux 5.14 and later; madvise returns -1 before


def write_in_parts(address: int, size: int, threads: int) -> float:
    """Seconds for `threads` threads to fill [address, address + size), a
    part each. ctypes lets go of the GIL, so the parts run at once."""
    return in_parts(lambda begin, length: libc.memset(begin, 1, length), address, size, threads)


def populate_in_parts(address: int, size: int, threads: int) -> float:
    """Seconds for `threads` threads to populate [address, address + size)
    for writing, a part each."""
    return in_parts(lambda begin, length: libc.madvise(begin, length, MADV_POPULATE_WRITE),
                    address, size, threads)


def populate_supported() -> bool:
    block = fresh_block(4096, huge_pages=False)
    supported = libc.madvise(address_of(block), 4096, MADV_POPULATE_WRITE) == 0
    block.close()
    return supported


def in_parts(work, address: int, size: int, threads: int) -> float:
    # Parts are whole 2 MiB pieces where the size allows, as populate_output's are.
    piece = 2 << 20 if size % (threads * (2 << 20)) == 0 else 4096
    part = size // threads // piece * piece
    bounds = [(address + i * part, part if i < threads - 1 else size - i * part)
              for i in range(threads)]
    workers = [threading.Thread(target=work, args=bound) for bound in bounds]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start


def fresh_block(size: int, huge_pages: bool) -> mmap.mmap:
    # Private, as malloc's blocks are: shared anonymous memory gets no huge pages.
    block = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if huge_pages and hasattr(mmap, "MADV_HUGEPAGE"):
        block.madvise(mmap.MADV_HUGEPAGE)
    return block


def address_of(block: mmap.mmap) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(block))


def time_fresh(size: int, threads: int, huge_pages: bool, repeats: int, idle: float) -> float:
    """Median seconds to fill a block just mapped, `idle` seconds after the
    previous one was unmapped."""
    times = []
    for _ in range(repeats):
        time.sleep(idle)
        block = fresh_block(size, huge_pages)
        times.append(write_in_parts(address_of(block), size, threads))
        block.close()
    return statistics.median(times)


def time_populate_and_unmap(size: int, threads: int, huge_pages: bool,
                            repeats: int) -> tuple[float, float]:
    """Median seconds to populate a block just mapped, and to unmap it once
    written."""
    populate, unmap = [], []
    for _ in range(repeats):
        block = fresh_block(size, huge_pages)
        populate.append(populate_in_parts(address_of(block), size, threads))
        write_in_parts(address_of(block), size, threads)
        start = time.perf_counter()
        block.close()
        unmap.append(time.perf_counter() - start)
    return statistics.median(populate), statistics.median(unmap)


def reported_mib() -> int | None:
    """Free memory the kernel has reported to its host so far, where it says."""
    try:
        with open("/sys/module/page_reporting/parameters/reported_kib") as counter:
            return int(counter.read()) >> 10
    except (OSError, ValueError):
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=32, help="block size in MiB (default: 32)")
    parser.add_argument("--repeats", type=int, default=20, help="medians of this many (default: 20)")
    parser.add_argument("--small-pages", action="store_true", help="no huge-page advice")
    parser.add_argument("--idle", type=float, default=3.0,
                        help="seconds to wait before mapping an idle-fresh block (default: 3)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="thread counts to fill blocks with (default: 1 2)")
    arguments = parser.parse_args()
    huge_pages = not arguments.small_pages
    size = arguments.mib << 20
    reported_before = reported_mib()
    can_populate = populate_supported()
    print(f"{arguments.mib} MiB, {'huge-page advice' if huge_pages else 'small pages'}, "
          f"medians of {arguments.repeats}")
    for threads in arguments.threads:
        fresh = time_fresh(size, threads, huge_pages, arguments.repeats, 0.0)
        after_idle = time_fresh(size, threads, huge_pages, IDLE_REPEATS, arguments.idle)
        block = fresh_block(size, huge_pages)
        write_in_parts(address_of(block), size, threads)  # now in use
        in_use = statistics.median(write_in_parts(address_of(block), size, threads)
                                   for _ in range(arguments.repeats))
        block.close()
        line = (f"{threads} thread(s): fresh {fresh * 1e3:6.2f} ms, "
                f"fresh after {arguments.idle:g} s idle {after_idle * 1e3:6.2f} ms, "
                f"in use {in_use * 1e3:6.2f} ms")
        if can_populate:
            populate, unmap = time_populate_and_unmap(size, threads, huge_pages, arguments.repeats)
            line += f", populate {populate * 1e3:6.2f} ms, unmap {unmap * 1e3:6.2f} ms"
        print(line)
    reported_after = reported_mib()
    if reported_before is not None and reported_after is not None:
        print(f"free memory reported to the host meanwhile: {reported_after - reported_before} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
