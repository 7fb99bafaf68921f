// The line kernels of the CPU backend: gathering a bunch of lines from
// strided memory into SIMD groups, transforming them with pocketfft line
// plans, and scattering them back (plain, paired or streaming stores). The
// walk over a pass's lines is line_walker.h; the memory access patterns
// bunch_access.h. Included by cpu_kernels.cc only.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>
#include <type_traits>

#include "cpu/bluestein.h"
#include "cpu/bunch_access.h"
#include "cpu/cpu_plan.h"
#include "cpu/cpu_planner.h"
#include "cpu/four_step.h"
#include "cpu/half_length.h"
#include "cpu/lane_tiles.h"
#include "cpu/line_plans.h"
#include "cpu/line_walker.h"
#include "cpu/simd_namespace.h"
#include "cpu/stream_copy.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {

using ducc::Cmplx;

// Which stores of the last pass stream (see stream_copy.h): single lines
// copied out whole, and tiles of SIMD groups.
struct Streaming {
  bool lines = false;
  bool tiles = false;
};

// The line plans and twiddles of one pass, resolved through the PlanCache.
template <class T>
struct PassPlans {
  // Plans for whole SIMD groups, and for lines one at a time.
  std::shared_ptr<const LinePlan<ComplexEngine<T>>> complex_groups, complex_one_line;
  std::shared_ptr<const LinePlan<RealEngine<T>>> real_groups, real_one_line;
  // Set where the pass's lines are each transformed in their own vectors:
  // the plans inside the line plans above.
  const line_vectors::ComplexLines<T>* line_vectors = nullptr;
  const line_vectors::RealLines<T>* real_line_vectors = nullptr;
  std::shared_ptr<const FourStepTwiddles<T>> twiddles;
  std::shared_ptr<const FourStepTwiddleTable<T>> twiddle_table;  // where the pass has one
  std::shared_ptr<const HalfLengthTwiddles<T>> half_length;
  std::shared_ptr<const ChirpTables<T>> chirp;
};

// What one task needs to transform its range of lines.
template <class T>
struct TaskLines {
  const CpuPass& pass;
  const PassPlans<T>& plans;
  const void* src;
  void* dst;
  void* scratch;
  T fct;
  bool forward;
  Streaming stream;  // none but in the last pass
};

template <class T>
class LineKernels {
 public:
  // Transforms `groups` SIMD groups of complex lines, first_line onwards
  // (V is T or a SIMD vector of T). Even a contiguous single line is
  // transformed in scratch rather than in place in the output: the output is
  // then written once, in order (a few percent faster for long lines).
  template <class V, std::size_t lanes>
  static void transform_complex(const TaskLines<T>& r, std::int64_t first_line,
                                std::size_t groups, const std::int64_t* src_off,
                                const std::int64_t* dst_off) {
    const CpuPass& pass = r.pass;
    const std::int64_t n = pass.n;
    const std::int64_t ss = pass.src_strides[pass.axis];
    const std::int64_t ds = pass.dst_strides[pass.axis];
    const auto* s = static_cast<const Cmplx<T>*>(r.src);
    auto* d = static_cast<Cmplx<T>*>(r.dst);
    // A pass planned in groups alone runs a lone line with its groups' plan.
    const auto& plan =
        lanes == 1 && r.plans.complex_one_line ? r.plans.complex_one_line : r.plans.complex_groups;
    auto* scratch = static_cast<Cmplx<V>*>(r.scratch);
    const std::size_t stride = pass.group_scratch;
    alignas(64) T re[lanes], im[lanes];
    // Neighbouring lines (along any axis but the last) move as runs of
    // (re, im) pairs, one run per element (lane_tiles::split_pairs).
    // Faster than value by value, most in the four-step passes.
    const bool src_neighbours = ss != 1 && neighbours<lanes>(src_off, groups);
    const bool dst_neighbours = ds != 1 && neighbours<lanes>(dst_off, groups);
    auto gather = [&](std::size_t g, std::int64_t i) {
      const std::int64_t* off = src_off + g * lanes;
      if (src_neighbours)
        return lane_tiles::split_pairs<T, lanes>(values_of(s + off[0] + i * ss),
                                                 values_of(scratch + g * stride + i));
      for (std::size_t j = 0; j < lanes; ++j) {
        const Cmplx<T>& x = s[off[j] + i * ss];
        re[j] = x.r;
        im[j] = x.i;
      }
      scratch[g * stride + i] = Cmplx<V>(load_lanes<V>(re), load_lanes<V>(im));
    };
    // Tiles of up to 4 lines are streamed into the largest outputs (see
    // kStreamTilesMinBytes); tiles of 8 lines are not: a streaming store
    // holds a write-combining buffer until its cache line is complete, and
    // 8 lines at once run out of them.
    const bool stream_tiles = r.stream.tiles && lanes <= 4;
    // A pass with a half-length pack or unpack runs its lines one at a time.
    const bool packs = lanes == 1 && pass.fused && pass.fused->op == LineOp::kPackHalfLength;
    const bool unpacks = lanes == 1 && pass.fused && pass.fused->op == LineOp::kUnpackHalfLength;
    if constexpr (lanes == 1)
      if (packs) {
        // The values of a half-length C2R line, packed from its bins on the way in.
        for (std::size_t g = 0; g < groups; ++g)
          pack_half_length(s + src_off[g], scratch + g * stride, n,
                           r.plans.half_length->values.data(), PairRange{0, n / 2 + 1},
                           pass.fused->forward);
      }
    // Contiguous lines move whole tiles first (lane_tiles.h), then the rest
    // value by value (a quarter to two fifths faster than value by value).
    std::int64_t gathered = packs ? n : 0;
    if (pass.prefetch_ahead) prefetch_following_lines(s, src_off, groups * lanes, n);
    auto gather_tiles = [&](auto&& step) {
      for (std::size_t g = 0; g < groups; ++g)
        gathered = lane_tiles::gather_values<T, lanes>(
                       line_values<lanes>(s, src_off + g * lanes).data(), 0, 2 * n,
                       values_of(scratch + g * stride), step) / 2;
    };
    // Streaming stores do not read their cache lines: nothing to ask for.
    if (!packs && ss == 1) {
      if (pass.output_ahead == OutputAhead::kWholeBunch && !stream_tiles)
        gather_tiles(
            WriteAhead<Cmplx<T>>(d, dst_off, groups * lanes, n, groups * (2 * n / lanes)));
      else
        gather_tiles(lane_tiles::NoStep{});
    }
    for_each_in_bunch<false>(s, src_off, ss, groups, lanes, gathered, n, gather);
    const Cmplx<V>* res[kMaxBunch];
    for (std::size_t g = 0; g < groups; ++g) {
      Cmplx<V>* data = scratch + g * stride;
      res[g] = plan->engine.exec(data, data + n, r.fct, r.forward);
    }
    auto put = [&](std::size_t g, std::int64_t i, const Cmplx<V>& x) {
      const std::int64_t* off = dst_off + g * lanes;
      if (dst_neighbours)
        return lane_tiles::join_pairs<T, lanes>(values_of(&x), values_of(d + off[0] + i * ds));
      store_lanes(x.r, re);
      store_lanes(x.i, im);
      for (std::size_t j = 0; j < lanes; ++j) d[off[j] + i * ds] = Cmplx<T>(re[j], im[j]);
    };
    if constexpr (lanes == 1)
      if (unpacks) {
        // The bins of a half-length R2C line, unpacked on the way out.
        for (std::size_t g = 0; g < groups; ++g)
          unpack_half_length(res[g], d + dst_off[g], n, r.plans.half_length->values.data(),
                             PairRange{0, n / 2 + 1}, T(1), pass.fused->forward);
        return;
      }
    if (r.plans.twiddles) {
      const FourStepTwiddled<V, lanes> twiddled(*r.plans.twiddles, r.plans.twiddle_table.get(),
                                                first_line, groups, r.forward);
      for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, 0, n,
                              [&](std::size_t g, std::int64_t i) {
                                put(g, i, twiddled(res[g][i], g, i));
                              });
      return;
    }
    // A contiguous single line is one run of memory: streamed whole (about
    // an eighth faster on memory in use).
    if (lanes == 1 && ds == 1 && r.stream.lines) {
      for (std::size_t g = 0; g < groups; ++g)
        stream_copy(d + dst_off[g], res[g], static_cast<std::size_t>(n) * sizeof(Cmplx<T>));
      return;
    }
    std::int64_t scattered = 0;
    if (ds == 1)
      for (std::size_t g = 0; g < groups; ++g)
        scattered = scatter_tiles<lanes>(pass, values_of(res[g]),
                                         line_values<lanes>(d, dst_off + g * lanes), 0, 2 * n,
                                         stream_tiles) / 2;
    for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, scattered, n,
                            [&](std::size_t g, std::int64_t i) { put(g, i, res[g][i]); });
  }

  // Transforms lines [line, end) where they lie, each in its own vectors
  // (line_vectors.h: complex lines From = To = Cmplx<T>, real to complex
  // From = T, complex to real To = T); a line holding an infinity or NaN
  // goes through pocketfft as a lone line.
  template <class From, class To, class Plan>
  static void transform_line_vectors(const TaskLines<T>& r, const Plan& plan, LineWalker& w,
                                     std::int64_t line, std::int64_t end) {
    constexpr bool real = std::is_same_v<From, T> || std::is_same_v<To, T>;
    const auto* s = static_cast<const From*>(r.src);
    auto* d = static_cast<To*>(r.dst);
    auto lines = [&](auto kernel) {
      for (; line < end; ++line, w.next()) {
        const std::int64_t from = w.src(), to = w.dst();
        if (kernel(s + from, d + to, r.fct)) continue;
        if constexpr (real)
          transform_real<T, 1>(r, 1, &from, &to);
        else
          transform_complex<T, 1>(r, line, 1, &from, &to);
      }
    };
    if constexpr (std::is_same_v<To, T>)
      plan.with_complex_to_real_kernel(r.forward, lines);
    else
      plan.with_kernel(r.forward, lines);
  }

  // Transforms `groups` SIMD groups of real lines (V is T or a SIMD vector
  // of T). Contiguous lines move whole tiles at a time (lane_tiles.h), then
  // value by value; strided ones element by element across the bunch, as
  // runs of values where the lines are neighbours (a little faster), else
  // value by value. The zero and Nyquist terms, real, are moved apart from
  // the loops.
  template <class V, std::size_t lanes>
  static void transform_real(const TaskLines<T>& r, std::size_t groups,
                             const std::int64_t* src_off, const std::int64_t* dst_off) {
    const CpuPass& pass = r.pass;
    const std::int64_t n = pass.n;
    const std::int64_t pairs = (n + 1) / 2;  // elements 1 .. pairs - 1 have both parts
    const std::int64_t ss = pass.src_strides[pass.axis];
    const std::int64_t ds = pass.dst_strides[pass.axis];
    alignas(64) T re[lanes], im[lanes];
    const auto& plan =
        lanes == 1 && r.plans.real_one_line ? r.plans.real_one_line : r.plans.real_groups;
    // pocketfft's real layout ("halfcomplex"): r0, r1, i1, r2, i2, ... [, r_{n/2}].
    V* line[kMaxBunch];  // group_scratch counts complex vectors, two V each
    for (std::size_t g = 0; g < groups; ++g)
      line[g] = static_cast<V*>(r.scratch) + g * 2 * pass.group_scratch;
    // Negates the imaginary parts of a halfcomplex line in scratch.
    auto conjugate = [n](V* values) {
      for (std::int64_t k = 1; 2 * k < n; ++k) values[2 * k] = -values[2 * k];
    };
    if (pass.op == LineOp::kRealToComplex) {
      const auto* s = static_cast<const T*>(r.src);
      auto* d = static_cast<Cmplx<T>*>(r.dst);
      std::int64_t gathered = 0;
      if (pass.prefetch_ahead) prefetch_following_lines(s, src_off, groups * lanes, n);
      auto gather_tiles = [&](auto&& step) {
        for (std::size_t g = 0; g < groups; ++g)
          gathered = lane_tiles::gather_values<T, lanes>(
              line_values<lanes>(s, src_off + g * lanes).data(), 0, n, values_of(line[g]), step);
      };
      if (ss == 1 && pass.output_ahead == OutputAhead::kWholeBunch)
        gather_tiles(
            WriteAhead<Cmplx<T>>(d, dst_off, groups * lanes, n / 2 + 1, groups * (n / lanes)));
      else if (ss == 1)
        gather_tiles(lane_tiles::NoStep{});
      if (ss != 1 && neighbours<lanes>(src_off, groups))
        for_each_in_bunch<false>(s, src_off, ss, groups, lanes, gathered, n,
                                 [&](std::size_t g, std::int64_t i) {
                                   line[g][i] = load_lanes<V>(s + src_off[g * lanes] + i * ss);
                                 });
      else
        for_each_in_bunch<false>(s, src_off, ss, groups, lanes, gathered, n,
                                 [&](std::size_t g, std::int64_t i) {
                                   for (std::size_t j = 0; j < lanes; ++j)
                                     re[j] = s[src_off[g * lanes + j] + i * ss];
                                   line[g][i] = load_lanes<V>(re);
                                 });
      const V* res[kMaxBunch];
      for (std::size_t g = 0; g < groups; ++g) {
        V* out = plan->engine.exec(line[g], line[g] + n, r.fct, true);
        // The inverse-sign transform of real data is the conjugate.
        if (!r.forward) conjugate(out);
        res[g] = out;
      }
      auto put_real = [&](std::size_t g, std::int64_t k, const V& x) {
        store_lanes(x, re);
        for (std::size_t j = 0; j < lanes; ++j)
          d[dst_off[g * lanes + j] + k * ds] = Cmplx<T>(re[j], T(0));
      };
      for (std::size_t g = 0; g < groups; ++g) {
        put_real(g, 0, res[g][0]);
        if (n % 2 == 0 && n > 1) put_real(g, n / 2, res[g][n - 1]);
      }
      // Element k is (res[2k - 1], res[2k]): for contiguous lines, values
      // 2 .. 2 * pairs of the output line, from vectors 1 .. 2 * pairs - 1.
      std::int64_t scattered = 1;
      if (ds == 1 && n > 1)
        for (std::size_t g = 0; g < groups; ++g)
          scattered = scatter_tiles<lanes>(pass, values_of(res[g] + 1),
                                           line_values<lanes>(d, dst_off + g * lanes), 2,
                                           2 * pairs) / 2;
      if (ds != 1 && neighbours<lanes>(dst_off, groups))
        for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, scattered, pairs,
                                [&](std::size_t g, std::int64_t k) {
                                  lane_tiles::join_pairs<T, lanes>(
                                      values_of(res[g] + 2 * k - 1),
                                      values_of(d + dst_off[g * lanes] + k * ds));
                                });
      else
        for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, scattered, pairs,
                                [&](std::size_t g, std::int64_t k) {
                                  store_lanes(res[g][2 * k - 1], re);
                                  store_lanes(res[g][2 * k], im);
                                  for (std::size_t j = 0; j < lanes; ++j)
                                    d[dst_off[g * lanes + j] + k * ds] = Cmplx<T>(re[j], im[j]);
                                });
      return;
    }
    // Complex to real: pocketfft's backward real transform has the inverse
    // sign, so a forward-sign C2R conjugates its input first. The imaginary
    // parts of the zero and Nyquist terms are dropped, as numpy does.
    const auto* s = static_cast<const Cmplx<T>*>(r.src);
    auto* d = static_cast<T*>(r.dst);
    auto take_real = [&](std::size_t g, std::int64_t k) {
      for (std::size_t j = 0; j < lanes; ++j) re[j] = s[src_off[g * lanes + j] + k * ss].r;
      return load_lanes<V>(re);
    };
    for (std::size_t g = 0; g < groups; ++g) {
      line[g][0] = take_real(g, 0);
      if (n % 2 == 0 && n > 1) line[g][n - 1] = take_real(g, n / 2);
    }
    if (pass.prefetch_ahead) prefetch_following_lines(s, src_off, groups * lanes, n / 2 + 1);
    std::int64_t gathered = 1;
    auto gather_tiles = [&](auto&& step) {
      for (std::size_t g = 0; g < groups; ++g)
        gathered = lane_tiles::gather_values<T, lanes>(
                       line_values<lanes>(s, src_off + g * lanes).data(), 2, 2 * pairs,
                       values_of(line[g] + 1), step) / 2;
    };
    if (ss == 1 && n > 1 && pass.output_ahead == OutputAhead::kWholeBunch)
      gather_tiles(
          WriteAhead<T>(d, dst_off, groups * lanes, n, groups * ((2 * pairs - 2) / lanes)));
    else if (ss == 1 && n > 1)
      gather_tiles(lane_tiles::NoStep{});
    if (ss != 1 && neighbours<lanes>(src_off, groups))
      for_each_in_bunch<false>(s, src_off, ss, groups, lanes, gathered, pairs,
                               [&](std::size_t g, std::int64_t k) {
                                 lane_tiles::split_pairs<T, lanes>(
                                     values_of(s + src_off[g * lanes] + k * ss),
                                     values_of(line[g] + 2 * k - 1));
                               });
    else
      for_each_in_bunch<false>(s, src_off, ss, groups, lanes, gathered, pairs,
                               [&](std::size_t g, std::int64_t k) {
                                 for (std::size_t j = 0; j < lanes; ++j) {
                                   const Cmplx<T>& x = s[src_off[g * lanes + j] + k * ss];
                                   re[j] = x.r;
                                   im[j] = x.i;
                                 }
                                 line[g][2 * k - 1] = load_lanes<V>(re);
                                 line[g][2 * k] = load_lanes<V>(im);
                               });
    const V* res[kMaxBunch];
    for (std::size_t g = 0; g < groups; ++g) {
      if (r.forward) conjugate(line[g]);
      res[g] = plan->engine.exec(line[g], line[g] + n, r.fct, false);
    }
    std::int64_t scattered = 0;
    if (ds == 1)
      for (std::size_t g = 0; g < groups; ++g)
        scattered = scatter_tiles<lanes>(pass, values_of(res[g]),
                                         line_values<lanes>(d, dst_off + g * lanes), 0, n);
    if (ds != 1 && neighbours<lanes>(dst_off, groups))
      for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, scattered, n,
                              [&](std::size_t g, std::int64_t i) {
                                store_lanes(res[g][i], d + dst_off[g * lanes] + i * ds);
                              });
    else
      for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, scattered, n,
                              [&](std::size_t g, std::int64_t i) {
                                store_lanes(res[g][i], re);
                                for (std::size_t j = 0; j < lanes; ++j)
                                  d[dst_off[g * lanes + j] + i * ds] = re[j];
                              });
  }

 private:
  // An element or a vector (complex: re then im) as its values of T.
  template <class E>
  static auto values_of(E* element) {
    using Value = std::conditional_t<std::is_const_v<E>, const T, T>;
    return reinterpret_cast<Value*>(element);
  }

  // Where each of `lanes` lines starts, counted in values of T (a complex
  // element is two), for lane_tiles.h; const lines for const elements.
  template <std::size_t lanes, class E>
  static auto line_values(E* base, const std::int64_t* offsets) {
    std::array<decltype(values_of(base)), lanes> lines;
    for (std::size_t j = 0; j < lanes; ++j) lines[j] = values_of(base + offsets[j]);
    return lines;
  }

  // lane_tiles::scatter_values into contiguous lines, asking ahead of the
  // scatter for the output where the pass does (not into streamed stores,
  // which read nothing).
  template <std::size_t lanes>
  static std::ptrdiff_t scatter_tiles(const CpuPass& pass, const T* in,
                                      const std::array<T*, lanes>& lines, std::ptrdiff_t from,
                                      std::ptrdiff_t to, bool streaming = false) {
    if (pass.output_ahead == OutputAhead::kScatter && !streaming)
      return lane_tiles::scatter_values<T, lanes>(in, lines.data(), from, to, false,
                                                  ScatterAhead<T, lanes>(lines.data(), from));
    return lane_tiles::scatter_values<T, lanes>(in, lines.data(), from, to, streaming);
  }

  // Whether the lines of every SIMD group start one element apart
  // (neighbours), for lane_tiles::split_pairs and join_pairs.
  template <std::size_t lanes>
  static bool neighbours(const std::int64_t* offsets, std::size_t groups) {
    if (lanes == 1) return false;
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t j = 1; j < lanes; ++j)
        if (offsets[g * lanes + j] != offsets[g * lanes] + static_cast<std::int64_t>(j))
          return false;
    return true;
  }

  // The twiddle factors of a four-step column pass: element i of column c
  // is multiplied by twiddle (i, c), conjugated for the inverse sign. A SIMD
  // group's lines are usually neighbouring columns c0 + j: their twiddles
  // are w^(i c0) times the table's w^(i j) (four_step.h). The roots are
  // exp(+2 pi i m / n): the forward sign conjugates them. Groups of the
  // table's width on whole blocks of its columns read them from `all`, if
  // the pass has that table.
  template <class V, std::size_t lanes>
  class FourStepTwiddled {
   public:
    FourStepTwiddled(const FourStepTwiddles<T>& table, const FourStepTwiddleTable<T>* all,
                     std::int64_t first_line, std::size_t groups, bool forward)
        : table_(table), all_(all), sign_(forward ? -1.0 : 1.0) {
      for (std::size_t k = 0; k < groups * lanes; ++k)
        column_[k] = (first_line + static_cast<std::int64_t>(k)) % table.columns;
      in_order_ = lanes <= table.lanes && neighbours<lanes>(column_, groups);
      bool whole_blocks = all && in_order_ && all->lanes == lanes;
      for (std::size_t g = 0; whole_blocks && g < groups; ++g)
        whole_blocks = column_[g * lanes] % static_cast<std::int64_t>(lanes) == 0;
      if (!whole_blocks) all_ = nullptr;
    }
    Cmplx<V> operator()(const Cmplx<V>& x, std::size_t g, std::int64_t i) const {
      V wr, wi;
      twiddle(column_ + g * lanes, i, wr, wi);
      return Cmplx<V>(x.r * wr - x.i * wi, x.r * wi + x.i * wr);
    }

   private:
    // The real and imaginary parts of row i's twiddles for a group's columns.
    void twiddle(const std::int64_t* column, std::int64_t i, V& wr, V& wi) const {
      if (all_) {
        const T* w = all_->at(i, column[0]);
        wr = load_lanes<V>(w);
        wi = load_lanes<V>(w + lanes) * V(static_cast<T>(sign_));
        return;
      }
      if constexpr (std::is_same_v<T, double> && lanes > 1)
        if (in_order_) return table_.product_vectors(i, column[0], sign_, wr, wi);
      alignas(64) T w[2 * lanes];
      if (in_order_) {
        table_.products(i, column[0], sign_, lanes, w, w + lanes);
      } else {
        for (std::size_t j = 0; j < lanes; ++j) {
          const Cmplx<double> t = table_.root(i * column[j]);
          w[j] = static_cast<T>(t.r);
          w[lanes + j] = static_cast<T>(sign_ * t.i);
        }
      }
      wr = load_lanes<V>(w);
      wi = load_lanes<V>(w + lanes);
    }

    const FourStepTwiddles<T>& table_;
    const FourStepTwiddleTable<T>* all_;
    double sign_;
    std::int64_t column_[kMaxBunch * lanes];
    bool in_order_;
  };

};

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD
