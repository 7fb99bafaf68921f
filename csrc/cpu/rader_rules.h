// The number theory and roots of unity of Rader's plans (rader.h); which
// lengths take them is prime_lengths.h's rule.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/prime_lengths.h"
#include "cpu/simd_namespace.h"
#include "ducc0/math/cmplx.h"
#include "ducc0/math/unity_roots.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {
namespace rader {

inline std::uint64_t power_mod(std::uint64_t base, std::uint64_t exponent, std::uint64_t p) {
  std::uint64_t result = 1;
  for (base %= p; exponent; exponent >>= 1, base = base * base % p)
    if (exponent & 1) result = result * base % p;
  return result;
}

// The smallest generator of the multiplicative group mod the prime p.
inline std::uint64_t generator(std::uint64_t p) {
  const auto factors = prime_lengths::prime_factors(p - 1);
  for (std::uint64_t g = 2;; ++g) {
    bool generates = true;
    for (std::uint64_t f : factors) generates = generates && power_mod(g, (p - 1) / f, p) != 1;
    if (generates) return g;
  }
}

// w^e for each exponent e (< p), w = exp(-2 pi i / p), in double. pocketfft's
// roots of unity fold every angle into the first octant before its sine and
// cosine, so they are as accurate on every platform. Angles in `long double`
// were not: it is double on Apple's arm64, where they erred 4x more, and
// binary128 done in software on arm64 Linux, where they were slow.
inline std::vector<::DUCC0_NAMESPACE::Cmplx<double>> roots_at(
    std::uint64_t p, const std::vector<std::uint32_t>& exponents) {
  const ::DUCC0_NAMESPACE::UnityRoots<double, ::DUCC0_NAMESPACE::Cmplx<double>> roots(p);
  std::vector<::DUCC0_NAMESPACE::Cmplx<double>> w(exponents.size());
  for (std::size_t k = 0; k < exponents.size(); ++k) w[k] = roots[exponents[k]].conj();
  return w;
}

}  // namespace rader
}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
