// One-dimensional line plans as cache entries. Included (through
// line_kernels.h) by cpu_kernels.cc only: it is where the pocketfft
// templates are instantiated for float and double.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cache/plan_cache.h"
#include "cpu/cpu_plan.h"
#include "cpu/line_vectors.h"
#include "cpu/rader.h"
#include "cpu/short_codelets.h"
#include "cpu/simd_namespace.h"
#include "ducc0/fft/fft1d_impl.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

namespace ducc = ::DUCC0_NAMESPACE;
namespace pocketfft = ::DUCC0_NAMESPACE::detail_fft;

// pocketfft's flag for its layout that vectorises inside one line; its other
// layout serves SIMD groups and lone lines alike.
inline bool vectorised_in_line(LineLayout layout) {
  return layout == LineLayout::kOneLineVectorised;
}

// A line transform of one length: pocketfft's, Rader's algorithm (rader.h)
// where the length is a prime it applies to, or for short powers of two a
// written-out one (short_codelets.h) on lines whose values are all finite.
// Lines holding an infinity or NaN go through pocketfft whatever the length:
// which outputs become NaN and which infinite depends on the algorithm's
// operations, and numpy's and jnp.fft's are pocketfft's. The interface is
// pocketfft_c's and pocketfft_r's: exec transforms `in` (complex values, or
// real ones in pocketfft's half-complex layout) using `buf` (bufsize()
// values of the same kind) and returns where the result is.
template <class T, class Pocketfft, bool kReal>
class LineEngine {
 public:
  // Contiguous lines of this length held each in its own vectors
  // (line_vectors.h): complex lines, or real ones into complex outputs.
  using Vectors =
      std::conditional_t<kReal, line_vectors::RealLines<T>, line_vectors::ComplexLines<T>>;

  LineEngine(std::size_t n, LineLayout layout) : n_(n) {
    if (!kReal && short_codelets::applies(n)) codelet_.emplace(n);
    if (kReal && short_codelets::applies_real(n)) real_codelet_.emplace(n);
    if (Vectors::applies(n)) vectors_.emplace(n);
    if (prime_lengths::takes_rader(n))
      rader_.emplace(n, kReal);
    else
      pocketfft_.emplace(n, vectorised_in_line(layout));
  }
  std::size_t bufsize() const {
    // Rader's scratch is complex values, two real ones each.
    std::size_t values = rader_ ? (kReal ? 2 : 1) * rader_->bufsize() : pocketfft_->bufsize();
    if (codelet_) values = std::max(values, codelet_->bufsize());
    if (real_codelet_) values = std::max(values, real_codelet_->bufsize());
    return values;
  }
  std::size_t footprint() const {
    std::size_t bytes = rader_ ? rader_->footprint() : pocketfft_->footprint();
    if (codelet_) bytes += codelet_->footprint();
    if (real_codelet_) bytes += real_codelet_->footprint();
    if (vectors_) bytes += vectors_->footprint();
    return bytes;
  }
  // The plan for lines in their own vectors, where the length has one.
  const Vectors* vectors() const { return vectors_ ? &*vectors_ : nullptr; }
  template <class D>
  D* exec(D* in, D* buf, T fct, bool fwd) const {
    if constexpr (kReal) {
      if (real_codelet_ && short_codelets::all_finite<T>(in, n_))
        return real_codelet_->exec(in, buf, fct, fwd);
    } else {
      if (codelet_ && short_codelets::all_finite<T>(in, n_))
        return codelet_->exec(in, buf, fct, fwd);
    }
    if (!rader_) return pocketfft_->exec(in, buf, fct, fwd);
    if constexpr (kReal)
      return rader_->exec_real(in, buf, fct, fwd);
    else
      return rader_->exec(in, buf, fct, fwd);
  }

 private:
  std::size_t n_;
  std::optional<Pocketfft> pocketfft_;
  std::optional<rader::Plan<T>> rader_;
  std::optional<short_codelets::Plan<T>> codelet_;
  std::optional<short_codelets::RealPlan<T>> real_codelet_;
  std::optional<Vectors> vectors_;
};

template <class T>
using ComplexEngine = LineEngine<T, pocketfft::pocketfft_c<T>, false>;
template <class T>
using RealEngine = LineEngine<T, pocketfft::pocketfft_r<T>, true>;

// A plan for lines of length n, complex or real.
template <class Engine>
class LinePlan final : public CachedValue {
 public:
  LinePlan(std::size_t n, LineLayout layout) : engine(n, layout) {}
  std::size_t bytes() const override { return sizeof(*this) + engine.footprint(); }
  const Engine engine;
};

// Cache key for a line plan: layouts that build the same pocketfft plan
// share it.
template <class T>
PlanKey line_plan_key(bool real, std::int64_t n, LineLayout layout) {
  return PlanKey{plan_family("line"),
                 {sizeof(T), real ? 1 : 0, n, vectorised_in_line(layout) ? 1 : 0}};
}

template <class Engine, class T>
std::shared_ptr<const LinePlan<Engine>> get_line_plan(PlanCache& cache, bool real,
                                                      std::int64_t n, LineLayout layout) {
  return cache.get<LinePlan<Engine>>(line_plan_key<T>(real, n, layout), [&] {
    if (n > kMaxLineLength)
      throw std::length_error("transform length " + std::to_string(n) +
                              " exceeds the supported maximum 2^36");
    return std::make_shared<const LinePlan<Engine>>(static_cast<std::size_t>(n), layout);
  });
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
