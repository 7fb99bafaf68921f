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
// Loads and stores issue all of a thread's accesses before using any, so
// each thread keeps up to FFT_MAX_THREAD_VALUES memory requests in flight.
#include "fft_butterflies.h"
#include "fft_pipeline_constants.h"

// Where element f of the group's threadgroup memory lives. Lengths 2^k with
// the XOR swizzle: the low 4 bits of f (the 8-byte bank among 16) are mixed
// with bits 4-11, so the strided accesses of Stockham stages and of
// neighbouring transforms fall in different banks. Needs f < 4096, and
// threadgroup memory of whole blocks of 16 elements (the planner's rounding).
template <bool kSwizzle>
inline uint slot(uint f) {
  return kSwizzle ? f ^ (((f >> 4u) ^ (f >> 8u)) & 15u) : f;
}

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

// Which transform of the group, and which of its lanes, a thread loads or
// stores for under a walk other than FFT_WALK_RUN.
struct WalkPosition {
  uint local;  // transform within the group
  uint lane;   // takes elements lane, lane + threads_per_transform, ...
};

inline WalkPosition walk_position(constant FftSide& s, constant FftParams& p, uint tid) {
  WalkPosition w;
  if (s.walk == FFT_WALK_ACROSS) {
    w.local = tid % dispatch_per_group(p);
    w.lane = tid / dispatch_per_group(p);
  } else {
    w.local = tid / dispatch_threads_per_transform(p);
    w.lane = tid % dispatch_threads_per_transform(p);
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

// A thread's elements of one transform: element lane + c * threads_per_transform
// into values[c], zero where absent or beyond `valid`.
template <uint kKind>
inline void read_lane(constant FftParams& p, device const float* in, TransformSide t, bool present,
                      uint lane, thread float2* values) {
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = lane + c * dispatch_threads_per_transform(p);
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
    read_lane<FFT_SIDE_COMPLEX>(p, in, t, present, w.lane, values);
  } else if (p.in.kind == FFT_SIDE_REAL) {
    read_lane<FFT_SIDE_REAL>(p, in, t, present, w.lane, values);
  } else {
    read_lane<FFT_SIDE_REAL_PAIRS>(p, in, t, present, w.lane, values);
  }
  uint offset = w.local * dispatch_n(p);
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = w.lane + c * dispatch_threads_per_transform(p);
    if (i < dispatch_n(p)) {
      uint g = i * p.in.g_mul + t.first;
      if (p.pre_mode == FFT_SCALE_BY_INDEX && g < p.in.valid) {
        values[c] = complex_mul(values[c], pre[g]);
      } else if (p.pre_mode == FFT_SCALE_FOUR_STEP) {
        values[c] = complex_mul(values[c], four_step_twiddle(p, pre, extra, i, t.residue));
      } else if (p.pre_mode == FFT_SCALE_C2R_PACK && present) {
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
  if (p.post_mode == FFT_SCALE_BY_INDEX) {
    v = complex_mul(v, post[g]);
  } else if (p.post_mode == FFT_SCALE_FOUR_STEP) {
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
  const uint lanes = dispatch_threads_per_transform(p);
  uint offset = w.local * n;
  if (p.post_mode == FFT_SCALE_R2C_UNPACK) {
    FFT_UNROLL
    for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
      uint k = w.lane + c * lanes;
      if (k < n) store_value(p, out, post, extra, t, k, r2c_unpacked<kSwizzle>(p, shared, offset, post, k));
    }
    if (w.lane == 0u) {
      store_value(p, out, post, extra, t, n, r2c_unpacked<kSwizzle>(p, shared, offset, post, n));
    }
    return;
  }
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = w.lane + c * lanes;
    if (i < n) store_value(p, out, post, extra, t, i, shared[slot<kSwizzle>(offset + i)]);
  }
}

// One Stockham stage of radix R over the transform at `offset` in the
// group's memory: sub-transforms of length `span_in` become length
// span_in * R. Butterfly j reads elements j + r * (n / R). The planner gives
// a thread at most FFT_MAX_THREAD_VALUES / R butterflies of any stage, so
// with R known here a thread's values are a fixed-size array indexed by
// constants after unrolling: registers, not memory. Lengths 2^k divide by
// span_in with a shift (span_shift = log2 span_in).
template <uint R, bool kPowerOfTwo>
inline void stockham_stage(constant FftParams& p, threadgroup float2* data, uint offset, uint lane,
                           uint span_in, uint span_shift, uint inverse,
                           device const float2* twiddles) {
  const uint held = FFT_MAX_THREAD_VALUES / R;  // butterflies a thread can own
  uint n = dispatch_n(p);
  uint butterflies = n / R;
  uint span_out = span_in * R;
  uint twiddle_step = n / span_out;
  float2 values[held][R];

  FFT_UNROLL
  for (uint b = 0u; b < held; ++b) {
    uint j = lane + b * dispatch_threads_per_transform(p);
    if (j < butterflies) {
      FFT_UNROLL
      for (uint r = 0u; r < R; ++r) values[b][r] = data[slot<kPowerOfTwo>(offset + j + r * butterflies)];
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);

  FFT_UNROLL
  for (uint b = 0u; b < held; ++b) {
    uint j = lane + b * dispatch_threads_per_transform(p);
    if (j < butterflies) {
      thread float2* v = values[b];
      uint sub = kPowerOfTwo ? j >> span_shift : j / span_in;
      uint k = j - sub * span_in;
      // The first stage's twiddles are all 1; later ones are w^r, w = w_span_out^k, as
      // products of one table value: one load per butterfly instead of R - 1, each
      // product adding about an eps.
      if (span_in > 1u) {
        float2 w = directed(twiddles[k * twiddle_step], inverse);
        float2 wr = w;
        FFT_UNROLL
        for (uint r = 1u; r < R; ++r) {
          v[r] = complex_mul(v[r], wr);
          if (r + 1u < R) wr = complex_mul(wr, w);
        }
      }
      butterfly<R>(v, inverse, n, twiddles);
      uint first = offset + sub * span_out + k;
      FFT_UNROLL
      for (uint r = 0u; r < R; ++r) data[slot<kPowerOfTwo>(first + r * span_in)] = v[r];
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}

// log2 of a radix of lengths 2^k.
inline uint radix_shift(uint radix) { return radix == 8u ? 3u : radix == 4u ? 2u : 1u; }

// The radices a Stockham kernel is compiled for: the planner picks the
// kernel of the smallest set that holds a length's radices
// (stockham_kernel), because a kernel needs the registers of its largest
// butterfly, and fewer registers per thread keep more threads resident.
#define FFT_RADICES_POW2 0u     // 2, 4, 8; threadgroup memory swizzled
#define FFT_RADICES_SMOOTH7 1u  // 2, 3, 4, 5, 7, 8
#define FFT_RADICES_ALL 2u      // 2, 3, 4, 5, 7, 8, 11, 13

// Where the stages run, which the stage loops advance.
struct StagePosition {
  uint stage;
  uint span;        // length of the sub-transforms the next stage combines
  uint span_shift;  // log2 span, for lengths 2^k
};

// The run of radix-R stages that starts at `at`. One loop per radix, not a
// switch per stage: a switch over every radix in one loop keeps the
// registers of all its butterflies at once, and spills.
template <uint R, bool kPowerOfTwo>
inline void radix_run(constant FftParams& p, threadgroup float2* data, uint offset, uint lane,
                      uint inverse, device const float2* twiddles, thread StagePosition& at) {
  if (fft_fixed_shape) {
    FFT_UNROLL
    for (uint s = 0u; s < fixed_stages<R>(); ++s) {
      stockham_stage<R, kPowerOfTwo>(p, data, offset, lane, at.span, at.span_shift, inverse,
                                     twiddles);
      at.span *= R;
      if (kPowerOfTwo) at.span_shift += radix_shift(R);
    }
    return;
  }
  while (at.stage < p.num_stages && p.radix[at.stage] == R) {
    stockham_stage<R, kPowerOfTwo>(p, data, offset, lane, at.span, at.span_shift, inverse,
                                   twiddles);
    at.span *= R;
    if (kPowerOfTwo) at.span_shift += radix_shift(R);
    ++at.stage;
  }
}

// Every stage of the transform at `offset`, in direction `inverse`. The
// planner lists radices in the order of these runs (FftParams::radix).
template <uint kRadices>
inline void run_stages(constant FftParams& p, threadgroup float2* data, uint offset, uint lane,
                       uint inverse, device const float2* twiddles) {
  const bool kPowerOfTwo = kRadices == FFT_RADICES_POW2;
  StagePosition at = {0u, 1u, 0u};
  radix_run<8u, kPowerOfTwo>(p, data, offset, lane, inverse, twiddles, at);
  radix_run<4u, kPowerOfTwo>(p, data, offset, lane, inverse, twiddles, at);
  radix_run<2u, kPowerOfTwo>(p, data, offset, lane, inverse, twiddles, at);
  if (kRadices == FFT_RADICES_POW2) return;
  radix_run<3u, false>(p, data, offset, lane, inverse, twiddles, at);
  radix_run<5u, false>(p, data, offset, lane, inverse, twiddles, at);
  radix_run<7u, false>(p, data, offset, lane, inverse, twiddles, at);
  if (kRadices == FFT_RADICES_SMOOTH7) return;
  radix_run<11u, false>(p, data, offset, lane, inverse, twiddles, at);
  radix_run<13u, false>(p, data, offset, lane, inverse, twiddles, at);
}

// The convolution's pointwise product: element i of each transform times
// spectrum[g], g its index on the load side.
template <bool kSwizzle>
inline void multiply_by_spectrum(constant FftParams& p, threadgroup float2* data,
                                 device const float2* spectrum, uint tid, uint first_transform) {
  uint local = tid / dispatch_threads_per_transform(p);
  uint lane = tid % dispatch_threads_per_transform(p);
  TransformSide t = transform_side(p.in, p, first_transform + local);
  FFT_UNROLL
  for (uint c = 0u; c < FFT_MAX_THREAD_VALUES; ++c) {
    uint i = lane + c * dispatch_threads_per_transform(p);
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
  uint lane = tid % dispatch_threads_per_transform(p);
  run_stages<kRadices>(p, shared, offset, lane, p.inverse, twiddles);
  if (p.convolve != 0u) {
    multiply_by_spectrum<kSwizzle>(p, shared, extra, tid, first_transform);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    run_stages<kRadices>(p, shared, offset, lane, 1u - p.inverse, twiddles);
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
