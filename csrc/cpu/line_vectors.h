// Short contiguous complex lines transformed where they lie, each line held
// in its own SIMD vectors with its values interleaved (re, im) as in memory:
// no gather of lines into SIMD lanes and no scatter back (line_kernels.h's
// way, whose transposes cost more than a short transform).
//
// With c complex values per vector, a line of n = m c points is m vectors;
// lane l of vector a holds point a c + l. The m-point transform runs
// lane-wise across the vectors (short_codelets.h's stages), lane l of result
// k1 is multiplied by w_n^(l k1), each block of c vectors is transposed, and a
// c-point transform across the block leaves c vectors of consecutive outputs:
// output k1 + m k2 for the block's k1 = b c .. b c + c - 1. Lines holding an
// infinity or NaN are left to pocketfft, as in short_codelets.h.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu/short_codelets.h"
#include "cpu/simd_namespace.h"
#include "ducc0/infra/simd.h"
#include "ducc0/math/cmplx.h"
#include "ducc0/math/unity_roots.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD::line_vectors {

using ::DUCC0_NAMESPACE::Cmplx;

// Complex values per vector of this build's SIMD width (below 2, as for
// float64 on NEON, nothing here applies).
template <class T>
constexpr std::size_t kPerVector = ::DUCC0_NAMESPACE::native_simd<T>::size() / 2;

// c complex values of one line, (re, im) interleaved, in one vector.
template <class T, std::size_t c>
struct Pack {
  static constexpr std::size_t kValues = c;
  using Vector __attribute__((vector_size(2 * c * sizeof(T)))) = T;
  // The same vector at any address of a T.
  using Unaligned __attribute__((vector_size(2 * c * sizeof(T)), aligned(alignof(T)),
                                 may_alias)) = T;
  Vector v;

  // The vector at `at` (any address of a T), and back: one load or store
  // instruction of the vector's width. GCC's generic tuning copies memory to
  // memory in 16-byte pieces, even a whole vector through Unaligned once
  // its destination is on the stack; a 32-byte vector stored in two halves
  // and read back whole stalls on store forwarding (float64 lines of 16
  // and 32 points ran 1.4 to 1.6 times slower so).
  static Vector load(const void* at) {
#if defined(__AVX__)
    if constexpr (sizeof(Vector) == 32)
      return (Vector)_mm256_loadu_si256(static_cast<const __m256i*>(at));
#endif
    return *static_cast<const Unaligned*>(at);
  }
  static void store(void* at, const Vector& v) {
#if defined(__AVX__)
    if constexpr (sizeof(Vector) == 32)
      return _mm256_storeu_si256(static_cast<__m256i*>(at), (__m256i)v);
#endif
    *static_cast<Unaligned*>(at) = v;
  }
};

template <class T, std::size_t c>
Pack<T, c> operator+(const Pack<T, c>& a, const Pack<T, c>& b) { return {a.v + b.v}; }
template <class T, std::size_t c>
Pack<T, c> operator-(const Pack<T, c>& a, const Pack<T, c>& b) { return {a.v - b.v}; }

// A vector whose real positions hold `re` and imaginary ones `im`.
template <class T, std::size_t c>
typename Pack<T, c>::Vector alternating(T re, T im) {
  typename Pack<T, c>::Vector v;
  for (std::size_t j = 0; j < 2 * c; ++j) v[j] = j % 2 == 0 ? re : im;
  return v;
}

// Each value with its real and imaginary parts swapped.
template <class T, std::size_t c>
typename Pack<T, c>::Vector swapped(const typename Pack<T, c>::Vector& v) {
  return [&]<std::size_t... j>(std::index_sequence<j...>) {
    return __builtin_shufflevector(v, v, (j ^ 1)...);
  }(std::make_index_sequence<2 * c>());
}

// The values of a pack in reverse order, each value's parts kept in order.
template <class T, std::size_t c>
typename Pack<T, c>::Vector reversed(const typename Pack<T, c>::Vector& v) {
  return [&]<std::size_t... j>(std::index_sequence<j...>) {
    return __builtin_shufflevector(v, v, (2 * (c - 1 - j / 2) + j % 2)...);
  }(std::make_index_sequence<2 * c>());
}

// x times -i, or times i for the inverse sign (short_codelets' stages).
template <bool fwd, class T, std::size_t c>
Pack<T, c> quarter_turn(const Pack<T, c>& x) {
  return {swapped<T, c>(x.v) * alternating<T, c>(fwd ? T(1) : T(-1), fwd ? T(-1) : T(1))};
}
// Every value times w, or times conj(w) for the inverse sign.
template <bool fwd, class T, std::size_t c>
Pack<T, c> twiddled(const Pack<T, c>& x, const Cmplx<T>& w) {
  const T wi = fwd ? w.i : -w.i;
  return {x.v * w.r + swapped<T, c>(x.v) * alternating<T, c>(-wi, wi)};
}

// A root of unity per value of a pack, as (re, re) and (-im, im): the
// forward root w of lane l is exp(-2 pi i index(l) / n).
template <class T, std::size_t c>
struct LaneRoots {
  using Vector = typename Pack<T, c>::Vector;
  Vector re, im;

  template <class Index>
  LaneRoots(const ::DUCC0_NAMESPACE::UnityRoots<double, Cmplx<double>>& roots, Index index) {
    for (std::size_t l = 0; l < c; ++l) {
      const Cmplx<T> w = short_codelets::forward_root<T>(roots, index(l));
      re[2 * l] = re[2 * l + 1] = w.r;
      im[2 * l] = -w.i;
      im[2 * l + 1] = w.i;
    }
  }
  // Each value of x times its lane's root, or its conjugate for the inverse
  // sign.
  template <bool fwd>
  Vector times(const Vector& x) const {
    return x * re + swapped<T, c>(x) * (fwd ? im : -im);
  }
};

// Calls body(make(std::bool_constant<fwd>{})): the kernel `make` builds for
// the sign, a constant inside it.
template <class Body, class Make>
void with_sign(bool fwd, Body& body, Make make) {
  if (fwd)
    body(make(std::true_type{}));
  else
    body(make(std::false_type{}));
}

// Transposes c vectors of c complex values each.
template <class V>
void transpose(V (&r)[2]) {
  const V a = r[0], b = r[1];
  r[0] = __builtin_shufflevector(a, b, 0, 1, 4, 5);
  r[1] = __builtin_shufflevector(a, b, 2, 3, 6, 7);
}
template <class V>
void transpose(V (&r)[4]) {
  const V t0 = __builtin_shufflevector(r[0], r[1], 0, 1, 8, 9, 4, 5, 12, 13);
  const V t1 = __builtin_shufflevector(r[0], r[1], 2, 3, 10, 11, 6, 7, 14, 15);
  const V t2 = __builtin_shufflevector(r[2], r[3], 0, 1, 8, 9, 4, 5, 12, 13);
  const V t3 = __builtin_shufflevector(r[2], r[3], 2, 3, 10, 11, 6, 7, 14, 15);
  r[0] = __builtin_shufflevector(t0, t2, 0, 1, 2, 3, 8, 9, 10, 11);
  r[1] = __builtin_shufflevector(t1, t3, 0, 1, 2, 3, 8, 9, 10, 11);
  r[2] = __builtin_shufflevector(t0, t2, 4, 5, 6, 7, 12, 13, 14, 15);
  r[3] = __builtin_shufflevector(t1, t3, 4, 5, 6, 7, 12, 13, 14, 15);
}

// The c-point transform across c packs, value by value.
template <bool fwd, class T>
void transform_across(Pack<T, 2> (&r)[2]) {
  const Pack<T, 2> a = r[0], b = r[1];
  r[0] = a + b;
  r[1] = a - b;
}
template <bool fwd, class T>
void transform_across(Pack<T, 4> (&r)[4]) {
  const Pack<T, 4> t0 = r[0] + r[2], t1 = r[0] - r[2];
  const Pack<T, 4> t2 = r[1] + r[3], t3 = quarter_turn<fwd>(r[1] - r[3]);
  r[0] = t0 + t2;
  r[1] = t1 + t3;
  r[2] = t0 - t2;
  r[3] = t1 - t3;
}

// Lines longer than this go through line_kernels.h.
constexpr std::size_t kMaxLength = 64;

// Lines of c complex values per vector (2 or 4; the kernels use
// kPerVector<T>, the tests every c).
template <class T, std::size_t c = kPerVector<T>>
class Plan {
 public:
  // Whether lines of n points can be transformed this way: a power of two
  // with at least c vectors (one transposed block) and at most kMaxLength.
  static constexpr bool applies(std::size_t n) {
    return (c == 2 || c == 4) && n >= c * c && n <= kMaxLength &&
           short_codelets::applies(n) && short_codelets::applies(n / c);
  }

  explicit Plan(std::size_t n) : n_(n), stages_(n / c) {
    const ::DUCC0_NAMESPACE::UnityRoots<double, Cmplx<double>> roots(n);
    for (std::size_t k1 = 0; k1 < n / c; ++k1)
      lane_roots_.emplace_back(roots, [k1](std::size_t l) { return l * k1; });
  }
  std::size_t footprint() const {
    return stages_.footprint() + lane_roots_.size() * sizeof(Roots);
  }

  // c complex values of one line, interleaved, in one vector.
  using P = Pack<T, (c == 2 || c == 4) ? c : 2>;

  // Calls body(std::integral_constant<std::size_t, n>{}) with n = length,
  // a length applies() accepts.
  template <class Body, std::size_t n = c * c>
  static void with_length(std::size_t length, Body&& body) {
    if constexpr (applies(n)) {
      if (length != n) return with_length<Body, 2 * n>(length, std::forward<Body>(body));
      body(std::integral_constant<std::size_t, n>{});
    }
  }

  // Calls body(kernel) once, with the kernel of this plan's length and the
  // sign: kernel(in, out, fct) transforms the n values at `in` into `out`
  // (the same place or one that does not overlap), scaled by fct, and
  // returns true; or, if a value is not finite, returns false having
  // written nothing. The loop over lines goes in body, around a call the
  // compiler can inline.
  template <class Body>
  void with_kernel(bool fwd, Body&& body) const {
    // The length is a type, not a constexpr local: an inner lambda may name
    // a type without capturing it (clang refuses the local).
    with_length(n_, [&](auto length) {
      using Length = decltype(length);
      with_sign(fwd, body, [this]<bool sign>(std::bool_constant<sign>) {
        return [this](const Cmplx<T>* in, Cmplx<T>* out, T fct) {
          return run<Length::value, sign>(in, out, fct);
        };
      });
    });
  }

  // The unscaled transform of the n values at `in` (n this plan's length),
  // into z: z[q] holds outputs q c .. q c + c - 1. False if a value is not
  // finite.
  template <std::size_t n, bool fwd>
  bool transform(const Cmplx<T>* in, P (&z)[n / c]) const {
    P x[n / c];
    for (std::size_t a = 0; a < n / c; ++a)
      x[a].v = P::load(in + a * c);
    return transform<n, fwd>(x, z);
  }

  // The same of the n values in x (x[a] holds values a c .. a c + c - 1),
  // which it overwrites.
  template <std::size_t n, bool fwd>
  bool transform(P (&x)[n / c], P (&z)[n / c]) const {
    constexpr std::size_t m = n / c;
    P y[m];
    P* k = short_codelets::Plan<T>::template stages<m, 1, fwd>(x, y, stages_.twiddles());
    for (std::size_t k1 = 1; k1 < m; ++k1) k[k1].v = lane_roots_[k1].template times<fwd>(k[k1].v);
    for (std::size_t b = 0; b < m / c; ++b) {
      Vector block[c];
      for (std::size_t j = 0; j < c; ++j) block[j] = k[b * c + j].v;
      transpose(block);
      P across[c];
      for (std::size_t j = 0; j < c; ++j) across[j].v = block[j];
      transform_across<fwd>(across);
      // Output 0, the sum of all values, is formed by additions alone: it is
      // finite only if every value is (or the sum overflows, which pocketfft
      // then computes too).
      if (b == 0) {
        const Vector zero_if_finite = across[0].v - across[0].v;
        if (!(zero_if_finite[0] + zero_if_finite[1] == T(0))) return false;
      }
      for (std::size_t k2 = 0; k2 < c; ++k2) z[k2 * (m / c) + b] = across[k2];
    }
    return true;
  }

 private:
  using Vector = typename P::Vector;
  using Roots = LaneRoots<T, P::kValues>;

  template <std::size_t n, bool fwd>
  bool run(const Cmplx<T>* in, Cmplx<T>* out, T fct) const {
    P z[n / c];
    if (!transform<n, fwd>(in, z)) return false;
    for (std::size_t q = 0; q < n / c; ++q)
      P::store(out + q * c, fct == T(1) ? z[q].v : z[q].v * fct);
    return true;
  }

  std::size_t n_;
  short_codelets::Plan<T> stages_;  // the m-point transform's twiddles
  std::vector<Roots> lane_roots_;   // lane l of vector k1: w_n^(l k1)
};

// A real line of n = 2h points as the complex transform of its h value
// pairs z[j] = x[2j] + i x[2j + 1] (the line as it lies, read as complex),
// then X[k] = (Z[k] + conj Z[h-k]) / 2 - i w^k (Z[k] - conj Z[h-k]) / 2 for
// k = 0 .. h, w = exp(-2 pi i / n), Z[h] = Z[0]: the h + 1 outputs of numpy's
// rfft, stored as complex values. The complex-to-real line runs it backwards:
// Z[k] = (X[k] + conj X[h-k]) + i conj(w^k) (X[k] - conj X[h-k]) for k < h,
// whose inverse transform, unscaled, is n times the value pairs, as numpy's
// irfft of n points unscaled is n times the line.
template <class T, std::size_t c = kPerVector<T>>
class RealPlan {
  using Half = Plan<T, c>;
  using P = typename Half::P;
  using Vector = typename P::Vector;

 public:
  static constexpr bool applies(std::size_t n) { return n % 2 == 0 && Half::applies(n / 2); }

  explicit RealPlan(std::size_t n) : n_(n), half_(n / 2) {
    const ::DUCC0_NAMESPACE::UnityRoots<double, Cmplx<double>> roots(n);
    for (std::size_t q = 0; q < n / 2 / c; ++q)
      roots_.emplace_back(roots, [q](std::size_t l) { return q * c + l; });
  }
  std::size_t footprint() const { return half_.footprint() + roots_.size() * sizeof(Roots); }

  // As Plan::with_kernel, for kernel(in, out, fct): the n real values at
  // `in` to the h + 1 complex values at `out` (not overlapping them), scaled
  // by fct; the inverse sign gives their conjugates.
  template <class Body>
  void with_kernel(bool fwd, Body&& body) const {
    with_real_kernel<false>(fwd, body);
  }

  // As with_kernel, for the complex-to-real kernel(in, out, fct): the h + 1
  // complex values at `in` (bins 0 .. h) to the n real values at `out` (not
  // overlapping them), scaled by fct. The imaginary parts of bins 0 and h are
  // ignored, as numpy's irfft ignores them; the forward sign transforms the
  // conjugate bins.
  template <class Body>
  void with_complex_to_real_kernel(bool fwd, Body&& body) const {
    with_real_kernel<true>(fwd, body);
  }

 private:
  using Roots = LaneRoots<T, P::kValues>;

  // body(kernel) for the kernel of this plan's length and the sign, real to
  // complex or (kToReal) complex to real.
  template <bool kToReal, class Body>
  void with_real_kernel(bool fwd, Body& body) const {
    Half::with_length(n_ / 2, [&](auto length) {
      using Length = decltype(length);  // a type, as in Plan::with_kernel
      with_sign(fwd, body, [this]<bool sign>(std::bool_constant<sign>) {
        if constexpr (kToReal)
          return [this](const Cmplx<T>* in, T* out, T fct) {
            return run_complex_to_real<Length::value, sign>(in, out, fct);
          };
        else
          return [this](const T* in, Cmplx<T>* out, T fct) {
            return run<Length::value, sign>(in, out, fct);
          };
      });
    });
  }

  // Z[h - k] for the k of pack q, from the packs it straddles: Z[h - q c]
  // (pack (H - q) mod H, value 0) then Z[h - q c - 1] down to
  // Z[h - q c - c + 1] (pack H - q - 1, values c - 1 down to 1).
  static Vector mirrored(const Vector& first, const Vector& rest) {
    if constexpr (c == 2)
      return __builtin_shufflevector(first, rest, 0, 1, 6, 7);
    else
      return __builtin_shufflevector(first, rest, 0, 1, 14, 15, 12, 13, 10, 11);
  }

  template <std::size_t h, bool fwd>
  bool run(const T* in, Cmplx<T>* out, T fct) const {
    constexpr std::size_t packs = h / c;
    P z[packs];
    if (!half_.template transform<h, true>(reinterpret_cast<const Cmplx<T>*>(in), z))
      return false;
    const Vector conjugate = alternating<T, c>(T(1), T(-1));
    const T half_fct = fct / 2;
    for (std::size_t q = 0; q < packs; ++q) {
      const Vector a = z[q].v;
      const Vector b = mirrored(z[(packs - q) % packs].v, z[packs - 1 - q].v) * conjugate;
      const Vector sum = a + b, difference = a - b;
      // -i w^k (Z[k] - conj Z[h-k]): the product with w, then a quarter turn.
      const Vector turned = roots_[q].template times<true>(difference);
      Vector x = (sum + quarter_turn<true>(P{turned}).v) * half_fct;
      if constexpr (!fwd) x *= conjugate;
      P::store(out + q * c, x);
    }
    // X[h] = Re Z[0] - Im Z[0].
    out[h] = Cmplx<T>((z[0].v[0] - z[0].v[1]) * fct, T(0));
    return true;
  }


  template <std::size_t h, bool fwd>
  bool run_complex_to_real(const Cmplx<T>* in, T* out, T fct) const {
    constexpr std::size_t packs = h / c;
    const Vector conjugate = alternating<T, c>(T(1), T(-1));
    P z[packs], pairs[packs];
    for (std::size_t q = 0; q < packs; ++q) {
      // X[k] and conj X[h - k] for the k of pack q; X[h - k] lie in the c
      // values that end at X[h - q c], in reverse order.
      Vector a = P::load(in + q * c);
      const Vector ending = P::load(in + h - q * c - (c - 1));
      Vector b = reversed<T, c>(ending);
      if constexpr (fwd)
        a *= conjugate;
      else
        b *= conjugate;
      if (q == 0) a[1] = b[1] = T(0);  // bins 0 and h
      const Vector turned = roots_[q].template times<false>(a - b);
      z[q].v = (a + b) + quarter_turn<false>(P{turned}).v;
    }
    if (!half_.template transform<h, false>(z, pairs)) return false;
    for (std::size_t q = 0; q < packs; ++q)
      P::store(out + 2 * q * c, fct == T(1) ? pairs[q].v : pairs[q].v * fct);
    return true;
  }

  std::size_t n_;
  Half half_;
  std::vector<Roots> roots_;  // pack q: w^k for its k = q c .. q c + c - 1
};

// Plans of one kind (Plan or RealPlan) at this build's SIMD width, or at half
// of it for lines too short for a whole transposed block: float32 lines of 4
// and 8 points on AVX2 are vectors of 2 complex values.
template <class T, template <class, std::size_t> class Kind,
          std::size_t kWide = kPerVector<T>>
class Widest {
  static constexpr std::size_t kNarrow = kWide / 2 >= 2 ? kWide / 2 : kWide;

 public:
  static constexpr bool applies(std::size_t n) {
    return Kind<T, kWide>::applies(n) || Kind<T, kNarrow>::applies(n);
  }
  explicit Widest(std::size_t n) {
    if (Kind<T, kWide>::applies(n))
      wide_.emplace(n);
    else
      narrow_.emplace(n);
  }
  std::size_t footprint() const {
    return with_plan([](const auto& plan) { return plan.footprint(); });
  }
  // As the kind's with_kernel and with_complex_to_real_kernel (RealPlan).
  template <class Body>
  void with_kernel(bool fwd, Body&& body) const {
    with_plan([&](const auto& plan) { plan.with_kernel(fwd, body); });
  }
  template <class Body>
  void with_complex_to_real_kernel(bool fwd, Body&& body) const {
    with_plan([&](const auto& plan) { plan.with_complex_to_real_kernel(fwd, body); });
  }

 private:
  // f(the plan this length has).
  template <class F>
  decltype(auto) with_plan(F&& f) const {
    return wide_ ? f(*wide_) : f(*narrow_);
  }

  std::optional<Kind<T, kWide>> wide_;
  std::optional<Kind<T, kNarrow>> narrow_;
};

template <class T>
using ComplexLines = Widest<T, Plan>;
template <class T>
using RealLines = Widest<T, RealPlan>;

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD::line_vectors
