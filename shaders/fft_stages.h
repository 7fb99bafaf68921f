// The Stockham stages of a transform held in threadgroup memory: one stage of
// each radix over values in registers, and the runs of stages a kernel
// compiled for a set of radices walks through.
#pragma once

#include "fft_butterflies.h"
#include "fft_group_memory.h"
#include "fft_pipeline_constants.h"

// One Stockham stage of radix R over the transform at `offset` in the
// group's memory: sub-transforms of length `span_in` become length
// span_in * R. Butterfly j reads elements j + r * (n / R). The planner gives
// a thread at most FFT_MAX_THREAD_VALUES / R butterflies of any stage, so
// with R known here a thread's values are a fixed-size array indexed by
// constants after unrolling: registers, not memory. Lengths 2^k divide by
// span_in with a shift (span_shift = log2 span_in).
template <uint R, bool kPowerOfTwo>
inline void stockham_stage(constant FftParams& p, threadgroup float2* data, uint offset, uint rank,
                           uint span_in, uint span_shift, uint inverse,
                           device const float2* twiddles) {
  const uint held = FFT_MAX_THREAD_VALUES / R;  // butterflies a thread can own
  uint n = dispatch_n(p);
  uint butterflies = n / R;
  uint span_out = span_in * R;
  uint twiddle_step = n / span_out;
  float2 values[held][R];

  FFT_UNROLL
  for (uint b = 0u; b < held; ++b) {
    uint j = rank + b * dispatch_threads_per_transform(p);
    if (j < butterflies) {
      FFT_UNROLL
      for (uint r = 0u; r < R; ++r) values[b][r] = data[slot<kPowerOfTwo>(offset + j + r * butterflies)];
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);

  FFT_UNROLL
  for (uint b = 0u; b < held; ++b) {
    uint j = rank + b * dispatch_threads_per_transform(p);
    if (j < butterflies) {
      thread float2* v = values[b];
      uint sub = kPowerOfTwo ? j >> span_shift : j / span_in;
      uint k = j - sub * span_in;
      // The first stage's twiddles are all 1; later ones are w^r, w = w_span_out^k, as
      // products of one table value: one load per butterfly instead of R - 1, each
      // product adding about an eps.
      if (span_in > 1u) {
        float2 w = directed(twiddles[k * twiddle_step], inverse);
        float2 wr = w;
        FFT_UNROLL
        for (uint r = 1u; r < R; ++r) {
          v[r] = complex_mul(v[r], wr);
          if (r + 1u < R) wr = complex_mul(wr, w);
        }
      }
      butterfly<R>(v, inverse, n, twiddles);
      uint first = offset + sub * span_out + k;
      FFT_UNROLL
      for (uint r = 0u; r < R; ++r) data[slot<kPowerOfTwo>(first + r * span_in)] = v[r];
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}

// log2 of a radix of lengths 2^k.
inline uint radix_shift(uint radix) { return radix == 8u ? 3u : radix == 4u ? 2u : 1u; }

// The radices a Stockham kernel is compiled for: the planner picks the
// kernel of the smallest set that holds a length's radices
// (stockham_kernel), because a kernel needs the registers of its largest
// butterfly, and fewer registers per thread keep more threads resident.
#define FFT_RADICES_POW2 0u     // 2, 4, 8; threadgroup memory swizzled
#define FFT_RADICES_SMOOTH7 1u  // 2, 3, 4, 5, 7, 8
#define FFT_RADICES_ALL 2u      // 2, 3, 4, 5, 7, 8, 11, 13

// Where the stages run, which the stage loops advance.
struct StagePosition {
  uint stage;
  uint span;        // length of the sub-transforms the next stage combines
  uint span_shift;  // log2 span, for lengths 2^k
};

// The run of radix-R stages that starts at `at`. One loop per radix, not a
// switch per stage: a switch over every radix in one loop keeps the
// registers of all its butterflies at once, and spills.
template <uint R, bool kPowerOfTwo>
inline void radix_run(constant FftParams& p, threadgroup float2* data, uint offset, uint rank,
                      uint inverse, device const float2* twiddles, thread StagePosition& at) {
  if (fft_fixed_shape) {
    FFT_UNROLL
    for (uint s = 0u; s < fixed_stages<R>(); ++s) {
      stockham_stage<R, kPowerOfTwo>(p, data, offset, rank, at.span, at.span_shift, inverse,
                                     twiddles);
      at.span *= R;
      if (kPowerOfTwo) at.span_shift += radix_shift(R);
    }
    return;
  }
  while (at.stage < p.num_stages && p.radix[at.stage] == R) {
    stockham_stage<R, kPowerOfTwo>(p, data, offset, rank, at.span, at.span_shift, inverse,
                                   twiddles);
    at.span *= R;
    if (kPowerOfTwo) at.span_shift += radix_shift(R);
    ++at.stage;
  }
}

// Every stage of the transform at `offset`, in direction `inverse`. The
// planner lists radices in the order of these runs (FftParams::radix).
template <uint kRadices>
inline void run_stages(constant FftParams& p, threadgroup float2* data, uint offset, uint rank,
                       uint inverse, device const float2* twiddles) {
  const bool kPowerOfTwo = kRadices == FFT_RADICES_POW2;
  StagePosition at = {0u, 1u, 0u};
  radix_run<8u, kPowerOfTwo>(p, data, offset, rank, inverse, twiddles, at);
  radix_run<4u, kPowerOfTwo>(p, data, offset, rank, inverse, twiddles, at);
  radix_run<2u, kPowerOfTwo>(p, data, offset, rank, inverse, twiddles, at);
  if (kRadices == FFT_RADICES_POW2) return;
  radix_run<3u, false>(p, data, offset, rank, inverse, twiddles, at);
  radix_run<5u, false>(p, data, offset, rank, inverse, twiddles, at);
  radix_run<7u, false>(p, data, offset, rank, inverse, twiddles, at);
  if (kRadices == FFT_RADICES_SMOOTH7) return;
  radix_run<11u, false>(p, data, offset, rank, inverse, twiddles, at);
  radix_run<13u, false>(p, data, offset, rank, inverse, twiddles, at);
}
