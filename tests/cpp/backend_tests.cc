// C++ tests of the CPU backend and the plan cache, built with sanitizers in
// CI (.ci/sanitizers): ASan + UBSan for memory errors, TSan for the
// concurrent paths (scratch lanes, one build per key; the worker pool has
// worker_pool_tests.cc). CI also cross-builds them for arm64 Linux and runs
// them under qemu-user (.ci/arm64), where the whole run takes a few seconds
// at full size.
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "expect.h"
#include "cache/huge_pages.h"
#include "cache/plan_cache.h"
#include "cpu/cpu_simd.h"
#include "cpu/cpu_transform.h"
#include "cpu/lane_tiles.h"
#include "cpu/rader_rules.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::JAX_APPLE_FFT_SIMD;  // the kernel headers tested directly
using test_support::expect;

namespace {


using cd = std::complex<double>;

std::int64_t count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// w^m for m < n, w = exp(-2 pi i / n) (forward) or exp(2 pi i / n). The
// references below look their roots up here: computed per term, the
// trigonometry was most of this test's run time under qemu-user.
std::vector<cd> roots_of_unity(std::int64_t n, bool forward) {
  const double sign = forward ? -1.0 : 1.0;
  std::vector<cd> roots(n);
  for (std::int64_t m = 0; m < n; ++m) roots[m] = std::polar(1.0, sign * 2 * M_PI * double(m) / n);
  return roots;
}

// Naive DFT of a complex array along one axis, in double.
std::vector<cd> dft_axis(const std::vector<cd>& x, const std::vector<std::int64_t>& shape,
                         std::int64_t axis, std::int64_t n_out, bool forward) {
  auto out_shape = shape;
  out_shape[axis] = n_out;
  const auto in_strides = strides_of(shape), out_strides = strides_of(out_shape);
  std::vector<cd> y(count(out_shape));
  const std::int64_t n_in = shape[axis];
  const std::int64_t length = std::max(n_in, n_out);
  const std::vector<cd> roots = roots_of_unity(length, forward);
  for (std::int64_t flat = 0; flat < count(out_shape); ++flat) {
    std::int64_t rem = flat, base = 0, k = 0;
    for (std::size_t d = 0; d < out_shape.size(); ++d) {
      const std::int64_t idx = (rem / out_strides[d]) % out_shape[d];
      if (static_cast<std::int64_t>(d) == axis) k = idx; else base += idx * in_strides[d];
    }
    cd sum = 0;
    for (std::int64_t j = 0; j < n_in; ++j)
      sum += x[base + j * in_strides[axis]] * roots[j * k % length];
    y[flat] = sum;
    rem = 0;
  }
  return y;
}

// Reference for a whole spec, in double, following numpy's definitions.
std::vector<cd> reference(const TransformSpec& spec, const std::vector<cd>& input) {
  std::vector<cd> x = input;
  auto shape = spec.in_shape;
  const std::int64_t real_axis = spec.axes.back();
  if (spec.kind == TransformKind::kC2R) {
    // Expand the half spectrum to the full Hermitian one, then transform.
    const std::int64_t n = spec.out_shape[real_axis];
    for (std::size_t i = 0; i + 1 < spec.axes.size(); ++i) {
      x = dft_axis(x, shape, spec.axes[i], shape[spec.axes[i]], spec.forward);
    }
    auto full_shape = shape;
    full_shape[real_axis] = n;
    std::vector<cd> full(count(full_shape));
    const auto hs = strides_of(shape), fs = strides_of(full_shape);
    for (std::int64_t flat = 0; flat < count(full_shape); ++flat) {
      std::int64_t base = 0, k = 0;
      for (std::size_t d = 0; d < full_shape.size(); ++d) {
        const std::int64_t idx = (flat / fs[d]) % full_shape[d];
        if (static_cast<std::int64_t>(d) == real_axis) k = idx; else base += idx * hs[d];
      }
      const std::int64_t half = shape[real_axis];
      if (k < half) {
        cd v = x[base + k * hs[real_axis]];
        if (k == 0 || 2 * k == n) v = cd(v.real(), 0);
        full[flat] = v;
      } else {
        full[flat] = std::conj(x[base + (n - k) * hs[real_axis]]);
      }
    }
    // The other axes were already transformed; only the real axis remains,
    // and Hermitian expansion commutes with them only for the real parts we keep.
    auto y = dft_axis(full, full_shape, real_axis, n, spec.forward);
    for (auto& v : y) v = cd(v.real() * spec.scale, 0);
    return y;
  }
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const std::int64_t axis = spec.axes[i];
    x = dft_axis(x, shape, axis, shape[axis], spec.forward);
  }
  if (spec.kind == TransformKind::kR2C) {
    // Keep the first n/2+1 bins along the real axis.
    auto out = spec.out_shape;
    std::vector<cd> y(count(out));
    const auto fs = strides_of(shape), os = strides_of(out);
    for (std::int64_t flat = 0; flat < count(out); ++flat) {
      std::int64_t src = 0;
      for (std::size_t d = 0; d < out.size(); ++d) src += ((flat / os[d]) % out[d]) * fs[d];
      y[flat] = x[src];
    }
    x = y;
  }
  for (auto& v : x) v *= spec.scale;
  return x;
}

// The input of a spec, random from `seed` (real where the spec reads real
// values), as the reference sees it.
std::vector<cd> random_input(const TransformSpec& spec, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  const bool real_in = spec.kind == TransformKind::kR2C;
  std::vector<cd> input(count(spec.in_shape));
  for (auto& v : input) v = real_in ? cd(normal(rng), 0) : cd(normal(rng), normal(rng));
  return input;
}

// Runs `spec` on `input` with the kernels of `simd_level`.
template <class T>
std::vector<cd> run_on(const TransformSpec& spec, PlanCache& cache, const std::vector<cd>& input,
                       const std::string& simd_level) {
  const bool real_in = spec.kind == TransformKind::kR2C;
  const bool real_out = spec.kind == TransformKind::kC2R;
  std::vector<T> in_buf(input.size() * (real_in ? 1 : 2));
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (real_in) {
      in_buf[i] = static_cast<T>(input[i].real());
    } else {
      in_buf[2 * i] = static_cast<T>(input[i].real());
      in_buf[2 * i + 1] = static_cast<T>(input[i].imag());
    }
  }
  std::vector<T> out_buf(count(spec.out_shape) * (real_out ? 1 : 2));
  auto transform = CpuTransform::prepare(spec, cache, simd_level);
  transform->execute(in_buf.data(), out_buf.data(), cache);
  std::vector<cd> out(count(spec.out_shape));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = real_out ? cd(out_buf[i], 0) : cd(out_buf[2 * i], out_buf[2 * i + 1]);
  return out;
}

// Relative L2 distance of `got` from `expected`.
double relative_error(const std::vector<cd>& got, const std::vector<cd>& expected) {
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    err += std::norm(got[i] - expected[i]);
    norm += std::norm(expected[i]);
  }
  return std::sqrt(err / std::max(norm, 1e-300));
}

template <class T>
double run_and_compare(const TransformSpec& spec, PlanCache& cache, std::uint32_t seed,
                       const std::string& simd_level = cpu_simd_level()) {
  const std::vector<cd> input = random_input(spec, seed);
  return relative_error(run_on<T>(spec, cache, input, simd_level), reference(spec, input));
}

TransformSpec make_spec(TransformKind kind, bool forward, Precision precision,
                        std::vector<std::int64_t> in_shape, std::vector<std::int64_t> axes,
                        std::int64_t real_length, double scale) {
  TransformSpec spec{kind, forward, precision, in_shape, in_shape, axes, scale};
  if (kind == TransformKind::kR2C) spec.out_shape[axes.back()] = real_length / 2 + 1;
  if (kind == TransformKind::kC2R) spec.out_shape[axes.back()] = real_length;
  return spec;
}

void test_transforms_match_reference() {
  PlanCache cache(CacheLimits{64, 1 << 24, 2});
  struct Case {
    TransformKind kind;
    bool forward;
    std::vector<std::int64_t> shape, axes;
    std::int64_t n;
  };
  const std::vector<Case> cases = {
      {TransformKind::kC2C, true, {3, 16}, {1}, 0},
      {TransformKind::kC2C, false, {7, 5}, {0}, 0},
      {TransformKind::kC2C, true, {4, 6, 9}, {0, 2}, 0},
      {TransformKind::kC2C, true, {1, 1}, {0, 1}, 0},
      {TransformKind::kC2C, true, {2, 1031}, {1}, 0},  // prime: Bluestein
      {TransformKind::kR2C, true, {5, 12}, {1}, 12},
      {TransformKind::kR2C, false, {9, 4}, {0}, 9},
      {TransformKind::kR2C, true, {3, 8, 7}, {0, 2}, 7},
      {TransformKind::kC2R, false, {5, 7}, {1}, 12},
      {TransformKind::kC2R, true, {6, 5}, {1}, 9},
      {TransformKind::kC2R, false, {4, 3, 5}, {0, 1}, 4},
      // Enough contiguous lines for full SIMD groups, moved in tiles
      // (lane_tiles.h) with a ragged end when the length is odd.
      {TransformKind::kC2C, true, {32, 24}, {1}, 0},
      {TransformKind::kC2C, false, {16, 13}, {1}, 0},
      {TransformKind::kR2C, true, {32, 21}, {1}, 21},
      {TransformKind::kR2C, false, {16, 20}, {1}, 20},
      {TransformKind::kC2R, false, {32, 11}, {1}, 20},
      {TransformKind::kC2R, true, {16, 11}, {1}, 21},
      // Prime lengths whose p - 1 has small factors take Rader's algorithm
      // (113 = 2^4 * 7 + 1, 257 = 2^8 + 1), in groups, alone and strided.
      {TransformKind::kC2C, true, {9, 113}, {1}, 0},
      {TransformKind::kC2C, false, {5, 257}, {1}, 0},
      {TransformKind::kC2C, true, {113, 6}, {0}, 0},
      {TransformKind::kR2C, true, {9, 113}, {1}, 113},
      {TransformKind::kR2C, false, {3, 257}, {1}, 257},
      {TransformKind::kR2C, true, {257, 5}, {0}, 257},
      {TransformKind::kC2R, false, {9, 57}, {1}, 113},
      {TransformKind::kC2R, true, {3, 129}, {1}, 257},
      {TransformKind::kC2R, false, {57, 10}, {0}, 113},
      // Line counts that leave lines over from the widest groups: they run
      // in narrower groups (12 = 8 + 4, 14 = 8 + 4 + 2), then alone (15).
      {TransformKind::kC2C, true, {12, 24}, {1}, 0},
      {TransformKind::kR2C, true, {14, 20}, {1}, 20},
      {TransformKind::kC2R, false, {15, 11}, {1}, 20},
      // Strided lines that are neighbours in memory (along a non-last axis),
      // moved as runs of values per element; and strided lines that are not
      // (groups spanning rows of the middle axis), moved value by value.
      {TransformKind::kC2C, true, {13, 32}, {0}, 0},
      {TransformKind::kC2C, false, {6, 9, 3}, {1}, 0},
      {TransformKind::kR2C, true, {12, 24}, {0}, 12},
      {TransformKind::kR2C, false, {11, 16}, {0}, 11},
      {TransformKind::kC2R, false, {11, 32}, {0}, 20},
      {TransformKind::kC2R, true, {11, 16}, {0}, 21},
      // Real lines side by side in bunches of SIMD groups, with ragged ends
      // and across merged dimensions; and groups spanning rows, not bunched.
      {TransformKind::kR2C, true, {9, 64}, {0}, 9},
      {TransformKind::kC2R, false, {7, 48}, {0}, 12},
      {TransformKind::kR2C, false, {10, 4, 6}, {0}, 10},
      {TransformKind::kR2C, true, {6, 10, 3}, {1}, 10},
      {TransformKind::kC2R, true, {5, 6, 3}, {1}, 11},
  };
  for (const std::string& level : cpu_simd_levels_built()) {
    if (!cpu_simd_level_runs(level)) continue;
    for (const auto& c : cases) {
      for (Precision p : {Precision::kSingle, Precision::kDouble}) {
        auto in_shape = c.shape;
        if (c.kind == TransformKind::kC2R) in_shape[c.axes.back()] = c.n / 2 + 1;
        const auto spec = make_spec(c.kind, c.forward, p, in_shape, c.axes, c.n, 0.5);
        const double err = p == Precision::kSingle
                               ? run_and_compare<float>(spec, cache, 1, level)
                               : run_and_compare<double>(spec, cache, 1, level);
        const double bound = p == Precision::kSingle ? 1e-5 : 1e-12;
        expect(err < bound, level + ": transform kind " + std::to_string(int(c.kind)) +
                                " error " + std::to_string(err));
      }
    }
  }
}

// Every level the CPU runs, through one cache: each level's copy of the
// kernels plans with its own vector width and keeps its own cache entries,
// and all agree with each other, on short batched lines, a four-step length
// and Bluestein and Rader lengths.
void test_simd_levels_agree() {
  std::vector<std::string> levels;
  for (const std::string& level : cpu_simd_levels_built())
    if (cpu_simd_level_runs(level)) levels.push_back(level);
  expect(!levels.empty(), "this CPU runs some level");
  const char* forced = std::getenv(kCpuSimdVariable);
  const std::string chosen = forced != nullptr && *forced != '\0' ? forced : levels.back();
  expect(cpu_simd_level() == chosen, "the process runs the forced or else the widest level");
  PlanCache cache(CacheLimits{256, 1 << 26, 2});
  const auto batched =
      make_spec(TransformKind::kC2C, true, Precision::kSingle, {64, 16}, {1}, 0, 1);
  std::vector<std::string> plans;
  for (const std::string& level : levels)
    plans.push_back(CpuTransform::prepare(batched, cache, level)->plan().describe());
  for (std::size_t i = 1; i < levels.size(); ++i)
    expect(plans[i] != plans[0], levels[i] + " plans with its own width: " + plans[i]);
  struct Case {
    TransformKind kind;
    std::vector<std::int64_t> shape;
    std::int64_t n;
  };
  const std::vector<Case> cases = {
      {TransformKind::kC2C, {37, 8}, 0},     {TransformKind::kR2C, {29, 16}, 16},
      {TransformKind::kC2R, {23, 9}, 16},    {TransformKind::kC2C, {2, 65536}, 0},
      {TransformKind::kR2C, {3, 65536}, 65536}, {TransformKind::kC2C, {5, 1031}, 0},
      {TransformKind::kC2R, {4, 129}, 257},  {TransformKind::kR2C, {6, 113}, 113},
  };
  for (const Case& c : cases)
    for (Precision p : {Precision::kSingle, Precision::kDouble}) {
      const auto spec = make_spec(c.kind, true, p, c.shape, {1}, c.n, 1);
      const std::vector<cd> input = random_input(spec, 7);
      std::vector<cd> first;
      for (const std::string& level : levels) {
        const std::vector<cd> out = p == Precision::kSingle
                                        ? run_on<float>(spec, cache, input, level)
                                        : run_on<double>(spec, cache, input, level);
        if (first.empty()) first = out;
        const double err = relative_error(out, first);
        expect(err < (p == Precision::kSingle ? 2e-6 : 1e-14),
               level + " agrees with " + levels[0] + " on kind " + std::to_string(int(c.kind)) +
                   " length " + std::to_string(c.shape[1]) + ": " + std::to_string(err));
      }
    }
  bool refused = false;
  try {
    CpuTransform::prepare(batched, cache, "sse1");
  } catch (const std::invalid_argument& e) {
    refused = std::string(e.what()).find("not one this build has") != std::string::npos;
  }
  expect(refused, "a level this build lacks is refused");
}

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

// The single-line plan (a layout of its own for lines of 300 points and
// more) is built only when some line is left over from the narrowest SIMD
// group: 12 lines fill groups (8 + 4, or 4 x 3), 13 leave one.
template <class T>
std::uint64_t plans_built(std::int64_t lines, int threads) {
  PlanCache cache(CacheLimits{64, 1 << 24, threads});
  const auto spec = make_spec(TransformKind::kC2C, true,
                              sizeof(T) == 4 ? Precision::kSingle : Precision::kDouble,
                              {lines, 512}, {1}, 0, 1.0);
  expect(run_and_compare<T>(spec, cache, 3) < 1e-5, "lines " + std::to_string(lines));
  return cache.stats().builds;
}

void test_lone_line_plan_only_when_needed() {
  for (int threads : {1, 2}) {
    expect(plans_built<float>(13, threads) == plans_built<float>(12, threads) + 1,
           "float: one more plan for a lone line, threads " + std::to_string(threads));
    expect(plans_built<double>(13, threads) == plans_built<double>(12, threads) + 1,
           "double: one more plan for a lone line, threads " + std::to_string(threads));
  }
}

void test_rader_rules() {
  expect(rader::applies(113) && rader::applies(257) && rader::applies(65537),
         "Rader for primes with smooth p - 1");
  expect(!rader::applies(1031), "1031 - 1 = 2 * 5 * 103: Bluestein");
  expect(!rader::applies(65536) && !rader::applies(97), "composite, or below the minimum");
  for (std::uint64_t p : {113u, 257u, 7681u, 65537u}) {
    // A generator's powers reach every non-zero residue once.
    const std::uint64_t g = rader::generator(p);
    std::vector<bool> seen(p, false);
    std::uint64_t x = 1;
    for (std::uint64_t q = 0; q + 1 < p; ++q, x = x * g % p) seen[x] = true;
    bool all = x == 1;
    for (std::uint64_t r = 1; r < p; ++r) all = all && seen[r];
    expect(all, "generator of " + std::to_string(p));
  }
#if LDBL_MANT_DIG > DBL_MANT_DIG
  // The kernel's roots are within 2 ulp of exp(-2 pi i e / p) on every
  // platform; checked against long double where it is wider than double.
  const std::uint64_t p = 65537;
  std::vector<std::uint32_t> exponents(p);
  std::iota(exponents.begin(), exponents.end(), 0u);
  const auto roots = rader::roots_at(p, exponents);
  const long double pi = 3.141592653589793238462643383279502884L;
  long double worst = 0;
  for (std::uint64_t e = 0; e < p; ++e) {
    const long double angle = -2 * pi * e / p;
    worst = std::max(worst, std::hypot(roots[e].r - std::cos(angle), roots[e].i - std::sin(angle)));
  }
  expect(worst < 2 * DBL_EPSILON, "roots of unity for Rader's kernel, error " +
                                      std::to_string(double(worst / DBL_EPSILON)) + " ulp");
#endif
}

void test_long_lines() {
  PlanCache cache(CacheLimits{64, std::size_t(1) << 28, 2});
  // 2^16 = 256 x 256; 69683 = 17 x 4099 (a prime: Bluestein rows); 65537
  // (a prime: Rader's algorithm, two transforms of 2^16).
  for (std::int64_t n : {std::int64_t(1) << 16, std::int64_t(69683), std::int64_t(65537)})
    for (bool forward : {true, false})
      expect(long_line_error<double>(2, n, forward, cache) < 1e-13,
             "double long line " + std::to_string(n));
  expect(long_line_error<float>(3, std::int64_t(1) << 17, true, cache) < 1e-5,
         "float long line 2^17");
  expect(long_line_error<float>(3, std::int64_t(1) << 16, false, cache) < 1e-5,
         "float long line 2^16");
  expect(long_line_error<float>(9, 65537, false, cache) < 1e-5, "float long line 65537");
}

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
    expect(half_length_error<double>(std::int64_t(1) << 17, forward, cache) < 1e-13,
           "double real line 2^17 at half length");
    expect(half_length_error<float>(std::int64_t(1) << 17, forward, cache) < 1e-5,
           "float real line 2^17 at half length");
  }
}

// With overwrite_x, XLA hands a complex transform one buffer as input and
// output; the result must be the same as out of place, bit for bit.
template <class T>
bool in_place_matches(std::vector<std::int64_t> shape, std::vector<std::int64_t> axes,
                      PlanCache& cache) {
  std::mt19937 rng(7);
  std::normal_distribution<T> normal;
  const auto spec = make_spec(TransformKind::kC2C, true,
                              sizeof(T) == 4 ? Precision::kSingle : Precision::kDouble, shape,
                              axes, 0, 0.5);
  std::vector<T> in(2 * count(shape)), out(in.size());
  for (auto& v : in) v = normal(rng);
  auto transform = CpuTransform::prepare(spec, cache);
  transform->execute(in.data(), out.data(), cache);
  transform->execute(in.data(), in.data(), cache);
  return in == out;
}

void test_in_place_transforms() {
  PlanCache cache(CacheLimits{64, std::size_t(1) << 28, 2});
  expect(in_place_matches<float>({37, 96}, {1}, cache), "in place: contiguous groups");
  expect(in_place_matches<double>({3, 5000}, {1}, cache), "in place: single lines");
  expect(in_place_matches<float>({512, 40}, {0}, cache), "in place: strided bunches");
  expect(in_place_matches<double>({6, 10, 12}, {0, 1, 2}, cache), "in place: three axes");
  expect(in_place_matches<double>({2, std::int64_t(1) << 16}, {1}, cache),
         "in place: long lines in two passes");
  expect(in_place_matches<double>({40, 16383}, {1}, cache), "in place: streamed single lines");
}

struct FixedPlan : CachedValue {
  explicit FixedPlan(std::size_t b) : b_(b) {}
  std::size_t bytes() const override { return b_; }
  std::size_t b_;
};

// Values [from, to) of `lanes` lines to lane order and back, for every
// width the backend uses; plain and streaming stores alike.
template <class T, std::size_t lanes>
void check_lane_tiles(bool streaming) {
  // Streaming stores need alignment to the vector's size: from = 8 has it.
  constexpr std::ptrdiff_t length = 40, to = 37;
  const std::ptrdiff_t from = streaming ? 8 : 3;
  alignas(64) T lines[lanes][length], back[lanes][length];
  std::vector<T> vectors((to - from) * lanes, T(-1));
  const T* sources[lanes];
  T* targets[lanes];
  for (std::size_t j = 0; j < lanes; ++j) {
    for (std::ptrdiff_t v = 0; v < length; ++v) lines[j][v] = static_cast<T>(1000 * j + v);
    for (std::ptrdiff_t v = 0; v < length; ++v) back[j][v] = T(-1);
    sources[j] = lines[j];
    targets[j] = back[j];
  }
  const std::ptrdiff_t gathered = lane_tiles::gather_values<T, lanes>(sources, from, to, vectors.data());
  const std::ptrdiff_t tiles = (to - from) / static_cast<std::ptrdiff_t>(lanes);
  expect(gathered == from + tiles * static_cast<std::ptrdiff_t>(lanes), "whole tiles gathered");
  bool ok = true;
  for (std::ptrdiff_t v = from; v < gathered; ++v)
    for (std::size_t j = 0; j < lanes; ++j) ok &= vectors[(v - from) * lanes + j] == lines[j][v];
  expect(ok, "gathered values in lane order, " + std::to_string(lanes) + " lanes");
  const std::ptrdiff_t scattered =
      lane_tiles::scatter_values<T, lanes>(vectors.data(), targets, from, to, streaming);
  expect(scattered == gathered, "whole tiles scattered");
  ok = true;
  for (std::size_t j = 0; j < lanes; ++j)
    for (std::ptrdiff_t v = 0; v < length; ++v)
      ok &= back[j][v] == (v >= from && v < scattered ? lines[j][v] : T(-1));
  expect(ok, "scattered values back in their lines, " + std::to_string(lanes) + " lanes");
}

void test_lane_tiles() {
  for (bool streaming : {false, true}) {
    check_lane_tiles<float, 2>(streaming);
    check_lane_tiles<float, 4>(streaming);
    check_lane_tiles<float, 8>(streaming);
    check_lane_tiles<double, 2>(streaming);
    check_lane_tiles<double, 4>(streaming);
  }
}

void test_cache_bounds_and_lru() {
  PlanCache cache(CacheLimits{3, 1000, 1});
  auto build = [](std::size_t bytes) { return [=] { return std::make_shared<FixedPlan>(bytes); }; };
  for (int i = 0; i < 3; ++i) cache.get_or_build(PlanKey{"t", {i}}, build(100));
  cache.get_or_build(PlanKey{"t", {0}}, build(100));  // 0 is now the newest
  cache.get_or_build(PlanKey{"t", {3}}, build(100));  // evicts 1, the oldest
  auto s = cache.stats();
  expect(s.entries == 3 && s.evictions == 1, "entry bound evicts one");
  expect(s.hits == 1 && s.misses == 4 && s.builds == 4, "hit/miss counts");
  cache.get_or_build(PlanKey{"t", {0}}, build(100));
  expect(cache.stats().hits == 2, "0 survived eviction");
  cache.get_or_build(PlanKey{"t", {4}}, build(850));  // byte bound: only one 100 fits beside it
  s = cache.stats();
  expect(s.retained_bytes <= 1000 && s.entries == 2 && s.evictions == 3, "byte bound");
  // A plan bigger than the whole budget is returned but not kept.
  auto big = cache.get_or_build(PlanKey{"t", {5}}, build(5000));
  expect(big && cache.stats().plan_bytes <= 1000, "oversized plan not retained");
  // Keys compare in full: same hash bucket or not, different fields differ.
  cache.clear();
  cache.get_or_build(PlanKey{"t", {1, 2}}, build(10));
  cache.get_or_build(PlanKey{"t", {2, 1}}, build(10));
  expect(cache.stats().entries == 2, "distinct keys");
}

void test_failed_build_leaves_nothing() {
  PlanCache cache(CacheLimits{8, 1 << 20, 1});
  bool threw = false;
  try {
    cache.get_or_build(PlanKey{"t", {1}}, []() -> std::shared_ptr<const CachedValue> {
      throw std::runtime_error("boom");
    });
  } catch (const PlanBuildError&) {
    threw = true;
  }
  const auto s = cache.stats();
  expect(threw && s.entries == 0 && s.failed_builds == 1, "failed build is typed and leaves no entry");
}

// A build that finishes after close() must not leave an entry in the
// closed cache (close takes the lock that lookups check it under).
// A plan that cannot be built fails as a PlanBuildError from every level's
// kernels: the error crosses from the level's code into the shared code and
// back.
void test_failed_build_in_each_level() {
  PlanCache cache(CacheLimits{8, 1 << 20, 1});
  const std::int64_t huge = std::int64_t(1) << 60;
  const auto spec = make_spec(TransformKind::kC2C, true, Precision::kSingle, {huge}, {0}, 0, 1);
  for (const std::string& level : cpu_simd_levels_built()) {
    if (!cpu_simd_level_runs(level)) continue;
    bool typed = false;
    try {
      CpuTransform::prepare(spec, cache, level);
    } catch (const PlanBuildError& e) {
      typed = std::string(e.what()).find("exceeds the supported maximum") != std::string::npos;
    }
    expect(typed, level + ": a length of 2^60 fails as a PlanBuildError");
  }
  expect(cache.stats().entries == 0, "failed builds leave no entry");
}

void test_close_during_build_keeps_nothing() {
  PlanCache cache(CacheLimits{8, 1 << 20, 1});
  std::atomic<bool> building{false};
  std::thread builder([&] {
    cache.get_or_build(PlanKey{"t", {1}}, [&] {
      building.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return std::make_shared<FixedPlan>(10);
    });
  });
  while (!building.load()) std::this_thread::yield();
  cache.close();
  builder.join();
  expect(cache.stats().entries == 0 && cache.stats().plan_bytes == 0,
         "a build finishing after close keeps nothing");
  bool threw = false;
  try {
    cache.get_or_build(PlanKey{"t", {2}}, [] { return std::make_shared<FixedPlan>(10); });
  } catch (const CacheClosedError&) {
    threw = true;
  }
  expect(threw, "lookups after close throw CacheClosedError");
}

// Evicted plans are tracked (for evicted_in_use) only while something holds
// them, whether or not anyone asks for stats.
void test_evicted_plans_forgotten_without_stats() {
  PlanCache cache(CacheLimits{1, 1 << 20, 1});
  auto held = cache.get_or_build(PlanKey{"t", {-1}}, [] { return std::make_shared<FixedPlan>(10); });
  for (int i = 0; i < 10000; ++i)
    cache.get_or_build(PlanKey{"t", {i}}, [] { return std::make_shared<FixedPlan>(10); });
  expect(cache.evicted_tracked() <= 128, "evicted plans no one holds are forgotten");
  expect(cache.stats().evicted_in_use == 1, "the held evicted plan is still reported");
}

void test_one_build_per_key_under_contention() {
  PlanCache cache(CacheLimits{8, 1 << 20, 1});
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      cache.get_or_build(PlanKey{"t", {42}}, [&] {
        builds.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::make_shared<FixedPlan>(10);
      });
    });
  }
  for (auto& t : threads) t.join();
  expect(builds.load() == 1, "one build for eight concurrent misses");
}

void test_concurrent_transforms() {
  PlanCache cache(CacheLimits{4, 1 << 16, 2});
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 3; ++rep) {
        const std::int64_t n = 8 + 3 * t + rep;
        const auto spec = make_spec(TransformKind::kC2C, t % 2 == 0, Precision::kSingle,
                                    {33, n}, {0, 1}, 0, 1.0);
        if (run_and_compare<float>(spec, cache, t) > 1e-5) bad.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  expect(bad.load() == 0, "concurrent transforms are correct");
  expect(cache.stats().retained_bytes <= (1 << 16), "concurrent use stays in budget");
}

#if defined(__linux__)
// Whether the kernel marks the mapping holding `address` for huge pages
// ("hg" among its VmFlags in /proc/self/smaps).
bool marked_for_huge_pages(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto target = reinterpret_cast<std::uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &begin, &end) == 2) {
      inside = begin <= target && target < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

// Whether advice given with madvise itself shows in smaps: not under
// qemu-user (the arm64 CI step), whose madvise succeeds and does nothing.
bool madvise_takes_effect() {
  const std::size_t bytes = 2 * kHugePageBytes;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return false;
  const bool marked = madvise(region, bytes, MADV_HUGEPAGE) == 0 && marked_for_huge_pages(region);
  munmap(region, bytes);
  return marked;
}

void test_huge_page_advice() {
  const bool advice_seen = std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled") &&
                           madvise_takes_effect();
  // The scratch arena's large buffers start on a huge page and are advised.
  ScratchArena arena(1, [] { return true; });
  {
    auto lease = arena.acquire(3 * kHugePageBytes);
    expect(reinterpret_cast<std::uintptr_t>(lease.data()) % kHugePageBytes == 0,
           "large scratch is huge-page aligned");
    expect(!advice_seen || marked_for_huge_pages(lease.data()), "large scratch advised");
    std::memset(lease.data(), 1, 3 * kHugePageBytes);
  }
  auto small = arena.acquire(1000);  // the lane keeps its large buffer
  expect(small.data() != nullptr, "small scratch");
  if (!advice_seen) {
    std::printf("backend_tests: no transparent huge pages here, or madvise is ignored (as "
                "under qemu-user); advice not checked\n");
    return;
  }

  const std::size_t bytes = 8 * kHugePageBytes;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  expect(region != MAP_FAILED, "mmap for the huge page test");
  if (region == MAP_FAILED) return;
  auto* base = static_cast<char*>(region);
  // Small ranges are left alone: a system call per call is not worth it there.
  advise_huge_pages(base, kHugePageMinBytes - 1);
  expect(!marked_for_huge_pages(base + kHugePageBytes), "small range not advised");
  // A large unaligned range, placed as the allocator places a large block
  // (a header page before it, the mapping's end on a huge page): every small
  // page it touches is advised, so its last 2 MiB can be a huge page too;
  // the pages around it are not. Small pages are 4 KiB on x86-64 but 16 or
  // 64 KiB on some arm64 kernels: the range is placed in the system's pages.
  const std::uintptr_t aligned = (reinterpret_cast<std::uintptr_t>(base) + kHugePageBytes - 1) &
                                 ~(kHugePageBytes - 1);
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  char* start = reinterpret_cast<char*>(aligned) + page + 64;
  const std::size_t range = 5 * kHugePageBytes - page - 128;
  advise_huge_pages(start, range);
  expect(marked_for_huge_pages(start + kHugePageBytes), "interior of a large range advised");
  expect(marked_for_huge_pages(start), "ragged start advised");
  expect(marked_for_huge_pages(start + range - 1), "ragged end advised");
  expect(!marked_for_huge_pages(start - 65), "page before the range not advised");
  expect(!marked_for_huge_pages(start + range + page), "page after the range not advised");
  munmap(region, bytes);
}
#endif

}  // namespace

int main() {
  test_transforms_match_reference();
  test_simd_levels_agree();
  test_lone_line_plan_only_when_needed();
  test_rader_rules();
  test_long_lines();
  test_long_real_lines_at_half_length();
  test_in_place_transforms();
  test_lane_tiles();
  test_cache_bounds_and_lru();
  test_failed_build_leaves_nothing();
  test_failed_build_in_each_level();
  test_close_during_build_keeps_nothing();
  test_evicted_plans_forgotten_without_stats();
  test_one_build_per_key_under_contention();
  test_concurrent_transforms();
#if defined(__linux__)
  test_huge_page_advice();
#endif
  return test_support::report("backend_tests");
}
