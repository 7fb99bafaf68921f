// Complex FFT of lengths up to 4096 held in one threadgroup.
//
// Each threadgroup owns `per_group` transforms; each transform gets
// `threads_per_transform` threads. The dispatch loads its transforms
// (applying the pre-multiplication and zero padding), runs Stockham autosort
// stages — every thread combines its butterflies in registers and exchanges
// values with the group through threadgroup memory between stages — and
// stores the naturally ordered result (applying the post-multiplication and
// the normalisation). The first stage takes its inputs straight from the
// load and the last gives its outputs straight to the store where the walk
// allows (loads_into_first_stage, stores_from_last_stage); otherwise the
// values pass through threadgroup memory on the way in or out as well. The
// same kernel serves single-pass transforms, the passes of the four-step
// decomposition and the inner transforms of Bluestein; the planner tells
// them apart only through FftParams and the pipeline constants.
// fft_stockham_pow2 and fft_stockham_smooth7 are the same kernel compiled
// for fewer radices.
//
// The loads and stores are in fft_group_io.h, the stages in fft_stages.h.
#include "fft_stages.h"

// The convolution's pointwise product: element i of each transform times
// spectrum[g], g its index on the load side. Rader's (FFT_CONVOLVE_RADER)
// adds x[0] to element 0, so that every output gains it, and stores x[0]
// plus the transformed element 0 (the sum of x) for X[0].
template <bool kSwizzle>
inline void multiply_by_spectrum(constant FftParams& p, StockhamBuffers io,
                                 threadgroup float2* data, uint tid, uint first_transform) {
  StageThread at = walk_thread<kSwizzle>(p, FFT_WALK_ALONG, tid);
  uint transform = first_transform + at.local;
  TransformSide t = input_side(p, transform);
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = at.rank + c * dispatch_threads_per_transform(p);
    if (i < dispatch_n(p)) {
      uint slot_i = slot<kSwizzle>(at.offset + i);
      uint g = element_index(t, p.in, i);
      float2 product = complex_mul(data[slot_i], io.extra[g]);
      if (dispatch_convolution(p) == FFT_CONVOLVE_RADER && g == 0u && transform < p.transforms) {
        float2 first = read_kind(io.in, dispatch_in_kind(p), t.base, p.in.valid, p.in.elem_stride);
        TransformSide out = output_side(p, transform);
        write_kind(io.out, dispatch_out_kind(p), out.base, p.out.valid, p.out.elem_stride,
                   first + data[slot_i]);
        product += first;
      }
      data[slot_i] = product;
    }
  }
}

template <uint kRadices>
inline void fft_stockham_body(StockhamBuffers io, constant FftParams& p,
                              threadgroup float2* shared, uint tid, uint group) {
  const bool kPowerOfTwo = kRadices == FFT_RADICES_POW2;
  const uint first_transform = group * dispatch_per_group(p);
  const bool direct_load = loads_into_first_stage(p);
  const bool direct_store = stores_from_last_stage(p);
  const uint inverse = dispatch_inverse(p);
  if (!direct_load) {
    load_group<kPowerOfTwo>(p, io, shared, tid, first_transform);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (dispatch_convolves(p)) {
    run_stages<kRadices>(p, shared, io, tid, first_transform, inverse, {direct_load, false});
    multiply_by_spectrum<kPowerOfTwo>(p, io, shared, tid, first_transform);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    run_stages<kRadices>(p, shared, io, tid, first_transform, 1u - inverse,
                         {false, direct_store});
  } else {
    run_stages<kRadices>(p, shared, io, tid, first_transform, inverse,
                         {direct_load, direct_store});
  }
  if (!direct_store) store_group<kPowerOfTwo>(p, io, shared, tid, first_transform);
}

kernel void fft_stockham(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                         device const float2* twiddles MTL_BUFFER(2),
                         device const float2* pre MTL_BUFFER(3),
                         device const float2* post MTL_BUFFER(4),
                         device const float2* extra MTL_BUFFER(5),
                         constant FftParams& p MTL_BUFFER(6),
                         threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                         uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  fft_stockham_body<FFT_RADICES_ALL>({in, out, twiddles, pre, post, extra}, p, shared, tid, group);
}

kernel void fft_stockham_pow2(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                              device const float2* twiddles MTL_BUFFER(2),
                              device const float2* pre MTL_BUFFER(3),
                              device const float2* post MTL_BUFFER(4),
                              device const float2* extra MTL_BUFFER(5),
                              constant FftParams& p MTL_BUFFER(6),
                              threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                              uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  fft_stockham_body<FFT_RADICES_POW2>({in, out, twiddles, pre, post, extra}, p, shared, tid, group);
}

kernel void fft_stockham_smooth7(device const float* in MTL_BUFFER(0),
                                 device float* out MTL_BUFFER(1),
                                 device const float2* twiddles MTL_BUFFER(2),
                                 device const float2* pre MTL_BUFFER(3),
                                 device const float2* post MTL_BUFFER(4),
                                 device const float2* extra MTL_BUFFER(5),
                                 constant FftParams& p MTL_BUFFER(6),
                                 threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                                 uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  fft_stockham_body<FFT_RADICES_SMOOTH7>({in, out, twiddles, pre, post, extra}, p, shared, tid, group);
}
