// Walks the lines of one pass of the CPU driver (cpu_kernels.cc): every
// index of the dimensions other than the pass axis, tracking source and
// destination offsets.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cpu/cpu_plan.h"
#include "cpu/simd_namespace.h"
#include "spec/transform_spec.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

// Walks the lines of one pass: every index of the dimensions other than the
// pass axis, in row-major order, tracking source and destination offsets.
// Its state is inline, so that a worker copies it without allocating.
class LineWalker {
 public:
  LineWalker(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& src_strides,
             const std::vector<std::int64_t>& dst_strides, std::int64_t axis) {
    if (shape.size() > kMaxRank + 1) throw std::invalid_argument("too many dimensions");
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<std::int64_t>(d) == axis) continue;
      extent_[dims_] = shape[d];
      src_step_[dims_] = src_strides[d];
      dst_step_[dims_] = dst_strides[d];
      index_[dims_++] = 0;
    }
  }
  std::int64_t lines() const {
    std::int64_t n = 1;
    for (std::size_t d = 0; d < dims_; ++d) n *= extent_[d];
    return n;
  }
  void seek(std::int64_t line) {
    src_ = dst_ = 0;
    for (std::size_t d = dims_; d-- > 0;) {
      index_[d] = line % extent_[d];
      line /= extent_[d];
      src_ += index_[d] * src_step_[d];
      dst_ += index_[d] * dst_step_[d];
    }
  }
  void next() {
    for (std::size_t d = dims_; d-- > 0;) {
      src_ += src_step_[d];
      dst_ += dst_step_[d];
      if (++index_[d] < extent_[d]) return;
      src_ -= index_[d] * src_step_[d];
      dst_ -= index_[d] * dst_step_[d];
      index_[d] = 0;
    }
  }
  std::int64_t src() const { return src_; }
  std::int64_t dst() const { return dst_; }

 private:
  // A four-step view adds one dimension to the spec's rank and leaves out its axis.
  std::array<std::int64_t, kMaxRank> extent_{}, src_step_{}, dst_step_{}, index_{};
  std::size_t dims_ = 0;
  std::int64_t src_ = 0, dst_ = 0;
};

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
