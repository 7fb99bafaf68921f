// A Metal transform request: everything that shapes a plan, and its cache key.
#pragma once

#include <cstdint>

#include "cache/cached_value.h"
#include "metal/metal_routes.h"
#include "spec/transform_spec.h"

namespace jax_apple_fft {

// Where one side's elements live, in units of that side's element type
// (complex64 for complex sides, float32 for real sides).
struct MetalLayout {
  std::int64_t elem_stride = 1;   // between elements of one transform
  std::int64_t inner_stride = 0;  // between consecutive inner batch indices
  std::int64_t outer_stride = 0;  // between consecutive outer batch indices
};

// Transforms along one axis of a batch shaped (outer_count, inner_count):
// batch index b = o * inner_count + i starts at o * outer_stride + i * inner_stride.
// A transform along a non-last axis of a C-contiguous array has
// inner_count = product of the later dimensions and elem_stride = inner_count.
struct MetalRequest {
  TransformKind kind = TransformKind::kC2C;
  bool forward = true;  // C2C only: R2C is always forward, C2R always inverse
  std::int64_t n = 1;   // logical length; the real length for R2C and C2R
  std::int64_t outer_count = 1;
  std::int64_t inner_count = 1;
  MetalLayout in;
  MetalLayout out;
  double scale = 1.0;  // normalisation, fused into the last dispatch
  // Bytes of one coalesced piece of the GPU the plan is for (metal_routes.h).
  std::uint32_t coalesced_bytes = metal_routes::kAppleCoalescedBytes;

  std::int64_t batch() const { return outer_count * inner_count; }
  PlanKey key() const;
};

}  // namespace jax_apple_fft
