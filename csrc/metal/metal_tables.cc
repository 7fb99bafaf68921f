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

// In-place forward radix-2 FFT in double; m is a power of two.
void fft_pow2(std::vector<std::complex<double>>& a) {
  const std::uint64_t m = a.size();
  for (std::uint64_t i = 1, j = 0; i < m; ++i) {
    std::uint64_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const std::vector<std::complex<double>> w = roots(m, m / 2);
  for (std::uint64_t len = 2; len <= m; len <<= 1) {
    const std::uint64_t stride = m / len;
    for (std::uint64_t start = 0; start < m; start += len) {
      for (std::uint64_t k = 0; k < len / 2; ++k) {
        std::complex<double> u = a[start + k];
        std::complex<double> v = a[start + k + len / 2] * w[k * stride];
        a[start + k] = u + v;
        a[start + k + len / 2] = u - v;
      }
    }
  }
}

}  // namespace

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
  fft_pow2(b);
  for (auto& v : b) v /= static_cast<double>(m);
  return b;
}

}  // namespace jax_apple_fft::metal_tables
