// The kernels of shaders/, compiled as C++, looked up by their Metal name.
#pragma once

#include <string_view>

#include "metal/shader_types.h"

namespace jax_apple_fft::metal_emulator {

// The kernel named `name`, or nullptr if there is none.
shaders::KernelFunction find_kernel(std::string_view name);

}  // namespace jax_apple_fft::metal_emulator
