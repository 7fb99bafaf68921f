// The reference the CPU transform tests compare against: a naive DFT in
// double following numpy's definitions, random inputs, and a run of a spec
// through CpuTransform on a chosen SIMD level. Header-only: every test file
// that includes it gets its own copy (all inline).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_simd.h"
#include "cpu/cpu_transform.h"
#include "spec/transform_spec.h"
#include "accuracy.h"

namespace jax_apple_fft::cpu_reference {

using cd = std::complex<double>;
using test_support::error_bound;
using test_support::relative_error;
using test_support::transform_points;

inline std::int64_t count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

inline std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// w^m for m < n, w = exp(-2 pi i / n) (forward) or exp(2 pi i / n). The
// references below look their roots up here: computed per term, the
// trigonometry was most of this test's run time under qemu-user.
inline std::vector<cd> roots_of_unity(std::int64_t n, bool forward) {
  const double sign = forward ? -1.0 : 1.0;
  std::vector<cd> roots(n);
  for (std::int64_t m = 0; m < n; ++m) roots[m] = std::polar(1.0, sign * 2 * M_PI * double(m) / n);
  return roots;
}

// Naive DFT of a complex array along one axis, in double.
inline std::vector<cd> dft_axis(const std::vector<cd>& x, const std::vector<std::int64_t>& shape,
                         std::int64_t axis, std::int64_t n_out, bool forward) {
  auto out_shape = shape;
  out_shape[axis] = n_out;
  const auto in_strides = strides_of(shape), out_strides = strides_of(out_shape);
  std::vector<cd> y(count(out_shape));
  const std::int64_t n_in = shape[axis];
  const std::int64_t length = std::max(n_in, n_out);
  const std::vector<cd> roots = roots_of_unity(length, forward);
  for (std::int64_t flat = 0; flat < count(out_shape); ++flat) {
    std::int64_t rem = flat, base = 0, k = 0;
    for (std::size_t d = 0; d < out_shape.size(); ++d) {
      const std::int64_t idx = (rem / out_strides[d]) % out_shape[d];
      if (static_cast<std::int64_t>(d) == axis) k = idx; else base += idx * in_strides[d];
    }
    cd sum = 0;
    for (std::int64_t j = 0; j < n_in; ++j)
      sum += x[base + j * in_strides[axis]] * roots[j * k % length];
    y[flat] = sum;
    rem = 0;
  }
  return y;
}

// Reference for a whole spec, in double, following numpy's definitions.
inline std::vector<cd> reference(const TransformSpec& spec, const std::vector<cd>& input) {
  std::vector<cd> x = input;
  auto shape = spec.in_shape;
  const std::int64_t real_axis = spec.axes.back();
  if (spec.kind == TransformKind::kC2R) {
    // Expand the half spectrum to the full Hermitian one, then transform.
    const std::int64_t n = spec.out_shape[real_axis];
    for (std::size_t i = 0; i + 1 < spec.axes.size(); ++i) {
      x = dft_axis(x, shape, spec.axes[i], shape[spec.axes[i]], spec.forward);
    }
    auto full_shape = shape;
    full_shape[real_axis] = n;
    std::vector<cd> full(count(full_shape));
    const auto hs = strides_of(shape), fs = strides_of(full_shape);
    for (std::int64_t flat = 0; flat < count(full_shape); ++flat) {
      std::int64_t base = 0, k = 0;
      for (std::size_t d = 0; d < full_shape.size(); ++d) {
        const std::int64_t idx = (flat / fs[d]) % full_shape[d];
        if (static_cast<std::int64_t>(d) == real_axis) k = idx; else base += idx * hs[d];
      }
      const std::int64_t half = shape[real_axis];
      if (k < half) {
        cd v = x[base + k * hs[real_axis]];
        if (k == 0 || 2 * k == n) v = cd(v.real(), 0);
        full[flat] = v;
      } else {
        full[flat] = std::conj(x[base + (n - k) * hs[real_axis]]);
      }
    }
    // The other axes were already transformed; only the real axis remains,
    // and Hermitian expansion commutes with them only for the real parts we keep.
    auto y = dft_axis(full, full_shape, real_axis, n, spec.forward);
    for (auto& v : y) v = cd(v.real() * spec.scale, 0);
    return y;
  }
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const std::int64_t axis = spec.axes[i];
    x = dft_axis(x, shape, axis, shape[axis], spec.forward);
  }
  if (spec.kind == TransformKind::kR2C) {
    // Keep the first n/2+1 bins along the real axis.
    auto out = spec.out_shape;
    std::vector<cd> y(count(out));
    const auto fs = strides_of(shape), os = strides_of(out);
    for (std::int64_t flat = 0; flat < count(out); ++flat) {
      std::int64_t src = 0;
      for (std::size_t d = 0; d < out.size(); ++d) src += ((flat / os[d]) % out[d]) * fs[d];
      y[flat] = x[src];
    }
    x = y;
  }
  for (auto& v : x) v *= spec.scale;
  return x;
}

// The input of a spec, random from `seed` (real where the spec reads real
// values), as the reference sees it.
inline std::vector<cd> random_input(const TransformSpec& spec, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  const bool real_in = spec.kind == TransformKind::kR2C;
  std::vector<cd> input(count(spec.in_shape));
  for (auto& v : input) v = real_in ? cd(normal(rng), 0) : cd(normal(rng), normal(rng));
  return input;
}

// Runs `spec` on `input` with the kernels of `simd_level`.
template <class T>
inline std::vector<cd> run_on(const TransformSpec& spec, PlanCache& cache, const std::vector<cd>& input,
                       const std::string& simd_level) {
  const bool real_in = spec.kind == TransformKind::kR2C;
  const bool real_out = spec.kind == TransformKind::kC2R;
  std::vector<T> in_buf(input.size() * (real_in ? 1 : 2));
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (real_in) {
      in_buf[i] = static_cast<T>(input[i].real());
    } else {
      in_buf[2 * i] = static_cast<T>(input[i].real());
      in_buf[2 * i + 1] = static_cast<T>(input[i].imag());
    }
  }
  std::vector<T> out_buf(count(spec.out_shape) * (real_out ? 1 : 2));
  auto transform = CpuTransform::prepare(spec, cache, simd_level);
  transform->execute(in_buf.data(), out_buf.data(), cache);
  std::vector<cd> out(count(spec.out_shape));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = real_out ? cd(out_buf[i], 0) : cd(out_buf[2 * i], out_buf[2 * i + 1]);
  return out;
}

template <class T>
double run_and_compare(const TransformSpec& spec, PlanCache& cache, std::uint32_t seed,
                       const std::string& simd_level = cpu_simd_level()) {
  const std::vector<cd> input = random_input(spec, seed);
  return relative_error(run_on<T>(spec, cache, input, simd_level), reference(spec, input));
}

inline TransformSpec make_spec(TransformKind kind, bool forward, Precision precision,
                        std::vector<std::int64_t> in_shape, std::vector<std::int64_t> axes,
                        std::int64_t real_length, double scale) {
  TransformSpec spec{kind, forward, precision, in_shape, in_shape, axes, scale};
  if (kind == TransformKind::kR2C) spec.out_shape[axes.back()] = real_length / 2 + 1;
  if (kind == TransformKind::kC2R) spec.out_shape[axes.back()] = real_length;
  return spec;
}

}  // namespace jax_apple_fft::cpu_reference
