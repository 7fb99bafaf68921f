// Small DFTs on values held in registers, for one Stockham stage.
//
// Radices 2, 3, 4 and 8 are written out; any other radix (5, 7, 11, 13) uses
// a direct DFT whose roots come from the stage twiddle table, so every
// constant is a double-precision value rounded once.
#pragma once

#include "fft_helpers.h"

inline void butterfly2(thread float2* v) {
  float2 a = v[0];
  float2 b = v[1];
  v[0] = a + b;
  v[1] = a - b;
}

inline void butterfly3(thread float2* v, uint inverse) {
  const float half_sqrt3 = 0.866025403784438646763723170752936183f;
  float2 sum = v[1] + v[2];
  float2 diff = rotate_quarter(v[1] - v[2], inverse) * half_sqrt3;
  float2 mid = v[0] - sum * 0.5f;
  v[0] = v[0] + sum;
  v[1] = mid + diff;
  v[2] = mid - diff;
}

inline void butterfly4(thread float2* v, uint inverse) {
  float2 t0 = v[0] + v[2];
  float2 t1 = v[0] - v[2];
  float2 t2 = v[1] + v[3];
  float2 t3 = rotate_quarter(v[1] - v[3], inverse);
  v[0] = t0 + t2;
  v[2] = t0 - t2;
  v[1] = t1 + t3;
  v[3] = t1 - t3;
}

inline void butterfly8(thread float2* v, uint inverse) {
  const float r = 0.707106781186547524400844362104849039f;
  float2 even[4] = {v[0], v[2], v[4], v[6]};
  float2 odd[4] = {v[1], v[3], v[5], v[7]};
  butterfly4(even, inverse);
  butterfly4(odd, inverse);
  // odd[k] *= w8^k, w8 = e^{-i pi/4} (conjugated for inverse)
  float2 w1 = inverse != 0u ? float2(r, r) : float2(r, -r);
  float2 w3 = inverse != 0u ? float2(-r, r) : float2(-r, -r);
  odd[1] = complex_mul(odd[1], w1);
  odd[2] = rotate_quarter(odd[2], inverse);
  odd[3] = complex_mul(odd[3], w3);
  for (uint k = 0u; k < 4u; ++k) {
    v[k] = even[k] + odd[k];
    v[k + 4u] = even[k] - odd[k];
  }
}

// Direct DFT of size R; w_R^m = twiddles[m * (n / R)], each root read once.
template <uint R>
inline void butterfly_direct(thread float2* v, uint inverse, uint n,
                             device const float2* twiddles) {
  float2 roots[R];
  uint step = n / R;
  FFT_UNROLL
  for (uint m = 0u; m < R; ++m) roots[m] = directed(twiddles[m * step], inverse);
  float2 result[R];
  FFT_UNROLL
  for (uint k = 0u; k < R; ++k) {
    float2 acc = v[0];
    FFT_UNROLL
    for (uint j = 1u; j < R; ++j) acc = acc + complex_mul(v[j], roots[(j * k) % R]);
    result[k] = acc;
  }
  FFT_UNROLL
  for (uint k = 0u; k < R; ++k) v[k] = result[k];
}

// The butterfly of radix R (a constant, so one branch survives compilation).
template <uint R>
inline void butterfly(thread float2* v, uint inverse, uint n, device const float2* twiddles) {
  if (R == 2u) {
    butterfly2(v);
  } else if (R == 3u) {
    butterfly3(v, inverse);
  } else if (R == 4u) {
    butterfly4(v, inverse);
  } else if (R == 8u) {
    butterfly8(v, inverse);
  } else {
    butterfly_direct<R>(v, inverse, n, twiddles);
  }
}
