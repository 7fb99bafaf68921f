// The written-out transforms of short power-of-two lengths (short_codelets.h)
// against a DFT in double: every length, complex and real, both signs, a
// scale, single values and SIMD groups whose lanes hold different lines.
#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "accuracy.h"
#include "cpu/short_codelets.h"
#include "ducc0/infra/simd.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::JAX_APPLE_FFT_SIMD;  // the kernel header tested directly
using test_support::expect;
using test_support::reference_dft;

namespace {

using cd = std::complex<double>;

// Lane j of line element i is random, different in every lane.
template <class T, std::size_t lanes>
void check_length(std::size_t n, bool forward, T scale, std::mt19937& random) {
  using V = std::conditional_t<lanes == 1, T, typename ::DUCC0_NAMESPACE::simd_select<T, lanes>::type>;
  using ::DUCC0_NAMESPACE::Cmplx;
  std::normal_distribution<double> normal;
  std::vector<std::vector<cd>> lines(lanes, std::vector<cd>(n));
  std::vector<Cmplx<V>> data(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    T re[lanes], im[lanes];
    for (std::size_t j = 0; j < lanes; ++j) {
      lines[j][i] = cd(static_cast<T>(normal(random)), static_cast<T>(normal(random)));
      re[j] = static_cast<T>(lines[j][i].real());
      im[j] = static_cast<T>(lines[j][i].imag());
    }
    if constexpr (lanes == 1) data[i] = Cmplx<V>(re[0], im[0]);
    else data[i] = Cmplx<V>(V(re, ::DUCC0_NAMESPACE::element_aligned_tag()),
                            V(im, ::DUCC0_NAMESPACE::element_aligned_tag()));
  }
  const short_codelets::Plan<T> plan(n);
  expect(plan.bufsize() == n, "scratch of n values");
  const Cmplx<V>* out = plan.exec(data.data(), data.data() + n, scale, forward);
  for (std::size_t j = 0; j < lanes; ++j) {
    std::vector<cd> got(n);
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (lanes == 1) got[i] = cd(out[i].r, out[i].i);
      else got[i] = cd(out[i].r[j], out[i].i[j]);
    }
    const double error = test_support::relative_error(got, reference_dft(lines[j], forward, scale));
    expect(error < test_support::error_bound<T>(static_cast<std::int64_t>(n)),
           "n " + std::to_string(n) + (forward ? " forward" : " inverse") + " lanes " +
               std::to_string(lanes) + " lane " + std::to_string(j) + ": error " +
               std::to_string(error));
  }
}

// Real lines in pocketfft_r's layouts: forward, n real values to r0, r1, i1,
// ..., rh; backward, that layout of a random spectrum to n real values.
template <class T, std::size_t lanes>
void check_real_length(std::size_t n, bool forward, T scale, std::mt19937& random) {
  using V = std::conditional_t<lanes == 1, T, typename ::DUCC0_NAMESPACE::simd_select<T, lanes>::type>;
  std::normal_distribution<double> normal;
  const short_codelets::RealPlan<T> plan(n);
  std::vector<V> data(n + plan.bufsize());
  std::vector<std::vector<double>> values(lanes, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    T lane_values[lanes];
    for (std::size_t j = 0; j < lanes; ++j)
      lane_values[j] = static_cast<T>(values[j][i] = static_cast<T>(normal(random)));
    if constexpr (lanes == 1) data[i] = lane_values[0];
    else data[i] = V(lane_values, ::DUCC0_NAMESPACE::element_aligned_tag());
  }
  const V* out = plan.exec(data.data(), data.data() + n, scale, forward);
  auto lane = [&](std::size_t i, std::size_t j) -> double {
    if constexpr (lanes == 1) return out[i];
    else return out[i][j];
  };
  const std::size_t h = n / 2;
  for (std::size_t j = 0; j < lanes; ++j) {
    std::vector<cd> got, want;
    if (forward) {
      std::vector<cd> x(values[j].begin(), values[j].end());
      want = reference_dft(x, true, scale);
      want.resize(h + 1);
      got.push_back(lane(0, j));
      for (std::size_t k = 1; k < h; ++k) got.emplace_back(lane(2 * k - 1, j), lane(2 * k, j));
      got.push_back(lane(n - 1, j));
    } else {
      // The spectrum the layout holds, made Hermitian, and its inverse-sign sum.
      std::vector<cd> spectrum(n);
      spectrum[0] = values[j][0];
      spectrum[h] = values[j][n - 1];
      for (std::size_t k = 1; k < h; ++k) {
        spectrum[k] = cd(values[j][2 * k - 1], values[j][2 * k]);
        spectrum[n - k] = std::conj(spectrum[k]);
      }
      want = reference_dft(spectrum, false, scale);
      for (std::size_t i = 0; i < n; ++i) got.push_back(lane(i, j));
    }
    const double error = test_support::relative_error(got, want);
    expect(error < test_support::error_bound<T>(static_cast<std::int64_t>(n)),
           "real n " + std::to_string(n) + (forward ? " forward" : " backward") + " lanes " +
               std::to_string(lanes) + " lane " + std::to_string(j) + ": error " +
               std::to_string(error));
  }
}

template <class T, std::size_t lanes>
void check_every_length() {
  std::mt19937 random(7);
  for (std::size_t n = 2; n <= short_codelets::kMaxLength; n *= 2)
    for (bool forward : {true, false})
      for (T scale : {T(1), T(1) / static_cast<T>(n)}) check_length<T, lanes>(n, forward, scale, random);
  for (std::size_t n = 4; n <= short_codelets::kMaxRealLength; n *= 2)
    for (bool forward : {true, false})
      for (T scale : {T(1), T(1) / static_cast<T>(n)})
        check_real_length<T, lanes>(n, forward, scale, random);
}

void test_short_codelets_match_the_dft() {
  check_every_length<double, 1>();
  check_every_length<float, 1>();
  check_every_length<double, 2>();
  check_every_length<float, 4>();
}

void test_short_codelets_apply_to_powers_of_two_only() {
  for (std::size_t n : {2u, 4u, 8u, 16u, 32u, 64u})
    expect(short_codelets::applies(n), "applies to " + std::to_string(n));
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{12}, std::size_t{48}, 2 * short_codelets::kMaxLength})
    expect(!short_codelets::applies(n), "not to " + std::to_string(n));
  expect(short_codelets::applies_real(4) && short_codelets::applies_real(short_codelets::kMaxRealLength),
         "real lines of 4 .. kMaxRealLength points");
  expect(!short_codelets::applies_real(2) && !short_codelets::applies_real(24) &&
             !short_codelets::applies_real(2 * short_codelets::kMaxRealLength),
         "not real lines of 2, 24 or 2 * kMaxRealLength points");
}

// The check that sends lines with an infinity or NaN to pocketfft.
void test_all_finite_finds_every_non_finite_value() {
  using V = ::DUCC0_NAMESPACE::simd_select<double, 2>::type;
  using ::DUCC0_NAMESPACE::Cmplx;
  for (double bad : {HUGE_VAL, -HUGE_VAL, std::nan("")})
    for (std::size_t at = 0; at < 8; ++at)
      for (std::size_t lane = 0; lane < 2; ++lane) {
        std::vector<Cmplx<V>> line(4, Cmplx<V>(V(1.5), V(-2.0)));
        double re[2] = {1.5, 1.5}, im[2] = {-2.0, -2.0};
        (at % 2 ? im : re)[lane] = bad;
        line[at / 2] = Cmplx<V>(V(re, ::DUCC0_NAMESPACE::element_aligned_tag()),
                                V(im, ::DUCC0_NAMESPACE::element_aligned_tag()));
        expect(!short_codelets::all_finite<double>(line.data(), line.size()),
               "a non-finite value at " + std::to_string(at) + " lane " + std::to_string(lane));
        std::vector<double> scalars(8, 0.25);
        scalars[at] = bad;
        expect(!short_codelets::all_finite<double>(scalars.data(), scalars.size()),
               "a non-finite scalar at " + std::to_string(at));
      }
  const std::vector<double> finite = {0.0, -1e308, 1e308, 5e-324};
  expect(short_codelets::all_finite<double>(finite.data(), finite.size()), "finite extremes");
}

const test_support::Suite kSuite("short_codelets", {
    TEST_CASE(test_all_finite_finds_every_non_finite_value),
    TEST_CASE(test_short_codelets_match_the_dft),
    TEST_CASE(test_short_codelets_apply_to_powers_of_two_only),
});

}  // namespace
