// Test kernels: each thread stores one value in threadgroup memory and reads
// back its mirror image. Without the barrier the read races with another
// thread's write, which the race detector must report.
#include "metal_portability.h"
#include "fft_params.h"

inline void reverse_body(device const float* in, device float* out, threadgroup float2* shared,
                         uint tid, uint group, uint threads, bool synchronise) {
  uint base = group * threads;
  shared[tid] = float2(in[base + tid], 0.0f);
  if (synchronise) threadgroup_barrier(mem_flags::mem_threadgroup);
  out[base + tid] = shared[threads - 1u - tid].x;
}

kernel void reverse_synchronised(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                                 device const float2* unused2 MTL_BUFFER(2),
                                 device const float2* unused3 MTL_BUFFER(3),
                                 device const float2* unused4 MTL_BUFFER(4),
                                 device const float2* unused5 MTL_BUFFER(5),
                                 constant FftParams& p MTL_BUFFER(6),
                                 threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                                 uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  (void)unused2, (void)unused3, (void)unused4, (void)unused5;  // one signature for all kernels
  reverse_body(in, out, shared, tid, group, p.group_threads, true);
}

kernel void reverse_missing_barrier(device const float* in MTL_BUFFER(0),
                                    device float* out MTL_BUFFER(1),
                                    device const float2* unused2 MTL_BUFFER(2),
                                    device const float2* unused3 MTL_BUFFER(3),
                                    device const float2* unused4 MTL_BUFFER(4),
                                    device const float2* unused5 MTL_BUFFER(5),
                                    constant FftParams& p MTL_BUFFER(6),
                                    threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                                    uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  (void)unused2, (void)unused3, (void)unused4, (void)unused5;
  reverse_body(in, out, shared, tid, group, p.group_threads, false);
}
