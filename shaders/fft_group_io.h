// Moving a threadgroup's transforms between device memory and threadgroup
// memory: where each thread's elements live on a side (FftSide), how the
// group's threads walk them (FFT_WALK_*), and the operations fused into
// loading and storing (FFT_FUSED_*, the normalisation).
//
// Loads and stores issue all of a thread's accesses before using any, so
// each thread keeps up to FFT_MAX_THREAD_VALUES memory requests in flight.
#pragma once

#include "fft_group_memory.h"
#include "fft_pipeline_constants.h"

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

// Which transform of the group a thread loads or stores for, and its rank
// among that transform's threads, under a walk other than FFT_WALK_RUN.
struct WalkPosition {
  uint local;  // transform within the group
  uint rank;   // takes elements rank, rank + threads_per_transform, ...
};

inline WalkPosition walk_position(constant FftSide& s, constant FftParams& p, uint tid) {
  WalkPosition w;
  if (s.walk == FFT_WALK_ACROSS) {
    w.local = tid % dispatch_per_group(p);
    w.rank = tid / dispatch_per_group(p);
  } else {
    w.local = tid / dispatch_threads_per_transform(p);
    w.rank = tid % dispatch_threads_per_transform(p);
  }
  return w;
}

// Float index of the group's first element under FFT_WALK_RUN.
inline uint run_start(constant FftSide& s, constant FftParams& p, uint first_transform) {
  TransformSide t = transform_side(s, p, first_transform);
  return s.kind == FFT_SIDE_COMPLEX ? 2u * (t.base + t.first) : t.base + 2u * t.first;
}

// Transforms of the group that exist (the last group may be partial).
inline uint present_transforms(constant FftParams& p, uint first_transform) {
  uint remaining = p.transforms - first_transform;
  return remaining < dispatch_per_group(p) ? remaining : dispatch_per_group(p);
}

// w_N^(i * residue) for the four-step decomposition, conjugated for inverse
// transforms; the planner keeps i * residue below twiddle_n (i < n1, residue < n2).
inline float2 four_step_twiddle(constant FftParams& p, device const float2* coarse,
                                device const float2* fine, uint i, uint residue) {
  uint e = i * residue;
  uint fine_mask = (1u << p.twiddle_shift) - 1u;
  return directed(complex_mul(coarse[e >> p.twiddle_shift], fine[e & fine_mask]), p.inverse);
}

template <uint kKind>
inline float2 read_kind(device const float* buffer, uint base, uint g, uint stride) {
  if (kKind == FFT_SIDE_COMPLEX) return load_pair(buffer, 2u * (base + g * stride));
  if (kKind == FFT_SIDE_REAL) return float2(buffer[base + g * stride], 0.0f);
  uint at = base + 2u * g * stride;
  return float2(buffer[at], buffer[at + stride]);
}

// A thread's elements of one transform: element rank + c * threads_per_transform
// into values[c], zero where absent or beyond `valid`.
template <uint kKind>
inline void read_strided(constant FftParams& p, device const float* in, TransformSide t, bool present,
                      uint rank, thread float2* values) {
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = rank + c * dispatch_threads_per_transform(p);
    uint g = i * p.in.g_mul + t.first;
    values[c] = present && i < dispatch_n(p) && g < p.in.valid
                    ? read_kind<kKind>(in, t.base, g, p.in.elem_stride)
                    : float2(0.0f, 0.0f);
  }
}

// Z[k] of a C2R of 2n points (n = dispatch_n(p)) from bins k and n - k: bin 0
// and bin n (the Nyquist bin) are real by definition. `bin` is bin k as loaded.
inline float2 c2r_packed(constant FftParams& p, device const float* in, device const float2* roots,
                         TransformSide t, uint k, float2 bin) {
  uint h = dispatch_n(p);
  float2 mirror = read_element_at(p.in, in, t.base, (h - k) * p.in.g_mul + t.first);
  if (k == 0u) {
    bin.y = 0.0f;
    mirror.y = 0.0f;
  }
  return c2r_packed_value(bin, conjugate(mirror), roots[k]);
}

template <bool kSwizzle>
inline void load_group(constant FftParams& p, device const float* in, device const float2* pre,
                       device const float2* extra, threadgroup float2* shared, uint tid,
                       uint first_transform) {
  float2 values[FFT_MAX_THREAD_VALUES];
  if (p.in.walk == FFT_WALK_RUN) {
    uint start = run_start(p.in, p, first_transform);
    uint count = present_transforms(p, first_transform) * dispatch_n(p);
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint f = tid + c * dispatch_group_threads(p);
      values[c] = f < count ? load_pair(in, start + 2u * f) : float2(0.0f, 0.0f);
    }
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint f = tid + c * dispatch_group_threads(p);
      if (f < dispatch_per_group(p) * dispatch_n(p)) shared[slot<kSwizzle>(f)] = values[c];
    }
    return;
  }
  WalkPosition w = walk_position(p.in, p, tid);
  uint transform = first_transform + w.local;
  bool present = transform < p.transforms;
  TransformSide t = transform_side(p.in, p, transform);
  if (p.in.kind == FFT_SIDE_COMPLEX) {
    read_strided<FFT_SIDE_COMPLEX>(p, in, t, present, w.rank, values);
  } else if (p.in.kind == FFT_SIDE_REAL) {
    read_strided<FFT_SIDE_REAL>(p, in, t, present, w.rank, values);
  } else {
    read_strided<FFT_SIDE_REAL_PAIRS>(p, in, t, present, w.rank, values);
  }
  uint offset = w.local * dispatch_n(p);
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = w.rank + c * dispatch_threads_per_transform(p);
    if (i < dispatch_n(p)) {
      uint g = i * p.in.g_mul + t.first;
      if (p.pre_mode == FFT_FUSED_TIMES_TABLE && g < p.in.valid) {
        values[c] = complex_mul(values[c], pre[g]);
      } else if (p.pre_mode == FFT_FUSED_FOUR_STEP_TWIDDLE) {
        values[c] = complex_mul(values[c], four_step_twiddle(p, pre, extra, i, t.residue));
      } else if (p.pre_mode == FFT_FUSED_C2R_PACK && present) {
        values[c] = c2r_packed(p, in, pre, t, i, values[c]);
      }
      shared[slot<kSwizzle>(offset + i)] = values[c];
    }
  }
}

inline void store_value(constant FftParams& p, device float* out, device const float2* post,
                        device const float2* extra, TransformSide t, uint i, float2 v) {
  uint g = i * p.out.g_mul + t.first;
  if (g >= p.out.valid) return;
  if (p.post_mode == FFT_FUSED_TIMES_TABLE) {
    v = complex_mul(v, post[g]);
  } else if (p.post_mode == FFT_FUSED_FOUR_STEP_TWIDDLE) {
    v = complex_mul(v, four_step_twiddle(p, post, extra, i, t.residue));
  }
  write_element_at(p.out, out, t.base, g, v * p.scale);
}

// Bin k (0..n) of a real FFT of 2n points from the half-length complex FFT Z
// of the transform at `offset`: Z[n] is Z[0].
template <bool kSwizzle>
inline float2 r2c_unpacked(constant FftParams& p, threadgroup float2* data, uint offset,
                           device const float2* roots, uint k) {
  uint h = dispatch_n(p);
  float2 zk = data[slot<kSwizzle>(offset + (k == h ? 0u : k))];
  float2 zc = conjugate(data[slot<kSwizzle>(offset + (k == 0u ? 0u : h - k))]);
  return r2c_unpacked_value(zk, zc, roots[k]);
}

template <bool kSwizzle>
inline void store_group(constant FftParams& p, device float* out, device const float2* post,
                        device const float2* extra, threadgroup float2* shared, uint tid,
                        uint first_transform) {
  if (p.out.walk == FFT_WALK_RUN) {
    uint start = run_start(p.out, p, first_transform);
    uint count = present_transforms(p, first_transform) * dispatch_n(p);
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint f = tid + c * dispatch_group_threads(p);
      if (f < count) store_pair(out, start + 2u * f, shared[slot<kSwizzle>(f)] * p.scale);
    }
    return;
  }
  WalkPosition w = walk_position(p.out, p, tid);
  uint transform = first_transform + w.local;
  if (transform >= p.transforms) return;
  TransformSide t = transform_side(p.out, p, transform);
  const uint n = dispatch_n(p);
  const uint transform_threads = dispatch_threads_per_transform(p);
  uint offset = w.local * n;
  if (p.post_mode == FFT_FUSED_R2C_UNPACK) {
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint k = w.rank + c * transform_threads;
      if (k < n) store_value(p, out, post, extra, t, k, r2c_unpacked<kSwizzle>(p, shared, offset, post, k));
    }
    if (w.rank == 0u) {
      store_value(p, out, post, extra, t, n, r2c_unpacked<kSwizzle>(p, shared, offset, post, n));
    }
    return;
  }
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = w.rank + c * transform_threads;
    if (i < n) store_value(p, out, post, extra, t, i, shared[slot<kSwizzle>(offset + i)]);
  }
}
