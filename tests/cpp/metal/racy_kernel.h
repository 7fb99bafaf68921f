// The test kernels of racy_reverse.metal, compiled as C++.
#pragma once

#include "metal/shader_types.h"

namespace jax_apple_fft::test_kernels {

shaders::KernelFunction reverse_synchronised();
shaders::KernelFunction reverse_missing_barrier();

}  // namespace jax_apple_fft::test_kernels
