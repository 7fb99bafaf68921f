#include "metal/apple/apple_buffers.h"

#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace jax_apple_fft {

BoundRange bind_host_range(id<MTLDevice> device, const void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0) throw std::invalid_argument("no memory to bind");
  // 16 KiB on Apple silicon; asked for, never assumed.
  const std::uintptr_t page = static_cast<std::uintptr_t>(getpagesize());
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first_page = begin / page * page;
  const std::uintptr_t end = begin + bytes;
  const std::uintptr_t last_page_end = (end + page - 1) / page * page;

  BoundRange range;
  range.host = const_cast<void*>(data);
  range.bytes = bytes;
  // deallocator nil: the memory stays XLA's (or the cache's); Metal never frees it.
  range.buffer = [device newBufferWithBytesNoCopy:reinterpret_cast<void*>(first_page)
                                           length:last_page_end - first_page
                                          options:MTLResourceStorageModeShared
                                      deallocator:nil];
  if (range.buffer != nil) {
    range.offset = begin - first_page;
    return range;
  }
  // Last resort: a shared buffer holding a copy of the range.
  range.staged = true;
  range.offset = 0;
  range.buffer = [device newBufferWithBytes:data length:bytes options:MTLResourceStorageModeShared];
  return range;
}

void copy_back_if_staged(const BoundRange& range) {
  if (range.staged) std::memcpy(range.host, [range.buffer contents], range.bytes);
}

}  // namespace jax_apple_fft
