// Compiles Metal Shading Language kernels as C++ for the emulator.
//
// Supplies exactly what the kernels in shaders/ use: float2 with its
// operators and .x/.y, uint, address-space words, the attribute macros of
// shaders/metal_portability.h and threadgroup_barrier. Include it, then the
// .metal files inside namespace jax_apple_fft::shaders, and nothing after:
// the address-space words become macros.
#pragma once

#include "metal/emulator/emulator_threadgroup.h"
#include "metal/shader_types.h"

// Address spaces carry no meaning on the CPU; `constant` data is read-only.
#define kernel
#define device
#define threadgroup
#define thread
#define constant const

#define MTL_BUFFER(index)
#define MTL_THREADGROUP_MEMORY(index)
#define MTL_THREAD_INDEX
#define MTL_GROUP_INDEX

namespace jax_apple_fft::shaders {

enum class mem_flags { mem_none, mem_device, mem_threadgroup };

inline void threadgroup_barrier(mem_flags) { metal_emulator::wait_for_threadgroup(); }

}  // namespace jax_apple_fft::shaders
