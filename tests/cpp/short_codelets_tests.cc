// The written-out transforms of short power-of-two lengths (short_codelets.h)
// against a DFT in double: every length, both signs, a scale, single values
// and SIMD groups whose lanes hold different lines.
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

namespace {

using cd = std::complex<double>;

std::vector<cd> dft(const std::vector<cd>& x, bool forward, double scale) {
  const std::size_t n = x.size();
  const double sign = forward ? -1.0 : 1.0;
  std::vector<cd> y(n);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j)
      y[k] += x[j] * std::polar(scale, sign * 2 * M_PI * double(j * k % n) / double(n));
  return y;
}

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
    const double error = test_support::relative_error(got, dft(lines[j], forward, scale));
    expect(error < test_support::error_bound<T>(static_cast<std::int64_t>(n)),
           "n " + std::to_string(n) + (forward ? " forward" : " inverse") + " lanes " +
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
}

const test_support::Suite kSuite("short_codelets", {
    TEST_CASE(test_short_codelets_match_the_dft),
    TEST_CASE(test_short_codelets_apply_to_powers_of_two_only),
});

}  // namespace
