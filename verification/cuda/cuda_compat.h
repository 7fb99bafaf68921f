// Compiles the Metal Shading Language kernels of shaders/ as CUDA (NVRTC,
// with -default-device so unannotated functions are device code).
//
// The CUDA side of the portability layer, as
// csrc/metal/emulator/emulator_compat.h is the emulator's: float2, uint and
// the words of metal/kernel_words.h, and threadgroup_barrier as
// __syncthreads. Include it, then the .metal files inside namespace
// jax_apple_fft::shaders, then the entry points that cuda_source.py writes.
#pragma once

#include "metal/kernel_words.h"

namespace jax_apple_fft::shaders {

// Metal's barrier orders threadgroup memory among the group's threads, as
// __syncthreads does for shared memory among a block's.
inline void threadgroup_barrier(mem_flags) { __syncthreads(); }

// One 8-byte access, as in Metal (float2 is 8-byte aligned; `at` is even).
inline float2 load_pair(const float* buffer, uint at) {
  return *reinterpret_cast<const float2*>(buffer + at);
}
inline void store_pair(float* buffer, uint at, float2 v) {
  *reinterpret_cast<float2*>(buffer + at) = v;
}

}  // namespace jax_apple_fft::shaders
