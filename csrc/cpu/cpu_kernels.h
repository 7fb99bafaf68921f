// The entry point of one SIMD level's copy of the CPU kernels
// (cpu_kernels.cc, compiled once per level: cmake/CpuInstructionSet.cmake).
// Only cpu_transform.cc calls it, for the level cpu_simd.h chose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cache/plan_cache.h"
#include "cpu/cpu_transform.h"
#include "spec/transform_spec.h"

// Declares, in namespace jax_apple_fft::simd, make_cpu_transform (a
// transform of a checked spec, run by that level's copy of the kernels) and
// cpu_working_bytes (CpuTransform::working_bytes for that level's plans).
#define JAX_APPLE_FFT_DECLARE_CPU_KERNELS(simd)                                                 \
  namespace jax_apple_fft::simd {                                                               \
  std::unique_ptr<CpuTransform> make_cpu_transform(const TransformSpec& spec, PlanCache& cache); \
  std::size_t cpu_working_bytes(const TransformSpec& spec, std::int64_t threads);               \
  }

#ifdef JAX_APPLE_FFT_SIMD
JAX_APPLE_FFT_DECLARE_CPU_KERNELS(JAX_APPLE_FFT_SIMD)
#endif
