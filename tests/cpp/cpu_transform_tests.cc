// CpuTransform against the reference (cpu_reference.h): every kind, layout
// and line length the driver treats apart, in place and out, from several
// threads at once; and the plans it builds.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "cache/plan_cache.h"
#include "cpu/cpu_simd.h"
#include "cpu/cpu_transform.h"
#include "cpu_reference.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::cpu_reference;
using test_support::expect;

namespace {

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
        const double bound = error_bound(p, transform_points(spec));
        expect(err < bound, level + ": transform kind " + std::to_string(int(c.kind)) +
                                " error " + std::to_string(err));
      }
    }
  }
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
  expect(run_and_compare<T>(spec, cache, 3) < error_bound<T>(512), "lines " + std::to_string(lines));
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

#if defined(__linux__)
// A fresh output of 8 MiB or more is faulted in over the threads before the
// passes (populate_output); the result is the same as into memory in use.
void test_fresh_output_matches_memory_in_use() {
  PlanCache cache(CacheLimits{64, std::size_t(1) << 28, 2});
  const std::vector<std::int64_t> shape = {512, 1024};
  const auto spec = make_spec(TransformKind::kC2C, true, Precision::kDouble, shape, {1}, 0, 1.0);
  std::mt19937 rng(11);
  std::normal_distribution<double> normal;
  std::vector<double> in(2 * count(shape)), in_use(in.size());
  for (auto& v : in) v = normal(rng);
  const std::size_t bytes = in.size() * sizeof(double);
  void* fresh = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  expect(fresh != MAP_FAILED, "mmap for the fresh output");
  if (fresh == MAP_FAILED) return;
  auto transform = CpuTransform::prepare(spec, cache);
  transform->execute(in.data(), in_use.data(), cache);
  transform->execute(in.data(), fresh, cache);
  expect(std::memcmp(fresh, in_use.data(), bytes) == 0, "fresh output: same result");
  munmap(fresh, bytes);
}
#endif

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
        if (run_and_compare<float>(spec, cache, t) > error_bound<float>(33 * n)) bad.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  expect(bad.load() == 0, "concurrent transforms are correct");
  expect(cache.stats().retained_bytes <= (1 << 16), "concurrent use stays in budget");
}

const test_support::Suite kSuite("cpu_transform", {
    TEST_CASE(test_transforms_match_reference),
    TEST_CASE(test_lone_line_plan_only_when_needed),
    TEST_CASE(test_in_place_transforms),
#if defined(__linux__)
    TEST_CASE(test_fresh_output_matches_memory_in_use),
#endif
    TEST_CASE(test_concurrent_transforms),
});

}  // namespace
