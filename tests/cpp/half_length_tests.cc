// Long real lines at half length (half_length.h), against sums in closed
// form and back.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_transform.h"
#include "cpu_reference.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::cpu_reference;
using test_support::expect;

namespace {

// One long real line on more threads than lines takes the half-length path
// (a complex four-step line between a pack or unpack). Sparse input, bins in
// closed form, then C2R back to the input; both signs.
template <class T>
double half_length_error(std::int64_t n, bool forward, PlanCache& cache) {
  const Precision precision = sizeof(T) == 4 ? Precision::kSingle : Precision::kDouble;
  std::vector<T> x(n, T(0));
  const std::int64_t at[] = {0, 1, 7, n / 2 + 3, n - 1};
  for (std::size_t i = 0; i < 5; ++i) x[at[i]] = static_cast<T>(1.0 + 0.25 * double(i));
  const auto r2c = make_spec(TransformKind::kR2C, forward, precision, {1, n}, {1}, n, 1.0);
  std::vector<T> bins(2 * (n / 2 + 1));
  CpuTransform::prepare(r2c, cache)->execute(x.data(), bins.data(), cache);
  const std::vector<cd> roots = roots_of_unity(n, forward);
  double err = 0, norm = 0;
  for (std::int64_t k = 0; k <= n / 2; ++k) {
    cd want = 0;
    for (std::int64_t j : at) want += double(x[j]) * roots[j * k % n];
    err += std::norm(cd(bins[2 * k], bins[2 * k + 1]) - want);
    norm += std::norm(want);
  }
  // The inverse of the same sign's transform: C2R with the other sign, 1/n.
  auto c2r = make_spec(TransformKind::kC2R, !forward, precision, {1, n / 2 + 1}, {1}, n,
                       1.0 / double(n));
  std::vector<T> back(n);
  CpuTransform::prepare(c2r, cache)->execute(bins.data(), back.data(), cache);
  for (std::int64_t j = 0; j < n; ++j) {
    err += (double(back[j]) - double(x[j])) * (double(back[j]) - double(x[j]));
    norm += double(x[j]) * double(x[j]);
  }
  return std::sqrt(err / norm);
}

void test_long_real_lines_at_half_length() {
  PlanCache cache(CacheLimits{64, std::size_t(1) << 28, 4});
  for (bool forward : {true, false}) {
    expect(half_length_error<double>(std::int64_t(1) << 17, forward, cache) < error_bound<double>(1 << 17),
           "double real line 2^17 at half length");
    expect(half_length_error<float>(std::int64_t(1) << 17, forward, cache) < error_bound<float>(1 << 17),
           "float real line 2^17 at half length");
  }
}

const test_support::Suite kSuite("half_length", {
    TEST_CASE(test_long_real_lines_at_half_length),
});

}  // namespace
