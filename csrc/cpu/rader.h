// Rader's algorithm for lines of prime length p whose p - 1 factors into
// 2, 3, 5, 7 and 11 only. Taken in the order of the powers of a generator g
// of the integers mod p, the p - 1 outputs past the first are a cyclic
// convolution of the p - 1 inputs past the first with fixed twiddles, done
// by two pocketfft transforms of length p - 1. pocketfft reaches such lengths
// through Bluestein's algorithm instead: two transforms of a length of at
// least 2p - 1 (for 65537 points, 131220 against 65536).
//
// This header is included by line_plans.h only.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/rader_rules.h"
#include "cpu/simd_namespace.h"
#include "ducc0/fft/fft1d_impl.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {
namespace rader {

namespace pocketfft = ::DUCC0_NAMESPACE::detail_fft;
using ::DUCC0_NAMESPACE::Cmplx;

// A line plan for one prime length p. `real` adds the tables that read and
// write pocketfft's half-complex layout of real lines.
template <class T>
class Plan {
 public:
  Plan(std::size_t p, bool real) : l_(p - 1), inner_(p - 1), kernel_(p - 1) {
    const std::uint64_t g = generator(p);
    const std::uint64_t g_inverse = power_mod(g, p - 2, p);
    gather_.resize(l_);
    scatter_.resize(l_);
    for (std::uint64_t q = 0, up = 1, down = 1; q < l_; ++q) {
      gather_[q] = static_cast<std::uint32_t>(up);     // g^q
      scatter_[q] = static_cast<std::uint32_t>(down);  // g^-q
      up = up * g % p;
      down = down * g_inverse % p;
    }
    // The forward kernel: the transform of w^(g^-q), w = exp(-2 pi i / p),
    // divided by p - 1 for the inverse transform that ends the convolution.
    // Computed in double whatever T is.
    std::vector<Cmplx<double>> twiddles = roots_at(p, scatter_);
    pocketfft::pocketfft_c<double>(l_).exec(twiddles.data(), 1.0 / l_, true);
    for (std::size_t k = 0; k < l_; ++k)
      kernel_[k] = {static_cast<T>(twiddles[k].r), static_cast<T>(twiddles[k].i)};
    if (real) build_half_complex_tables();
  }

  // Scratch that exec needs, in complex values.
  std::size_t bufsize() const { return l_ + inner_.bufsize(); }
  std::size_t footprint() const {
    return inner_.footprint() + kernel_.size() * sizeof(Cmplx<T>) +
           (gather_.size() + scatter_.size() + half_source_.size() + half_index_.size()) *
               sizeof(std::uint32_t) +
           half_sign_.size() * sizeof(T);
  }

  // A complex line in place; returns c, as pocketfft_c's exec returns where
  // the result is.
  template <class V>
  Cmplx<V>* exec(Cmplx<V>* c, Cmplx<V>* buf, T fct, bool fwd) const {
    const Cmplx<V> x0 = c[0];
    for (std::size_t q = 0; q < l_; ++q) buf[q] = c[gather_[q]];
    Cmplx<V> sum;
    const Cmplx<V>* conv = convolve(buf, buf + l_, fwd, sum);
    c[0] = (x0 + sum) * fct;
    for (std::size_t m = 0; m < l_; ++m) c[scatter_[m]] = (x0 + conv[m]) * fct;
    return c;
  }

  // A real line in place, as pocketfft_r's exec: forward from real values
  // to half-complex (x0, re 1, im 1, ..., re h, im h with h = (p - 1) / 2),
  // backward the reverse. `buf` holds bufsize() complex values.
  template <class V>
  V* exec_real(V* c, V* buf, T fct, bool fwd) const {
    Cmplx<V>* a = reinterpret_cast<Cmplx<V>*>(buf);
    const std::size_t half = l_ / 2;
    const V x0 = c[0];
    Cmplx<V> sum;
    if (fwd) {
      for (std::size_t q = 0; q < l_; ++q) a[q] = Cmplx<V>(c[gather_[q]], V(0));
      const Cmplx<V>* conv = convolve(a, a + l_, true, sum);
      c[0] = (x0 + sum.r) * fct;
      for (std::size_t k = 1; k <= half; ++k) {
        const Cmplx<V> x = conv[half_source_[k - 1]];
        c[2 * k - 1] = (x0 + x.r) * fct;
        c[2 * k] = x.i * fct;
      }
      return c;
    }
    // g^(q + half) = -g^q: the inputs of a half-turn apart are conjugates.
    for (std::size_t q = 0; q < half; ++q) {
      const std::size_t k = half_index_[q];
      const V re = c[2 * k - 1], im = c[2 * k] * half_sign_[q];
      a[q] = Cmplx<V>(re, im);
      a[q + half] = Cmplx<V>(re, -im);
    }
    const Cmplx<V>* conv = convolve(a, a + l_, false, sum);
    c[0] = (x0 + sum.r) * fct;
    for (std::size_t m = 0; m < l_; ++m) c[scatter_[m]] = (x0 + conv[m].r) * fct;
    return c;
  }

 private:
  // a (l_ values, the inputs past the first in generator order) convolved
  // with the kernel; `work` holds inner_.bufsize() values. Returns where the
  // result is, and the sum of the inputs.
  template <class V>
  const Cmplx<V>* convolve(Cmplx<V>* a, Cmplx<V>* work, bool fwd, Cmplx<V>& sum) const {
    const Cmplx<V>* spectrum = inner_.exec(a, work, T(1), true);
    sum = spectrum[0];
    // The backward kernel is the conjugate twiddles' transform:
    // conj(kernel[-k]).
    if (fwd)
      for (std::size_t k = 0; k < l_; ++k) a[k] = spectrum[k] * kernel_[k];
    else
      for (std::size_t k = 0; k < l_; ++k)
        a[k] = spectrum[k].template special_mul<true>(kernel_[k ? l_ - k : 0]);
    return inner_.exec(a, work, T(1), false);
  }

  void build_half_complex_tables() {
    const std::size_t half = l_ / 2;
    half_source_.resize(half);
    half_index_.resize(half);
    half_sign_.resize(half);
    for (std::size_t m = 0; m < l_; ++m)
      if (scatter_[m] <= half) half_source_[scatter_[m] - 1] = static_cast<std::uint32_t>(m);
    for (std::size_t q = 0; q < half; ++q) {
      const std::uint32_t k = gather_[q];
      const bool upper = k > half;  // read as the conjugate of p - k
      half_index_[q] = upper ? static_cast<std::uint32_t>(l_ + 1 - k) : k;
      half_sign_[q] = upper ? T(-1) : T(1);
    }
  }

  std::size_t l_;  // p - 1: the length of the convolution
  pocketfft::pocketfft_c<T> inner_;
  std::vector<Cmplx<T>> kernel_;
  std::vector<std::uint32_t> gather_, scatter_;
  // Real lines: which convolution output is element k (1..h) of the
  // half-complex result, and where input q (< h) reads its value and sign.
  std::vector<std::uint32_t> half_source_, half_index_;
  std::vector<T> half_sign_;
};

}  // namespace rader
}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
