// The number theory of Rader's algorithm (rader_rules.h): which primes take
// it, their generators, and the accuracy of its roots of unity.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "cpu/rader_rules.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::JAX_APPLE_FFT_SIMD;  // the kernel header tested directly
using test_support::expect;

namespace {

void test_rader_rules() {
  expect(prime_lengths::takes_rader(113) && prime_lengths::takes_rader(257) && prime_lengths::takes_rader(65537),
         "Rader for primes with smooth p - 1");
  expect(!prime_lengths::takes_rader(1031), "1031 - 1 = 2 * 5 * 103: Bluestein");
  expect(!prime_lengths::takes_rader(65536) && !prime_lengths::takes_rader(97), "composite, or below the minimum");
  for (std::uint64_t p : {113u, 257u, 7681u, 65537u}) {
    // A generator's powers reach every non-zero residue once.
    const std::uint64_t g = rader::generator(p);
    std::vector<bool> seen(p, false);
    std::uint64_t x = 1;
    for (std::uint64_t q = 0; q + 1 < p; ++q, x = x * g % p) seen[x] = true;
    bool all = x == 1;
    for (std::uint64_t r = 1; r < p; ++r) all = all && seen[r];
    expect(all, "generator of " + std::to_string(p));
  }
#if LDBL_MANT_DIG > DBL_MANT_DIG
  // The kernel's roots are within 2 ulp of exp(-2 pi i e / p) on every
  // platform; checked against long double where it is wider than double.
  const std::uint64_t p = 65537;
  std::vector<std::uint32_t> exponents(p);
  std::iota(exponents.begin(), exponents.end(), 0u);
  const auto roots = rader::roots_at(p, exponents);
  const long double pi = 3.141592653589793238462643383279502884L;
  long double worst = 0;
  for (std::uint64_t e = 0; e < p; ++e) {
    const long double angle = -2 * pi * e / p;
    worst = std::max(worst, std::hypot(roots[e].r - std::cos(angle), roots[e].i - std::sin(angle)));
  }
  expect(worst < 2 * DBL_EPSILON, "roots of unity for Rader's kernel, error " +
                                      std::to_string(double(worst / DBL_EPSILON)) + " ulp");
#endif
}

const test_support::Suite kSuite("rader", {
    TEST_CASE(test_rader_rules),
});

}  // namespace
