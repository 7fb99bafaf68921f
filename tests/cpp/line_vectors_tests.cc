// Short lines each held in its own SIMD vectors (line_vectors.h) against a
// DFT in double: every length, both signs, a scale, 2 and 4 complex values
// per vector, out of place and in place; non-finite lines refused untouched.
#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "accuracy.h"
#include "cpu/line_vectors.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::JAX_APPLE_FFT_SIMD;  // the kernel header tested directly
using test_support::expect;

namespace {

using cd = std::complex<double>;
using ::DUCC0_NAMESPACE::Cmplx;

std::vector<cd> dft(const std::vector<cd>& x, bool forward, double scale) {
  const std::size_t n = x.size();
  const double sign = forward ? -1.0 : 1.0;
  std::vector<cd> y(n);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j)
      y[k] += x[j] * std::polar(scale, sign * 2 * M_PI * double(j * k % n) / double(n));
  return y;
}

template <class T, std::size_t c>
void check_length(std::size_t n, bool forward, T scale, bool in_place, std::mt19937& random) {
  std::normal_distribution<double> normal;
  std::vector<cd> line(n);
  std::vector<Cmplx<T>> in(n), out(n);
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = Cmplx<T>(static_cast<T>(normal(random)), static_cast<T>(normal(random)));
    line[i] = cd(in[i].r, in[i].i);
  }
  const line_vectors::Plan<T, c> plan(n);
  Cmplx<T>* to = in_place ? in.data() : out.data();
  bool done = false;
  plan.with_kernel(forward, [&](auto kernel) { done = kernel(in.data(), to, scale); });
  expect(done, "finite line transformed");
  std::vector<cd> got(n);
  for (std::size_t i = 0; i < n; ++i) got[i] = cd(to[i].r, to[i].i);
  const double error = test_support::relative_error(got, dft(line, forward, scale));
  expect(error < test_support::error_bound<T>(static_cast<std::int64_t>(n)),
         "n " + std::to_string(n) + " c " + std::to_string(c) + (forward ? " forward" : " inverse") +
             (in_place ? " in place" : "") + ": error " + std::to_string(error));
}

template <class T, std::size_t c>
void check_every_length() {
  std::mt19937 random(11);
  using Plan = line_vectors::Plan<T, c>;
  expect(!Plan::applies(c * c / 2) && !Plan::applies(2 * line_vectors::kMaxLength),
         "not below c * c points or above kMaxLength");
  for (std::size_t n = c * c + 1; n < 2 * c * c; ++n)
    expect(!Plan::applies(n) && !Plan::applies(3 * n), "not " + std::to_string(n) + " points");
  for (std::size_t n = c * c; n <= line_vectors::kMaxLength; n *= 2) {
    expect(Plan::applies(n), "applies to " + std::to_string(n));
    for (bool forward : {true, false})
      for (T scale : {T(1), T(1) / static_cast<T>(n)})
        for (bool in_place : {false, true}) check_length<T, c>(n, forward, scale, in_place, random);
  }
}

void test_line_vectors_match_the_dft() {
  check_every_length<float, 2>();
  check_every_length<float, 4>();
  check_every_length<double, 2>();
  check_every_length<double, 4>();
}

// A line holding an infinity or NaN anywhere is left as it is, for pocketfft.
void test_line_vectors_refuse_non_finite_lines() {
  const std::size_t n = 16;
  const line_vectors::Plan<float, 4> plan(n);
  for (float bad : {HUGE_VALF, -HUGE_VALF, std::nanf("")})
    for (std::size_t at = 0; at < 2 * n; ++at) {
      std::vector<Cmplx<float>> in(n, Cmplx<float>(0.5f, -1.0f)), out(n, Cmplx<float>(7.f, 7.f));
      (at % 2 ? in[at / 2].i : in[at / 2].r) = bad;
      bool done = true;
      plan.with_kernel(true, [&](auto kernel) { done = kernel(in.data(), out.data(), 1.f); });
      expect(!done, "a non-finite value at " + std::to_string(at) + " refused");
      for (const auto& v : out) expect(v.r == 7.f && v.i == 7.f, "nothing written");
    }
  // Infinities of both signs, whose sum is NaN; and a value in every lane.
  std::vector<Cmplx<float>> in(n, Cmplx<float>(0.5f, -1.0f)), out(n);
  in[3].r = HUGE_VALF;
  in[6].r = -HUGE_VALF;
  bool done = true;
  plan.with_kernel(false, [&](auto kernel) { done = kernel(in.data(), out.data(), 1.f); });
  expect(!done, "+inf and -inf refused");
}

const test_support::Suite kSuite("line_vectors", {
    TEST_CASE(test_line_vectors_match_the_dft),
    TEST_CASE(test_line_vectors_refuse_non_finite_lines),
});

}  // namespace
