// How the line kernels (line_kernels.h) touch memory: values moved between
// arrays and SIMD vectors, the elements of a bunch of lines visited in the
// order memory likes, and software prefetch of the lines that follow.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cpu/line_plans.h"
#include "cpu/simd_namespace.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

// Moves `lanes` values between a plain array and a SIMD vector (or a scalar
// when V is T). Whole-vector loads and stores: per-lane writes into a SIMD
// object cost several times more.
template <class V, class T>
inline V load_lanes(const T* values) {
  if constexpr (std::is_same_v<V, T>) return values[0];
  else return V(values, ducc::element_aligned_tag());
}
template <class V, class T>
inline void store_lanes(const V& v, T* values) {
  if constexpr (std::is_same_v<V, T>) values[0] = v;
  else v.copy_to(values, ducc::element_aligned_tag());
}

// Strided lines defeat the hardware prefetcher: every element of a line is
// on another page. Asking for the element this far ahead, once per SIMD
// group (whose lanes share a cache line when the lines are neighbours), hides
// the latency (a quarter off the four-step passes of long lines).
constexpr std::int64_t kPrefetchDistance = 8;

// Calls visit(g, i) for elements first <= i < n of every SIMD group g of a
// bunch whose lines start at base + offsets[g * lanes] with the given
// element stride.
// Contiguous lines are visited one after another (a plain loop the compiler
// vectorises, faster than the bunched order there);
// strided ones element by element across the bunch, so neighbouring lines
// are touched together, prefetching ahead.
template <bool kForWrite, class C, class Visit>
inline void for_each_in_bunch(C* base, const std::int64_t* offsets, std::int64_t stride,
                              std::size_t groups, std::size_t lanes, std::int64_t first,
                              std::int64_t n, const Visit& visit) {
  if (stride == 1) {
    for (std::size_t g = 0; g < groups; ++g)
      for (std::int64_t i = first; i < n; ++i) visit(g, i);
    return;
  }
  if (groups == 1) {  // the same, with the group index known
    for (std::int64_t i = first; i < n; ++i) {
      if (i + kPrefetchDistance < n)
        __builtin_prefetch(base + offsets[0] + (i + kPrefetchDistance) * stride, kForWrite ? 1 : 0);
      visit(0, i);
    }
    return;
  }
  for (std::int64_t i = first; i < n; ++i) {
    if (i + kPrefetchDistance < n)
      for (std::size_t g = 0; g < groups; ++g)
        __builtin_prefetch(base + offsets[g * lanes] + (i + kPrefetchDistance) * stride,
                           kForWrite ? 1 : 0);
    for (std::size_t g = 0; g < groups; ++g) visit(g, i);
  }
}

// The unit software prefetch asks for (x86-64's; see docs/platforms.md).
constexpr std::uintptr_t kCacheLineBytes = 64;

// A bunch of short lines (CpuPass::prefetch_ahead) asks for the memory
// kShortLineGroupsAhead bunches on, where dense lines continue. The addresses
// are computed as integers: past the buffer's end they are no object's, and a
// prefetch of them is harmless.
constexpr std::size_t kShortLineGroupsAhead = 2;

template <class E>
inline void prefetch_following_lines(const E* base, const std::int64_t* offsets,
                                     std::size_t lines, std::int64_t elements) {
  const std::uintptr_t bytes = static_cast<std::uintptr_t>(elements) * sizeof(E);
  const std::uintptr_t ahead = kShortLineGroupsAhead * lines * bytes;
  for (std::size_t k = 0; k < lines; ++k) {
    const std::uintptr_t line = reinterpret_cast<std::uintptr_t>(base + offsets[k]) + ahead;
    for (std::uintptr_t b = 0; b < bytes; b += kCacheLineBytes)
      __builtin_prefetch(reinterpret_cast<const void*>(line + b), 0);
  }
}

// The output of a bunch of contiguous short lines is written only after
// the transform, a tile at a time, and each store that misses waits for its
// cache line. Asking for those cache lines for writing while the input is
// gathered, a few per tile, lets them arrive during the transform; all at
// once, the requests would stall the gather instead.
template <class E>
class WriteAhead {
 public:
  // `lines` lines of `elements` elements at base + offsets[k], spread over
  // `steps` calls.
  WriteAhead(E* base, const std::int64_t* offsets, std::size_t lines, std::int64_t elements,
             std::size_t steps)
      : base_(base), offsets_(offsets), lines_(lines),
        bytes_(static_cast<std::uintptr_t>(elements) * sizeof(E)) {
    const std::uintptr_t per_line = bytes_ / kCacheLineBytes + 2;  // an unaligned start adds one
    per_step_ = (lines * per_line + steps - 1) / std::max<std::size_t>(steps, 1);
    start_line();
  }
  void operator()() {
    for (std::size_t k = 0; k < per_step_ && line_ < lines_; ++k) {
      __builtin_prefetch(reinterpret_cast<const void*>(at_), 1);
      at_ += kCacheLineBytes;
      if (at_ >= end_) {
        ++line_;
        start_line();
      }
    }
  }

 private:
  void start_line() {
    if (line_ >= lines_) return;
    const auto first = reinterpret_cast<std::uintptr_t>(base_ + offsets_[line_]);
    at_ = first & ~(kCacheLineBytes - 1);
    end_ = first + bytes_;
  }
  E* base_;
  const std::int64_t* offsets_;
  std::size_t lines_, line_ = 0, per_step_;
  std::uintptr_t bytes_, at_ = 0, end_ = 0;
};

// A bunch too large for WriteAhead asks, while it is scattered tile by
// tile, for the cache line kScatterAheadBytes ahead in each of its lines
// (r2c float64 8192 x 256 on one thread: 1.44-1.65 times FFTW's time
// without, 1.06-1.07 with; 4 KiB ahead did no better).
constexpr std::uintptr_t kScatterAheadBytes = 1024;

template <class T, std::size_t lanes>
class ScatterAhead {
 public:
  // The scatter writes values from, from + 1, ... of each of `lines`.
  ScatterAhead(T* const* lines, std::ptrdiff_t from) {
    for (std::size_t j = 0; j < lanes; ++j)
      line_[j] = reinterpret_cast<std::uintptr_t>(lines[j] + from);
  }
  void operator()() {
    constexpr std::uintptr_t kTile = lanes * sizeof(T);
    ahead_ += kTile;
    if (ahead_ / kCacheLineBytes == (ahead_ - kTile) / kCacheLineBytes) return;
    for (std::size_t j = 0; j < lanes; ++j)
      __builtin_prefetch(reinterpret_cast<const void*>(line_[j] + ahead_), 1);
  }

 private:
  std::uintptr_t line_[lanes];
  std::uintptr_t ahead_ = kScatterAheadBytes;
};

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
