// Binding host memory to the Apple GPU without copying it.
//
// Apple GPUs share memory with the CPU, so a host range becomes a Metal
// buffer by wrapping the pages that contain it (newBufferWithBytesNoCopy
// wants a page-aligned pointer and length) and binding at the offset of the
// range inside them. Only when wrapping fails is the range copied
// ("staged"), and the copy is counted.
#pragma once

#import <Metal/Metal.h>

#include <cstddef>
#include <cstdint>

namespace jax_apple_fft {

struct BoundRange {
  id<MTLBuffer> buffer = nil;
  NSUInteger offset = 0;
  void* host = nullptr;         // the caller's range
  std::size_t bytes = 0;
  bool staged = false;          // buffer is a copy, not the caller's memory
};

// Wraps [data, data + bytes) in place, or stages a copy of it if Metal
// refuses the wrapper. `data` must not be null and `bytes` not zero: a range
// with no memory has nothing to bind.
BoundRange bind_host_range(id<MTLDevice> device, const void* data, std::size_t bytes);

// Copies a staged writable range back to the caller's memory.
void copy_back_if_staged(const BoundRange& range);

}  // namespace jax_apple_fft
