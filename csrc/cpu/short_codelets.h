// Line transforms of short power-of-two lengths, written out: radix-4
// Stockham stages (and one radix-2 stage for odd powers of two) whose loops
// the compiler unrolls for each length, on single values or SIMD groups of
// lines; real lines as the complex transform of half their length.
// pocketfft's plans choose their passes at run time and dispatch on the value
// type at every call; for a SIMD group of 16-point lines that fixed cost is as
// large as the arithmetic (docs/performance.md, "Batches of short lines").
// LineEngine (line_plans.h) gives them finite lines only (all_finite).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu/simd_namespace.h"
#include "ducc0/math/cmplx.h"
#include "ducc0/math/unity_roots.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD::short_codelets {

using ::DUCC0_NAMESPACE::Cmplx;

// Complex lines of 128 points ran slower this way than through pocketfft
// (float32, in cache: 3.1 against 2.5 ns per element).
constexpr std::size_t kMaxLength = 64;

// Whether all `count` values are finite: x - x is 0 for a finite x and NaN
// for an infinity or NaN, and a NaN stays NaN through the sum.
template <class T, class V>
bool all_finite(const V* values, std::size_t count) {
  V sum = V(T(0));
  for (std::size_t i = 0; i < count; ++i) sum = sum + (values[i] - values[i]);
  if constexpr (std::is_same_v<V, T>) {
    return sum == T(0);
  } else {
    for (std::size_t j = 0; j < V::size(); ++j)
      if (!(sum[j] == T(0))) return false;
    return true;
  }
}
template <class T, class V>
bool all_finite(const Cmplx<V>* values, std::size_t count) {
  return all_finite<T>(reinterpret_cast<const V*>(values), 2 * count);
}

// Whether a written-out complex transform exists for n.
constexpr bool applies(std::size_t n) {
  return n >= 2 && n <= kMaxLength && (n & (n - 1)) == 0;
}
// Real lines of 64 points ran slower this way than through pocketfft's real
// transform (float32, in cache: 1.62 against 1.55 ns per element), those of
// 8 to 32 faster (8: 3.1 against 3.8).
constexpr std::size_t kMaxRealLength = 32;

// Whether a written-out real transform exists for n: one of half the length.
constexpr bool applies_real(std::size_t n) {
  return n % 2 == 0 && n <= kMaxRealLength && applies(n / 2);
}

// exp(-2 pi i k / n) from ducc's roots of unity exp(2 pi i k / n), in
// double precision, rounded once.
template <class T>
Cmplx<T> forward_root(const ::DUCC0_NAMESPACE::UnityRoots<double, Cmplx<double>>& roots,
                      std::size_t k) {
  const Cmplx<double> w = roots[k];
  return Cmplx<T>(static_cast<T>(w.r), static_cast<T>(-w.i));
}

// x times w, or times conj(w) for the inverse sign. The stages below take
// any complex value type with +, - and these two (line_vectors.h has one).
template <bool fwd, class T, class V>
Cmplx<V> twiddled(const Cmplx<V>& x, const Cmplx<T>& w) {
  const T wi = fwd ? w.i : -w.i;
  return Cmplx<V>(x.r * w.r - x.i * wi, x.r * wi + x.i * w.r);
}
// x times -i, or times i for the inverse sign.
template <bool fwd, class V>
Cmplx<V> quarter_turn(const Cmplx<V>& x) {
  return fwd ? Cmplx<V>(x.i, -x.r) : Cmplx<V>(-x.i, x.r);
}

template <class T>
class Plan {
 public:
  // Twiddles of each radix-4 stage of length L (n, n / 4, ... while L >= 4),
  // in order: w^p, w^2p, w^3p for p < L / 4, w = exp(-2 pi i / L).
  explicit Plan(std::size_t n) : n_(n) {
    const ::DUCC0_NAMESPACE::UnityRoots<double, Cmplx<double>> roots(n);
    for (std::size_t length = n; length >= 4; length /= 4)
      for (std::size_t p = 0; p < length / 4; ++p)
        for (std::size_t r = 1; r <= 3; ++r)
          twiddles_.push_back(forward_root<T>(roots, p * r * (n / length)));
  }
  // Values of scratch exec needs beside its input.
  std::size_t bufsize() const { return n_; }
  std::size_t footprint() const { return twiddles_.size() * sizeof(Cmplx<T>); }
  // The twiddles stages<n, 1, ..>() takes.
  const Cmplx<T>* twiddles() const { return twiddles_.data(); }

  // Transforms `in` (n values), using `buf` (n values); returns where the
  // result is (in or buf), scaled by fct.
  template <class V>
  Cmplx<V>* exec(Cmplx<V>* in, Cmplx<V>* buf, T fct, bool fwd) const {
    switch (n_) {
      case 2: return run<2>(in, buf, fct, fwd);
      case 4: return run<4>(in, buf, fct, fwd);
      case 8: return run<8>(in, buf, fct, fwd);
      case 16: return run<16>(in, buf, fct, fwd);
      case 32: return run<32>(in, buf, fct, fwd);
      default: return run<64>(in, buf, fct, fwd);
    }
  }

  // The stages of a transform of `length` values spaced `s` apart (s
  // interleaved transforms, as Stockham's algorithm leaves them) of complex
  // values C: reads x, writes y, and the next stage swaps them. Returns where
  // the result is.
  template <std::size_t length, std::size_t s, bool fwd, class C>
  static C* stages(C* x, C* y, const Cmplx<T>* w) {
    if constexpr (length == 1) {
      return x;
    } else if constexpr (length == 2) {
      for (std::size_t q = 0; q < s; ++q) {
        const C a = x[q], b = x[q + s];
        y[q] = a + b;
        y[q + s] = a - b;
      }
      return y;
    } else {
      constexpr std::size_t m = length / 4;
      [&]<std::size_t... p>(std::index_sequence<p...>) {
        (butterflies<m, s, p, fwd>(x, y, w), ...);
      }(std::make_index_sequence<m>());
      return stages<m, 4 * s, fwd>(y, x, w + 3 * m);
    }
  }

 private:
  template <std::size_t n, class V>
  Cmplx<V>* run(Cmplx<V>* in, Cmplx<V>* buf, T fct, bool fwd) const {
    static_assert(applies(n) && n <= kMaxLength);
    Cmplx<V>* out = fwd ? stages<n, 1, true>(in, buf, twiddles_.data())
                        : stages<n, 1, false>(in, buf, twiddles_.data());
    if (fct != T(1))
      for (std::size_t k = 0; k < n; ++k) out[k] = Cmplx<V>(out[k].r * fct, out[k].i * fct);
    return out;
  }

  // Butterfly p of a radix-4 stage with m = length / 4, for each of the s
  // interleaved transforms; p is a constant, so p = 0 multiplies by nothing.
  template <std::size_t m, std::size_t s, std::size_t p, bool fwd, class C>
  static void butterflies(const C* x, C* y, const Cmplx<T>* w) {
    for (std::size_t q = 0; q < s; ++q) {
      const C a = x[q + s * p], b = x[q + s * (p + m)];
      const C c = x[q + s * (p + 2 * m)], d = x[q + s * (p + 3 * m)];
      const C t0 = a + c, t1 = a - c, t2 = b + d, t3 = quarter_turn<fwd>(b - d);
      y[q + s * 4 * p] = t0 + t2;
      if constexpr (p == 0) {
        y[q + s * (4 * p + 1)] = t1 + t3;
        y[q + s * (4 * p + 2)] = t0 - t2;
        y[q + s * (4 * p + 3)] = t1 - t3;
      } else {
        y[q + s * (4 * p + 1)] = twiddled<fwd>(t1 + t3, w[3 * p]);
        y[q + s * (4 * p + 2)] = twiddled<fwd>(t0 - t2, w[3 * p + 1]);
        y[q + s * (4 * p + 3)] = twiddled<fwd>(t1 - t3, w[3 * p + 2]);
      }
    }
  }

  std::size_t n_;
  std::vector<Cmplx<T>> twiddles_;
};

// A real line of n = 2h points as the complex transform of h points of its
// value pairs z[j] = x[2j] + i x[2j + 1], with pocketfft_r's interface and
// layouts: exec(in, buf, fct, true) is the forward transform of n real
// values, returned as r0, r1, i1, ..., r(h-1), i(h-1), rh; exec(.., false)
// the backward (inverse-sign, unnormalised) transform of that layout.
template <class T>
class RealPlan {
 public:
  explicit RealPlan(std::size_t n) : n_(n), half_(n / 2) {
    const ::DUCC0_NAMESPACE::UnityRoots<double, Cmplx<double>> roots(n);
    for (std::size_t k = 0; k < n / 2; ++k) roots_.push_back(forward_root<T>(roots, k));
  }
  // Values of scratch exec needs beside its input: the half-length
  // transform's two arrays.
  std::size_t bufsize() const { return 2 * n_; }
  std::size_t footprint() const {
    return roots_.size() * sizeof(Cmplx<T>) + half_.footprint();
  }

  template <class V>
  V* exec(V* in, V* buf, T fct, bool forward) const {
    const std::size_t h = n_ / 2;
    auto* pairs = reinterpret_cast<Cmplx<V>*>(in);
    auto* scratch = reinterpret_cast<Cmplx<V>*>(buf);
    if (forward) {
      // X[k] = E[k] + w^k O[k], E and O the transforms of the even and odd
      // values: E[k] = (Z[k] + conj Z[h-k]) / 2, O[k] = -i (Z[k] - conj Z[h-k]) / 2.
      const Cmplx<V>* z = half_.exec(pairs, scratch, T(1), true);
      V* out = buf + n_;
      const T f = fct / 2;
      out[0] = (z[0].r + z[0].i) * fct;
      out[n_ - 1] = (z[0].r - z[0].i) * fct;
      for (std::size_t k = 1; k < h; ++k) {
        const Cmplx<V> a = z[k], b = z[h - k];
        const V er = a.r + b.r, ei = a.i - b.i;  // 2 E[k]
        const V orr = a.i + b.i, oi = b.r - a.r;  // 2 O[k]
        const Cmplx<T> w = roots_[k];
        out[2 * k - 1] = (er + orr * w.r - oi * w.i) * f;
        out[2 * k] = (ei + orr * w.i + oi * w.r) * f;
      }
      return out;
    }
    // Z'[k] = (X[k] + conj X[h-k]) + i w^-k (X[k] - conj X[h-k]); its
    // backward transform holds x[2j] + i x[2j + 1] at j.
    auto bin = [&](std::size_t k) { return Cmplx<V>(in[2 * k - 1], in[2 * k]); };
    const V x0 = in[0], xh = in[n_ - 1];
    scratch[0] = Cmplx<V>((x0 + xh) * fct, (x0 - xh) * fct);
    for (std::size_t k = 1; k < h; ++k) {
      const Cmplx<V> a = bin(k), b = bin(h - k);
      const V sr = a.r + b.r, si = a.i - b.i;  // X[k] + conj X[h-k]
      const V dr = a.r - b.r, di = a.i + b.i;  // X[k] - conj X[h-k]
      const Cmplx<T> w = roots_[k];            // w^-k is conj(w)
      const V tr = dr * w.r + di * w.i, ti = di * w.r - dr * w.i;
      scratch[k] = Cmplx<V>((sr - ti) * fct, (si + tr) * fct);
    }
    return reinterpret_cast<V*>(half_.exec(scratch, scratch + h, T(1), false));
  }

 private:
  std::size_t n_;
  Plan<T> half_;
  std::vector<Cmplx<T>> roots_;
};

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD::short_codelets
