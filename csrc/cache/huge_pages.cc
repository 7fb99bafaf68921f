#include "cache/huge_pages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace jax_apple_fft {

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(MADV_HUGEPAGE)
  if (data == nullptr || bytes < kHugePageMinBytes) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  // A refusal (THP disabled, old kernel) leaves ordinary pages: nothing to report.
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

bool page_in_memory(const void* data) noexcept {
#if defined(__linux__)
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (data == nullptr || page_bytes <= 0) return true;
  const auto page = reinterpret_cast<std::uintptr_t>(data) & ~std::uintptr_t(page_bytes - 1);
  unsigned char resident = 0;
  if (mincore(reinterpret_cast<void*>(page), static_cast<std::size_t>(page_bytes), &resident) != 0)
    return true;
  return (resident & 1) != 0;
#else
  (void)data;
  return true;
#endif
}

}  // namespace jax_apple_fft
