// Bluestein's algorithm for long prime lines, as passes of the CPU plan
// (cpu_plan.h), so that its two transforms of m >= 2n - 1 points split
// four-step over every thread. pocketfft's own Bluestein runs a line on one
// thread.
//
// With c[j] = exp(-pi i j^2 / n) and jk = (j^2 + k^2 - (k - j)^2) / 2,
//   X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]),
// a convolution of the chirped line with conj(c), cyclic once both are
// zero-padded to m: the chirped line's transform times K, the transform of
// conj(c) (wrapped around, divided by m), transformed back. conj(c) is
// symmetric, so the inverse sign's kernel is conj(K), and its chirp conj(c).
// A real line runs as a complex one; the passes read its real values or
// bins and write its bins or real values. Included by line_kernels.h only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_plan.h"
#include "cpu/simd_namespace.h"
#include "ducc0/fft/fft1d_impl.h"
#include "ducc0/math/unity_roots.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

namespace ducc = ::DUCC0_NAMESPACE;

// The chirp c[0 .. n) and the kernel K[0 .. m), computed in double and
// rounded once.
template <class T>
class ChirpTables final : public CachedValue {
 public:
  ChirpTables(std::int64_t n, std::int64_t m) {
    const auto un = static_cast<std::uint64_t>(n);
    std::vector<ducc::Cmplx<double>> c(un);
    // c[j] = w^(j^2 mod 2n), w = exp(-pi i / n); j^2 mod 2n built up by
    // (j + 1)^2 = j^2 + 2j + 1 keeps clear of overflow.
    const ducc::UnityRoots<double, ducc::Cmplx<double>> roots(2 * un);
    for (std::uint64_t j = 0, square = 0; j < un; ++j) {
      c[j] = roots[square].conj();
      square = (square + 2 * j + 1) % (2 * un);
    }
    std::vector<ducc::Cmplx<double>> b(static_cast<std::size_t>(m), {0.0, 0.0});
    b[0] = c[0].conj();
    for (std::size_t j = 1; j < un; ++j) b[j] = b[m - j] = c[j].conj();
    ducc::detail_fft::pocketfft_c<double>(static_cast<std::size_t>(m))
        .exec(b.data(), 1.0 / static_cast<double>(m), true);
    chirp = round(c);
    kernel = round(b);
  }
  std::size_t bytes() const override {
    return sizeof(*this) + (chirp.size() + kernel.size()) * sizeof(ducc::Cmplx<T>);
  }

  std::vector<ducc::Cmplx<T>> chirp, kernel;

 private:
  static std::vector<ducc::Cmplx<T>> round(const std::vector<ducc::Cmplx<double>>& v) {
    std::vector<ducc::Cmplx<T>> out(v.size());
    for (std::size_t k = 0; k < v.size(); ++k)
      out[k] = {static_cast<T>(v[k].r), static_cast<T>(v[k].i)};
    return out;
  }
};

template <class T>
std::shared_ptr<const ChirpTables<T>> get_chirp_tables(PlanCache& cache, std::int64_t n,
                                                       std::int64_t m) {
  return cache.get<ChirpTables<T>>(
      PlanKey{plan_family("chirp_tables"), {static_cast<std::int64_t>(sizeof(T)), n, m}},
      [&] { return std::make_shared<const ChirpTables<T>>(n, m); });
}

// The values [first, end) of one of a line's `chunks` equal ranges of `count`.
struct ValueRange {
  std::int64_t first, end;
};
inline ValueRange value_range(std::int64_t count, std::int64_t chunks, std::int64_t chunk) {
  return {chunk * count / chunks, (chunk + 1) * count / chunks};
}

template <class T>
inline ducc::Cmplx<T> times(const ducc::Cmplx<T>& a, const ducc::Cmplx<T>& b, bool conjugate_b) {
  return conjugate_b ? a * b.conj() : a * b;
}

// The work line's values in `range` of 0 .. m: the line's values
// value(j), chirped, below n; zeros from n.
template <class T, class Value>
void chirp_in(Value value, ducc::Cmplx<T>* work, std::int64_t n, const ducc::Cmplx<T>* chirp,
              ValueRange range, bool forward) {
  const std::int64_t chirped_end = std::min(range.end, n);
  for (std::int64_t j = range.first; j < chirped_end; ++j)
    work[j] = times(value(j), chirp[j], !forward);
  for (std::int64_t j = std::max(range.first, n); j < range.end; ++j) work[j] = {T(0), T(0)};
}

// The line the chirp passes read, by what they stand for: complex values;
// real ones (R2C); or the n / 2 + 1 bins of a Hermitian line of n points
// (C2R), whose zero bin's imaginary part is ignored, as numpy does.
template <class T>
void chirp_in(LineOp of, const void* line, std::int64_t stride, ducc::Cmplx<T>* work,
              std::int64_t n, const ducc::Cmplx<T>* chirp, ValueRange range, bool forward) {
  const auto* values = static_cast<const ducc::Cmplx<T>*>(line);
  switch (of) {
    case LineOp::kRealToComplex: {
      const auto* reals = static_cast<const T*>(line);
      return chirp_in([&](std::int64_t j) { return ducc::Cmplx<T>(reals[j * stride], T(0)); },
                      work, n, chirp, range, forward);
    }
    case LineOp::kComplexToReal:
      return chirp_in(
          [&](std::int64_t j) {
            if (j == 0) return ducc::Cmplx<T>(values[0].r, T(0));
            return 2 * j <= n ? values[j * stride] : values[(n - j) * stride].conj();
          },
          work, n, chirp, range, forward);
    default:
      return chirp_in([&](std::int64_t j) { return values[j * stride]; }, work, n, chirp, range,
                      forward);
  }
}

// The transformed work line's values in `range`, times the kernel.
template <class T>
void chirp_kernel(ducc::Cmplx<T>* work, const ducc::Cmplx<T>* kernel, ValueRange range,
                  bool forward) {
  for (std::int64_t k = range.first; k < range.end; ++k)
    work[k] = times(work[k], kernel[k], !forward);
}

// The outputs in `range` (of the destination line's length): the
// convolution chirped and scaled; only its real part for C2R.
template <class T>
void chirp_out(LineOp of, const ducc::Cmplx<T>* work, void* line, std::int64_t stride,
               const ducc::Cmplx<T>* chirp, ValueRange range, T fct, bool forward) {
  if (of == LineOp::kComplexToReal) {
    auto* reals = static_cast<T*>(line);
    for (std::int64_t k = range.first; k < range.end; ++k)
      reals[k * stride] = times(work[k], chirp[k], !forward).r * fct;
    return;
  }
  auto* values = static_cast<ducc::Cmplx<T>*>(line);
  for (std::int64_t k = range.first; k < range.end; ++k)
    values[k * stride] = times(work[k], chirp[k], !forward) * fct;
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
