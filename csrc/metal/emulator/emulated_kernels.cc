#include "metal/emulator/emulated_kernels.h"

#include "metal/emulator/emulator_compat.h"

namespace jax_apple_fft::shaders {
#include "fft_library.metal"
}  // namespace jax_apple_fft::shaders

namespace jax_apple_fft::metal_emulator {

shaders::KernelFunction find_kernel(std::string_view name) {
  struct Entry {
    std::string_view name;
    shaders::KernelFunction function;
  };
  const Entry kernels[] = {
      {"fft_stockham", &shaders::fft_stockham},
      {"fft_stockham_pow2", &shaders::fft_stockham_pow2},
      {"fft_stockham_smooth7", &shaders::fft_stockham_smooth7},
      {"fft_r2c_unpack", &shaders::fft_r2c_unpack},
      {"fft_c2r_pack", &shaders::fft_c2r_pack},
      {"fft_c2r_expand", &shaders::fft_c2r_expand},
      {"fft_permute", &shaders::fft_permute},
  };
  for (const Entry& entry : kernels) {
    if (entry.name == name) return entry.function;
  }
  return nullptr;
}

}  // namespace jax_apple_fft::metal_emulator
