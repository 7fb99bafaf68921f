// Small DFTs on values held in registers, for one Stockham stage.
//
// Radices 2, 3, 4, 5, 7, 8, 9, 10 and 16 are written out, with constants that are
// double-precision values rounded once; 11 and 13 use a direct DFT whose
// roots come from the stage twiddle table.
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

// Odd radices pair v[m] with v[R-m]: sums meet cosines, differences sines,
// so a DFT of size R takes ((R-1)/2)^2 real products per part instead of (R-1)^2.
inline void butterfly5(thread float2* v, uint inverse) {
  const float c1 = 0.309016994374947424102293417182819059f;   // cos(2 pi / 5)
  const float c2 = -0.809016994374947424102293417182819059f;  // cos(4 pi / 5)
  const float s1 = 0.951056516295153572116439333379382143f;   // sin(2 pi / 5)
  const float s2 = 0.587785252292473129168705954639072769f;   // sin(4 pi / 5)
  float2 a1 = v[1] + v[4], b1 = v[1] - v[4];
  float2 a2 = v[2] + v[3], b2 = v[2] - v[3];
  float2 t1 = v[0] + a1 * c1 + a2 * c2;
  float2 t2 = v[0] + a1 * c2 + a2 * c1;
  float2 u1 = rotate_quarter(b1 * s1 + b2 * s2, inverse);
  float2 u2 = rotate_quarter(b1 * s2 - b2 * s1, inverse);
  v[0] = v[0] + a1 + a2;
  v[1] = t1 + u1;
  v[4] = t1 - u1;
  v[2] = t2 + u2;
  v[3] = t2 - u2;
}

inline void butterfly7(thread float2* v, uint inverse) {
  const float c1 = 0.623489801858733530525004884004239811f;   // cos(2 pi / 7)
  const float c2 = -0.222520933956314404288902564496794759f;  // cos(4 pi / 7)
  const float c3 = -0.900968867902419126236102319507445051f;  // cos(6 pi / 7)
  const float s1 = 0.78183148246802980870844452667405775f;    // sin(2 pi / 7)
  const float s2 = 0.974927912181823607018131682993931217f;   // sin(4 pi / 7)
  const float s3 = 0.433883739117558120475768332848358755f;   // sin(6 pi / 7)
  float2 a1 = v[1] + v[6], b1 = v[1] - v[6];
  float2 a2 = v[2] + v[5], b2 = v[2] - v[5];
  float2 a3 = v[3] + v[4], b3 = v[3] - v[4];
  float2 t1 = v[0] + a1 * c1 + a2 * c2 + a3 * c3;
  float2 t2 = v[0] + a1 * c2 + a2 * c3 + a3 * c1;
  float2 t3 = v[0] + a1 * c3 + a2 * c1 + a3 * c2;
  float2 u1 = rotate_quarter(b1 * s1 + b2 * s2 + b3 * s3, inverse);
  float2 u2 = rotate_quarter(b1 * s2 - b2 * s3 - b3 * s1, inverse);
  float2 u3 = rotate_quarter(b1 * s3 - b2 * s1 + b3 * s2, inverse);
  v[0] = v[0] + a1 + a2 + a3;
  v[1] = t1 + u1;
  v[6] = t1 - u1;
  v[2] = t2 + u2;
  v[5] = t2 - u2;
  v[3] = t3 + u3;
  v[4] = t3 - u3;
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

// Nine points as three radix-3 DFTs over the columns of a 3 x 3 matrix
// (v[3 n1 + n2], column n2), the twiddles w9^(n2 k1), and three over its rows.
inline void butterfly9(thread float2* v, uint inverse) {
  const float c1 = 0.766044443118978035202392650555416673f;   // cos(2 pi / 9)
  const float s1 = 0.642787609686539326322643409907263432f;   // sin(2 pi / 9)
  const float c2 = 0.173648177666930348851716626769314796f;   // cos(4 pi / 9)
  const float s2 = 0.984807753012208059366743024589523014f;   // sin(4 pi / 9)
  const float c4 = -0.939692620785908384054109277324731470f;  // cos(8 pi / 9)
  const float s4 = 0.342020143325668733044099614682259580f;   // sin(8 pi / 9)
  float2 a[3][3];
  FFT_UNROLL
  for (uint n2 = 0u; n2 < 3u; ++n2) {
    FFT_UNROLL
    for (uint n1 = 0u; n1 < 3u; ++n1) a[n2][n1] = v[3u * n1 + n2];
    butterfly3(a[n2], inverse);
  }
  a[1][1] = complex_mul(a[1][1], directed(float2(c1, -s1), inverse));
  a[1][2] = complex_mul(a[1][2], directed(float2(c2, -s2), inverse));
  a[2][1] = complex_mul(a[2][1], directed(float2(c2, -s2), inverse));
  a[2][2] = complex_mul(a[2][2], directed(float2(c4, -s4), inverse));
  FFT_UNROLL
  for (uint k1 = 0u; k1 < 3u; ++k1) {
    float2 b[3] = {a[0][k1], a[1][k1], a[2][k1]};
    butterfly3(b, inverse);
    FFT_UNROLL
    for (uint k2 = 0u; k2 < 3u; ++k2) v[k1 + 3u * k2] = b[k2];
  }
}

// Ten points by the prime-factor map, which needs no twiddles: element
// (5 n1 + 2 n2) mod 10 is row n1, column n2 of a 2 x 5 matrix; two-point DFTs
// over its columns, five-point ones over its rows, and output (5 k1 + 6 k2)
// mod 10 is row k1, column k2.
inline void butterfly10(thread float2* v, uint inverse) {
  float2 rows[2][5];
  FFT_UNROLL
  for (uint n2 = 0u; n2 < 5u; ++n2) {
    float2 top = v[(2u * n2) % 10u], bottom = v[(5u + 2u * n2) % 10u];
    rows[0][n2] = top + bottom;
    rows[1][n2] = top - bottom;
  }
  butterfly5(rows[0], inverse);
  butterfly5(rows[1], inverse);
  FFT_UNROLL
  for (uint k2 = 0u; k2 < 5u; ++k2) {
    v[(6u * k2) % 10u] = rows[0][k2];
    v[(5u + 6u * k2) % 10u] = rows[1][k2];
  }
}

// Sixteen points as four radix-4 DFTs over the columns of a 4 x 4 matrix
// (v[4 n1 + n2], column n2), the twiddles w16^(n2 k1), and four over its rows.
inline void butterfly16(thread float2* v, uint inverse) {
  const float c = 0.923879532511286756128183189396788933f;  // cos(pi / 8)
  const float s = 0.382683432365089771728459984030398866f;  // sin(pi / 8)
  const float r = 0.707106781186547524400844362104849039f;  // cos(pi / 4)
  float2 a[4][4];
  FFT_UNROLL
  for (uint n2 = 0u; n2 < 4u; ++n2) {
    FFT_UNROLL
    for (uint n1 = 0u; n1 < 4u; ++n1) a[n2][n1] = v[4u * n1 + n2];
    butterfly4(a[n2], inverse);
  }
  // w16^m = e^{-2 pi i m / 16} for m = n2 k1 (conjugated for inverse)
  a[1][1] = complex_mul(a[1][1], directed(float2(c, -s), inverse));
  a[1][2] = complex_mul(a[1][2], directed(float2(r, -r), inverse));
  a[1][3] = complex_mul(a[1][3], directed(float2(s, -c), inverse));
  a[2][1] = complex_mul(a[2][1], directed(float2(r, -r), inverse));
  a[2][2] = rotate_quarter(a[2][2], inverse);
  a[2][3] = complex_mul(a[2][3], directed(float2(-r, -r), inverse));
  a[3][1] = complex_mul(a[3][1], directed(float2(s, -c), inverse));
  a[3][2] = complex_mul(a[3][2], directed(float2(-r, -r), inverse));
  a[3][3] = complex_mul(a[3][3], directed(float2(-c, s), inverse));
  FFT_UNROLL
  for (uint k1 = 0u; k1 < 4u; ++k1) {
    float2 b[4] = {a[0][k1], a[1][k1], a[2][k1], a[3][k1]};
    butterfly4(b, inverse);
    FFT_UNROLL
    for (uint k2 = 0u; k2 < 4u; ++k2) v[k1 + 4u * k2] = b[k2];
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
  } else if (R == 5u) {
    butterfly5(v, inverse);
  } else if (R == 7u) {
    butterfly7(v, inverse);
  } else if (R == 8u) {
    butterfly8(v, inverse);
  } else if (R == 9u) {
    butterfly9(v, inverse);
  } else if (R == 10u) {
    butterfly10(v, inverse);
  } else if (R == 16u) {
    butterfly16(v, inverse);
  } else {
    butterfly_direct<R>(v, inverse, n, twiddles);
  }
}
