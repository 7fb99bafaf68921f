// Which line lengths take Rader's algorithm (rader.h), and the number
// theory and roots of unity its plans are built from.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/simd_namespace.h"
#include "ducc0/math/cmplx.h"
#include "ducc0/math/unity_roots.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {
namespace rader {

// Below this, pocketfft's own pass for a prime factor is a direct sum.
constexpr std::uint64_t kMinLength = 110;
// Index tables are 32-bit.
constexpr std::uint64_t kMaxLength = std::uint64_t(1) << 32;

inline bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

inline std::vector<std::uint64_t> prime_factors(std::uint64_t n) {
  std::vector<std::uint64_t> factors;
  for (std::uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) {
      factors.push_back(d);
      while (n % d == 0) n /= d;
    }
  if (n > 1) factors.push_back(n);
  return factors;
}

// Whether a line of length n takes Rader's algorithm.
inline bool applies(std::uint64_t n) {
  if (n < kMinLength || n >= kMaxLength || !is_prime(n)) return false;
  for (std::uint64_t f : prime_factors(n - 1))
    if (f > 11) return false;
  return true;
}

inline std::uint64_t power_mod(std::uint64_t base, std::uint64_t exponent, std::uint64_t p) {
  std::uint64_t result = 1;
  for (base %= p; exponent; exponent >>= 1, base = base * base % p)
    if (exponent & 1) result = result * base % p;
  return result;
}

// The smallest generator of the multiplicative group mod the prime p.
inline std::uint64_t generator(std::uint64_t p) {
  const auto factors = prime_factors(p - 1);
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
