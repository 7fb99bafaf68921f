#include "cpu/cpu_simd.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>

namespace jax_apple_fft {
namespace {

std::string list_of(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

bool cpu_has_instructions_of(const std::string& level) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool v2 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt");
  if (level == "baseline") return v2;
  if (level == "avx2")
    return v2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return false;
#else
  // The one level is the compiler's default for the target.
  (void)level;
  return true;
#endif
}

// The level this process runs, or why none can.
struct Choice {
  std::string level;
  std::string problem;
};

Choice choose_level() {
  const char* forced = std::getenv(kCpuSimdVariable);
  if (forced != nullptr && *forced != '\0') {
    try {
      check_cpu_simd_level(forced);
    } catch (const std::invalid_argument& e) {
      return {"", std::string(kCpuSimdVariable) + "=" + forced + ": " + e.what()};
    }
    return {forced, ""};
  }
  const auto& built = cpu_simd_levels_built();
  for (auto level = built.rbegin(); level != built.rend(); ++level)
    if (cpu_simd_level_runs(*level)) return {*level, ""};
  return {"", "this CPU runs none of the SIMD levels this build has (" + list_of(built) +
                  "); rebuild from source for it"};
}

}  // namespace

const std::vector<std::string>& cpu_simd_levels_built() {
  static const std::vector<std::string> levels = {
#define JAX_APPLE_FFT_CPU_SIMD_LEVEL(level) #level,
#include "cpu_simd_levels.inc"
#undef JAX_APPLE_FFT_CPU_SIMD_LEVEL
  };
  return levels;
}

bool cpu_simd_level_runs(const std::string& level) {
  for (const std::string& built : cpu_simd_levels_built())
    if (built == level) return cpu_has_instructions_of(level);
  return false;
}

void check_cpu_simd_level(const std::string& level) {
  if (cpu_simd_level_runs(level)) return;
  std::vector<std::string> runnable;
  for (const std::string& built : cpu_simd_levels_built())
    if (cpu_simd_level_runs(built)) runnable.push_back(built);
  bool built = false;
  for (const std::string& name : cpu_simd_levels_built()) built = built || name == level;
  throw std::invalid_argument(
      "SIMD level '" + level + "' " +
      (built ? "needs instructions this CPU lacks" : "is not one this build has") +
      "; the levels that run here are: " + list_of(runnable) + " (set " + kCpuSimdVariable +
      " to one of them, or leave it unset to choose from the CPU)");
}

const std::string& cpu_simd_level() {
  static const Choice choice = choose_level();
  if (!choice.problem.empty()) throw std::invalid_argument(choice.problem);
  return choice.level;
}

}  // namespace jax_apple_fft
