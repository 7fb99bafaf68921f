// CpuTransform::prepare: checks the spec and hands it to the copy of the
// kernels built for the SIMD level this process runs (cpu_simd.h). Compiled
// with the compiler's default flags: it runs before any level is chosen.
#include "cpu/cpu_transform.h"

#include <stdexcept>
#include <string>

#include "cpu/cpu_kernels.h"
#include "cpu/cpu_simd.h"

#define JAX_APPLE_FFT_CPU_SIMD_LEVEL(level) JAX_APPLE_FFT_DECLARE_CPU_KERNELS(simd_##level)
#include "cpu_simd_levels.inc"
#undef JAX_APPLE_FFT_CPU_SIMD_LEVEL

namespace jax_apple_fft {
namespace {

struct CpuKernels {
  const char* level;
  std::unique_ptr<CpuTransform> (*make)(const TransformSpec&, PlanCache&);
  std::size_t (*working_bytes)(const TransformSpec&, std::int64_t);
};

constexpr CpuKernels kCpuKernels[] = {
#define JAX_APPLE_FFT_CPU_SIMD_LEVEL(level) {#level, &simd_##level::make_cpu_transform, &simd_##level::cpu_working_bytes},
#include "cpu_simd_levels.inc"
#undef JAX_APPLE_FFT_CPU_SIMD_LEVEL
};

}  // namespace

std::unique_ptr<CpuTransform> CpuTransform::prepare(const TransformSpec& spec, PlanCache& cache) {
  return prepare(spec, cache, cpu_simd_level());
}

std::unique_ptr<CpuTransform> CpuTransform::prepare(const TransformSpec& spec, PlanCache& cache,
                                                    const std::string& simd_level) {
  if (std::string problem = spec.check(); !problem.empty()) throw std::invalid_argument(problem);
  for (std::int64_t axis : spec.axes)
    if (spec.length(axis) < 1 && !spec.empty())
      throw std::invalid_argument("transform length must be at least 1");
  check_cpu_simd_level(simd_level);
  for (const CpuKernels& kernels : kCpuKernels)
    if (simd_level == kernels.level) return kernels.make(spec, cache);
  throw std::logic_error("no kernels for SIMD level " + simd_level);
}

std::size_t CpuTransform::working_bytes(const TransformSpec& spec, std::int64_t threads) {
  if (std::string problem = spec.check(); !problem.empty()) throw std::invalid_argument(problem);
  if (spec.empty()) return 0;
  const std::string& simd_level = cpu_simd_level();
  for (const CpuKernels& kernels : kCpuKernels)
    if (simd_level == kernels.level) return kernels.working_bytes(spec, threads);
  throw std::logic_error("no kernels for SIMD level " + simd_level);
}

}  // namespace jax_apple_fft
