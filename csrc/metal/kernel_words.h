// Metal Shading Language's own words, for compiling the kernels of shaders/
// with a C++ compiler (the emulator's, or NVRTC for the CUDA verifier).
//
// Address spaces and attributes become nothing (`constant` data is
// read-only), and mem_flags is declared for threadgroup_barrier, which each
// compatibility header defines for its executor. Include it last but for the
// .metal files: the words become macros.
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

}  // namespace jax_apple_fft::shaders
