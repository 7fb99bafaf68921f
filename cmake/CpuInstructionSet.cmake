# SIMD levels of the CPU backend's kernels (pocketfft and our line driver).
#
# pocketfft processes several lines per SIMD vector, so the vector width is
# most of its speed: on x86-64, AVX2 + FMA (256-bit) runs batched transforms
# about 1.4x faster than SSE. AVX-512 was measured slower on these kernels
# and is not built.
#
# The kernels (csrc/cpu/cpu_kernels.cc and the headers it includes) are
# compiled once per level, each copy in namespaces of its own
# (jax_apple_fft::simd_<level>, and jax_apple_fft_ducc0_<level> for
# pocketfft). The process runs one copy, chosen once at run time
# (csrc/cpu/cpu_simd.cc): the widest level the CPU reports, or the level
# named by the environment variable JAX_APPLE_FFT_CPU_SIMD; a level the CPU
# lacks is refused with an error, never run. Everything else is compiled with
# the compiler's default flags. The inline functions and templates a copy
# shares with the rest (the standard library's, the cache's) are renamed in
# its object (cmake/PrivatizeSymbols.cmake), so that the linker never picks a
# copy compiled for wider instructions where narrower code calls it.
#
# Levels on x86-64:
#   baseline - x86-64-v2: SSE4.2 and POPCNT (every x86-64 CPU since 2009)
#   avx2     - x86-64-v2 plus AVX2 and FMA (x86-64-v3 CPUs)
# Other architectures build one level, the compiler's default for the target:
# "neon" on arm64 (Apple silicon included), "baseline" elsewhere.
#
# JAX_APPLE_FFT_X86_SIMD (x86-64 only) says which levels to build:
#   dispatch - baseline and avx2, the widest the CPU has chosen at run time
#              (the default: binaries run on every x86-64-v2 machine)
#   avx2     - avx2 only: smaller, for machines known to have it (a build
#              for the build host itself, for instance); refused elsewhere
#   baseline - baseline only

set(JAX_APPLE_FFT_X86_SIMD "dispatch" CACHE STRING "x86-64 SIMD levels: dispatch, avx2 or baseline")
set_property(CACHE JAX_APPLE_FFT_X86_SIMD PROPERTY STRINGS dispatch avx2 baseline)

set(_x86_64_v2_flags -msse4.2 -mpopcnt -mcx16 -msahf)
set(JAX_APPLE_FFT_CPU_SIMD_FLAGS_baseline ${_x86_64_v2_flags})
set(JAX_APPLE_FFT_CPU_SIMD_FLAGS_avx2 ${_x86_64_v2_flags} -mavx2 -mfma)

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  if(JAX_APPLE_FFT_X86_SIMD STREQUAL "dispatch")
    set(JAX_APPLE_FFT_CPU_SIMD_LEVELS baseline avx2)
  elseif(JAX_APPLE_FFT_X86_SIMD MATCHES "^(avx2|baseline)$")
    set(JAX_APPLE_FFT_CPU_SIMD_LEVELS ${JAX_APPLE_FFT_X86_SIMD})
  else()
    message(FATAL_ERROR "JAX_APPLE_FFT_X86_SIMD must be dispatch, avx2 or baseline")
  endif()
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(JAX_APPLE_FFT_CPU_SIMD_LEVELS neon)
  set(JAX_APPLE_FFT_CPU_SIMD_FLAGS_neon "")
else()
  set(JAX_APPLE_FFT_CPU_SIMD_LEVELS baseline)
  set(JAX_APPLE_FFT_CPU_SIMD_FLAGS_baseline "")
endif()
message(STATUS "jax_apple_fft CPU kernels' SIMD levels: ${JAX_APPLE_FFT_CPU_SIMD_LEVELS}")

# The levels, for csrc/cpu/cpu_simd.cc and cpu_transform.cc.
set(JAX_APPLE_FFT_CPU_SIMD_INCLUDE_DIR "${CMAKE_BINARY_DIR}/cpu_simd")
set(_levels_inc "")
foreach(_level IN LISTS JAX_APPLE_FFT_CPU_SIMD_LEVELS)
  string(APPEND _levels_inc "JAX_APPLE_FFT_CPU_SIMD_LEVEL(${_level})\n")
endforeach()
file(CONFIGURE OUTPUT "${JAX_APPLE_FFT_CPU_SIMD_INCLUDE_DIR}/cpu_simd_levels.inc"
     CONTENT "${_levels_inc}")

# Adds the objects of every level's copy of the kernels to `target`.
function(jax_apple_fft_add_cpu_kernels target)
  foreach(level IN LISTS JAX_APPLE_FFT_CPU_SIMD_LEVELS)
    set(flags ${JAX_APPLE_FFT_CPU_SIMD_FLAGS_${level}})
    set(kernels jax_apple_fft_cpu_kernels_${level})
    add_library(${kernels} OBJECT "${PROJECT_SOURCE_DIR}/csrc/cpu/cpu_kernels.cc")
    target_include_directories(${kernels} PRIVATE "${PROJECT_SOURCE_DIR}/csrc")
    target_include_directories(${kernels} SYSTEM PRIVATE "${POCKETFFT_INCLUDE_DIR}")
    target_compile_definitions(${kernels} PRIVATE
      JAX_APPLE_FFT_SIMD=simd_${level} DUCC0_NAMESPACE=jax_apple_fft_ducc0_${level}
      ${POCKETFFT_DEFINITIONS})
    target_compile_options(${kernels} PRIVATE ${flags})
    set_target_properties(${kernels} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    list(LENGTH JAX_APPLE_FFT_CPU_SIMD_LEVELS levels)
    set(tools CMAKE_NM AND CMAKE_READELF AND CMAKE_OBJCOPY)
    if(NOT flags OR (levels EQUAL 1 AND NOT (${tools})))
      # Compiled as everything else is, or the one copy that runs (where
      # the toolchain has no objcopy, as on macOS): nothing to rename.
      target_sources(${target} PRIVATE $<TARGET_OBJECTS:${kernels}>)
      continue()
    endif()
    if(NOT (${tools}))
      message(FATAL_ERROR "Building several SIMD levels needs nm, readelf and objcopy (binutils' "
                          "or LLVM's); or build one with -DJAX_APPLE_FFT_X86_SIMD=baseline or avx2")
    endif()
    set(private "${CMAKE_CURRENT_BINARY_DIR}/cpu_kernels_${level}${CMAKE_CXX_OUTPUT_EXTENSION}")
    add_custom_command(
      OUTPUT "${private}"
      COMMAND "${CMAKE_COMMAND}" "-DNM=${CMAKE_NM}" "-DREADELF=${CMAKE_READELF}"
              "-DOBJCOPY=${CMAKE_OBJCOPY}"
              "-DOBJECT=$<TARGET_OBJECTS:${kernels}>" "-DOUTPUT=${private}" "-DLEVEL=${level}"
              -P "${PROJECT_SOURCE_DIR}/cmake/PrivatizeSymbols.cmake"
      DEPENDS ${kernels} $<TARGET_OBJECTS:${kernels}> "${PROJECT_SOURCE_DIR}/cmake/PrivatizeSymbols.cmake"
      COMMENT "Renaming the shared symbols of the ${level} CPU kernels"
      VERBATIM)
    target_sources(${target} PRIVATE "${private}")
  endforeach()
  target_include_directories(${target} PRIVATE "${JAX_APPLE_FFT_CPU_SIMD_INCLUDE_DIR}")
endfunction()
