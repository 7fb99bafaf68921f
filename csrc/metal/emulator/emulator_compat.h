// Compiles Metal Shading Language kernels as C++ for the emulator.
//
// Supplies exactly what the kernels in shaders/ use: float2 with its
// operators and .x/.y, uint, the words of metal/kernel_words.h, and
// threadgroup_barrier as the emulator's barrier. Include it, then the .metal
// files inside namespace jax_apple_fft::shaders, and nothing after: the
// address-space words become macros.
#pragma once

#include "metal/emulator/emulator_threadgroup.h"
#include "metal/kernel_words.h"

namespace jax_apple_fft::shaders {

inline void threadgroup_barrier(mem_flags) { metal_emulator::wait_for_threadgroup(); }

// The buffers are arrays of float: read and write the pair as two floats.
inline float2 load_pair(const float* buffer, uint at) { return float2(buffer[at], buffer[at + 1u]); }
inline void store_pair(float* buffer, uint at, float2 v) {
  buffer[at] = v.x;
  buffer[at + 1u] = v.y;
}

}  // namespace jax_apple_fft::shaders
