// Pipeline constants: the shape of a Stockham dispatch (length, threads per
// transform, transforms per group, stages of each radix), fixed when its
// pipeline is built so that the compiler folds them. Divisions by them become
// multiplications, and the stage loops unroll with every span a constant.
//
// Metal takes them as function constants (MTLFunctionConstantValues at the
// indices of fft_params.h), every one of them given: a pipeline that fixes
// nothing has fft_fixed_shape false. A CUDA build takes them as one define,
// -DFFT_PIPELINE_CONSTANTS=v0,v1,...,v11 in index order. Without
// fft_fixed_shape (also in a build without the define: the emulator) the
// kernels read the same values from FftParams.
#pragma once

#include "fft_params.h"

#if defined(__METAL_VERSION__)
constant uint fixed_n [[function_constant(FFT_CONSTANT_N)]];
constant uint fixed_threads_per_transform
    [[function_constant(FFT_CONSTANT_THREADS_PER_TRANSFORM)]];
constant uint fixed_per_group [[function_constant(FFT_CONSTANT_PER_GROUP)]];
constant uint fixed_stages_8 [[function_constant(FFT_CONSTANT_STAGES + 0u)]];
constant uint fixed_stages_4 [[function_constant(FFT_CONSTANT_STAGES + 1u)]];
constant uint fixed_stages_2 [[function_constant(FFT_CONSTANT_STAGES + 2u)]];
constant uint fixed_stages_3 [[function_constant(FFT_CONSTANT_STAGES + 3u)]];
constant uint fixed_stages_5 [[function_constant(FFT_CONSTANT_STAGES + 4u)]];
constant uint fixed_stages_7 [[function_constant(FFT_CONSTANT_STAGES + 5u)]];
constant uint fixed_stages_11 [[function_constant(FFT_CONSTANT_STAGES + 6u)]];
constant uint fixed_stages_13 [[function_constant(FFT_CONSTANT_STAGES + 7u)]];
constant bool fft_fixed_shape [[function_constant(FFT_CONSTANT_FIXED_SHAPE)]];
#else
#if defined(FFT_PIPELINE_CONSTANTS)
constexpr uint fixed_constants[FFT_CONSTANT_COUNT] = {FFT_PIPELINE_CONSTANTS};
#else
constexpr uint fixed_constants[FFT_CONSTANT_COUNT] = {};
#endif
constexpr bool fft_fixed_shape = fixed_constants[FFT_CONSTANT_FIXED_SHAPE] != 0u;
constexpr uint fixed_n = fixed_constants[FFT_CONSTANT_N];
constexpr uint fixed_threads_per_transform = fixed_constants[FFT_CONSTANT_THREADS_PER_TRANSFORM];
constexpr uint fixed_per_group = fixed_constants[FFT_CONSTANT_PER_GROUP];
constexpr uint fixed_stages_8 = fixed_constants[FFT_CONSTANT_STAGES + 0u];
constexpr uint fixed_stages_4 = fixed_constants[FFT_CONSTANT_STAGES + 1u];
constexpr uint fixed_stages_2 = fixed_constants[FFT_CONSTANT_STAGES + 2u];
constexpr uint fixed_stages_3 = fixed_constants[FFT_CONSTANT_STAGES + 3u];
constexpr uint fixed_stages_5 = fixed_constants[FFT_CONSTANT_STAGES + 4u];
constexpr uint fixed_stages_7 = fixed_constants[FFT_CONSTANT_STAGES + 5u];
constexpr uint fixed_stages_11 = fixed_constants[FFT_CONSTANT_STAGES + 6u];
constexpr uint fixed_stages_13 = fixed_constants[FFT_CONSTANT_STAGES + 7u];
#endif

// The dispatch's shape, from the pipeline where it fixes it.
inline uint dispatch_n(constant FftParams& p) { return fft_fixed_shape ? fixed_n : p.n; }
inline uint dispatch_threads_per_transform(constant FftParams& p) {
  return fft_fixed_shape ? fixed_threads_per_transform : p.threads_per_transform;
}
inline uint dispatch_per_group(constant FftParams& p) {
  return fft_fixed_shape ? fixed_per_group : p.per_group;
}
inline uint dispatch_group_threads(constant FftParams& p) {
  return fft_fixed_shape ? fixed_per_group * fixed_threads_per_transform : p.group_threads;
}

// Stages of radix R in a pipeline that fixes the shape.
template <uint R>
inline uint fixed_stages() {
  return R == 8u ? fixed_stages_8 : R == 4u ? fixed_stages_4 : R == 2u ? fixed_stages_2
       : R == 3u ? fixed_stages_3 : R == 5u ? fixed_stages_5 : R == 7u ? fixed_stages_7
       : R == 11u ? fixed_stages_11 : fixed_stages_13;
}
