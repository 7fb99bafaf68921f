// Attribute spellings for kernel entry points, and the unrolling pragma.
//
// Under the Metal compiler these expand to the real attributes. When the
// kernels are compiled as C++ for the emulator, the compatibility header has
// already defined them (as nothing), so the address-space words and the
// attribute names never collide.
#pragma once

#if defined(__METAL_VERSION__)
#include <metal_stdlib>
using namespace metal;
#define MTL_BUFFER(index) [[buffer(index)]]
#define MTL_THREADGROUP_MEMORY(index) [[threadgroup(index)]]
#define MTL_THREAD_INDEX [[thread_index_in_threadgroup]]
#define MTL_GROUP_INDEX [[threadgroup_position_in_grid]]

// A complex value stored as two floats at `at` (even, so 8-byte aligned): one
// 8-byte access. The compatibility headers define the same two functions.
inline float2 load_pair(device const float* buffer, uint at) {
  return *reinterpret_cast<device const float2*>(buffer + at);
}
inline void store_pair(device float* buffer, uint at, float2 v) {
  *reinterpret_cast<device float2*>(buffer + at) = v;
}
#endif

// Unrolls a loop of constant trip count, so that the arrays it indexes stay
// in registers.
#if defined(__METAL_VERSION__)
#define FFT_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__CUDACC_RTC__)
#define FFT_UNROLL _Pragma("unroll")
#else
#define FFT_UNROLL
#endif
