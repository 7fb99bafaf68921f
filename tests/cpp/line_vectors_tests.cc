// Short lines each held in its own SIMD vectors (line_vectors.h) against a
// DFT in double: every length, complex and real, both signs, a scale, 2 and 4
// complex values per vector, out of place and in place; non-finite lines
// refused untouched.
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
using test_support::reference_dft;

namespace {

using cd = std::complex<double>;
using ::DUCC0_NAMESPACE::Cmplx;

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
  const double error = test_support::relative_error(got, reference_dft(line, forward, scale));
  expect(error < test_support::error_bound<T>(static_cast<std::int64_t>(n)),
         "n " + std::to_string(n) + " c " + std::to_string(c) +
             (forward ? " forward" : " inverse") +
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

// Real lines: the h + 1 outputs against the DFT's first h + 1, conjugated
// for the inverse sign.
template <class T, std::size_t c>
void check_real_length(std::size_t n, bool forward, T scale, std::mt19937& random) {
  std::normal_distribution<double> normal;
  std::vector<T> in(n);
  std::vector<cd> line(n);
  for (std::size_t i = 0; i < n; ++i) line[i] = in[i] = static_cast<T>(normal(random));
  std::vector<Cmplx<T>> out(n / 2 + 1, Cmplx<T>(T(7), T(7)));
  const line_vectors::RealPlan<T, c> plan(n);
  bool done = false;
  plan.with_kernel(forward, [&](auto kernel) { done = kernel(in.data(), out.data(), scale); });
  expect(done, "finite real line transformed");
  std::vector<cd> want = reference_dft(line, forward, scale), got;
  want.resize(n / 2 + 1);
  for (const auto& v : out) got.emplace_back(v.r, v.i);
  const double error = test_support::relative_error(got, want);
  expect(error < test_support::error_bound<T>(static_cast<std::int64_t>(n)),
         "real n " + std::to_string(n) + " c " + std::to_string(c) +
             (forward ? " forward" : " inverse") + ": error " + std::to_string(error));
  expect(out[0].i == T(0) && out[n / 2].i == T(0), "outputs 0 and n / 2 real");
}

// Complex-to-real lines: bins 0 .. h (with imaginary parts at 0 and h, to be
// ignored) against the DFT of the Hermitian spectrum they stand for; the
// forward sign is the DFT's forward sign.
template <class T, std::size_t c, class Lines>
void check_complex_to_real(const Lines& plan, std::size_t n, bool forward, T scale,
                           std::mt19937& random) {
  std::normal_distribution<double> normal;
  const std::size_t h = n / 2;
  std::vector<Cmplx<T>> in(h + 1);
  std::vector<cd> spectrum(n);
  for (std::size_t k = 0; k <= h; ++k) {
    in[k] = Cmplx<T>(static_cast<T>(normal(random)), static_cast<T>(normal(random)));
    const cd bin(in[k].r, k == 0 || k == h ? 0.0 : double(in[k].i));
    spectrum[k] = bin;
    if (k > 0 && k < h) spectrum[n - k] = std::conj(bin);
  }
  const std::vector<Cmplx<T>> given = in;
  std::vector<T> out(n, T(7));
  bool done = false;
  plan.with_complex_to_real_kernel(forward,
                                   [&](auto kernel) { done = kernel(in.data(), out.data(), scale); });
  expect(done, "finite bins transformed");
  std::vector<cd> want = reference_dft(spectrum, forward, scale), got;
  for (std::size_t i = 0; i < n; ++i) {
    got.emplace_back(out[i], 0.0);
    want[i] = cd(want[i].real(), 0.0);
  }
  const double error = test_support::relative_error(got, want);
  expect(error < test_support::error_bound<T>(static_cast<std::int64_t>(n)),
         "complex to real n " + std::to_string(n) + " c " + std::to_string(c) +
             (forward ? " forward" : " inverse") + ": error " + std::to_string(error));
  for (std::size_t k = 0; k <= h; ++k)
    expect(in[k].r == given[k].r && in[k].i == given[k].i, "bins left as they were");
}

template <class T, std::size_t c>
void check_every_real_length() {
  std::mt19937 random(13);
  using Plan = line_vectors::RealPlan<T, c>;
  expect(!Plan::applies(2 * c * c - 2) && !Plan::applies(2 * c * c + 2) &&
             !Plan::applies(4 * line_vectors::kMaxLength),
         "real lines of twice the complex lengths only");
  for (std::size_t n = 2 * c * c; n <= 2 * line_vectors::kMaxLength; n *= 2) {
    expect(Plan::applies(n), "applies to real " + std::to_string(n));
    for (bool forward : {true, false})
      for (T scale : {T(1), T(1) / static_cast<T>(n)}) {
        check_real_length<T, c>(n, forward, scale, random);
        check_complex_to_real<T, c>(Plan(n), n, forward, scale, random);
      }
  }
}

void test_line_vectors_match_the_dft() {
  check_every_real_length<float, 2>();
  check_every_real_length<float, 4>();
  check_every_real_length<double, 2>();
  check_every_real_length<double, 4>();
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
  // A real line with a NaN anywhere.
  const line_vectors::RealPlan<float, 4> real_plan(2 * n);
  for (std::size_t at = 0; at < 2 * n; ++at) {
    std::vector<float> values(2 * n, 0.25f);
    values[at] = std::nanf("");
    std::vector<Cmplx<float>> spectrum(n + 1, Cmplx<float>(7.f, 7.f));
    done = true;
    real_plan.with_kernel(true,
                          [&](auto kernel) { done = kernel(values.data(), spectrum.data(), 1.f); });
    expect(!done, "real line with a NaN at " + std::to_string(at) + " refused");
    for (const auto& v : spectrum) expect(v.r == 7.f && v.i == 7.f, "nothing written");
  }
  // Bins with an infinity or NaN anywhere but the ignored imaginary parts of
  // bins 0 and n (and both infinities at once, in two bins).
  for (float bad : {HUGE_VALF, -HUGE_VALF, std::nanf("")})
    for (std::size_t at = 0; at < 2 * (n + 1); ++at) {
      if (at == 1 || at == 2 * n + 1) continue;
      std::vector<Cmplx<float>> bins(n + 1, Cmplx<float>(0.5f, -1.0f));
      (at % 2 ? bins[at / 2].i : bins[at / 2].r) = bad;
      if (bad != bad) bins[(at / 2 + 5) % (n + 1)].r = HUGE_VALF;  // with an infinity too
      std::vector<float> values(2 * n, 7.f);
      done = true;
      real_plan.with_complex_to_real_kernel(
          false, [&](auto kernel) { done = kernel(bins.data(), values.data(), 1.f); });
      expect(!done, "bins with a non-finite value at " + std::to_string(at) + " refused");
      for (float v : values) expect(v == 7.f, "nothing written");
    }
}

// At 4 complex values per vector, lines too short for a 4 x 4 block take
// vectors of 2: every power of two from 4 complex and 8 real points.
void test_widest_plans_cover_the_short_lengths() {
  using Complex = line_vectors::Widest<float, line_vectors::Plan, 4>;
  using Real = line_vectors::Widest<float, line_vectors::RealPlan, 4>;
  expect(!Complex::applies(2) && !Real::applies(4), "not below 2 x 2 points");
  std::mt19937 random(17);
  std::normal_distribution<double> normal;
  for (std::size_t n = 4; n <= line_vectors::kMaxLength; n *= 2) {
    expect(Complex::applies(n) && Real::applies(2 * n), "applies to " + std::to_string(n));
    std::vector<Cmplx<float>> in(n), out(n + 1);
    std::vector<float> real(2 * n);
    std::vector<cd> line(n), real_line(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = Cmplx<float>(float(normal(random)), float(normal(random)));
      line[i] = cd(in[i].r, in[i].i);
    }
    for (std::size_t i = 0; i < 2 * n; ++i) real_line[i] = real[i] = float(normal(random));
    bool done = false;
    Complex(n).with_kernel(true, [&](auto kernel) { done = kernel(in.data(), out.data(), 1.f); });
    std::vector<cd> got(n);
    for (std::size_t i = 0; i < n; ++i) got[i] = cd(out[i].r, out[i].i);
    expect(done && test_support::relative_error(got, reference_dft(line, true, 1.0)) <
                       test_support::error_bound<float>(static_cast<std::int64_t>(n)),
           "complex " + std::to_string(n));
    Real(2 * n).with_kernel(true,
                            [&](auto kernel) { done = kernel(real.data(), out.data(), 1.f); });
    std::vector<cd> want = reference_dft(real_line, true, 1.0);
    want.resize(n + 1);
    got.clear();
    for (std::size_t i = 0; i <= n; ++i) got.emplace_back(out[i].r, out[i].i);
    expect(done && test_support::relative_error(got, want) <
                       test_support::error_bound<float>(static_cast<std::int64_t>(2 * n)),
           "real " + std::to_string(2 * n));
    for (bool forward : {true, false})
      check_complex_to_real<float, 4>(Real(2 * n), 2 * n, forward, 1.f, random);
  }
}

const test_support::Suite kSuite("line_vectors", {
    TEST_CASE(test_widest_plans_cover_the_short_lengths),
    TEST_CASE(test_line_vectors_match_the_dft),
    TEST_CASE(test_line_vectors_refuse_non_finite_lines),
});

}  // namespace
