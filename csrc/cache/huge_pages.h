// Transparent huge pages for large buffers. On this kind of machine, first
// touching fresh memory costs one page fault per 4 KiB page, and long FFT
// lines spread over thousands of small pages miss the TLB; 2 MiB pages cut
// both (numpy asks the same for its large arrays). Only a hint: where the
// kernel or the platform says no, nothing changes.
#pragma once

#include <cstddef>

namespace jax_apple_fft {

inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
// Buffers smaller than this gain too little to be worth a system call.
inline constexpr std::size_t kHugePageMinBytes = std::size_t(4) << 20;

// Asks for huge pages over the small pages holding [data, data + bytes) when
// the range is at least kHugePageMinBytes. Linux only; a no-op elsewhere.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

// Faults in every page of [data, data + bytes) for writing, in one system
// call (MADV_POPULATE_WRITE, Linux 5.14 and later): the kernel zeroes them
// as a first store would, without a fault per page. Returns false where the
// kernel or the platform cannot, and the pages then fault at first touch.
bool populate_for_writing(void* data, std::size_t bytes) noexcept;

// Whether the page holding `data` is already in memory (written before, not
// returned to the system). Fresh memory answers false. Where the platform
// cannot tell, true.
bool page_in_memory(const void* data) noexcept;

}  // namespace jax_apple_fft
