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

}  // namespace jax_apple_fft::shaders
