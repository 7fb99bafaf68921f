// The layout of a threadgroup's memory, shared by the loads and stores
// (fft_group_io.h) and the stages (fft_stages.h) of the Stockham kernels.
#pragma once

#include "fft_helpers.h"
#include "fft_pipeline_constants.h"

// Where element f of the group's threadgroup memory lives. Lengths 2^k with
// the XOR swizzle: the low 4 bits of f (the 8-byte bank among 16) are mixed
// with bits 4-11, so the strided accesses of Stockham stages and of
// neighbouring transforms fall in different banks. Bits 4-5 enter twice,
// also at bits 2-3: eight 16-point transforms to a SIMD group then fill the
// 16 banks both where four threads each take four consecutive elements and
// where they take elements four apart. Needs f < 4096, and threadgroup
// memory of whole blocks of 16 elements (the planner's rounding).
template <bool kSwizzle>
inline uint slot(uint f) {
  return kSwizzle ? f ^ (((f >> 4u) ^ ((f >> 2u) & 12u) ^ (f >> 8u)) & 15u) : f;
}

// The slot of f + c from the slot of f, where f and c have no bit in common
// (then f + c = f ^ c, and the swizzle is linear over XOR). A stage reaches
// its elements as one such f per butterfly plus constants c, so each access
// costs one XOR with a constant, not a swizzle.
template <bool kSwizzle>
inline uint slot_plus(uint slot_f, uint c) {
  return kSwizzle ? slot_f ^ slot<true>(c) : slot_f + c;
}

// The dispatch's transform_pitch (fft_params.h).
template <bool kSwizzle>
inline uint dispatch_transform_pitch(constant FftParams& p) {
  return transform_pitch(dispatch_n(p), kSwizzle, dispatch_in_walk(p), dispatch_out_walk(p),
                         dispatch_threads_per_transform(p), dispatch_per_group(p));
}
