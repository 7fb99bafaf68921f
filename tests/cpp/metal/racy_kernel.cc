#include "racy_kernel.h"

#include "metal/emulator/emulator_compat.h"

namespace jax_apple_fft::shaders {
#include "racy_reverse.metal"
}  // namespace jax_apple_fft::shaders

namespace jax_apple_fft::test_kernels {

shaders::KernelFunction reverse_synchronised() { return &shaders::reverse_synchronised; }
shaders::KernelFunction reverse_missing_barrier() { return &shaders::reverse_missing_barrier; }

}  // namespace jax_apple_fft::test_kernels
