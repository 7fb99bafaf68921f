// Long lines as two passes of short ones (four_step.h), against sums in
// closed form.
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_transform.h"
#include "cpu_reference.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::cpu_reference;
using test_support::expect;

namespace {

// Long lines go through the two-pass (four-step) path; a naive DFT of them
// would take minutes under the sanitizers, so the input is sparse and each
// output is the closed-form sum over its few impulses.
template <class T>
double long_line_error(std::int64_t lines, std::int64_t n, bool forward, PlanCache& cache) {
  std::mt19937 rng(static_cast<std::uint32_t>(n));
  std::uniform_int_distribution<std::int64_t> position(0, n - 1);
  std::normal_distribution<double> normal;
  struct Impulse { std::int64_t line, at; cd value; };
  std::vector<Impulse> impulses;
  std::vector<T> in(2 * lines * n, T(0)), out(2 * lines * n);
  for (std::int64_t line = 0; line < lines; ++line)
    for (int i = 0; i < 5; ++i) {
      const Impulse p{line, position(rng), cd(normal(rng), normal(rng))};
      if (in[2 * (line * n + p.at)] != T(0)) continue;
      const T re = static_cast<T>(p.value.real()), im = static_cast<T>(p.value.imag());
      in[2 * (line * n + p.at)] = re;
      in[2 * (line * n + p.at) + 1] = im;
      impulses.push_back({line, p.at, cd(re, im)});
    }
  const auto spec = make_spec(TransformKind::kC2C, forward,
                              sizeof(T) == 4 ? Precision::kSingle : Precision::kDouble,
                              {lines, n}, {1}, 0, 1.0);
  CpuTransform::prepare(spec, cache)->execute(in.data(), out.data(), cache);
  const std::vector<cd> roots = roots_of_unity(n, forward);
  double err = 0, norm = 0;
  for (std::int64_t line = 0; line < lines; ++line)
    for (std::int64_t k = 0; k < n; ++k) {
      cd want = 0;
      for (const Impulse& p : impulses)
        if (p.line == line) want += p.value * roots[p.at * k % n];
      const cd got(out[2 * (line * n + k)], out[2 * (line * n + k) + 1]);
      err += std::norm(got - want);
      norm += std::norm(want);
    }
  return std::sqrt(err / norm);
}

void test_long_lines() {
  PlanCache cache(CacheLimits{64, std::size_t(1) << 28, 2});
  // 2^16 = 256 x 256; 69683 = 17 x 4099 (a prime: Bluestein rows); 65537
  // (a prime: Rader's algorithm, two transforms of 2^16); 32771 and 65539
  // (primes: Bluestein's passes, bluestein.h, over 65610 and 131220 points).
  for (std::int64_t n : {std::int64_t(1) << 16, std::int64_t(69683), std::int64_t(65537),
                         std::int64_t(32771), std::int64_t(65539)})
    for (bool forward : {true, false})
      expect(long_line_error<double>(2, n, forward, cache) < error_bound<double>(n),
             "double long line " + std::to_string(n));
  expect(long_line_error<float>(3, std::int64_t(1) << 17, true, cache) < error_bound<float>(1 << 17),
         "float long line 2^17");
  expect(long_line_error<float>(3, std::int64_t(1) << 16, false, cache) < error_bound<float>(1 << 16),
         "float long line 2^16");
  // The column pass reads its twiddles from a table of up to 1 MiB (2^17
  // splits 256 x 512); double lines of 2^17 and more form them as used.
  for (bool forward : {true, false}) {
    expect(long_line_error<float>(4, std::int64_t(1) << 17, forward, cache) <
               error_bound<float>(1 << 17),
           "float long lines 2^17, twiddle table");
    expect(long_line_error<double>(5, std::int64_t(1) << 16, forward, cache) <
               error_bound<double>(1 << 16),
           "double long lines 2^16, twiddle table");
  }
  expect(long_line_error<double>(2, std::int64_t(1) << 17, true, cache) < error_bound<double>(1 << 17),
         "double long lines 2^17, twiddles formed as used");
  expect(long_line_error<float>(9, 65537, false, cache) < error_bound<float>(65537), "float long line 65537");
  expect(long_line_error<float>(5, 69001, true, cache) < error_bound<float>(69001), "float long line 69001");
}

const test_support::Suite kSuite("four_step", {
    TEST_CASE(test_long_lines),
});

}  // namespace
