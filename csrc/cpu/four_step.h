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

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_plan.h"
#include "cpu/line_plans.h"
#include "cpu/simd_namespace.h"
#include "ducc0/math/unity_roots.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

// The twiddles between the two passes, exp(-2 pi i k1 j2 / n) for k1 < rows
// and j2 < columns, from double-precision tables of O(sqrt(n)) entries (the
// plan keeps no table as large as its input): w^m for any m as the product of
// two roots (ducc's UnityRoots), and w^(k1 j) for j below the pass's SIMD
// width. A SIMD group of neighbouring columns c0 + j takes
// w^(k1 c0) * w^(k1 j), multiplied in double and rounded once to T.
template <class T>
class FourStepTwiddles final : public CachedValue {
 public:
  FourStepTwiddles(std::int64_t rows, std::int64_t columns, std::size_t lanes)
      : columns(columns), lanes(lanes), roots_(static_cast<std::size_t>(rows * columns)),
        steps_(static_cast<std::size_t>(rows) * lanes) {
    for (std::int64_t k1 = 0; k1 < rows; ++k1)
      for (std::size_t j = 0; j < lanes; ++j)
        steps_[static_cast<std::size_t>(k1) * lanes + j] = root(k1 * static_cast<std::int64_t>(j));
  }
  std::size_t bytes() const override {
    return sizeof(*this) + roots_.footprint() + steps_.size() * sizeof(steps_[0]);
  }

  // w^m in double precision, m < n.
  ducc::Cmplx<double> root(std::int64_t m) const {
    return roots_[static_cast<std::size_t>(m)];
  }
  // w^(k1 j) for j < lanes, in double precision.
  const ducc::Cmplx<double>* steps(std::int64_t k1) const {
    return steps_.data() + static_cast<std::size_t>(k1) * lanes;
  }

  const std::int64_t columns;
  const std::size_t lanes;

 private:
  const ducc::UnityRoots<double, ducc::Cmplx<double>> roots_;
  std::vector<ducc::Cmplx<double>> steps_;
};

template <class T>
std::shared_ptr<const FourStepTwiddles<T>> get_four_step_twiddles(PlanCache& cache,
                                                                  FourStepSplit split,
                                                                  std::size_t lanes) {
  return cache.get<FourStepTwiddles<T>>(
      PlanKey{plan_family("four_step_twiddles"),
              {sizeof(T), split.rows, split.columns, static_cast<std::int64_t>(lanes)}},
      [&] { return std::make_shared<const FourStepTwiddles<T>>(split.rows, split.columns, lanes); });
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
