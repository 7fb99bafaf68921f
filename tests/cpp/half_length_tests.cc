// Long real lines at half length (half_length.h), against sums in closed
// form and back; the unpack and pack passes alone, against their formulas in
// double, for every pair range.
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_transform.h"
#include "cpu/half_length.h"
#include "cpu_reference.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::cpu_reference;
namespace kernels = jax_apple_fft::JAX_APPLE_FFT_SIMD;  // the kernel header tested directly
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

using ::DUCC0_NAMESPACE::Cmplx;

// w^k = exp(-2 pi i k / n) in double.
cd root(std::int64_t k, std::int64_t n) {
  const double angle = -2 * M_PI * double(k) / double(n);
  return {std::cos(angle), std::sin(angle)};
}

// The largest error of unpack_half_length and pack_half_length on one line
// of h random values split into `chunks` pair ranges, `width` complex values
// per vector, relative to the largest output, against the formulas of
// half_length.h in double; the unpack in place, or from a copy of the values
// into a line of other values.
template <class T, std::size_t width>
double pair_pass_error(std::int64_t h, std::int64_t chunks, bool forward, bool in_place,
                       std::mt19937& random) {
  using kernels::HalfLengthTwiddles;
  std::normal_distribution<double> normal;
  const HalfLengthTwiddles<T> twiddles(2 * h);
  const Cmplx<T>* w = twiddles.values.data();
  std::vector<Cmplx<T>> line(h + 1), bins(h + 1), z(h);
  for (auto& v : line) v = Cmplx<T>(T(normal(random)), T(normal(random)));
  for (auto& v : bins) v = Cmplx<T>(T(normal(random)), T(normal(random)));
  const std::vector<Cmplx<T>> zs(line.begin(), line.end());
  if (!in_place)
    for (auto& v : line) v = Cmplx<T>(T(normal(random)), T(normal(random)));
  const T fct = T(0.75);
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    kernels::unpack_half_length<T, width>(in_place ? line.data() : zs.data(), line.data(), h, w,
                                          kernels::pair_range(h, chunks, chunk), fct, forward);
    kernels::pack_half_length<T, width>(bins.data(), z.data(), h, w,
                                 kernels::pair_range(h, chunks, chunk), forward);
  }
  auto as_cd = [](Cmplx<T> v) { return cd(double(v.r), double(v.i)); };
  auto at = [&](const std::vector<Cmplx<T>>& v, std::int64_t k) { return as_cd(v[k % h]); };
  double err = 0, largest = 0;
  const cd i(0, 1);
  for (std::int64_t k = 0; k <= h; ++k) {
    // R2C bins from Z (Z[h] = Z[0]), conjugated for the inverse sign.
    const cd a = at(zs, k), b = std::conj(at(zs, h - k));
    cd x = double(fct) * ((a + b) / 2.0 - i * root(k, 2 * h) * (a - b) / 2.0);
    if (!forward) x = std::conj(x);
    err = std::max(err, std::abs(as_cd(line[k]) - x));
    largest = std::max(largest, std::abs(x));
  }
  auto bin = [&](std::int64_t k) {
    cd v = as_cd(bins[k]);
    if (k == 0 || k == h) v.imag(0);
    return forward ? std::conj(v) : v;
  };
  for (std::int64_t k = 0; k < h; ++k) {
    const cd a = bin(k), c = std::conj(bin(h - k));
    const cd want = (a + c) + i * std::conj(root(k, 2 * h)) * (a - c);
    err = std::max(err, std::abs(as_cd(z[k]) - want));
    largest = std::max(largest, std::abs(want));
  }
  return err / largest;
}

template <class T>
void check_widths(std::int64_t h, std::int64_t chunks, bool forward, std::mt19937& random,
                  double bound, const std::string& what) {
  for (bool in_place : {true, false}) {
    const std::string how = in_place ? " in place" : " out of place";
    expect(pair_pass_error<T, 0>(h, chunks, forward, in_place, random) < bound, what + how + " c=0");
    expect(pair_pass_error<T, 2>(h, chunks, forward, in_place, random) < bound, what + how + " c=2");
    expect(pair_pass_error<T, 4>(h, chunks, forward, in_place, random) < bound, what + how + " c=4");
  }
}

// Every h up to 70 (each vector width's head, body, meeting point and tail),
// a few longer, split into 1 to 5 ranges, both signs, one pair at a time and
// 2 and 4 complex values per vector.
void test_pair_passes() {
  std::mt19937 random(7);
  std::vector<std::int64_t> lengths;
  for (std::int64_t h = 1; h <= 70; ++h) lengths.push_back(h);
  for (std::int64_t h : {255, 256, 1000, 4097}) lengths.push_back(h);
  for (std::int64_t h : lengths)
    for (std::int64_t chunks = 1; chunks <= 5; ++chunks)
      for (bool forward : {true, false}) {
        const std::string at = " h=" + std::to_string(h) + " chunks=" + std::to_string(chunks);
        check_widths<float>(h, chunks, forward, random, 1e-6, "float pair passes" + at);
        check_widths<double>(h, chunks, forward, random, 1e-14, "double pair passes" + at);
      }
}

const test_support::Suite kSuite("half_length", {
    TEST_CASE(test_long_real_lines_at_half_length),
    TEST_CASE(test_pair_passes),
});

}  // namespace
