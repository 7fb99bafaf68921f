// Complex arithmetic and element addressing shared by the FFT kernels.
#pragma once

#include "metal_portability.h"
#include "fft_params.h"

inline float2 complex_mul(float2 a, float2 b) {
  return float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

inline float2 conjugate(float2 a) { return float2(a.x, -a.y); }

// A table value, conjugated for inverse transforms (tables hold e^{-i...}).
inline float2 directed(float2 w, uint inverse) { return inverse != 0u ? conjugate(w) : w; }

// Multiplies by -i (forward) or +i (inverse).
inline float2 rotate_quarter(float2 a, uint inverse) {
  return inverse != 0u ? float2(-a.y, a.x) : float2(a.y, -a.x);
}

// The real FFT of 2h points through a complex FFT Z of h: bin k from zk = Z[k]
// and zc = conj Z[h - k], with w = e^{-2 pi i k / 2h}.
inline float2 r2c_unpacked_value(float2 zk, float2 zc, float2 w) {
  float2 even = (zk + zc) * 0.5f;
  float2 odd = rotate_quarter(zk - zc, 0u) * 0.5f;
  return even + complex_mul(w, odd);
}

// Its inverse: Z[k] from bin = X[k] and mirror = conj X[h - k], same w.
inline float2 c2r_packed_value(float2 bin, float2 mirror, float2 w) {
  float2 odd = complex_mul(conjugate(w), bin - mirror);
  return (bin + mirror) + float2(-odd.y, odd.x);
}

// Float index of batch entry `batch`'s element 0 (fft_params.h's base(b));
// one_inner where the pipeline knows inner_count is 1.
inline uint side_base(constant FftSide& s, uint batch, bool one_inner = false) {
  if (one_inner) return batch * s.outer_stride;
  return (batch / s.inner_count) * s.outer_stride + (batch % s.inner_count) * s.inner_stride;
}

// Element g, stored as `kind` (FFT_SIDE_*) with `stride` between elements, of
// the batch whose side_base is `base`; the caller has checked g < valid. The
// Stockham kernels pass the kind their pipeline fixes.
inline float2 read_kind(device const float* buffer, uint kind, uint base, uint g, uint stride) {
  if (kind == FFT_SIDE_COMPLEX) return load_pair(buffer, 2u * (base + g * stride));
  if (kind == FFT_SIDE_REAL) return float2(buffer[base + g * stride], 0.0f);
  uint at = base + 2u * g * stride;
  return float2(buffer[at], buffer[at + stride]);
}

inline void write_kind(device float* buffer, uint kind, uint base, uint g, uint stride, float2 v) {
  if (kind == FFT_SIDE_COMPLEX) {
    store_pair(buffer, 2u * (base + g * stride), v);
  } else if (kind == FFT_SIDE_REAL) {
    buffer[base + g * stride] = v.x;
  } else {
    uint at = base + 2u * g * stride;
    buffer[at] = v.x;
    buffer[at + stride] = v.y;
  }
}

inline float2 read_element(constant FftSide& s, device const float* buffer, uint batch, uint g) {
  return read_kind(buffer, s.kind, side_base(s, batch), g, s.elem_stride);
}

inline void write_element(constant FftSide& s, device float* buffer, uint batch, uint g, float2 v) {
  write_kind(buffer, s.kind, side_base(s, batch), g, s.elem_stride, v);
}

// The item of a one-thread-per-item kernel (fft_real.metal, fft_permute.metal):
// the planner gives each batch entry `per_batch` items, `transforms` in all.
inline uint item_index(constant FftParams& p, uint tid, uint group) {
  return group * p.group_threads + tid;
}
