# SIMD level for the CPU backend (pocketfft and our line driver).
#
# pocketfft processes several lines per SIMD vector, so the vector width is
# most of its speed: on x86-64, AVX2 + FMA (256-bit) runs batched transforms
# about 1.4x faster than the SSE2 baseline. AVX-512 was measured slower on
# these kernels and is not used.
#
# JAX_APPLE_FFT_X86_SIMD:
#   auto     - AVX2 + FMA if the build machine has them (the default: a
#              source install runs where it was built)
#   avx2     - always AVX2 + FMA (for binaries meant for x86-64-v3 machines)
#   baseline - the compiler's default (SSE2), runs on every x86-64
# Other architectures use their compiler's default (NEON on Apple silicon).

set(JAX_APPLE_FFT_X86_SIMD "auto" CACHE STRING "x86-64 SIMD level: auto, avx2 or baseline")
set(JAX_APPLE_FFT_CPU_FLAGS "")

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_use_avx2 FALSE)
  if(JAX_APPLE_FFT_X86_SIMD STREQUAL "avx2")
    set(_use_avx2 TRUE)
  elseif(JAX_APPLE_FFT_X86_SIMD STREQUAL "auto")
    include(CheckCXXSourceRuns)
    check_cxx_source_runs([=[
      int main() {
        __builtin_cpu_init();
        return (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 0 : 1;
      }]=] JAX_APPLE_FFT_HOST_HAS_AVX2_FMA)
    set(_use_avx2 ${JAX_APPLE_FFT_HOST_HAS_AVX2_FMA})
  elseif(NOT JAX_APPLE_FFT_X86_SIMD STREQUAL "baseline")
    message(FATAL_ERROR "JAX_APPLE_FFT_X86_SIMD must be auto, avx2 or baseline")
  endif()
  if(_use_avx2)
    set(JAX_APPLE_FFT_CPU_FLAGS -mavx2 -mfma)
  endif()
endif()
message(STATUS "jax_apple_fft CPU backend SIMD flags: ${JAX_APPLE_FFT_CPU_FLAGS}")
