// A pass that only moves elements: output element k of each batch entry is
// input element table[k].x (an index, exact in float), times the scale.
// Rader's convolution leaves X[g^-q] at element q of its scratch and X[0]
// after them; reading them in output order writes every bin where it
// belongs, contiguously, while the reads of one batch entry stay in cache.
#include "fft_helpers.h"

inline void permute_body(device const float* in, device float* out, device const float2* table,
                         constant FftParams& p, uint item) {
  if (item >= p.transforms) return;
  uint batch = item / p.per_batch;
  uint k = item % p.per_batch;
  float2 v = read_element(p.in, in, batch, uint(table[k].x));
  write_element(p.out, out, batch, k, v * p.scale);
}

kernel void fft_permute(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                        device const float2* twiddles MTL_BUFFER(2),
                        device const float2* pre MTL_BUFFER(3),
                        device const float2* post MTL_BUFFER(4),
                        device const float2* extra MTL_BUFFER(5),
                        constant FftParams& p MTL_BUFFER(6),
                        threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                        uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  // Every kernel takes every binding (one signature for all); the table is binding 2.
  (void)pre, (void)post, (void)extra, (void)shared;
  permute_body(in, out, twiddles, p, item_index(p, tid, group));
}
