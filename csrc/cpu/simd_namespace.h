// The namespace of one SIMD level's copy of the CPU kernels. cpu_kernels.cc
// and the headers it runs are compiled once per level, each time with
// JAX_APPLE_FFT_SIMD naming the level's namespace (simd_baseline,
// simd_avx2, ...) and DUCC0_NAMESPACE pocketfft's (cmake/CpuInstructionSet.cmake):
// two levels' copies share no name.
#pragma once

#ifndef JAX_APPLE_FFT_SIMD
#error "define JAX_APPLE_FFT_SIMD: see cmake/CpuInstructionSet.cmake"
#endif

#include <string>

#define JAX_APPLE_FFT_SIMD_STRING_(name) #name
#define JAX_APPLE_FFT_SIMD_STRING(name) JAX_APPLE_FFT_SIMD_STRING_(name)

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

// The family of this copy's cache keys for plans of kind `kind`, e.g.
// "cpu.simd_avx2.line": copies of two levels never share a PlanCache entry.
inline std::string plan_family(const char* kind) {
  return std::string("cpu." JAX_APPLE_FFT_SIMD_STRING(JAX_APPLE_FFT_SIMD) ".") + kind;
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
