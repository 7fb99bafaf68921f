// The layout of a threadgroup's memory, shared by the loads and stores
// (fft_group_io.h) and the stages (fft_stages.h) of the Stockham kernels.
#pragma once

#include "fft_helpers.h"
#include "fft_pipeline_constants.h"

// Where element f of the group's threadgroup memory lives. Lengths 2^k with
// the XOR swizzle: the low 4 bits of f (the 8-byte bank among 16) are mixed
// with bits 4-11, so the strided accesses of Stockham stages and of
// neighbouring transforms fall in different banks. Needs f < 4096, and
// threadgroup memory of whole blocks of 16 elements (the planner's rounding).
template <bool kSwizzle>
inline uint slot(uint f) {
  return kSwizzle ? f ^ (((f >> 4u) ^ (f >> 8u)) & 15u) : f;
}

// Elements between the starts of consecutive transforms of a group: n, or
// FFT_TRANSFORM_PITCH(n) where a side walks across them without the swizzle
// and neither walks as one run (whose elements would then each need a
// division by n to find their place).
template <bool kSwizzle>
inline uint transform_pitch(constant FftParams& p) {
  const uint in_walk = dispatch_in_walk(p);
  const uint out_walk = dispatch_out_walk(p);
  const bool across = in_walk == FFT_WALK_ACROSS || out_walk == FFT_WALK_ACROSS;
  const bool run = in_walk == FFT_WALK_RUN || out_walk == FFT_WALK_RUN;
  return !kSwizzle && across && !run ? FFT_TRANSFORM_PITCH(dispatch_n(p)) : dispatch_n(p);
}
