// Which line lengths are primes, and which of those the CPU backend runs
// through Rader's algorithm (rader.h) or its own Bluestein passes
// (bluestein.h) rather than pocketfft's line plans. Plain integer rules,
// shared by the planner and the line plans.
#pragma once

#include <cstdint>
#include <vector>

namespace jax_apple_fft::prime_lengths {

// Rader's algorithm: primes from here (below, pocketfft's own pass for a
// prime factor is a direct sum) whose p - 1 factors into 2, 3, 5, 7 and 11,
// with 32-bit index tables.
constexpr std::uint64_t kRaderMinLength = 110;
constexpr std::uint64_t kRaderMaxLength = std::uint64_t(1) << 32;
constexpr std::uint64_t kRaderLargestFactor = 11;
// Bluestein's passes: the other primes from here, whose convolution length
// (2p - 1 or more) is a four-step length, so that it spreads over threads.
constexpr std::uint64_t kBluesteinMinLength = (std::uint64_t(1) << 15) + 1;

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

inline bool takes_rader(std::uint64_t n) {
  if (n < kRaderMinLength || n >= kRaderMaxLength || !is_prime(n)) return false;
  for (std::uint64_t f : prime_factors(n - 1))
    if (f > kRaderLargestFactor) return false;
  return true;
}

inline bool takes_bluestein(std::uint64_t n) {
  return n >= kBluesteinMinLength && is_prime(n) && !takes_rader(n);
}

// Bluestein's convolution length for n: the least 2^a 3^b 5^c of at least
// 2n - 1.
inline std::uint64_t bluestein_length(std::uint64_t n) {
  const std::uint64_t least = 2 * n - 1;
  std::uint64_t best = std::uint64_t(1) << 63;
  for (std::uint64_t f5 = 1; f5 < best; f5 *= 5)
    for (std::uint64_t f35 = f5; f35 < best; f35 *= 3) {
      std::uint64_t m = f35;
      while (m < least) m *= 2;
      if (m < best) best = m;
    }
  return best;
}

}  // namespace jax_apple_fft::prime_lengths
