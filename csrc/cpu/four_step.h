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
// and j2 < columns, from double-precision tables of O(sqrt(n)) entries (a
// line's worth, FourStepTwiddleTable below, where that fits its bound):
// w^m for any m as the product of two roots (ducc's UnityRoots), and
// w^(k1 j) for j below the pass's SIMD width. A SIMD group of neighbouring
// columns c0 + j takes w^(k1 c0) * w^(k1 j), multiplied in double and
// rounded once to T.
template <class T>
class FourStepTwiddles final : public CachedValue {
 public:
  FourStepTwiddles(std::int64_t rows, std::int64_t columns, std::size_t lanes)
      : columns(columns), lanes(lanes), roots_(static_cast<std::size_t>(rows * columns)),
        steps_(2 * static_cast<std::size_t>(rows) * lanes) {
    for (std::int64_t k1 = 0; k1 < rows; ++k1)
      for (std::size_t j = 0; j < lanes; ++j) {
        const ducc::Cmplx<double> w = root(k1 * static_cast<std::int64_t>(j));
        double* step = steps_.data() + 2 * lanes * static_cast<std::size_t>(k1);
        step[j] = w.r;
        step[lanes + j] = w.i;
      }
  }
  std::size_t bytes() const override {
    return sizeof(*this) + roots_.footprint() + steps_.size() * sizeof(steps_[0]);
  }

  // w^m in double precision, m < n.
  ducc::Cmplx<double> root(std::int64_t m) const {
    return roots_[static_cast<std::size_t>(m)];
  }
  // w^(k1 (c0 + j)) for j < count (at most lanes), rounded once to T: the
  // real parts to re, the imaginary parts times `sign` to im.
  void products(std::int64_t k1, std::int64_t c0, double sign, std::size_t count, T* re,
                T* im) const {
    const ducc::Cmplx<double> base = root(k1 * c0);
    const double* step = steps(k1);
    for (std::size_t j = 0; j < count; ++j) {
      re[j] = static_cast<T>(base.r * step[j] - base.i * step[lanes + j]);
      im[j] = static_cast<T>(sign * (base.r * step[lanes + j] + base.i * step[j]));
    }
  }
  // As products, for T = double, into vectors V of at most `lanes` values:
  // scalars stored and read back as one vector stall on store forwarding.
  template <class V>
  void product_vectors(std::int64_t k1, std::int64_t c0, double sign, V& re, V& im) const {
    const ducc::Cmplx<double> base = root(k1 * c0);
    const double* step = steps(k1);
    const V step_re(step, ducc::element_aligned_tag());
    const V step_im(step + lanes, ducc::element_aligned_tag());
    re = step_re * V(base.r) - step_im * V(base.i);
    im = (step_im * V(base.r) + step_re * V(base.i)) * V(sign);
  }

  const std::int64_t columns;
  const std::size_t lanes;

 private:
  // w^(k1 j) for j < lanes in double precision: the lanes real parts, then
  // the lanes imaginary parts.
  const double* steps(std::int64_t k1) const {
    return steps_.data() + 2 * lanes * static_cast<std::size_t>(k1);
  }

  const ducc::UnityRoots<double, ducc::Cmplx<double>> roots_;
  std::vector<double> steps_;
};

// Every twiddle of a split, FourStepTwiddles::products rounded to T once,
// for column passes whose table is at most kTwiddleTableMaxBytes (CpuPass::
// twiddle_table). Columns in blocks of `lanes`, as a SIMD group takes them:
// block b, row k1 holds the lanes real parts of w^(k1 c), c = b lanes ..,
// then their imaginary parts (exp(+2 pi i m / n), as the products).
template <class T>
class FourStepTwiddleTable final : public CachedValue {
 public:
  explicit FourStepTwiddleTable(const FourStepTwiddles<T>& twiddles, std::int64_t rows)
      : lanes(twiddles.lanes), rows_(rows),
        values_(2 * static_cast<std::size_t>(rows * twiddles.columns)) {
    const auto width = static_cast<std::int64_t>(lanes);
    for (std::int64_t block = 0; block < twiddles.columns / width; ++block)
      for (std::int64_t k1 = 0; k1 < rows; ++k1) {
        T* to = values_.data() + 2 * lanes * static_cast<std::size_t>(block * rows + k1);
        twiddles.products(k1, block * width, 1.0, lanes, to, to + lanes);
      }
  }
  std::size_t bytes() const override { return sizeof(*this) + values_.size() * sizeof(T); }

  // The lanes real parts, then imaginary parts, of row k1 of the block of
  // columns starting at `column` (a multiple of lanes).
  const T* at(std::int64_t k1, std::int64_t column) const {
    const std::int64_t block = column / static_cast<std::int64_t>(lanes);
    return values_.data() + 2 * lanes * static_cast<std::size_t>(block * rows_ + k1);
  }

  const std::size_t lanes;

 private:
  std::int64_t rows_;
  std::vector<T> values_;
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

template <class T>
std::shared_ptr<const FourStepTwiddleTable<T>> get_four_step_twiddle_table(
    PlanCache& cache, const FourStepTwiddles<T>& twiddles, FourStepSplit split) {
  return cache.get<FourStepTwiddleTable<T>>(
      PlanKey{plan_family("four_step_twiddle_table"),
              {sizeof(T), split.rows, split.columns, static_cast<std::int64_t>(twiddles.lanes)}},
      [&] { return std::make_shared<const FourStepTwiddleTable<T>>(twiddles, split.rows); });
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
