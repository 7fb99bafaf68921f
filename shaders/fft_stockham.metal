// Complex FFT of lengths up to 4096 held in threadgroup memory.
//
// Each threadgroup owns `per_group` transforms; each transform gets
// `threads_per_transform` threads. The dispatch loads its transforms into
// threadgroup memory (applying the pre-multiplication and zero padding),
// runs Stockham autosort stages in place — every thread reads all its stage
// inputs into registers, the group synchronises, then writes — and stores
// the naturally ordered result (applying the post-multiplication and the
// normalisation). The same kernel serves single-pass transforms, both passes
// of the four-step decomposition and the inner transforms of Bluestein;
// the planner tells them apart only through FftParams. fft_stockham_pow2 and
// fft_stockham_smooth7 are the same kernel compiled for fewer radices.
//
// The loads and stores are in fft_group_io.h, the stages in fft_stages.h.
#include "fft_group_io.h"
#include "fft_stages.h"

// The convolution's pointwise product: element i of each transform times
// spectrum[g], g its index on the load side.
template <bool kSwizzle>
inline void multiply_by_spectrum(constant FftParams& p, threadgroup float2* data,
                                 device const float2* spectrum, uint tid, uint first_transform) {
  uint local = tid / dispatch_threads_per_transform(p);
  uint rank = tid % dispatch_threads_per_transform(p);
  TransformSide t = transform_side(p.in, p, first_transform + local);
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = rank + c * dispatch_threads_per_transform(p);
    if (i < dispatch_n(p)) {
      uint at = slot<kSwizzle>(local * dispatch_n(p) + i);
      data[at] = complex_mul(data[at], spectrum[i * p.in.g_mul + t.first]);
    }
  }
}

template <uint kRadices>
inline void fft_stockham_body(device const float* in, device float* out,
                              device const float2* twiddles, device const float2* pre,
                              device const float2* post, device const float2* extra,
                              constant FftParams& p, threadgroup float2* shared, uint tid,
                              uint group) {
  const bool kSwizzle = kRadices == FFT_RADICES_POW2;
  uint first_transform = group * dispatch_per_group(p);
  load_group<kSwizzle>(p, in, pre, extra, shared, tid, first_transform);
  threadgroup_barrier(mem_flags::mem_threadgroup);

  uint offset = (tid / dispatch_threads_per_transform(p)) * dispatch_n(p);
  uint rank = tid % dispatch_threads_per_transform(p);
  run_stages<kRadices>(p, shared, offset, rank, p.inverse, twiddles);
  if (p.convolve != 0u) {
    multiply_by_spectrum<kSwizzle>(p, shared, extra, tid, first_transform);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    run_stages<kRadices>(p, shared, offset, rank, 1u - p.inverse, twiddles);
  }

  store_group<kSwizzle>(p, out, post, extra, shared, tid, first_transform);
}

kernel void fft_stockham(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                         device const float2* twiddles MTL_BUFFER(2),
                         device const float2* pre MTL_BUFFER(3),
                         device const float2* post MTL_BUFFER(4),
                         device const float2* extra MTL_BUFFER(5),
                         constant FftParams& p MTL_BUFFER(6),
                         threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                         uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  fft_stockham_body<FFT_RADICES_ALL>(in, out, twiddles, pre, post, extra, p, shared, tid, group);
}

kernel void fft_stockham_pow2(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                              device const float2* twiddles MTL_BUFFER(2),
                              device const float2* pre MTL_BUFFER(3),
                              device const float2* post MTL_BUFFER(4),
                              device const float2* extra MTL_BUFFER(5),
                              constant FftParams& p MTL_BUFFER(6),
                              threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                              uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  fft_stockham_body<FFT_RADICES_POW2>(in, out, twiddles, pre, post, extra, p, shared, tid, group);
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
  fft_stockham_body<FFT_RADICES_SMOOTH7>(in, out, twiddles, pre, post, extra, p, shared, tid, group);
}
