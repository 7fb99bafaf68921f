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
// the planner tells them apart only through FftParams.
#include "fft_butterflies.h"

inline float2 load_value(constant FftParams& p, device const float* in, device const float2* pre,
                         uint transform, uint i) {
  if (transform >= p.transforms) return float2(0.0f, 0.0f);
  uint batch = transform / p.per_batch;
  uint g = i * p.in.g_mul + (transform % p.per_batch) * p.in.r_mul;
  if (g >= p.in.valid) return float2(0.0f, 0.0f);
  float2 v = read_element(p.in, in, batch, g);
  if (p.pre_mode == FFT_SCALE_BY_INDEX) v = complex_mul(v, pre[g]);
  return v;
}

inline void store_value(constant FftParams& p, device float* out, device const float2* post,
                        device const float2* post_fine, uint transform, uint i, float2 v) {
  if (transform >= p.transforms) return;
  uint batch = transform / p.per_batch;
  uint residue = transform % p.per_batch;
  uint g = i * p.out.g_mul + residue * p.out.r_mul;
  if (g >= p.out.valid) return;
  if (p.post_mode == FFT_SCALE_BY_INDEX) {
    v = complex_mul(v, post[g]);
  } else if (p.post_mode == FFT_SCALE_FOUR_STEP) {
    uint e = (i * residue) % p.twiddle_n;
    float2 w = complex_mul(post[e / p.twiddle_split], post_fine[e % p.twiddle_split]);
    v = complex_mul(v, directed(w, p.inverse));
  }
  write_element(p.out, out, batch, g, v * p.scale);
}

// One Stockham stage: sub-transforms of length `span_in` become length
// span_in * radix. Butterfly j reads elements j + r * (n / radix).
inline void stockham_stage(constant FftParams& p, threadgroup float2* data, uint lane, uint radix,
                           uint span_in, device const float2* twiddles) {
  uint n = p.n;
  uint butterflies = n / radix;
  uint span_out = span_in * radix;
  uint twiddle_step = n / span_out;
  float2 values[FFT_MAX_THREAD_VALUES];

  uint held = 0u;
  for (uint j = lane; j < butterflies; j += p.threads_per_transform) {
    for (uint r = 0u; r < radix; ++r) values[held + r] = data[j + r * butterflies];
    held += radix;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);

  held = 0u;
  for (uint j = lane; j < butterflies; j += p.threads_per_transform) {
    thread float2* v = values + held;
    uint k = j % span_in;
    for (uint r = 1u; r < radix; ++r) {
      v[r] = complex_mul(v[r], directed(twiddles[r * k * twiddle_step], p.inverse));
    }
    butterfly(v, radix, p.inverse, n, twiddles);
    uint first = (j / span_in) * span_out + k;
    for (uint r = 0u; r < radix; ++r) data[first + r * span_in] = v[r];
    held += radix;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}

inline void fft_stockham_body(device const float* in, device float* out,
                              device const float2* twiddles, device const float2* pre,
                              device const float2* post, device const float2* post_fine,
                              constant FftParams& p, threadgroup float2* shared, uint tid,
                              uint group) {
  uint local_transform = tid / p.threads_per_transform;
  uint lane = tid % p.threads_per_transform;
  uint transform = group * p.per_group + local_transform;
  threadgroup float2* data = shared + local_transform * p.n;

  for (uint i = lane; i < p.n; i += p.threads_per_transform) {
    data[i] = load_value(p, in, pre, transform, i);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);

  uint span = 1u;
  for (uint s = 0u; s < p.num_stages; ++s) {
    stockham_stage(p, data, lane, p.radix[s], span, twiddles);
    span *= p.radix[s];
  }

  for (uint i = lane; i < p.n; i += p.threads_per_transform) {
    store_value(p, out, post, post_fine, transform, i, data[i]);
  }
}

kernel void fft_stockham(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                         device const float2* twiddles MTL_BUFFER(2),
                         device const float2* pre MTL_BUFFER(3),
                         device const float2* post MTL_BUFFER(4),
                         device const float2* post_fine MTL_BUFFER(5),
                         constant FftParams& p MTL_BUFFER(6),
                         threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                         uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  fft_stockham_body(in, out, twiddles, pre, post, post_fine, p, shared, tid, group);
}
