// Parameter structs shared by the Metal kernels and the host planner.
//
// Every field is a 32-bit uint or float so the layout is identical in Metal
// and C++. The planner fills these; kernels only read them.
#pragma once

#if defined(__METAL_VERSION__)
#define FFT_PARAMS_NAMESPACE_BEGIN
#define FFT_PARAMS_NAMESPACE_END
#else
#if !defined(__CUDACC_RTC__)  // NVRTC has no C++ library headers
#include <cstdint>
#endif
#define FFT_PARAMS_NAMESPACE_BEGIN namespace jax_apple_fft::shaders {
#define FFT_PARAMS_NAMESPACE_END }
#endif

FFT_PARAMS_NAMESPACE_BEGIN

#if defined(__CUDACC_RTC__)
using uint = unsigned int;
#elif !defined(__METAL_VERSION__)
using uint = std::uint32_t;
#endif

#define FFT_MAX_STAGES 16
// Complex values a thread loads or stores, and at least the values it keeps
// in registers during one Stockham stage: a stage of radix R gives each
// thread up to ceil(FFT_MAX_THREAD_VALUES / R) butterflies.
#define FFT_MAX_THREAD_VALUES 16
// Elements of threadgroup memory: 32 KiB of float2.
#define FFT_THREADGROUP_ELEMENTS 4096

// Pipeline constants: the values of a Stockham dispatch that its pipeline
// fixes when it is built (fft_pipeline_constants.h), by index. Stage counts
// follow the order of the stage runs: radix 16, 10, 8, 4, 2, 9, 3, 5, 7, 11, 13,
// the odd radices' runs first where FFT_CONSTANT_ODD_FIRST is 1. A pipeline
// with FFT_CONSTANT_FIXED_SHAPE 0 fixes nothing (the others are 0).
#define FFT_CONSTANT_N 0u
#define FFT_CONSTANT_THREADS_PER_TRANSFORM 1u
#define FFT_CONSTANT_PER_GROUP 2u
#define FFT_CONSTANT_STAGES 3u  // + i: stages of the i-th radix of the run order
#define FFT_RUN_RADICES 11u
#define FFT_CONSTANT_INVERSE 14u
#define FFT_CONSTANT_PRE_MODE 15u
#define FFT_CONSTANT_POST_MODE 16u
#define FFT_CONSTANT_CONVOLVE 17u
#define FFT_CONSTANT_IN_KIND 18u
#define FFT_CONSTANT_IN_WALK 19u
#define FFT_CONSTANT_OUT_KIND 20u
#define FFT_CONSTANT_OUT_WALK 21u
#define FFT_CONSTANT_INTERLEAVED 22u  // 1 where batch_interleave > 1
#define FFT_CONSTANT_PER_BATCH 23u
#define FFT_CONSTANT_IN_LAYOUT 24u   // side_layout of each side
#define FFT_CONSTANT_OUT_LAYOUT 25u
#define FFT_CONSTANT_ODD_FIRST 26u  // 1 where the odd radices' stages come first
#define FFT_CONSTANT_FIXED_SHAPE 27u
#define FFT_CONSTANT_COUNT 28u

// How a side's values are stored.
#define FFT_SIDE_COMPLEX 0u     // float2 elements
#define FFT_SIDE_REAL 1u        // float elements; loads get a zero imaginary part
#define FFT_SIDE_REAL_PAIRS 2u  // complex element j = real elements (2j, 2j+1)

// The operation fused into loading (pre_mode) or storing (post_mode), besides
// the normalisation.
#define FFT_FUSED_NONE 0u
#define FFT_FUSED_TIMES_TABLE 1u        // times table[g], g = global element index
#define FFT_FUSED_FOUR_STEP_TWIDDLE 2u  // times w_N^(k*r) from a coarse table and the fine one
                                        // at buffer 5
#define FFT_FUSED_R2C_UNPACK 3u         // post: the n + 1 bins of a real FFT of 2n points from
                                        // its half-length complex FFT;
                                        // table[k] = e^{-2 pi i k / 2n}
#define FFT_FUSED_C2R_PACK 4u           // pre: the half-length complex input of a C2R of 2n
                                        // points from its n + 1 bins; the same table
#define FFT_FUSED_RADER_GATHER 5u       // pre: element g is x[table[g].x]; the store keeps x[0]
                                        // as output element `valid` (Rader's first pass)

// The convolution a dispatch runs (FftParams::convolve).
#define FFT_CONVOLVE_NONE 0u
#define FFT_CONVOLVE_BLUESTEIN 1u
#define FFT_CONVOLVE_RADER 2u  // also: element 0 of the product gains x[0], input element `valid`
                               // of the transform of residue 0; x[0] plus the transformed
                               // element 0 is stored as output element `valid`

// How a threadgroup's threads walk a side's elements when loading or storing.
// The element each thread takes differs; what is read and written does not.
#define FFT_WALK_ALONG 0u    // a transform's threads take its consecutive elements
#define FFT_WALK_ACROSS 1u   // neighbouring threads take neighbouring transforms' same element
#define FFT_WALK_RUN 2u      // the group's transforms are one run of contiguous pairs of floats

// Elements between the starts of consecutive transforms of length n in a
// group's threadgroup memory, for the planner (which sizes the memory) and
// the kernels alike. In a kernel without the swizzle (the radix-2^k one's
// swizzle spreads neighbouring transforms itself), with several transforms
// per group and no side walking as one run (whose elements would each need a
// division by n to find their place), the pitch is the first length from n
// that puts the 16 threads of a half SIMD group in 16 different banks of
// 8-byte words:
// - a stage or a walk along transforms reaches element rank + c of transform
//   `local`, (local, rank) counting threads T to a transform: a pitch of T
//   modulo 16 makes that thread index plus a constant;
// - a walk across transforms reaches element c of 16 neighbouring
//   transforms: an odd pitch.
// Odd T satisfies both; even T below 16 walking across takes T + 1; even T
// from 16 walking across takes n | 1 (its stages stay within a transform).
inline uint transform_pitch(uint n, bool swizzled, uint in_walk, uint out_walk, uint threads,
                            uint per_group) {
  const bool across = in_walk == FFT_WALK_ACROSS || out_walk == FFT_WALK_ACROSS;
  const bool run = in_walk == FFT_WALK_RUN || out_walk == FFT_WALK_RUN;
  if (swizzled || run || per_group == 1u || (!across && threads % 16u == 0u)) return n;
  if (across && threads % 2u == 0u && threads >= 16u) return n | 1u;
  const uint residue = across && threads % 2u == 0u ? threads + 1u : threads % 16u;
  return n + ((residue - n) & 15u);
}

// Where the elements of one side live. Transform t of a dispatch belongs to
// batch b = t / per_batch and has residue r = t % per_batch (with
// batch_interleave c > 1: b = (t / c) / per_batch * c + t % c and
// r = (t / c) % per_batch); its local
// element i has global index g = i * g_mul + r * r_mul, stored at
//   base(b) + g * elem_stride,
//   base(b) = (b / inner_count) * outer_stride + (b % inner_count) * inner_stride,
// in units of the side's element type. Elements with g >= valid read as
// zero and are not written. `walk` picks how threads cover the elements: the
// planner chooses FFT_WALK_RUN only when the group's elements are one
// contiguous run (complex or real pairs, unit stride, no pre/post multiply,
// an even float offset), and FFT_WALK_ACROSS where neighbouring transforms
// are neighbours in memory, so that each warp's accesses are contiguous.
struct FftSide {
  uint kind;
  uint valid;
  uint g_mul;
  uint r_mul;
  uint elem_stride;
  uint inner_count;
  uint inner_stride;
  uint outer_stride;
  uint walk;
};

// What a side's layout spares each element's access (side_layout): a
// pipeline that fixes it drops the index multiplications and the bounds
// check of a dense side, and the division of a side of one inner batch.
#define FFT_LAYOUT_DENSE 1u      // g_mul = elem_stride = 1, and every element of the
                                 // dispatch's transforms is valid
#define FFT_LAYOUT_ONE_INNER 2u  // inner_count = 1: base(b) = b * outer_stride
// Elements per transform a side's accesses reach: n, and n + 1 where the side
// holds the bins 0..n of a real transform of 2n points (the C2R pack's input,
// the R2C unpack's output).
inline uint side_touched(uint n, uint mode, uint real_bins_mode) {
  return mode == real_bins_mode ? n + 1u : n;
}
// Of a side's fields, for transforms that touch `touched` elements of it
// (side_touched) and per_batch transforms per batch entry (fields, not the
// struct: a Metal caller's struct lives in the constant address space, the
// planner's in thread memory).
inline uint side_layout(uint g_mul, uint elem_stride, uint valid, uint r_mul, uint inner_count,
                        uint touched, uint per_batch) {
  const bool unit = g_mul == 1u && elem_stride == 1u;
  // (touched - 1) + (per_batch - 1) * r_mul < valid, without overflow
  const bool all_valid =
      touched <= valid && (r_mul == 0u || per_batch - 1u <= (valid - touched) / r_mul);
  return (unit && all_valid ? FFT_LAYOUT_DENSE : 0u) |
         (inner_count == 1u ? FFT_LAYOUT_ONE_INNER : 0u);
}

struct FftParams {
  uint n;  // transform length of this dispatch (the real length for real kernels)
  uint num_stages;
  uint radix[FFT_MAX_STAGES];  // in run_stages' order: 16, 10, 8, 4, 2, then 9, 3, 5, 7, 11, 13,
                               // or the odd radices first
  uint inverse;  // 1: exponent sign +, conjugated twiddles
  uint transforms;  // transforms (or items, for real kernels) in the dispatch
  uint per_batch;
  // Batch entries whose transforms of one residue are neighbours in the
  // dispatch (FftSide): the contiguous columns of a strided axis, so that a
  // walk across neighbouring transforms stays contiguous when a batch entry
  // has several transforms. 1: a batch entry's transforms are neighbours.
  uint batch_interleave;
  uint per_group;  // transforms per threadgroup
  uint threads_per_transform;
  uint group_threads;  // threads per threadgroup
  uint pre_mode;
  uint post_mode;
  // A circular convolution (FFT_CONVOLVE_*). After the transform every
  // element is multiplied by the spectrum at buffer 5 (indexed as the load
  // side's g), and the transform runs again in the other direction before
  // the store.
  uint convolve;
  uint twiddle_n;      // N of the four-step twiddle w_N
  uint twiddle_shift;  // w_N^e = coarse[e >> shift] * fine[e & (2^shift - 1)]
  float scale;         // normalisation, applied by the dispatch that stores the result
  FftSide in;
  FftSide out;
};

FFT_PARAMS_NAMESPACE_END
