// The CPU backend: an N-dimensional transform over pocketfft line plans,
// run by the copy of the kernels built for one SIMD level (cpu_simd.h).
//
// prepare() resolves every plan a spec needs through the PlanCache (the FFI
// instantiate stage calls it once per call site); execute() then runs without
// touching the cache's lock: it only borrows worker threads and scratch slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cache/plan_cache.h"
#include "cpu/cpu_plan.h"
#include "cpu/cpu_profile.h"
#include "spec/transform_spec.h"

namespace jax_apple_fft {

class CpuTransform {
 public:
  virtual ~CpuTransform() = default;
  // Runs on the level cpu_simd_level() names.
  // Throws PlanBuildError, CacheClosedError or std::invalid_argument.
  static std::unique_ptr<CpuTransform> prepare(const TransformSpec& spec, PlanCache& cache);
  // Runs on `simd_level`, which must be built and run on this CPU.
  static std::unique_ptr<CpuTransform> prepare(const TransformSpec& spec, PlanCache& cache,
                                               const std::string& simd_level);
  // An upper bound of the memory a run of `spec` holds beyond its input and
  // output, on `threads` threads and this process's SIMD level: the
  // temporary, every thread's scratch and the plan tables. Plans the
  // transform without building anything.
  static std::size_t working_bytes(const TransformSpec& spec, std::int64_t threads);
  // `in` and `out` are dense row-major buffers shaped as the spec says; they
  // must not overlap unless they are the same buffer for a C2C transform.
  virtual void execute(const void* in, void* out, PlanCache& cache) const = 0;
  // execute(), timing each pass and each thread's tasks (a measuring
  // instrument: it costs a clock read and a lock per task).
  virtual CpuProfile profile(const void* in, void* out, PlanCache& cache) const = 0;
  virtual const TransformSpec& spec() const = 0;
  // The passes it runs (cpu_plan.h).
  virtual const CpuPlan& plan() const = 0;
};

}  // namespace jax_apple_fft
