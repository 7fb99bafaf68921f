// The accuracy contract of docs/accuracy.md, for the C++ tests: a result is
// within relative L2 error 5·eps·log2(points) of a reference computed in
// double precision or wider (log2 taken as at least 1).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "spec/transform_spec.h"

namespace test_support {

template <class Real>
double error_bound(std::int64_t points) {
  const double log2_points = std::max(std::log2(double(std::max<std::int64_t>(points, 1))), 1.0);
  return 5.0 * double(std::numeric_limits<Real>::epsilon()) * log2_points;
}

inline double error_bound(jax_apple_fft::Precision precision, std::int64_t points) {
  return precision == jax_apple_fft::Precision::kSingle ? error_bound<float>(points)
                                                        : error_bound<double>(points);
}

// Points of the transform `spec` describes: the product of its lengths.
inline std::int64_t transform_points(const jax_apple_fft::TransformSpec& spec) {
  std::int64_t points = 1;
  for (std::int64_t axis : spec.axes) points *= spec.length(axis);
  return points;
}

// Relative L2 distance of `got` from `want` (the absolute distance where
// `want` is all zeros).
inline double relative_error(const std::vector<std::complex<double>>& got,
                             const std::vector<std::complex<double>>& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += std::norm(got[i] - want[i]);
    norm += std::norm(want[i]);
  }
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

// The DFT of x in double, by its definition: exp(-+2 pi i jk / n) for the
// forward and inverse signs, each term times `scale`.
inline std::vector<std::complex<double>> reference_dft(const std::vector<std::complex<double>>& x,
                                                       bool forward, double scale) {
  const std::size_t n = x.size();
  const double sign = forward ? -1.0 : 1.0;
  std::vector<std::complex<double>> y(n);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j)
      y[k] += x[j] * std::polar(scale, sign * 2 * M_PI * double(j * k % n) / double(n));
  return y;
}

}  // namespace test_support
