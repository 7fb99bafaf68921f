// The Stockham stages of a transform: one stage of each radix over values in
// registers, and the runs of stages a kernel compiled for a set of radices
// walks through.
//
// A stage of radix R combines sub-transforms of length span_in into ones of
// length span_in * R; butterfly j reads elements j + r * (n / R) and writes
// its outputs at (j / span_in) * span_in * R + j % span_in + r * span_in. A
// thread of rank t takes butterflies t, t + T, t + 2T, ... (T threads per
// transform). Between stages the values pass through threadgroup memory. The
// first stage may take its inputs straight from the load and the last give
// its outputs straight to the store (fft_group_io.h): where T divides the
// stage's n / R, the elements a thread loads or stores are exactly its
// butterflies' inputs or outputs.
#pragma once

#include "fft_butterflies.h"
#include "fft_group_io.h"
#include "fft_group_memory.h"
#include "fft_pipeline_constants.h"

// Combines sub-transforms of length span_in (span_shift = log2 span_in for
// lengths 2^k, which then divide by shifts) with the stage twiddles
// w^r, w = w_{span_in R}^k, as products of table values: one or two loads
// per butterfly instead of R - 1, each product adding about an eps.
template <uint R, bool kPowerOfTwo>
inline void combine_stage(constant FftParams& p, uint rank, uint span_in, uint span_shift,
                          uint inverse, device const float2* twiddles,
                          thread StageValues<R>& s) {
  const uint n = dispatch_n(p);
  const uint twiddle_step = n / (span_in * R);
  FFT_UNROLL
  for (uint b = 0u; b < FFT_STAGE_HELD(R); ++b) {
    uint j = rank + b * dispatch_threads_per_transform(p);
    if (j >= n / R) continue;
    thread float2* v = s.v[b];
    uint sub = kPowerOfTwo ? j >> span_shift : j / span_in;
    uint k = j - sub * span_in;
    if (span_in > 1u) {
      float2 w = directed(twiddles[k * twiddle_step], inverse);
      if (R == 16u) {
        // w^(4q + m) = (w^4)^q w^m: at most five roundings for any power.
        float2 w4 = directed(twiddles[4u * k * twiddle_step], inverse);
        float2 low[4] = {float2(1.0f, 0.0f), w, complex_mul(w, w), float2(0.0f, 0.0f)};
        low[3] = complex_mul(low[2], w);
        float2 high = float2(1.0f, 0.0f);
        FFT_UNROLL
        for (uint q = 0u; q < 4u; ++q) {
          FFT_UNROLL
          for (uint m = 0u; m < 4u; ++m) {
            if (q + m > 0u) v[4u * q + m] = complex_mul(v[4u * q + m], complex_mul(high, low[m]));
          }
          high = q == 0u ? w4 : complex_mul(high, w4);
        }
      } else {
        float2 wr = w;
        FFT_UNROLL
        for (uint r = 1u; r < R; ++r) {
          v[r] = complex_mul(v[r], wr);
          if (r + 1u < R) wr = complex_mul(wr, w);
        }
      }
    }
    butterfly<R>(v, inverse, n, twiddles);
  }
}

// Reads a stage's inputs from threadgroup memory.
template <uint R, bool kPowerOfTwo>
inline void gather_stage(constant FftParams& p, threadgroup float2* data, StageThread at,
                         thread StageValues<R>& s) {
  const uint butterflies = dispatch_n(p) / R;
  FFT_UNROLL
  for (uint b = 0u; b < FFT_STAGE_HELD(R); ++b) {
    uint j = at.rank + b * dispatch_threads_per_transform(p);
    if (j >= butterflies) continue;
    // j < butterflies, a power of two in the swizzled kernel, and the
    // offset a multiple of n: no bit in common with r * butterflies.
    const uint first = slot<kPowerOfTwo>(at.offset + j);
    FFT_UNROLL
    for (uint r = 0u; r < R; ++r) s.v[b][r] = data[slot_plus<kPowerOfTwo>(first, r * butterflies)];
  }
}

// Writes a stage's outputs to threadgroup memory.
template <uint R, bool kPowerOfTwo>
inline void scatter_stage(constant FftParams& p, threadgroup float2* data, StageThread at,
                          uint span_in, uint span_shift, thread StageValues<R>& s) {
  const uint butterflies = dispatch_n(p) / R;
  FFT_UNROLL
  for (uint b = 0u; b < FFT_STAGE_HELD(R); ++b) {
    uint j = at.rank + b * dispatch_threads_per_transform(p);
    if (j >= butterflies) continue;
    uint sub = kPowerOfTwo ? j >> span_shift : j / span_in;
    // The first output's index is a multiple of span_in * R plus a residue
    // below span_in: no bit in common with r * span_in (powers of two).
    const uint first = slot<kPowerOfTwo>(at.offset + sub * span_in * R + (j - sub * span_in));
    FFT_UNROLL
    for (uint r = 0u; r < R; ++r) data[slot_plus<kPowerOfTwo>(first, r * span_in)] = s.v[b][r];
  }
}

// Where the stages run, which the stage loops advance.
struct StagePosition {
  uint stage;
  uint span;        // length of the sub-transforms the next stage combines
  uint span_shift;  // log2 span, for lengths 2^k
};

// Which ends of a run of stages meet device memory: the first stage's
// inputs come from the load, the last stage's outputs go to the store.
struct StageEnds {
  bool load;
  bool store;
};

// One stage of radix R. A stage that reads threadgroup memory waits for the
// group before writing it; every stage that writes it waits after.
template <uint R, bool kPowerOfTwo>
inline void stockham_stage(constant FftParams& p, threadgroup float2* data, StockhamBuffers io,
                           uint tid, uint first_transform, uint inverse, StageEnds ends,
                           thread StagePosition& at) {
  const bool from_device = ends.load && at.stage == 0u;
  const bool to_device = ends.store && at.stage + 1u == dispatch_stages(p);
  StageValues<R> s;
  StageThread thread_at;
  if (from_device) {
    thread_at = load_first_stage<R, kPowerOfTwo>(p, io, tid, first_transform, s);
  } else {
    thread_at = walk_thread<kPowerOfTwo>(p, to_device ? dispatch_out_walk(p) : FFT_WALK_ALONG, tid);
    gather_stage<R, kPowerOfTwo>(p, data, thread_at, s);
    if (!to_device) threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  combine_stage<R, kPowerOfTwo>(p, thread_at.rank, at.span, at.span_shift, inverse, io.twiddles, s);
  if (to_device) {
    store_last_stage<R>(p, io, thread_at, first_transform, s);
  } else {
    scatter_stage<R, kPowerOfTwo>(p, data, thread_at, at.span, at.span_shift, s);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  at.stage += 1u;
  at.span *= R;
  if (kPowerOfTwo) at.span_shift += R == 16u ? 4u : R == 8u ? 3u : R == 4u ? 2u : 1u;
}

// The radices a Stockham kernel is compiled for: the planner picks the
// kernel of the smallest set that holds a length's radices
// (stockham_kernel), because a kernel needs the registers of its largest
// butterfly, and fewer registers per thread keep more threads resident.
#define FFT_RADICES_POW2 0u     // 2, 4, 8, 16; threadgroup memory swizzled
#define FFT_RADICES_SMOOTH7 1u  // 2, 3, 4, 5, 7, 8, 9, 10
#define FFT_RADICES_ALL 2u      // 2, 3, 4, 5, 7, 8, 9, 10, 11, 13

// The run of radix-R stages that starts at `at`. One loop per radix, not a
// switch per stage: a switch over every radix in one loop keeps the
// registers of all its butterflies at once, and spills.
template <uint R, bool kPowerOfTwo>
inline void radix_run(constant FftParams& p, threadgroup float2* data, StockhamBuffers io,
                      uint tid, uint first_transform, uint inverse, StageEnds ends,
                      thread StagePosition& at) {
  if (fft_fixed_shape) {
    FFT_UNROLL
    for (uint s = 0u; s < fixed_stages<R>(); ++s) {
      stockham_stage<R, kPowerOfTwo>(p, data, io, tid, first_transform, inverse, ends, at);
    }
    return;
  }
  while (at.stage < p.num_stages && p.radix[at.stage] == R) {
    stockham_stage<R, kPowerOfTwo>(p, data, io, tid, first_transform, inverse, ends, at);
  }
}

// The runs of even radices, in the order the planner lists them.
template <uint kRadices>
inline void even_runs(constant FftParams& p, threadgroup float2* data, StockhamBuffers io,
                      uint tid, uint first_transform, uint inverse, StageEnds ends,
                      thread StagePosition& at) {
  const bool kPowerOfTwo = kRadices == FFT_RADICES_POW2;
  if (kPowerOfTwo) radix_run<16u, true>(p, data, io, tid, first_transform, inverse, ends, at);
  if (!kPowerOfTwo) radix_run<10u, false>(p, data, io, tid, first_transform, inverse, ends, at);
  radix_run<8u, kPowerOfTwo>(p, data, io, tid, first_transform, inverse, ends, at);
  radix_run<4u, kPowerOfTwo>(p, data, io, tid, first_transform, inverse, ends, at);
  radix_run<2u, kPowerOfTwo>(p, data, io, tid, first_transform, inverse, ends, at);
}

// The runs of odd radices, in the order the planner lists them.
template <uint kRadices>
inline void odd_runs(constant FftParams& p, threadgroup float2* data, StockhamBuffers io,
                     uint tid, uint first_transform, uint inverse, StageEnds ends,
                     thread StagePosition& at) {
  radix_run<9u, false>(p, data, io, tid, first_transform, inverse, ends, at);
  radix_run<3u, false>(p, data, io, tid, first_transform, inverse, ends, at);
  radix_run<5u, false>(p, data, io, tid, first_transform, inverse, ends, at);
  radix_run<7u, false>(p, data, io, tid, first_transform, inverse, ends, at);
  if (kRadices == FFT_RADICES_SMOOTH7) return;
  radix_run<11u, false>(p, data, io, tid, first_transform, inverse, ends, at);
  radix_run<13u, false>(p, data, io, tid, first_transform, inverse, ends, at);
}

// Every stage of the group's transforms, in direction `inverse`: the even
// radices' runs, then the odd ones', or the odd ones' first
// (FFT_CONSTANT_ODD_FIRST), which the planner takes where an even radix at span 1
// would scatter to threadgroup memory R values apart (conflicting banks in
// the kernels without the swizzle) or where it puts more stage ends in
// registers (metal_routes.h, stockham_shape). Without fixed constants the
// runs go round until every stage is done (or a round takes none): one copy
// of each butterfly serves both orders.
template <uint kRadices>
inline void run_stages(constant FftParams& p, threadgroup float2* data, StockhamBuffers io,
                       uint tid, uint first_transform, uint inverse, StageEnds ends) {
  StagePosition at = {0u, 1u, 0u};
  if (kRadices == FFT_RADICES_POW2) {
    even_runs<kRadices>(p, data, io, tid, first_transform, inverse, ends, at);
  } else if (!fft_fixed_shape) {
    uint done;
    do {
      done = at.stage;
      even_runs<kRadices>(p, data, io, tid, first_transform, inverse, ends, at);
      odd_runs<kRadices>(p, data, io, tid, first_transform, inverse, ends, at);
    } while (at.stage < p.num_stages && at.stage != done);
  } else if (fixed_odd_first != 0u) {
    odd_runs<kRadices>(p, data, io, tid, first_transform, inverse, ends, at);
    even_runs<kRadices>(p, data, io, tid, first_transform, inverse, ends, at);
  } else {
    even_runs<kRadices>(p, data, io, tid, first_transform, inverse, ends, at);
    odd_runs<kRadices>(p, data, io, tid, first_transform, inverse, ends, at);
  }
}
