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
// the planner tells them apart only through FftParams. fft_stockham_pow2 is
// the same kernel for lengths whose radices are 2, 4 and 8.
#include "fft_butterflies.h"

// Where one transform's elements live on one side: computed once per
// thread, so that the element loops multiply and add only.
struct TransformSide {
  uint base;     // side_base of the transform's batch
  uint residue;  // the transform's index within its batch
  uint first;    // global index of local element 0 (residue * r_mul)
};

inline TransformSide transform_side(constant FftSide& s, constant FftParams& p, uint transform) {
  TransformSide t;
  t.base = side_base(s, transform / p.per_batch);
  t.residue = transform % p.per_batch;
  t.first = t.residue * s.r_mul;
  return t;
}

inline float2 load_value(constant FftParams& p, device const float* in, device const float2* pre,
                         TransformSide t, uint i) {
  uint g = i * p.in.g_mul + t.first;
  if (g >= p.in.valid) return float2(0.0f, 0.0f);
  float2 v = read_element_at(p.in, in, t.base, g);
  if (p.pre_mode == FFT_SCALE_BY_INDEX) v = complex_mul(v, pre[g]);
  return v;
}

inline void store_value(constant FftParams& p, device float* out, device const float2* post,
                        device const float2* post_fine, TransformSide t, uint i, float2 v) {
  uint g = i * p.out.g_mul + t.first;
  if (g >= p.out.valid) return;
  if (p.post_mode == FFT_SCALE_BY_INDEX) {
    v = complex_mul(v, post[g]);
  } else if (p.post_mode == FFT_SCALE_FOUR_STEP) {
    uint e = (i * t.residue) % p.twiddle_n;
    float2 w = complex_mul(post[e / p.twiddle_split], post_fine[e % p.twiddle_split]);
    v = complex_mul(v, directed(w, p.inverse));
  }
  write_element_at(p.out, out, t.base, g, v * p.scale);
}

// One Stockham stage of radix R: sub-transforms of length `span_in` become
// length span_in * R. Butterfly j reads elements j + r * (n / R). The planner
// gives a thread at most FFT_MAX_THREAD_VALUES / R butterflies of any stage,
// so with R known here a thread's values are a fixed-size array indexed by
// constants after unrolling: registers, not memory.
template <uint R>
inline void stockham_stage(constant FftParams& p, threadgroup float2* data, uint lane,
                           uint span_in, device const float2* twiddles) {
  const uint held = FFT_MAX_THREAD_VALUES / R;  // butterflies a thread can own
  uint n = p.n;
  uint butterflies = n / R;
  uint span_out = span_in * R;
  uint twiddle_step = n / span_out;
  float2 values[held][R];

  FFT_UNROLL
  for (uint b = 0u; b < held; ++b) {
    uint j = lane + b * p.threads_per_transform;
    if (j < butterflies) {
      FFT_UNROLL
      for (uint r = 0u; r < R; ++r) values[b][r] = data[j + r * butterflies];
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);

  FFT_UNROLL
  for (uint b = 0u; b < held; ++b) {
    uint j = lane + b * p.threads_per_transform;
    if (j < butterflies) {
      thread float2* v = values[b];
      uint k = j % span_in;
      FFT_UNROLL
      for (uint r = 1u; r < R; ++r) {
        v[r] = complex_mul(v[r], directed(twiddles[r * k * twiddle_step], p.inverse));
      }
      butterfly<R>(v, p.inverse, n, twiddles);
      uint first = (j / span_in) * span_out + k;
      FFT_UNROLL
      for (uint r = 0u; r < R; ++r) data[first + r * span_in] = v[r];
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}

// The stage for a radix the planner chose (stockham_radices); a uniform
// branch. A kernel for lengths 2^k compiles only radices 2, 4 and 8: the
// odd radices' direct DFTs need twice the registers, which would halve the
// resident threads of every dispatch.
template <bool kPowerOfTwo>
inline void stockham_stage_of(uint radix, constant FftParams& p, threadgroup float2* data,
                              uint lane, uint span_in, device const float2* twiddles) {
  switch (radix) {
    case 2u: stockham_stage<2u>(p, data, lane, span_in, twiddles); return;
    case 4u: stockham_stage<4u>(p, data, lane, span_in, twiddles); return;
    case 8u: stockham_stage<8u>(p, data, lane, span_in, twiddles); return;
  }
  if (kPowerOfTwo) return;  // the planner gives this kernel no other radix
  switch (radix) {
    case 3u: stockham_stage<3u>(p, data, lane, span_in, twiddles); return;
    case 5u: stockham_stage<5u>(p, data, lane, span_in, twiddles); return;
    case 7u: stockham_stage<7u>(p, data, lane, span_in, twiddles); return;
    case 11u: stockham_stage<11u>(p, data, lane, span_in, twiddles); return;
    default: stockham_stage<13u>(p, data, lane, span_in, twiddles); return;
  }
}

template <bool kPowerOfTwo>
inline void fft_stockham_body(device const float* in, device float* out,
                              device const float2* twiddles, device const float2* pre,
                              device const float2* post, device const float2* post_fine,
                              constant FftParams& p, threadgroup float2* shared, uint tid,
                              uint group) {
  uint local_transform = tid / p.threads_per_transform;
  uint lane = tid % p.threads_per_transform;
  uint transform = group * p.per_group + local_transform;
  bool present = transform < p.transforms;
  threadgroup float2* data = shared + local_transform * p.n;

  TransformSide from = transform_side(p.in, p, transform);
  for (uint i = lane; i < p.n; i += p.threads_per_transform) {
    data[i] = present ? load_value(p, in, pre, from, i) : float2(0.0f, 0.0f);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);

  uint span = 1u;
  for (uint s = 0u; s < p.num_stages; ++s) {
    stockham_stage_of<kPowerOfTwo>(p.radix[s], p, data, lane, span, twiddles);
    span *= p.radix[s];
  }

  if (!present) return;
  TransformSide to = transform_side(p.out, p, transform);
  for (uint i = lane; i < p.n; i += p.threads_per_transform) {
    store_value(p, out, post, post_fine, to, i, data[i]);
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
  fft_stockham_body<false>(in, out, twiddles, pre, post, post_fine, p, shared, tid, group);
}

kernel void fft_stockham_pow2(device const float* in MTL_BUFFER(0), device float* out MTL_BUFFER(1),
                              device const float2* twiddles MTL_BUFFER(2),
                              device const float2* pre MTL_BUFFER(3),
                              device const float2* post MTL_BUFFER(4),
                              device const float2* post_fine MTL_BUFFER(5),
                              constant FftParams& p MTL_BUFFER(6),
                              threadgroup float2* shared MTL_THREADGROUP_MEMORY(0),
                              uint tid MTL_THREAD_INDEX, uint group MTL_GROUP_INDEX) {
  fft_stockham_body<true>(in, out, twiddles, pre, post, post_fine, p, shared, tid, group);
}
