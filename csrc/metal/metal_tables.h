// Twiddle and chirp tables, computed in double and rounded once to float.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace jax_apple_fft::metal_tables {

// e^{-2 pi i k / n} for k in [first, first + count) stepping by `step`.
std::vector<std::complex<double>> roots(std::uint64_t n, std::uint64_t count,
                                        std::uint64_t step = 1);

// Bluestein chirp e^{sign * pi i j^2 / n}, j in [0, n); sign = -1 forward, +1 inverse.
std::vector<std::complex<double>> chirp(std::uint64_t n, int sign);

// FFT_m of the conjugated chirp wrapped circularly to length m (>= 2n - 1,
// with no prime factor above 7), divided by m: the spectrum the Bluestein convolution multiplies by.
std::vector<std::complex<double>> bluestein_spectrum(const std::vector<std::complex<double>>& chirp,
                                                     std::uint64_t m);

// b^e mod n, n < 2^32.
std::uint64_t power_mod(std::uint64_t b, std::uint64_t e, std::uint64_t n);

// Rader's index table for a prime n (at most 2^24) and primitive root g:
// entry q < n - 1 is g^q mod n (or g^-q mod n, `inverse`) as its real part,
// exact in float.
std::vector<std::complex<double>> rader_indices(std::uint64_t n, std::uint64_t g, bool inverse);

// Where Rader's convolution leaves each bin (fft_permute's table): entry k
// of n is q for k = g^-q mod n, and n - 1 for bin 0, kept after the others.
std::vector<std::complex<double>> rader_sources(std::uint64_t n, std::uint64_t g);

// FFT_{n-1} of b[q] = e^{sign 2 pi i (g^-q mod n) / n}, divided by n - 1: the
// spectrum Rader's convolution multiplies by; sign = -1 forward, +1 inverse.
std::vector<std::complex<double>> rader_spectrum(std::uint64_t n, std::uint64_t g, int sign);

}  // namespace jax_apple_fft::metal_tables
