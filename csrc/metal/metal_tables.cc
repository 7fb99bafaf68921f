#include "metal/metal_tables.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace jax_apple_fft::metal_tables {
namespace {

// e^{-2 pi i num / den} with the angle reduced exactly first.
std::complex<double> unit_root(std::uint64_t num, std::uint64_t den) {
  num %= den;
  double angle = -2.0 * std::numbers::pi * static_cast<double>(num) / static_cast<double>(den);
  return {std::cos(angle), std::sin(angle)};
}

// Forward DFT of a 7-smooth length in double: decimation in time, one prime
// factor per level (m = p * q: p interleaved sub-sequences of length q).
// `roots` holds e^{-2 pi i k / M} for the top-level length M, a multiple of m.
std::vector<std::complex<double>> smooth_dft(const std::vector<std::complex<double>>& a,
                                             const std::vector<std::complex<double>>& roots) {
  const std::uint64_t m = a.size();
  if (m == 1) return a;
  std::uint64_t p = 2;
  while (m % p != 0) ++p;
  const std::uint64_t q = m / p;
  const std::uint64_t step = roots.size() / m;
  std::vector<std::vector<std::complex<double>>> parts(p);
  for (std::uint64_t r = 0; r < p; ++r) {
    std::vector<std::complex<double>> sub(q);
    for (std::uint64_t j = 0; j < q; ++j) sub[j] = a[j * p + r];
    parts[r] = smooth_dft(sub, roots);
  }
  std::vector<std::complex<double>> out(m);
  for (std::uint64_t k = 0; k < m; ++k) {
    std::complex<double> sum = parts[0][k % q];
    for (std::uint64_t r = 1; r < p; ++r) sum += parts[r][k % q] * roots[(r * k % m) * step];
    out[k] = sum;
  }
  return out;
}

}  // namespace

std::uint64_t power_mod(std::uint64_t b, std::uint64_t e, std::uint64_t n) {
  std::uint64_t result = 1;
  for (b %= n; e > 0; e >>= 1, b = b * b % n) {
    if (e & 1) result = result * b % n;
  }
  return result;
}

std::vector<std::complex<double>> roots(std::uint64_t n, std::uint64_t count, std::uint64_t step) {
  std::vector<std::complex<double>> table(count);
  for (std::uint64_t k = 0; k < count; ++k) table[k] = unit_root(k * step, n);
  return table;
}

std::vector<std::complex<double>> chirp(std::uint64_t n, int sign) {
  std::vector<std::complex<double>> table(n);
  for (std::uint64_t j = 0; j < n; ++j) {
    // e^{sign pi i j^2 / n} = e^{-2 pi i (-sign j^2) / 2n}; reduce j^2 mod 2n exactly.
    std::uint64_t e = (j * j) % (2 * n);
    std::complex<double> w = unit_root(e, 2 * n);
    table[j] = sign < 0 ? w : std::conj(w);
  }
  return table;
}

std::vector<std::complex<double>> bluestein_spectrum(const std::vector<std::complex<double>>& chirp,
                                                     std::uint64_t m) {
  std::vector<std::complex<double>> b(m);
  const std::uint64_t n = chirp.size();
  for (std::uint64_t j = 0; j < n; ++j) {
    b[j] = std::conj(chirp[j]);
    if (j > 0) b[m - j] = std::conj(chirp[j]);
  }
  b = smooth_dft(b, roots(m, m));
  for (auto& v : b) v /= static_cast<double>(m);
  return b;
}

std::vector<std::complex<double>> rader_indices(std::uint64_t n, std::uint64_t g, bool inverse) {
  const std::uint64_t step = inverse ? power_mod(g, n - 2, n) : g;  // g^-1 = g^(n-2)
  std::vector<std::complex<double>> table(n - 1);
  std::uint64_t index = 1;
  for (auto& entry : table) {
    entry = static_cast<double>(index);
    index = index * step % n;
  }
  return table;
}

std::vector<std::complex<double>> rader_sources(std::uint64_t n, std::uint64_t g) {
  const std::vector<std::complex<double>> bins = rader_indices(n, g, true);
  std::vector<std::complex<double>> table(n);
  table[0] = static_cast<double>(n - 1);
  for (std::uint64_t q = 0; q + 1 < n; ++q) {
    table[static_cast<std::uint64_t>(bins[q].real())] = static_cast<double>(q);
  }
  return table;
}

std::vector<std::complex<double>> rader_spectrum(std::uint64_t n, std::uint64_t g, int sign) {
  const std::vector<std::complex<double>> exponents = rader_indices(n, g, true);
  std::vector<std::complex<double>> b(n - 1);
  for (std::uint64_t q = 0; q + 1 < n; ++q) {
    std::complex<double> w = unit_root(static_cast<std::uint64_t>(exponents[q].real()), n);
    b[q] = sign < 0 ? w : std::conj(w);
  }
  b = smooth_dft(b, roots(n - 1, n - 1));
  for (auto& v : b) v /= static_cast<double>(n - 1);
  return b;
}

}  // namespace jax_apple_fft::metal_tables
