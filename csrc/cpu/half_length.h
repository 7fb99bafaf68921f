// Real transforms of even length n through complex ones of h = n / 2 points,
// so that a few long real lines spread over every thread (as complex lines
// do, through their four-step split).
//
// z[j] = x[2j] + i x[2j+1] has Z = FFT_h(z). With w = exp(-2 pi i / n) and
// Z[h] = Z[0], the real transform's bins are, for k = 0 .. h / 2,
//   E = (Z[k] + conj Z[h-k]) / 2,   O = -i (Z[k] - conj Z[h-k]) / 2,
//   X[k] = E + w^k O,               X[h-k] = conj(E - w^k O).
// Backwards, from bins X of a Hermitian spectrum,
//   Z[k] = (X[k] + conj X[h-k]) + i conj(w^k) (X[k] - conj X[h-k])
// has the unnormalised inverse FFT_h z[j] = x[2j] + i x[2j+1]. Each pair
// (k, h - k) needs only its own two values: pairs split over tasks freely,
// and the unpack runs in place or out of it. Included by line_kernels.h only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cache/plan_cache.h"
#include "cpu/line_plans.h"
#include "cpu/simd_namespace.h"
#include "ducc0/math/unity_roots.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

// w^k for k = 0 .. h / 2, rounded once from double-precision roots.
template <class T>
class HalfLengthTwiddles final : public CachedValue {
 public:
  explicit HalfLengthTwiddles(std::int64_t n) : values(compute(n)) {}
  std::size_t bytes() const override { return sizeof(*this) + values.size() * sizeof(values[0]); }

  const std::vector<ducc::Cmplx<T>> values;

 private:
  static std::vector<ducc::Cmplx<T>> compute(std::int64_t n) {
    const ducc::UnityRoots<T, ducc::Cmplx<T>> roots(static_cast<std::size_t>(n));
    std::vector<ducc::Cmplx<T>> values(static_cast<std::size_t>(n / 4 + 1));
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = roots[k].conj();
    return values;
  }
};

template <class T>
std::shared_ptr<const HalfLengthTwiddles<T>> get_half_length_twiddles(PlanCache& cache,
                                                                      std::int64_t n) {
  return cache.get<HalfLengthTwiddles<T>>(
      PlanKey{plan_family("half_length_twiddles"), {static_cast<std::int64_t>(sizeof(T)), n}},
      [&] { return std::make_shared<const HalfLengthTwiddles<T>>(n); });
}

// The pairs a task of `chunks` per line takes: [first, end) of 0 .. h / 2.
struct PairRange {
  std::int64_t first, end;
};
inline PairRange pair_range(std::int64_t h, std::int64_t chunks, std::int64_t chunk) {
  const std::int64_t pairs = h / 2 + 1;
  return {chunk * pairs / chunks, (chunk + 1) * pairs / chunks};
}

namespace half_length_vectors {

using line_vectors::alternating;
using line_vectors::quarter_turn;
using line_vectors::reversed;

template <class T, std::size_t c>
using Vector = typename line_vectors::Pack<T, c>::Vector;
template <class T, std::size_t c>
Vector<T, c> load(const ducc::Cmplx<T>* at) {
  return line_vectors::Pack<T, c>::load(at);
}
template <class T, std::size_t c>
void store(ducc::Cmplx<T>* at, const Vector<T, c>& v) {
  line_vectors::Pack<T, c>::store(at, v);
}

// x times w, value by value.
template <class T, std::size_t c>
Vector<T, c> product(const Vector<T, c>& x, const Vector<T, c>& w) {
  return [&]<std::size_t... j>(std::index_sequence<j...>) {
    const Vector<T, c> re = __builtin_shufflevector(w, w, (j & ~std::size_t(1))...);
    const Vector<T, c> im = __builtin_shufflevector(w, w, (j | 1)...);
    return x * re + line_vectors::swapped<T, c>(x) * im * alternating<T, c>(T(-1), T(1));
  }(std::make_index_sequence<2 * c>());
}

// Pairs k .. k + c - 1 with their mirrors h - k - c + 1 .. h - k, c at a
// time, while those do not meet: the first k not done.
template <class T, std::size_t c>
std::int64_t unpack(const ducc::Cmplx<T>* z, ducc::Cmplx<T>* line, std::int64_t h,
                    const ducc::Cmplx<T>* w, std::int64_t k, std::int64_t end, T fct,
                    bool forward) {
  const Vector<T, c> conjugate = alternating<T, c>(T(1), T(-1));
  const Vector<T, c> sign = forward ? alternating<T, c>(T(1), T(1)) : conjugate;
  const T half = fct / 2;
  constexpr auto kC = static_cast<std::int64_t>(c);
  for (; k + kC <= end && 2 * (k + kC - 1) < h; k += kC) {
    const std::int64_t mirror = h - k - (kC - 1);
    const Vector<T, c> a = load<T, c>(z + k);
    const Vector<T, c> b = reversed<T, c>(load<T, c>(z + mirror)) * conjugate;
    const Vector<T, c> even = (a + b) * half;
    const Vector<T, c> odd = quarter_turn<true>(line_vectors::Pack<T, c>{
                                 product<T, c>(load<T, c>(w + k), a - b)}).v * half;
    store<T, c>(line + k, (even + odd) * sign);
    store<T, c>(line + mirror, reversed<T, c>((even - odd) * conjugate * sign));
  }
  return k;
}

// As unpack, for pack_half_length.
template <class T, std::size_t c>
std::int64_t pack(const ducc::Cmplx<T>* bins, ducc::Cmplx<T>* z, std::int64_t h,
                  const ducc::Cmplx<T>* w, std::int64_t k, std::int64_t end, bool forward) {
  const Vector<T, c> conjugate = alternating<T, c>(T(1), T(-1));
  const Vector<T, c> sign = forward ? conjugate : alternating<T, c>(T(1), T(1));
  constexpr auto kC = static_cast<std::int64_t>(c);
  for (; k + kC <= end && 2 * (k + kC - 1) < h; k += kC) {
    const std::int64_t mirror = h - k - (kC - 1);
    const Vector<T, c> a = load<T, c>(bins + k) * sign;
    const Vector<T, c> b = reversed<T, c>(load<T, c>(bins + mirror)) * sign * conjugate;
    const Vector<T, c> sum = a + b;
    const Vector<T, c> turned = quarter_turn<false>(line_vectors::Pack<T, c>{
        product<T, c>(load<T, c>(w + k) * conjugate, a - b)}).v;
    store<T, c>(z + k, sum + turned);
    store<T, c>(z + mirror, reversed<T, c>((sum - turned) * conjugate));
  }
  return k;
}

// Complex values per vector where the pair loops above apply, else 0.
template <class T>
constexpr std::size_t kWidth = line_vectors::kPerVector<T> >= 2 ? line_vectors::kPerVector<T> : 0;

}  // namespace half_length_vectors

template <class T>
inline ducc::Cmplx<T> times_minus_half_i(const ducc::Cmplx<T>& a) {
  return {a.i / 2, -a.r / 2};
}

// R2C: Z[0 .. h) of one line (z) becomes its bins X[0 .. h] (line, which
// may be z), for the pairs in `range`; scaled by fct, conjugated for the
// inverse sign; `width` complex values per vector (0: one pair at a time).
template <class T, std::size_t width = half_length_vectors::kWidth<T>>
void unpack_half_length(const ducc::Cmplx<T>* z, ducc::Cmplx<T>* line, std::int64_t h,
                        const ducc::Cmplx<T>* w, PairRange range, T fct, bool forward) {
  auto put = [&](std::int64_t k, ducc::Cmplx<T> x) { line[k] = (forward ? x : x.conj()) * fct; };
  auto one = [&](std::int64_t k) {
    if (k == 0) {
      const ducc::Cmplx<T> z0 = z[0];
      put(0, {z0.r + z0.i, T(0)});
      put(h, {z0.r - z0.i, T(0)});
      return;
    }
    const ducc::Cmplx<T> a = z[k], b = z[h - k].conj();
    const ducc::Cmplx<T> even = (a + b) * T(0.5);
    const ducc::Cmplx<T> odd = w[k] * times_minus_half_i(a - b);
    put(k, even + odd);
    if (h - k != k) put(h - k, (even - odd).conj());
  };
  std::int64_t k = range.first;
  if (k == 0 && k < range.end) one(k++);
  if constexpr (width != 0)
    k = half_length_vectors::unpack<T, width>(z, line, h, w, k, range.end, fct, forward);
  for (; k < range.end; ++k) one(k);
}

// C2R: the bins X[0 .. h] of one line become Z[0 .. h) (another buffer), for
// the pairs in `range`. The imaginary parts of X[0] and X[h] are ignored, as
// a Hermitian spectrum has none; the forward sign conjugates the bins (the
// transform of real data). `width` as for unpack_half_length.
template <class T, std::size_t width = half_length_vectors::kWidth<T>>
void pack_half_length(const ducc::Cmplx<T>* bins, ducc::Cmplx<T>* z, std::int64_t h,
                      const ducc::Cmplx<T>* w, PairRange range, bool forward) {
  auto bin = [&](std::int64_t k) {
    ducc::Cmplx<T> v = bins[k];
    if (k == 0 || k == h) v.i = T(0);
    return forward ? v.conj() : v;
  };
  // (a + c) + i t, t = w_conj (a - c), with c = conj X[h-k].
  auto pair = [](ducc::Cmplx<T> a, ducc::Cmplx<T> c, ducc::Cmplx<T> w_conj) {
    const ducc::Cmplx<T> sum = a + c, t = w_conj * (a - c);
    return ducc::Cmplx<T>{sum.r - t.i, sum.i + t.r};
  };
  auto one = [&](std::int64_t k) {
    z[k] = pair(bin(k), bin(h - k).conj(), w[k].conj());
    // conj(w^(h-k)) = -w^k.
    if (k != 0 && h - k != k) z[h - k] = pair(bin(h - k), bin(k).conj(), w[k] * T(-1));
  };
  std::int64_t k = range.first;
  if (k == 0 && k < range.end) one(k++);
  if constexpr (width != 0)
    k = half_length_vectors::pack<T, width>(bins, z, h, w, k, range.end, forward);
  for (; k < range.end; ++k) one(k);
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
