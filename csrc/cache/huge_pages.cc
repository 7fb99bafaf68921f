#include "cache/huge_pages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace jax_apple_fft {

#if defined(__linux__)
namespace {

// The system's small page size less one; 0 where it cannot be read.
std::uintptr_t small_page_mask() noexcept {
  const long page_bytes = sysconf(_SC_PAGESIZE);
  return page_bytes > 0 ? static_cast<std::uintptr_t>(page_bytes) - 1 : 0;
}

}  // namespace
#endif

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(MADV_HUGEPAGE)
  const std::uintptr_t page_mask = small_page_mask();
  if (data == nullptr || bytes < kHugePageMinBytes || page_mask == 0) return;
  // The advice covers every small page the buffer touches, not only the huge
  // pages inside it: the kernel gives a huge page wherever a 2 MiB-aligned
  // range lies wholly in advised memory, and a large block's mapping is
  // usually a little wider than the buffer (the allocator's header) and
  // aligned on 2 MiB at one end. Advice stopping at the buffer's last 2 MiB
  // boundary left that last range to 512 small-page faults.
  const auto begin = reinterpret_cast<std::uintptr_t>(data) & ~page_mask;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes + page_mask) & ~page_mask;
  // A refusal (THP disabled, old kernel) leaves ordinary pages: nothing to report.
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

bool populate_for_writing(void* data, std::size_t bytes) noexcept {
#if defined(__linux__)
  // The value Linux gives MADV_POPULATE_WRITE, for headers older than it.
  constexpr int kPopulateWrite = 23;
  const std::uintptr_t page_mask = small_page_mask();
  if (data == nullptr || bytes == 0 || page_mask == 0) return false;
  // Whole pages inside the range: a page it shares with a neighbour is
  // left to fault (it may belong to another mapping).
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page_mask) & ~page_mask;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~page_mask;
  if (end <= begin) return false;
  return madvise(reinterpret_cast<void*>(begin), end - begin, kPopulateWrite) == 0;
#else
  (void)data;
  (void)bytes;
  return false;
#endif
}

bool page_in_memory(const void* data) noexcept {
#if defined(__linux__)
  const std::uintptr_t page_mask = small_page_mask();
  if (data == nullptr || page_mask == 0) return true;
  const auto page = reinterpret_cast<std::uintptr_t>(data) & ~page_mask;
  unsigned char resident = 0;
  if (mincore(reinterpret_cast<void*>(page), page_mask + 1, &resident) != 0)
    return true;
  return (resident & 1) != 0;
#else
  (void)data;
  return true;
#endif
}

}  // namespace jax_apple_fft
