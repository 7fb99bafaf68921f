// Huge-page advice (huge_pages.h) on the scratch arena's large buffers and
// on large outputs, read back from /proc/self/smaps (Linux only).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "cache/huge_pages.h"
#include "cache/scratch_arena.h"
#include "harness.h"

using namespace jax_apple_fft;
using test_support::expect;

namespace {

#if defined(__linux__)
// Whether the kernel marks the mapping holding `address` for huge pages
// ("hg" among its VmFlags in /proc/self/smaps).
bool marked_for_huge_pages(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto target = reinterpret_cast<std::uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &begin, &end) == 2) {
      inside = begin <= target && target < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

// Whether advice given with madvise itself shows in smaps: not under
// qemu-user (the arm64 CI step), whose madvise succeeds and does nothing.
bool madvise_takes_effect() {
  const std::size_t bytes = 2 * kHugePageBytes;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return false;
  const bool marked = madvise(region, bytes, MADV_HUGEPAGE) == 0 && marked_for_huge_pages(region);
  munmap(region, bytes);
  return marked;
}

void test_huge_page_advice() {
  const bool advice_seen = std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled") &&
                           madvise_takes_effect();
  // The scratch arena's large buffers start on a huge page and are advised.
  ScratchArena arena(1, [] { return true; });
  {
    auto lease = arena.acquire(3 * kHugePageBytes);
    expect(reinterpret_cast<std::uintptr_t>(lease.data()) % kHugePageBytes == 0,
           "large scratch is huge-page aligned");
    expect(!advice_seen || marked_for_huge_pages(lease.data()), "large scratch advised");
    std::memset(lease.data(), 1, 3 * kHugePageBytes);
  }
  auto small = arena.acquire(1000);  // the slot keeps its large buffer
  expect(small.data() != nullptr, "small scratch");
  if (!advice_seen) {
    std::printf("huge_pages: no transparent huge pages here, or madvise is ignored (as "
                "under qemu-user); advice not checked\n");
    return;
  }

  const std::size_t bytes = 8 * kHugePageBytes;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  expect(region != MAP_FAILED, "mmap for the huge page test");
  if (region == MAP_FAILED) return;
  auto* base = static_cast<char*>(region);
  // Small ranges are left alone: a system call per call is not worth it there.
  advise_huge_pages(base, kHugePageMinBytes - 1);
  expect(!marked_for_huge_pages(base + kHugePageBytes), "small range not advised");
  // A large unaligned range, placed as the allocator places a large block
  // (a header page before it, the mapping's end on a huge page): every small
  // page it touches is advised, so its last 2 MiB can be a huge page too;
  // the pages around it are not. Small pages are 4 KiB on x86-64 but 16 or
  // 64 KiB on some arm64 kernels: the range is placed in the system's pages.
  const std::uintptr_t aligned = (reinterpret_cast<std::uintptr_t>(base) + kHugePageBytes - 1) &
                                 ~(kHugePageBytes - 1);
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  char* start = reinterpret_cast<char*>(aligned) + page + 64;
  const std::size_t range = 5 * kHugePageBytes - page - 128;
  advise_huge_pages(start, range);
  expect(marked_for_huge_pages(start + kHugePageBytes), "interior of a large range advised");
  expect(marked_for_huge_pages(start), "ragged start advised");
  expect(marked_for_huge_pages(start + range - 1), "ragged end advised");
  expect(!marked_for_huge_pages(start - 65), "page before the range not advised");
  expect(!marked_for_huge_pages(start + range + page), "page after the range not advised");
  munmap(region, bytes);
}

// Populating for writing faults in the whole pages inside a range and keeps
// what they hold; the pages it shares with its neighbours stay out.
void test_populate_for_writing() {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = 8 * page;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  expect(region != MAP_FAILED, "mmap for the populate test");
  if (region == MAP_FAILED) return;
  auto* base = static_cast<char*>(region);
  base[3 * page + 5] = 0x5a;
  expect(!page_in_memory(base + page), "a fresh page is not in memory");
  expect(!populate_for_writing(nullptr, bytes) && !populate_for_writing(base + 64, page - 128),
         "nothing to populate: no buffer, or no whole page inside the range");
  // qemu-user's madvise succeeds and does nothing (madvise_takes_effect).
  if (!populate_for_writing(base + 64, bytes - 128) || !madvise_takes_effect()) {
    std::printf("huge_pages: MADV_POPULATE_WRITE not supported here, or madvise is ignored; "
                "population not checked\n");
    munmap(region, bytes);
    return;
  }
  expect(page_in_memory(base + page) && page_in_memory(base + 6 * page),
         "the whole pages inside the range are in memory");
  expect(!page_in_memory(base) && !page_in_memory(base + 7 * page),
         "the pages shared with the neighbours are not");
  expect(base[3 * page + 5] == 0x5a && base[2 * page] == 0 && base[6 * page + 9] == 0,
         "populating keeps what the pages hold");
  munmap(region, bytes);
}

const test_support::Suite kSuite("huge_pages", {TEST_CASE(test_huge_page_advice),
                                                TEST_CASE(test_populate_for_writing)});
#endif

}  // namespace
