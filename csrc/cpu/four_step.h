// Long lines as two passes of short ones (the "four-step" algorithm).
//
// A line of length n = rows * columns is viewed as a rows x columns matrix,
// element (j1, j2) at j1 * columns + j2. Transforming every column, multiplying
// element (k1, j2) by w^(k1 * j2) (w = exp(-2 pi i / n)), then transforming every
// row gives X[k1 + rows * k2] at (k1, k2). Both passes run on lines of about
// sqrt(n) that stay in cache, and one long line spreads over every thread.
// The split itself is the planner's (cpu_planner.h). Included by
// line_kernels.h only.
#pragma once

#include <cstdint>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_plan.h"
#include "cpu/line_plans.h"
#include "cpu/simd_namespace.h"
#include "ducc0/math/unity_roots.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

// The twiddles between the two passes, exp(-2 pi i k1 j2 / n) at
// k1 * columns + j2, rounded once from double-precision roots.
template <class T>
class FourStepTwiddles final : public CachedPlan {
 public:
  FourStepTwiddles(std::int64_t rows, std::int64_t columns)
      : columns(columns), values(compute(rows, columns)) {}
  std::size_t bytes() const override { return sizeof(*this) + values.size() * sizeof(values[0]); }

  const std::int64_t columns;
  const std::vector<ducc::Cmplx<T>> values;

 private:
  static std::vector<ducc::Cmplx<T>> compute(std::int64_t rows, std::int64_t columns) {
    const ducc::UnityRoots<T, ducc::Cmplx<T>> roots(static_cast<std::size_t>(rows * columns));
    std::vector<ducc::Cmplx<T>> values(static_cast<std::size_t>(rows * columns));
    for (std::int64_t k1 = 0; k1 < rows; ++k1)
      for (std::int64_t j2 = 0; j2 < columns; ++j2)
        values[k1 * columns + j2] = roots[static_cast<std::size_t>(k1 * j2)].conj();
    return values;
  }
};

template <class T>
std::shared_ptr<const FourStepTwiddles<T>> get_four_step_twiddles(PlanCache& cache,
                                                                  FourStepSplit split) {
  return cache.get<FourStepTwiddles<T>>(
      PlanKey{plan_family("four_step_twiddles"), {sizeof(T), split.rows, split.columns}},
      [&] { return std::make_shared<const FourStepTwiddles<T>>(split.rows, split.columns); });
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
