// Compiles the Metal Shading Language kernels of shaders/ as CUDA (NVRTC,
// with -default-device so unannotated functions are device code).
//
// The CUDA side of the portability layer, as csrc/metal/emulator/emulator_compat.h is
// the emulator's: float2 and uint from the emulator's plain C++ types, the
// address-space words as nothing (`constant` as const), the attribute macros
// of shaders/metal_portability.h as nothing, and threadgroup_barrier as
// __syncthreads. Include it, then the .metal files inside namespace
// jax_apple_fft::shaders, then the entry points that cuda_source.py writes.
#pragma once

#include "metal/shader_types.h"

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

// Metal's barrier orders threadgroup memory among the group's threads, as
// __syncthreads does for shared memory among a block's.
inline void threadgroup_barrier(mem_flags) { __syncthreads(); }

}  // namespace jax_apple_fft::shaders
