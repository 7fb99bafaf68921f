// The SIMD levels of the CPU kernels (cpu_simd.h): each level this CPU runs
// plans with its own width and agrees with the others; a level the build
// lacks is refused; errors cross from a level's code and back typed.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/cpu_simd.h"
#include "cpu/cpu_transform.h"
#include "cpu_reference.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::cpu_reference;
using test_support::expect;

namespace {

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
        // One algorithm at two vector widths: within a quarter of the contract.
        expect(err < error_bound(p, transform_points(spec)) / 4,
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

const test_support::Suite kSuite("cpu_simd", {
    TEST_CASE(test_simd_levels_agree),
    TEST_CASE(test_failed_build_in_each_level),
});

}  // namespace
