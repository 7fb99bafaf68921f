// Moving a threadgroup's transforms between device memory and the group:
// where each thread's elements live on a side (FftSide), how the group's
// threads walk them (FFT_WALK_*), and the operations fused into loading and
// storing (FFT_FUSED_*, the normalisation). A side is loaded either into
// threadgroup memory (load_group) or straight into the first stage's
// registers (load_first_stage), and stored from threadgroup memory
// (store_group) or from the last stage's registers (store_last_stage).
//
// Loads and stores issue all of a thread's accesses before using any, so
// each thread keeps up to FFT_MAX_THREAD_VALUES memory requests in flight.
#pragma once

#include "fft_group_memory.h"
#include "fft_pipeline_constants.h"

// The buffers of a Stockham dispatch (the kernel's bindings 0-5).
struct StockhamBuffers {
  device const float* in;
  device float* out;
  device const float2* twiddles;
  device const float2* pre;
  device const float2* post;
  device const float2* extra;
};

// The values a thread holds in one stage of radix R: v[b][r] is input (or
// output) r of its b-th butterfly. After unrolling, every index is a
// constant: registers, not memory.
#define FFT_STAGE_HELD(R) ((FFT_MAX_THREAD_VALUES + (R) - 1u) / (R))  // butterflies
template <uint R>
struct StageValues {
  float2 v[FFT_STAGE_HELD(R)][R];
};

// Which transform of the group a thread works on, and its rank among that
// transform's threads: it takes elements (or butterflies) rank,
// rank + threads_per_transform, ...
struct StageThread {
  uint local;   // transform within the group
  uint rank;
  uint offset;  // the transform's first element in threadgroup memory
};

// A thread's transform and rank under a walk other than FFT_WALK_RUN.
template <bool kSwizzle>
inline StageThread walk_thread(constant FftParams& p, uint walk, uint tid) {
  StageThread at;
  if (walk == FFT_WALK_ACROSS) {
    at.local = tid % dispatch_per_group(p);
    at.rank = tid / dispatch_per_group(p);
  } else {
    at.local = tid / dispatch_threads_per_transform(p);
    at.rank = tid % dispatch_threads_per_transform(p);
  }
  at.offset = at.local * dispatch_transform_pitch<kSwizzle>(p);
  return at;
}

// Where one transform's elements live on one side: computed once per
// thread, so that the element loops multiply and add only.
struct TransformSide {
  uint base;     // side_base of the transform's batch
  uint residue;  // the transform's index within its batch
  uint first;    // global index of local element 0 (residue * r_mul)
  bool dense;    // FFT_LAYOUT_DENSE: element i is global index first + i, always valid
};

// Global index of local element i.
inline uint element_index(TransformSide t, constant FftSide& s, uint i) {
  return t.dense ? i + t.first : i * s.g_mul + t.first;
}

// The side `s` (laid out as `layout`, side_layout) of a transform.
inline TransformSide transform_side(constant FftSide& s, uint layout, constant FftParams& p,
                                    uint transform) {
  TransformSide t;
  t.dense = (layout & FFT_LAYOUT_DENSE) != 0u;
  const uint per_batch = dispatch_per_batch(p);
  const bool one_inner = (layout & FFT_LAYOUT_ONE_INNER) != 0u;
  if (!dispatch_interleaves(p)) {
    t.base = side_base(s, transform / per_batch, one_inner);
    t.residue = transform % per_batch;
  } else {
    uint set = transform / p.batch_interleave;  // its interleaved batch entries' transforms
    t.base = side_base(s, set / per_batch * p.batch_interleave + transform % p.batch_interleave,
                       one_inner);
    t.residue = set % per_batch;
  }
  t.first = t.residue * s.r_mul;
  return t;
}

inline TransformSide input_side(constant FftParams& p, uint transform) {
  return transform_side(p.in, dispatch_in_layout(p), p, transform);
}
inline TransformSide output_side(constant FftParams& p, uint transform) {
  return transform_side(p.out, dispatch_out_layout(p), p, transform);
}

// Float index of the first element of side `t`, stored as `kind`, under FFT_WALK_RUN.
inline uint run_start(TransformSide t, uint kind) {
  return kind == FFT_SIDE_COMPLEX ? 2u * (t.base + t.first) : t.base + 2u * t.first;
}

// Transforms of the group that exist (the last group may be partial).
inline uint present_transforms(constant FftParams& p, uint first_transform) {
  uint remaining = p.transforms - first_transform;
  return remaining < dispatch_per_group(p) ? remaining : dispatch_per_group(p);
}

// Whether the first stage takes its inputs from the load and the last gives
// its outputs to the store: where the walk gives each thread whole
// butterflies (not FFT_WALK_RUN, T dividing the stage's n / R) and every
// value is computed from the element loaded or stored in its place (not
// FFT_FUSED_C2R_PACK or FFT_FUSED_R2C_UNPACK, which pair elements k and n - k).
inline bool loads_into_first_stage(constant FftParams& p) {
  return dispatch_in_walk(p) != FFT_WALK_RUN && dispatch_pre_mode(p) != FFT_FUSED_C2R_PACK &&
         dispatch_stages(p) > 0u &&
         (dispatch_n(p) / dispatch_first_radix(p)) % dispatch_threads_per_transform(p) == 0u;
}
inline bool stores_from_last_stage(constant FftParams& p) {
  return dispatch_out_walk(p) != FFT_WALK_RUN && dispatch_post_mode(p) != FFT_FUSED_R2C_UNPACK &&
         dispatch_stages(p) > 0u &&
         (dispatch_n(p) / dispatch_last_radix(p)) % dispatch_threads_per_transform(p) == 0u;
}

// w_N^(i * residue) for the four-step decomposition, conjugated for inverse
// transforms; the planner keeps i * residue below twiddle_n (i < n1, residue < n2).
inline float2 four_step_twiddle(constant FftParams& p, device const float2* coarse,
                                device const float2* fine, uint i, uint residue) {
  uint e = i * residue;
  uint fine_mask = (1u << p.twiddle_shift) - 1u;
  return directed(complex_mul(coarse[e >> p.twiddle_shift], fine[e & fine_mask]),
                  dispatch_inverse(p));
}

// Element i of a transform as loaded (i < side_touched): zero where the
// transform is absent or its global index g is beyond `valid`; Rader's
// gather reads the element the pre table names.
inline float2 read_input(constant FftParams& p, StockhamBuffers io, TransformSide t, bool present,
                         uint i) {
  uint g = element_index(t, p.in, i);
  if (!present || (!t.dense && g >= p.in.valid)) return float2(0.0f, 0.0f);
  uint at = dispatch_pre_mode(p) == FFT_FUSED_RADER_GATHER ? uint(io.pre[g].x) : g;
  return read_kind(io.in, dispatch_in_kind(p), t.base, at, t.dense ? 1u : p.in.elem_stride);
}

// The pre-operation on element i of a transform, v as loaded (the C2R pack,
// which pairs elements, is load_group_packed).
inline float2 pre_operation(constant FftParams& p, StockhamBuffers io, TransformSide t, uint i,
                            float2 v) {
  uint mode = dispatch_pre_mode(p);
  if (mode == FFT_FUSED_TIMES_TABLE) {
    uint g = element_index(t, p.in, i);
    return t.dense || g < p.in.valid ? complex_mul(v, io.pre[g]) : v;
  }
  if (mode == FFT_FUSED_FOUR_STEP_TWIDDLE) {
    return complex_mul(v, four_step_twiddle(p, io.pre, io.extra, i, t.residue));
  }
  return v;
}

// Loads a C2R's half-length input Z (FFT_FUSED_C2R_PACK; n = dispatch_n(p))
// packed from its bins X[0..n]: Z[k] and Z[n - k] both come from bins k and
// n - k, so one thread reads that pair from device memory, with the one root
// they share (table entry n - k is -conj of entry k), and writes both. Every
// read, the roots included, issues before the group's barrier: read after
// it, the roots' latency was the largest stall of C2R 1024 (ncu). Bins 0 and
// n (the pair of k = 0) are real by definition; for even n, Z[n / 2] pairs
// with itself and the thread of rank 0 takes it.
template <bool kSwizzle>
inline void load_group_packed(constant FftParams& p, StockhamBuffers io,
                              threadgroup float2* shared, uint tid, uint first_transform) {
  const uint n = dispatch_n(p);
  const uint pairs = (n + 1u) / 2u;  // k < pairs pairs with n - k > k (k = 0: with bin n)
  StageThread at = walk_thread<kSwizzle>(p, dispatch_in_walk(p), tid);
  uint transform = first_transform + at.local;
  bool present = transform < p.transforms;
  TransformSide t = input_side(p, transform);
  float2 bins[FFT_MAX_THREAD_VALUES / 2u], mirrors[FFT_MAX_THREAD_VALUES / 2u];
  float2 roots[FFT_MAX_THREAD_VALUES / 2u];
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES / 2u; ++c) {
    uint k = at.rank + c * dispatch_threads_per_transform(p);
    if (k >= pairs) continue;
    bins[c] = read_input(p, io, t, present, k);
    mirrors[c] = read_input(p, io, t, present, n - k);
    roots[c] = io.pre[k];
  }
  const bool middle = n % 2u == 0u && at.rank == 0u;
  float2 middle_bin = float2(0.0f, 0.0f), middle_root = float2(1.0f, 0.0f);
  if (middle) {
    middle_bin = read_input(p, io, t, present, n / 2u);
    middle_root = io.pre[n / 2u];
  }
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES / 2u; ++c) {
    uint k = at.rank + c * dispatch_threads_per_transform(p);
    if (k >= pairs) continue;
    float2 bin = bins[c], mirror = mirrors[c];
    if (k == 0u) {
      bin.y = 0.0f;
      mirror.y = 0.0f;
    }
    shared[slot<kSwizzle>(at.offset + k)] = c2r_packed_value(bin, conjugate(mirror), roots[c]);
    if (k != 0u) {
      shared[slot<kSwizzle>(at.offset + n - k)] =
          c2r_packed_value(mirror, conjugate(bin), -conjugate(roots[c]));
    }
  }
  if (middle) {
    shared[slot<kSwizzle>(at.offset + n / 2u)] =
        c2r_packed_value(middle_bin, conjugate(middle_bin), middle_root);
  }
}

// Loads the group's transforms into threadgroup memory.
template <bool kSwizzle>
inline void load_group(constant FftParams& p, StockhamBuffers io, threadgroup float2* shared,
                       uint tid, uint first_transform) {
  float2 values[FFT_MAX_THREAD_VALUES];
  if (dispatch_in_walk(p) == FFT_WALK_RUN) {
    uint start = run_start(input_side(p, first_transform), dispatch_in_kind(p));
    uint count = present_transforms(p, first_transform) * dispatch_n(p);
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint f = tid + c * dispatch_group_threads(p);
      values[c] = f < count ? load_pair(io.in, start + 2u * f) : float2(0.0f, 0.0f);
    }
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint f = tid + c * dispatch_group_threads(p);
      if (f < dispatch_per_group(p) * dispatch_n(p)) {
        shared[slot<kSwizzle>(f)] = values[c];
      }
    }
    return;
  }
  if (dispatch_pre_mode(p) == FFT_FUSED_C2R_PACK) {
    load_group_packed<kSwizzle>(p, io, shared, tid, first_transform);
    return;
  }
  StageThread at = walk_thread<kSwizzle>(p, dispatch_in_walk(p), tid);
  uint transform = first_transform + at.local;
  bool present = transform < p.transforms;
  TransformSide t = input_side(p, transform);
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = at.rank + c * dispatch_threads_per_transform(p);
    values[c] = i < dispatch_n(p) ? read_input(p, io, t, present, i) : float2(0.0f, 0.0f);
  }
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = at.rank + c * dispatch_threads_per_transform(p);
    if (i < dispatch_n(p)) {
      shared[slot<kSwizzle>(at.offset + i)] = pre_operation(p, io, t, i, values[c]);
    }
  }
}

// Loads a thread's inputs of the first stage (radix R) straight into its
// registers, where loads_into_first_stage holds; returns the thread's
// transform and rank, which the stage keeps.
template <uint R, bool kSwizzle>
inline StageThread load_first_stage(constant FftParams& p, StockhamBuffers io, uint tid,
                                    uint first_transform, thread StageValues<R>& s) {
  StageThread at = walk_thread<kSwizzle>(p, dispatch_in_walk(p), tid);
  uint transform = first_transform + at.local;
  bool present = transform < p.transforms;
  TransformSide t = input_side(p, transform);
  const uint butterflies = dispatch_n(p) / R;
  FFT_UNROLL
  for (uint b = 0u; b < FFT_STAGE_HELD(R); ++b) {
    uint j = at.rank + b * dispatch_threads_per_transform(p);
    if (j >= butterflies) continue;
    FFT_UNROLL
    for (uint r = 0u; r < R; ++r) s.v[b][r] = read_input(p, io, t, present, j + r * butterflies);
  }
  FFT_UNROLL
  for (uint b = 0u; b < FFT_STAGE_HELD(R); ++b) {
    uint j = at.rank + b * dispatch_threads_per_transform(p);
    if (j >= butterflies) continue;
    FFT_UNROLL
    for (uint r = 0u; r < R; ++r) {
      s.v[b][r] = pre_operation(p, io, t, j + r * butterflies, s.v[b][r]);
    }
  }
  return at;
}

// Element i of a transform ready to store: where it goes (g, on the output
// side; past `valid` it is not written) and its value after the
// post-operation and the normalisation. Where the post-operation reads a
// table at the element's own index (prepares_all_stores), a thread prepares all
// its stores before committing any: a store may alias the table the next one
// reads, so a load placed after a store waits for it, while loads issued
// together overlap their latencies (a pass storing through a table, a load
// between stores, ran 3 times as long as one without). The four-step
// twiddle, two loads and a product per element, keeps each value stored as
// it is prepared: holding them all spilled registers (3^12's first pass
// 40 -> 80 bytes, 1.10 times slower on the H200).
struct PreparedStore {
  uint g;
  float2 v;
};

inline bool prepares_all_stores(constant FftParams& p) {
  const uint mode = dispatch_post_mode(p);
  return mode == FFT_FUSED_TIMES_TABLE;
}

inline bool store_skipped(constant FftParams& p, TransformSide t, uint g) {
  return !t.dense && g >= p.out.valid;
}

inline PreparedStore prepare_store(constant FftParams& p, StockhamBuffers io, TransformSide t,
                                   uint i, float2 v) {
  uint g = element_index(t, p.out, i);
  if (!store_skipped(p, t, g)) {
    if (dispatch_post_mode(p) == FFT_FUSED_TIMES_TABLE) {
      v = complex_mul(v, io.post[g]);
    } else if (dispatch_post_mode(p) == FFT_FUSED_FOUR_STEP_TWIDDLE) {
      v = complex_mul(v, four_step_twiddle(p, io.post, io.extra, i, t.residue));
    }
  }
  return {g, v * p.scale};
}

inline void commit_store(constant FftParams& p, StockhamBuffers io, TransformSide t,
                         PreparedStore s) {
  if (store_skipped(p, t, s.g)) return;
  write_kind(io.out, dispatch_out_kind(p), t.base, s.g, t.dense ? 1u : p.out.elem_stride, s.v);
}

// Rader's first pass keeps x[0] beside the convolution, as output element
// `valid`: the thread of rank 0 on the transform of residue 0 copies it.
inline void store_rader_extra(constant FftParams& p, StockhamBuffers io, uint transform,
                              TransformSide out, uint rank) {
  if (dispatch_pre_mode(p) != FFT_FUSED_RADER_GATHER || rank != 0u || out.residue != 0u) return;
  TransformSide in = input_side(p, transform);
  float2 v = read_kind(io.in, dispatch_in_kind(p), in.base, 0u, p.in.elem_stride);
  write_kind(io.out, dispatch_out_kind(p), out.base, p.out.valid, p.out.elem_stride, v);
}

// Stores a thread's outputs of the last stage (radix R) from its registers,
// where stores_from_last_stage holds: output r of butterfly j is element
// j + r * (n / R).
template <uint R>
inline void store_last_stage(constant FftParams& p, StockhamBuffers io, StageThread at,
                             uint first_transform, thread StageValues<R>& s) {
  uint transform = first_transform + at.local;
  if (transform >= p.transforms) return;
  TransformSide t = output_side(p, transform);
  const uint butterflies = dispatch_n(p) / R;
  PreparedStore ready[FFT_STAGE_HELD(R)][R];
  FFT_UNROLL
  for (uint b = 0u; b < FFT_STAGE_HELD(R); ++b) {
    uint j = at.rank + b * dispatch_threads_per_transform(p);
    if (j >= butterflies) continue;
    FFT_UNROLL
    for (uint r = 0u; r < R; ++r) {
      ready[b][r] = prepare_store(p, io, t, j + r * butterflies, s.v[b][r]);
      if (!prepares_all_stores(p)) commit_store(p, io, t, ready[b][r]);
    }
  }
  FFT_UNROLL
  for (uint b = 0u; b < FFT_STAGE_HELD(R); ++b) {
    uint j = at.rank + b * dispatch_threads_per_transform(p);
    if (j >= butterflies || !prepares_all_stores(p)) continue;
    FFT_UNROLL
    for (uint r = 0u; r < R; ++r) commit_store(p, io, t, ready[b][r]);
  }
  store_rader_extra(p, io, transform, t, at.rank);
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

// Stores the group's transforms from threadgroup memory.
template <bool kSwizzle>
inline void store_group(constant FftParams& p, StockhamBuffers io, threadgroup float2* shared,
                        uint tid, uint first_transform) {
  if (dispatch_out_walk(p) == FFT_WALK_RUN) {
    uint start = run_start(output_side(p, first_transform), dispatch_out_kind(p));
    uint count = present_transforms(p, first_transform) * dispatch_n(p);
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint f = tid + c * dispatch_group_threads(p);
      if (f < count) {
        float2 v = shared[slot<kSwizzle>(f)];
        store_pair(io.out, start + 2u * f, v * p.scale);
      }
    }
    return;
  }
  StageThread at = walk_thread<kSwizzle>(p, dispatch_out_walk(p), tid);
  uint transform = first_transform + at.local;
  if (transform >= p.transforms) return;
  TransformSide t = output_side(p, transform);
  const uint n = dispatch_n(p);
  const uint transform_threads = dispatch_threads_per_transform(p);
  const bool unpack = dispatch_post_mode(p) == FFT_FUSED_R2C_UNPACK;
  PreparedStore ready[FFT_MAX_THREAD_VALUES];
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = at.rank + c * transform_threads;
    if (i < n) {
      float2 v = unpack ? r2c_unpacked<kSwizzle>(p, shared, at.offset, io.post, i)
                        : shared[slot<kSwizzle>(at.offset + i)];
      ready[c] = prepare_store(p, io, t, i, v);
      if (!prepares_all_stores(p)) commit_store(p, io, t, ready[c]);
    }
  }
  // The unpack's bin n (the Nyquist bin), beyond the transform's n elements.
  const bool nyquist = unpack && at.rank == 0u;
  PreparedStore last;
  if (nyquist) last = prepare_store(p, io, t, n, r2c_unpacked<kSwizzle>(p, shared, at.offset, io.post, n));
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = at.rank + c * transform_threads;
    if (i < n && prepares_all_stores(p)) commit_store(p, io, t, ready[c]);
  }
  if (nyquist) commit_store(p, io, t, last);
  store_rader_extra(p, io, transform, t, at.rank);
}
