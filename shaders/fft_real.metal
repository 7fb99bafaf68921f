// The passes that turn a half-length complex FFT into a real one.
//
// A real sequence x of even length n is read as z[j] = x[2j] + i x[2j+1],
// a complex sequence of length h = n / 2. r2c_unpack turns Z = FFT_h(z) into
// the n/2 + 1 outputs of the real FFT; c2r_pack turns a Hermitian half
// spectrum into the Z whose inverse FFT_h interleaves the real result.
// Odd lengths use the full-length complex transform instead, preceded for
// C2R by c2r_expand, which rebuilds the full Hermitian spectrum.
// One thread per output element; twiddles[k] = e^{-2 pi i k / n}.
#include "fft_helpers.h"

inline void r2c_unpack_body(device const float* in, device float* out,
                            device const float2* twiddles, constant FftParams& p, uint item) {
  if (item >= p.transforms) return;
  uint h = p.n / 2u;
  uint batch = item / p.per_batch;
  uint k = item % p.per_batch;
  float2 zk = read_element(p.in, in, batch, k % h);
  float2 zc = conjugate(read_element(p.in, in, batch, (h - k) % h));
  write_element(p.out, out, batch, k, r2c_unpacked_value(zk, zc, twiddles[k]) * p.scale);
}

// Reads bin k of a Hermitian half spectrum; DC and Nyquist are real by definition.
inline float2 hermitian_bin(constant FftParams& p, device const float* in, uint batch, uint k) {
  float2 v = read_element(p.in, in, batch, k);
  if (k == 0u || 2u * k == p.n) v.y = 0.0f;
  return v;
}

inline void c2r_pack_body(device const float* in, device float* out, device const float2* twiddles,
                          constant FftParams& p, uint item) {
  if (item >= p.transforms) return;
  uint h = p.n / 2u;
  uint batch = item / p.per_batch;
  uint k = item % p.per_batch;
  float2 a = hermitian_bin(p, in, batch, k);
  float2 c = conjugate(hermitian_bin(p, in, batch, h - k));
  write_element(p.out, out, batch, k, c2r_packed_value(a, c, twiddles[k]));
}

inline void c2r_expand_body(device const float* in, device float* out, constant FftParams& p,
                            uint item) {
  if (item >= p.transforms) return;
  uint batch = item / p.per_batch;
  uint k = item % p.per_batch;
  float2 v = 2u * k <= p.n ? hermitian_bin(p, in, batch, k)
                           : conjugate(hermitian_bin(p, in, batch, p.n - k));
  write_element(p.out, out, batch, k, v);
}

kernel void fft_r2c_unpack(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                           device const float2* twiddles MTL_BUFFER(2),
                           device const float2* pre MTL_BUFFER(3),
                           device const float2* post MTL_BUFFER(4),
                           device const float2* extra MTL_BUFFER(5),
                           constant FftParams& p MTL_BUFFER(6),
                           threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                           uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  // Every kernel takes every binding (one signature for all); this one reads some.
  (void)pre, (void)post, (void)extra, (void)shared;
  r2c_unpack_body(in, out, twiddles, p, item_index(p, tid, group));
}

kernel void fft_c2r_pack(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                         device const float2* twiddles MTL_BUFFER(2),
                         device const float2* pre MTL_BUFFER(3),
                         device const float2* post MTL_BUFFER(4),
                         device const float2* extra MTL_BUFFER(5),
                         constant FftParams& p MTL_BUFFER(6),
                         threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                         uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  (void)pre, (void)post, (void)extra, (void)shared;
  c2r_pack_body(in, out, twiddles, p, item_index(p, tid, group));
}

kernel void fft_c2r_expand(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                           device const float2* twiddles MTL_BUFFER(2),
                           device const float2* pre MTL_BUFFER(3),
                           device const float2* post MTL_BUFFER(4),
                           device const float2* extra MTL_BUFFER(5),
                           constant FftParams& p MTL_BUFFER(6),
                           threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                           uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  (void)twiddles, (void)pre, (void)post, (void)extra, (void)shared;
  c2r_expand_body(in, out, p, item_index(p, tid, group));
}
