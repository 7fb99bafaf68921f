// The SIMD levels of the CPU kernels: which this build has
// (cmake/CpuInstructionSet.cmake), which this CPU runs, and which this
// process runs. Nothing here runs the kernels' instructions: it is compiled
// with the compiler's default flags, like everything but the kernels.
#pragma once

#include <string>
#include <vector>

namespace jax_apple_fft {

// Names the level a process runs, overriding the choice from the CPU.
inline constexpr char kCpuSimdVariable[] = "JAX_APPLE_FFT_CPU_SIMD";

// The levels this build has, narrowest first: on x86-64 "baseline"
// (x86-64-v2: SSE4.2, POPCNT) and "avx2" (AVX2 + FMA); elsewhere the one the
// compiler targets by default ("neon" on arm64).
const std::vector<std::string>& cpu_simd_levels_built();

// Whether `level` is built and this CPU runs its instructions.
bool cpu_simd_level_runs(const std::string& level);

// Throws std::invalid_argument, saying why and what to do, unless
// cpu_simd_level_runs(level).
void check_cpu_simd_level(const std::string& level);

// The level this process runs: the one JAX_APPLE_FFT_CPU_SIMD names, or
// (unset or empty) the widest this CPU runs. Decided at the first call; if
// the variable names a level that cannot run here, that call and every
// later one throw std::invalid_argument.
const std::string& cpu_simd_level();

}  // namespace jax_apple_fft
