// Pipeline constants: the shape and modes of a Stockham dispatch (length,
// threads per transform, transforms per group, stages of each radix,
// direction, fused operations, how each side is stored, walked and laid
// out, transforms per batch entry and whether batch entries interleave),
// fixed when its pipeline is built so that the compiler folds them.
// Divisions by them become shifts or multiplications, the stage loops
// unroll with every span a constant, and the branches on modes disappear.
//
// Metal takes them as function constants (MTLFunctionConstantValues at the
// indices of fft_params.h), every one of them given and every one a uint: a
// pipeline that fixes nothing has fft_fixed_shape false. A CUDA build takes
// them as one define, -DFFT_PIPELINE_CONSTANTS=v0,v1,... in index order.
// Without fft_fixed_shape (also in a build without the define: the
// emulator) the kernels read the same values from FftParams.
#pragma once

#include "fft_params.h"

#if defined(__METAL_VERSION__)
constant uint fixed_n [[function_constant(FFT_CONSTANT_N)]];
constant uint fixed_threads_per_transform
    [[function_constant(FFT_CONSTANT_THREADS_PER_TRANSFORM)]];
constant uint fixed_per_group [[function_constant(FFT_CONSTANT_PER_GROUP)]];
constant uint fixed_stages_16 [[function_constant(FFT_CONSTANT_STAGES + 0u)]];
constant uint fixed_stages_10 [[function_constant(FFT_CONSTANT_STAGES + 1u)]];
constant uint fixed_stages_8 [[function_constant(FFT_CONSTANT_STAGES + 2u)]];
constant uint fixed_stages_4 [[function_constant(FFT_CONSTANT_STAGES + 3u)]];
constant uint fixed_stages_2 [[function_constant(FFT_CONSTANT_STAGES + 4u)]];
constant uint fixed_stages_9 [[function_constant(FFT_CONSTANT_STAGES + 5u)]];
constant uint fixed_stages_3 [[function_constant(FFT_CONSTANT_STAGES + 6u)]];
constant uint fixed_stages_5 [[function_constant(FFT_CONSTANT_STAGES + 7u)]];
constant uint fixed_stages_7 [[function_constant(FFT_CONSTANT_STAGES + 8u)]];
constant uint fixed_stages_11 [[function_constant(FFT_CONSTANT_STAGES + 9u)]];
constant uint fixed_stages_13 [[function_constant(FFT_CONSTANT_STAGES + 10u)]];
constant uint fixed_inverse [[function_constant(FFT_CONSTANT_INVERSE)]];
constant uint fixed_pre_mode [[function_constant(FFT_CONSTANT_PRE_MODE)]];
constant uint fixed_post_mode [[function_constant(FFT_CONSTANT_POST_MODE)]];
constant uint fixed_convolve [[function_constant(FFT_CONSTANT_CONVOLVE)]];
constant uint fixed_in_kind [[function_constant(FFT_CONSTANT_IN_KIND)]];
constant uint fixed_in_walk [[function_constant(FFT_CONSTANT_IN_WALK)]];
constant uint fixed_out_kind [[function_constant(FFT_CONSTANT_OUT_KIND)]];
constant uint fixed_out_walk [[function_constant(FFT_CONSTANT_OUT_WALK)]];
constant uint fixed_interleaved [[function_constant(FFT_CONSTANT_INTERLEAVED)]];
constant uint fixed_per_batch [[function_constant(FFT_CONSTANT_PER_BATCH)]];
constant uint fixed_in_layout [[function_constant(FFT_CONSTANT_IN_LAYOUT)]];
constant uint fixed_out_layout [[function_constant(FFT_CONSTANT_OUT_LAYOUT)]];
constant uint fixed_odd_first [[function_constant(FFT_CONSTANT_ODD_FIRST)]];
constant uint fixed_shape_word [[function_constant(FFT_CONSTANT_FIXED_SHAPE)]];
constant bool fft_fixed_shape = fixed_shape_word != 0u;
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
constexpr uint fixed_stages_16 = fixed_constants[FFT_CONSTANT_STAGES + 0u];
constexpr uint fixed_stages_10 = fixed_constants[FFT_CONSTANT_STAGES + 1u];
constexpr uint fixed_stages_8 = fixed_constants[FFT_CONSTANT_STAGES + 2u];
constexpr uint fixed_stages_4 = fixed_constants[FFT_CONSTANT_STAGES + 3u];
constexpr uint fixed_stages_2 = fixed_constants[FFT_CONSTANT_STAGES + 4u];
constexpr uint fixed_stages_9 = fixed_constants[FFT_CONSTANT_STAGES + 5u];
constexpr uint fixed_stages_3 = fixed_constants[FFT_CONSTANT_STAGES + 6u];
constexpr uint fixed_stages_5 = fixed_constants[FFT_CONSTANT_STAGES + 7u];
constexpr uint fixed_stages_7 = fixed_constants[FFT_CONSTANT_STAGES + 8u];
constexpr uint fixed_stages_11 = fixed_constants[FFT_CONSTANT_STAGES + 9u];
constexpr uint fixed_stages_13 = fixed_constants[FFT_CONSTANT_STAGES + 10u];
constexpr uint fixed_inverse = fixed_constants[FFT_CONSTANT_INVERSE];
constexpr uint fixed_pre_mode = fixed_constants[FFT_CONSTANT_PRE_MODE];
constexpr uint fixed_post_mode = fixed_constants[FFT_CONSTANT_POST_MODE];
constexpr uint fixed_convolve = fixed_constants[FFT_CONSTANT_CONVOLVE];
constexpr uint fixed_in_kind = fixed_constants[FFT_CONSTANT_IN_KIND];
constexpr uint fixed_in_walk = fixed_constants[FFT_CONSTANT_IN_WALK];
constexpr uint fixed_out_kind = fixed_constants[FFT_CONSTANT_OUT_KIND];
constexpr uint fixed_out_walk = fixed_constants[FFT_CONSTANT_OUT_WALK];
constexpr uint fixed_interleaved = fixed_constants[FFT_CONSTANT_INTERLEAVED];
constexpr uint fixed_per_batch = fixed_constants[FFT_CONSTANT_PER_BATCH];
constexpr uint fixed_in_layout = fixed_constants[FFT_CONSTANT_IN_LAYOUT];
constexpr uint fixed_out_layout = fixed_constants[FFT_CONSTANT_OUT_LAYOUT];
constexpr uint fixed_odd_first = fixed_constants[FFT_CONSTANT_ODD_FIRST];
#endif

// The dispatch's shape and modes, from the pipeline where it fixes them.
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
inline uint dispatch_inverse(constant FftParams& p) {
  return fft_fixed_shape ? fixed_inverse : p.inverse;
}
inline uint dispatch_pre_mode(constant FftParams& p) {
  return fft_fixed_shape ? fixed_pre_mode : p.pre_mode;
}
inline uint dispatch_post_mode(constant FftParams& p) {
  return fft_fixed_shape ? fixed_post_mode : p.post_mode;
}
inline uint dispatch_convolution(constant FftParams& p) {
  return fft_fixed_shape ? fixed_convolve : p.convolve;
}
inline bool dispatch_convolves(constant FftParams& p) {
  return dispatch_convolution(p) != FFT_CONVOLVE_NONE;
}
inline uint dispatch_in_kind(constant FftParams& p) {
  return fft_fixed_shape ? fixed_in_kind : p.in.kind;
}
inline uint dispatch_in_walk(constant FftParams& p) {
  return fft_fixed_shape ? fixed_in_walk : p.in.walk;
}
inline uint dispatch_out_kind(constant FftParams& p) {
  return fft_fixed_shape ? fixed_out_kind : p.out.kind;
}
inline uint dispatch_out_walk(constant FftParams& p) {
  return fft_fixed_shape ? fixed_out_walk : p.out.walk;
}
inline bool dispatch_interleaves(constant FftParams& p) {
  return fft_fixed_shape ? fixed_interleaved != 0u : p.batch_interleave != 1u;
}
inline uint dispatch_per_batch(constant FftParams& p) {
  return fft_fixed_shape ? fixed_per_batch : p.per_batch;
}
inline uint params_side_layout(constant FftSide& s, uint touched, constant FftParams& p) {
  return side_layout(s.g_mul, s.elem_stride, s.valid, s.r_mul, s.inner_count, touched,
                     p.per_batch);
}
inline uint dispatch_in_layout(constant FftParams& p) {
  if (fft_fixed_shape) return fixed_in_layout;
  return params_side_layout(p.in, side_touched(p.n, p.pre_mode, FFT_FUSED_C2R_PACK), p);
}
inline uint dispatch_out_layout(constant FftParams& p) {
  if (fft_fixed_shape) return fixed_out_layout;
  return params_side_layout(p.out, side_touched(p.n, p.post_mode, FFT_FUSED_R2C_UNPACK), p);
}

// Stages of radix R in a pipeline that fixes the shape.
template <uint R>
inline uint fixed_stages() {
  return R == 16u ? fixed_stages_16 : R == 10u ? fixed_stages_10 : R == 8u ? fixed_stages_8
       : R == 4u ? fixed_stages_4 : R == 2u ? fixed_stages_2 : R == 9u ? fixed_stages_9
       : R == 3u ? fixed_stages_3 : R == 5u ? fixed_stages_5 : R == 7u ? fixed_stages_7
       : R == 11u ? fixed_stages_11 : fixed_stages_13;
}

// The dispatch's number of stages, and the radices of its first and last
// (1 where it has none: length 1).
inline uint dispatch_stages(constant FftParams& p) {
  return fft_fixed_shape ? fixed_stages_16 + fixed_stages_10 + fixed_stages_8 + fixed_stages_4 +
                               fixed_stages_2 + fixed_stages_9 + fixed_stages_3 + fixed_stages_5 +
                               fixed_stages_7 + fixed_stages_11 + fixed_stages_13
                         : p.num_stages;
}
// The first and last radix of a pipeline's even runs and of its odd runs
// (1 where it has none).
inline uint fixed_first_even() {
  return fixed_stages_16 ? 16u : fixed_stages_10 ? 10u : fixed_stages_8 ? 8u
       : fixed_stages_4 ? 4u : fixed_stages_2 ? 2u : 1u;
}
inline uint fixed_last_even() {
  return fixed_stages_2 ? 2u : fixed_stages_4 ? 4u : fixed_stages_8 ? 8u
       : fixed_stages_10 ? 10u : fixed_stages_16 ? 16u : 1u;
}
inline uint fixed_first_odd() {
  return fixed_stages_9 ? 9u : fixed_stages_3 ? 3u : fixed_stages_5 ? 5u : fixed_stages_7 ? 7u
       : fixed_stages_11 ? 11u : fixed_stages_13 ? 13u : 1u;
}
inline uint fixed_last_odd() {
  return fixed_stages_13 ? 13u : fixed_stages_11 ? 11u : fixed_stages_7 ? 7u : fixed_stages_5 ? 5u
       : fixed_stages_3 ? 3u : fixed_stages_9 ? 9u : 1u;
}
inline uint dispatch_first_radix(constant FftParams& p) {
  if (!fft_fixed_shape) return p.num_stages == 0u ? 1u : p.radix[0];
  const uint first = fixed_odd_first != 0u ? fixed_first_odd() : fixed_first_even();
  return first != 1u ? first : fixed_odd_first != 0u ? fixed_first_even() : fixed_first_odd();
}
inline uint dispatch_last_radix(constant FftParams& p) {
  if (!fft_fixed_shape) return p.num_stages == 0u ? 1u : p.radix[p.num_stages - 1u];
  const uint last = fixed_odd_first != 0u ? fixed_last_even() : fixed_last_odd();
  return last != 1u ? last : fixed_odd_first != 0u ? fixed_last_odd() : fixed_last_even();
}
