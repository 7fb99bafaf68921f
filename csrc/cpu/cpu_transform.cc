// N-dimensional transforms as a sequence of passes, one per axis (two for a
// long contiguous axis, see four_step.h). A pass gathers lines along its axis
// from strided memory, transforms them with a pocketfft line plan and
// scatters them back; no transposes. Lines are handled several at a time in
// SIMD lanes, and split over the cache's worker threads.
#include "cpu/cpu_transform.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "cache/huge_pages.h"
#include "cpu/four_step.h"
#include "cpu/lane_tiles.h"
#include "cpu/line_plans.h"
#include "cpu/stream_copy.h"

namespace jax_apple_fft {
namespace {

using ducc::Cmplx;

// L2 per core of the machine the rules below were measured on.
constexpr std::size_t kL2Bytes = std::size_t(2) << 20;

// Complex lines of at least this many points are transformed in two passes
// of short lines (four_step.h). Measured, 2 threads, split against whole
// lines: c2c f64 2^16 x 32 0.92, 2^18 x 8 0.78, 2^20 x 2 0.65; f32 2^17 x 16
// 1.01, 2^20 x 2 0.79; f32 2^16 x 32 (separate processes, 3-4 per build)
// 0.71-0.77, one thread 0.71-0.73. Shorter lines lose or tie: f64 2^13 x 256
// 1.31, 2^14 x 128 1.13; f32 2^15 x 64 one thread 0.86 but two 1.06.
constexpr std::int64_t kFourStepMinLength = std::int64_t(1) << 16;

// Outputs of at least this many bytes may be written with streaming stores;
// smaller ones stay in cache for whoever reads them next.
constexpr std::size_t kStreamMinBytes = std::size_t(8) << 20;
// Tiles of SIMD groups (lane_tiles.h) stream only into outputs this large.
// Measured, 1 thread, on memory in use, streamed against plain: c2c f64
// 16384x128 (32 MiB) 8.5 -> 5.7 ms, 2000x1000 (32 MB) 7.3 -> 7.5; 16 MiB
// outputs lost (f64 512x2048 3.3 -> 3.9, 1000x1000 3.1 -> 3.7).
constexpr std::size_t kStreamTilesMinBytes = std::size_t(32) << 20;

// Which stores of the last pass stream (see stream_copy.h): single lines
// copied out whole, and tiles of SIMD groups.
struct Streaming {
  bool lines = false;
  bool tiles = false;
};

// A pass is cut into tasks of at least this many complex elements; below it,
// handing work to another thread costs more than it saves.
constexpr std::int64_t kMinElementsPerTask = std::int64_t(1) << 17;

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// How many tasks a pass of `lines` lines of length n is cut into. With more
// than one thread, tasks are many and small, taken from a shared counter, so
// a thread that the machine slows down leaves its share to the others
// (measured: c2c f64 2048x1024, 2 threads, 8.9 -> 8.2 ms median, p90 12.7 -> 10.1).
std::int64_t task_count(std::int64_t lines, std::int64_t n, std::int64_t threads) {
  if (threads <= 1) return 1;
  return std::max<std::int64_t>(1, lines * n / kMinElementsPerTask);
}

// How many threads a pass keeps busy.
std::int64_t busy_threads(std::int64_t lines, std::int64_t n, std::int64_t threads) {
  return std::min(task_count(lines, n, threads), std::max<std::int64_t>(threads, 1));
}

enum class LineOp { kComplex, kRealToComplex, kComplexToReal };
enum class Buffer { kInput, kOutput, kTemp };

// Walks the lines of one pass: every index of the dimensions other than the
// pass axis, in row-major order, tracking source and destination offsets.
class LineWalker {
 public:
  LineWalker(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& src_strides,
             const std::vector<std::int64_t>& dst_strides, std::int64_t axis) {
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<std::int64_t>(d) == axis) continue;
      extent_.push_back(shape[d]);
      src_step_.push_back(src_strides[d]);
      dst_step_.push_back(dst_strides[d]);
    }
    index_.assign(extent_.size(), 0);
  }
  std::int64_t lines() const {
    std::int64_t n = 1;
    for (std::int64_t e : extent_) n *= e;
    return n;
  }
  void seek(std::int64_t line) {
    src_ = dst_ = 0;
    for (std::size_t d = extent_.size(); d-- > 0;) {
      index_[d] = line % extent_[d];
      line /= extent_[d];
      src_ += index_[d] * src_step_[d];
      dst_ += index_[d] * dst_step_[d];
    }
  }
  void next() {
    for (std::size_t d = extent_.size(); d-- > 0;) {
      src_ += src_step_[d];
      dst_ += dst_step_[d];
      if (++index_[d] < extent_[d]) return;
      src_ -= index_[d] * src_step_[d];
      dst_ -= index_[d] * dst_step_[d];
      index_[d] = 0;
    }
  }
  std::int64_t src() const { return src_; }
  std::int64_t dst() const { return dst_; }

 private:
  std::vector<std::int64_t> extent_, src_step_, dst_step_, index_;
  std::int64_t src_ = 0, dst_ = 0;
};

// Moves `lanes` values between a plain array and a SIMD vector (or a scalar
// when V is T). Whole-vector loads and stores: per-lane writes into a SIMD
// object cost several times more.
template <class V, class T>
inline V load_lanes(const T* values) {
  if constexpr (std::is_same_v<V, T>) return values[0];
  else return V(values, ducc::element_aligned_tag());
}
template <class V, class T>
inline void store_lanes(const V& v, T* values) {
  if constexpr (std::is_same_v<V, T>) values[0] = v;
  else v.copy_to(values, ducc::element_aligned_tag());
}

// Strided lines defeat the hardware prefetcher: every element of a line is
// on another page. Asking for the element this far ahead, once per SIMD
// group (whose lanes share a cache line when the lines are neighbours), hides
// the latency (measured with the four-step passes, c2c f64 2^20 x 2 on 2
// threads: no prefetch 32.2 ms, 4 ahead 25.5, 8 ahead 25.9, 16 ahead 26.0).
constexpr std::int64_t kPrefetchDistance = 8;

// Calls visit(g, i) for elements first <= i < n of every SIMD group g of a
// bunch whose lines start at base + offsets[g * lanes] with the given
// element stride.
// Contiguous lines are visited one after another (a plain loop the compiler
// vectorises: the bunched order cost 1.1-1.3x on c2c f64 16384x128);
// strided ones element by element across the bunch, so neighbouring lines
// are touched together, prefetching ahead.
template <bool kForWrite, class C, class Visit>
inline void for_each_in_bunch(C* base, const std::int64_t* offsets, std::int64_t stride,
                              std::size_t groups, std::size_t lanes, std::int64_t first,
                              std::int64_t n, const Visit& visit) {
  if (stride == 1) {
    for (std::size_t g = 0; g < groups; ++g)
      for (std::int64_t i = first; i < n; ++i) visit(g, i);
    return;
  }
  if (groups == 1) {  // the same, with the group index known
    for (std::int64_t i = first; i < n; ++i) {
      if (i + kPrefetchDistance < n)
        __builtin_prefetch(base + offsets[0] + (i + kPrefetchDistance) * stride, kForWrite ? 1 : 0);
      visit(0, i);
    }
    return;
  }
  for (std::int64_t i = first; i < n; ++i) {
    if (i + kPrefetchDistance < n)
      for (std::size_t g = 0; g < groups; ++g)
        __builtin_prefetch(base + offsets[g * lanes] + (i + kPrefetchDistance) * stride,
                           kForWrite ? 1 : 0);
    for (std::size_t g = 0; g < groups; ++g) visit(g, i);
  }
}

template <class T>
class CpuTransformImpl final : public CpuTransform {
  static constexpr std::size_t kLanes = ducc::native_simd<T>::size();
  using ComplexPlan = LinePlan<ComplexEngine<T>>;
  using RealPlan = LinePlan<RealEngine<T>>;

  // pocketfft offers two layouts of a line plan: one that runs a group of
  // lines at once in SIMD lanes, and one that vectorises inside a single long
  // line.
  template <class Plan>
  struct Plans {
    std::shared_ptr<const Plan> lanes;   // for SIMD groups of any width
    std::shared_ptr<const Plan> single;  // for lines one at a time
    std::size_t bufsize() const {
      return std::max(lanes ? lanes->engine.bufsize() : 0, single ? single->engine.bufsize() : 0);
    }
  };

  struct Pass {
    LineOp op;
    Buffer src, dst;
    // The lines: every index of `shape` but `axis`, read and written with
    // these element strides.
    std::vector<std::int64_t> shape, src_strides, dst_strides;
    std::int64_t axis;
    std::int64_t n;  // transform length (the real length for real ops)
    bool last = false;
    std::size_t lanes = 1;  // lines transformed at once, one per SIMD lane
    std::size_t bunch = 1;  // SIMD groups gathered and scattered together
    Plans<ComplexPlan> complex{};
    Plans<RealPlan> real{};
    // The column pass of a four-step split multiplies by these on the way out.
    std::shared_ptr<const FourStepTwiddles<T>> twiddles{};

    std::int64_t lines() const {
      std::int64_t count = 1;
      for (std::size_t d = 0; d < shape.size(); ++d)
        if (static_cast<std::int64_t>(d) != axis) count *= shape[d];
      return count;
    }
    bool contiguous() const { return src_strides[axis] == 1 && dst_strides[axis] == 1; }
    // Scratch of one SIMD group, in vectors of `lanes` complex values: the
    // line and pocketfft's buffer (real values two to a complex one).
    std::size_t group_scratch() const {
      const std::size_t length = static_cast<std::size_t>(n);
      if (op == LineOp::kComplex) return 2 * length + complex.bufsize();
      return (length + real.bufsize() + 1) / 2;
    }
  };

  // Most SIMD groups gathered together; see choose_bunch.
  static constexpr std::size_t kMaxBunch = 8;

  // SIMD widths pocketfft can run: kLanes, kLanes / 2, kLanes / 4 (and 1).
  static constexpr bool lane_width_exists(std::size_t lanes) {
    if (lanes == 1) return true;
    if (lanes == kLanes) return kLanes > 1;
    if (lanes == kLanes / 2 && kLanes / 2 > 1) return ducc::simd_exists<T, kLanes / 2>;
    if (lanes == kLanes / 4 && kLanes / 4 > 1) return ducc::simd_exists<T, kLanes / 4>;
    return false;
  }

  // The narrowest group the task loop runs for a pass whose widest group
  // is `lanes` (see the cascade in run_pass); lines beyond a multiple of it
  // run one at a time, on the single-line plan.
  static constexpr std::size_t narrowest_group(std::size_t lanes) {
    std::size_t narrowest = lanes;
    for (std::size_t width : {kLanes / 2, kLanes / 4})
      if (width > 1 && width <= lanes && lane_width_exists(width)) narrowest = width;
    return narrowest;
  }

  // Chooses how many lines a pass runs per SIMD vector, and gets the plans
  // that layout needs: the widest group that still leaves a group for every
  // thread the pass keeps busy. One exception, measured here (interleaved,
  // huge-page scratch): contiguous lines whose widest group would overflow
  // half of L2 while one line fits run one at a time. Complex lines: c2c f64
  // 16384x127 17.0 -> 14.2 ms on 1 thread, f32 16384x127 9.1 -> 8.5 ms.
  // Real float64 lines, 2 threads, separate processes alternated: r2c
  // 32768x64 5.7 -> 5.0 ms, 65536x32 6.7 -> 5.6, c2r 32768x64 5.4 -> 5.2,
  // 65536x32 7.0 -> 6.4. Real float32 lines lose (r2c 32768x64 4.7 -> 6.1,
  // c2r 65536x32 5.8 -> 7.2), and elsewhere the widest group won, real
  // passes by up to 1.7x.
  template <class Engine, class Plan>
  Plans<Plan> plans_for(Pass& pass, bool real, PlanCache& cache) const {
    const std::int64_t n = pass.n;
    const std::int64_t lines = pass.lines();
    const std::int64_t threads = busy_threads(lines, n, cache.workers().threads());
    std::size_t lanes = kLanes;
    while (lanes > 1 &&
           !(lane_width_exists(lanes) && static_cast<std::int64_t>(lanes) * threads <= lines))
      lanes /= 2;
    // A line's data plus pocketfft's buffer of the same size.
    const std::size_t value_bytes = real ? sizeof(T) : sizeof(Cmplx<T>);
    auto fits_half_l2 = [&](std::size_t l) {
      return 2 * static_cast<std::size_t>(n) * l * value_bytes <= kL2Bytes / 2;
    };
    const bool single_may_win = !real || std::is_same_v<T, double>;
    if (single_may_win && pass.contiguous() && !fits_half_l2(lanes) && fits_half_l2(1)) lanes = 1;
    pass.lanes = lanes;
    const std::size_t narrowest = narrowest_group(lanes);
    const bool lone_lines = narrowest == 1 || lines % static_cast<std::int64_t>(narrowest) != 0;
    // pocketfft's own rule for when in-line vectorisation pays.
    const bool long_line = n >= 300 && n % 4 == 0;
    Plans<Plan> plans;
    if (lanes > 1) plans.lanes = get_line_plan<Engine, T>(cache, real, n, false);
    if (lone_lines) plans.single = get_line_plan<Engine, T>(cache, real, n, long_line);
    return plans;
  }

 public:
  CpuTransformImpl(const TransformSpec& spec, PlanCache& cache)
      : spec_(spec), in_strides_(dense_strides(spec.in_shape)),
        out_strides_(dense_strides(spec.out_shape)) {
    if (spec.empty()) return;  // nothing to plan
    const std::int64_t real_axis = spec.axes.back();
    auto add_complex = [&](Pass pass) {
      pass.complex = plans_for<ComplexEngine<T>, ComplexPlan>(pass, false, cache);
      pass.bunch = choose_bunch(pass, cache.workers().threads());
      passes_.push_back(std::move(pass));
    };
    auto complex_pass = [&](std::int64_t axis, Buffer src, Buffer dst) {
      Pass pass{LineOp::kComplex, src, dst, shape_of(dst), strides_of(src), strides_of(dst), axis,
                spec.in_shape[axis]};
      const bool temp_free = src != Buffer::kTemp && dst != Buffer::kTemp;
      const auto split = four_step_split(pass.n, kFourStepMinLength);
      if (!(temp_free && pass.contiguous() && split)) return add_complex(std::move(pass));
      // Columns into the temporary, twiddled; rows from there into place.
      const auto view = [&](std::vector<std::int64_t> v, std::int64_t outer, std::int64_t inner) {
        v[axis] = outer;
        v.insert(v.begin() + axis + 1, inner);
        return v;
      };
      const std::vector<std::int64_t> matrix = view(pass.shape, split->rows, split->columns);
      const std::vector<std::int64_t> temp_strides = dense_strides(matrix);
      Pass columns{LineOp::kComplex, src, Buffer::kTemp, matrix,
                   view(pass.src_strides, split->columns, 1), temp_strides, axis, split->rows};
      columns.twiddles = get_four_step_twiddles<T>(cache, *split);
      Pass rows{LineOp::kComplex, Buffer::kTemp, dst, matrix, temp_strides,
                view(pass.dst_strides, 1, split->rows), axis + 1, split->columns};
      temp_elements_ = std::max(temp_elements_, columns.lines() * columns.n);
      add_complex(std::move(columns));
      add_complex(std::move(rows));
    };
    auto real_pass = [&](LineOp op, Buffer src, Buffer dst) {
      Pass pass{op, src, dst, shape_of(dst), strides_of(src), strides_of(dst), real_axis,
                spec.length(real_axis)};
      pass.real = plans_for<RealEngine<T>, RealPlan>(pass, true, cache);
      pass.bunch = choose_bunch(pass, cache.workers().threads());
      passes_.push_back(std::move(pass));
    };
    switch (spec.kind) {
      case TransformKind::kC2C:
        for (std::size_t i = 0; i < spec.axes.size(); ++i)
          complex_pass(spec.axes[i], i == 0 ? Buffer::kInput : Buffer::kOutput, Buffer::kOutput);
        break;
      case TransformKind::kR2C:
        real_pass(LineOp::kRealToComplex, Buffer::kInput, Buffer::kOutput);
        for (std::size_t i = 0; i + 1 < spec.axes.size(); ++i)
          complex_pass(spec.axes[i], Buffer::kOutput, Buffer::kOutput);
        break;
      case TransformKind::kC2R:
        // Complex passes first, into a temporary: XLA's input is read-only.
        if (spec.axes.size() > 1) {
          temp_elements_ = 1;
          for (std::int64_t d : spec.in_shape) temp_elements_ *= d;
        }
        for (std::size_t i = 0; i + 1 < spec.axes.size(); ++i)
          complex_pass(spec.axes[i], i == 0 ? Buffer::kInput : Buffer::kTemp, Buffer::kTemp);
        real_pass(LineOp::kComplexToReal, spec.axes.size() > 1 ? Buffer::kTemp : Buffer::kInput,
                  Buffer::kOutput);
        break;
    }
    passes_.back().last = true;
  }

  // Strided complex lines are gathered several SIMD groups at a time, so
  // that memory is read and written in runs of several cache lines rather
  // than one (together with prefetching, measured against one group at a
  // time: c2c f64 128^3 50.4 -> 25.8 ms on 1 thread, 1024^2 14.7 -> 10.3 ms).
  // The groups' scratch stays within half of L2, and every busy thread
  // keeps a bunch. Real lines are bunched only where the groups lie side by
  // side (neighbour_run): along axis 0 of 4096x256 on 1 thread, against one
  // group at a time, r2c f64 0.79, c2r f64 0.73, f32 0.85 and 0.75; along
  // axis 1 of 2x4096x64, 0.79-0.94. Bunches spanning the rows of a narrow
  // last axis lost (c2r f32 along axis 1 of 256x1024x5, 8x8192x8: 1.19x,
  // 1.15x), while complex lines gain there (c2c f64 along axis 1 of
  // 256x1024x5: 1.37x slower kept to side-by-side groups).
  static std::size_t choose_bunch(const Pass& pass, std::int64_t threads) {
    if (pass.contiguous() || pass.lanes == 1) return 1;
    const std::int64_t lines = pass.lines();
    const std::size_t group_bytes = pass.group_scratch() * pass.lanes * sizeof(Cmplx<T>);
    const std::int64_t busy = busy_threads(lines, pass.n, threads);
    const std::int64_t run = pass.op == LineOp::kComplex ? lines : neighbour_run(pass);
    std::size_t bunch = kMaxBunch;
    while (bunch > 1 && (bunch * group_bytes > kL2Bytes / 2 ||
                         static_cast<std::int64_t>(bunch * pass.lanes) * busy > lines ||
                         static_cast<std::int64_t>(bunch * pass.lanes) > run))
      bunch /= 2;
    return bunch;
  }

  // How many lines in a row of a pass start one element after another, in
  // the source and the destination alike: the dimensions other than the
  // axis, innermost first, for as long as they are dense on both sides.
  static std::int64_t neighbour_run(const Pass& pass) {
    std::int64_t run = 1;
    for (std::size_t d = pass.shape.size(); d-- > 0;) {
      if (static_cast<std::int64_t>(d) == pass.axis || pass.shape[d] == 1) continue;
      if (pass.src_strides[d] != run || pass.dst_strides[d] != run) break;
      run *= pass.shape[d];
    }
    return run;
  }

  const TransformSpec& spec() const override { return spec_; }

  void execute(const void* in, void* out, PlanCache& cache) const override {
    if (spec_.empty()) {
      // An empty input with a non-empty output (length-0 transform) sums nothing.
      std::memset(out, 0, out_count() * out_element_bytes());
      return;
    }
    // Large outputs on memory already in use are written with streaming
    // stores (stream_copy.h). The last page tells: the allocator writes its
    // bookkeeping next to the first, never the last, of a fresh block.
    const std::size_t out_bytes = out_count() * out_element_bytes();
    const bool in_use = out_bytes >= kStreamMinBytes &&
                        page_in_memory(static_cast<const char*>(out) + out_bytes - 1);
    const Streaming stream{in_use, in_use && out_bytes >= kStreamTilesMinBytes};
    // Every output element is written: fresh pages may as well be huge ones.
    advise_huge_pages(out, out_bytes);
    ScratchArena::Lease temp = cache.scratch().acquire(temp_bytes());
    for (const Pass& pass : passes_) run_pass(pass, in, out, temp.data(), cache, stream);
  }

 private:
  std::size_t out_count() const {
    std::int64_t count = 1;
    for (std::int64_t d : spec_.out_shape) count *= d;
    return static_cast<std::size_t>(count);
  }
  std::size_t out_element_bytes() const {
    return spec_.kind == TransformKind::kC2R ? sizeof(T) : sizeof(Cmplx<T>);
  }
  std::size_t temp_bytes() const {
    return static_cast<std::size_t>(temp_elements_) * sizeof(Cmplx<T>);
  }

  const std::vector<std::int64_t>& shape_of(Buffer b) const {
    return b == Buffer::kOutput ? spec_.out_shape : spec_.in_shape;
  }
  const std::vector<std::int64_t>& strides_of(Buffer b) const {
    return b == Buffer::kOutput ? out_strides_ : in_strides_;
  }

  void run_pass(const Pass& pass, const void* in, void* out, void* temp, PlanCache& cache,
                Streaming stream) const {
    auto pointer = [&](Buffer b) -> void* {
      if (b == Buffer::kInput) return const_cast<void*>(in);
      return b == Buffer::kOutput ? out : temp;
    };
    const void* src = pointer(pass.src);
    void* dst = pointer(pass.dst);
    LineWalker walker(pass.shape, pass.src_strides, pass.dst_strides, pass.axis);
    const std::int64_t lines = walker.lines();
    const std::int64_t n = pass.n;
    const std::int64_t group = static_cast<std::int64_t>(pass.lanes);
    const std::int64_t groups = (lines + group - 1) / group;
    const std::int64_t tasks =
        std::min<std::int64_t>(groups, task_count(lines, n, cache.workers().threads()));
    const std::int64_t groups_per_task = (groups + tasks - 1) / tasks;
    const std::size_t scratch_bytes =
        pass.bunch * pass.group_scratch() * pass.lanes * sizeof(Cmplx<T>);
    const T fct = pass.last ? static_cast<T>(spec_.scale) : T(1);

    cache.workers().parallel_for(static_cast<std::size_t>(tasks), [&](std::size_t task) {
      const std::int64_t first = static_cast<std::int64_t>(task) * groups_per_task * group;
      const std::int64_t end = std::min(lines, first + groups_per_task * group);
      if (first >= end) return;
      ScratchArena::Lease scratch = cache.scratch().acquire(scratch_bytes);
      LineWalker w = walker;
      w.seek(first);
      // Only the last pass streams: an earlier one's output is read back.
      const Range range{pass, src, dst, scratch.data(), fct, pass.last ? stream : Streaming{}};
      std::int64_t line = first;
      // Lines left over from the widest groups run in narrower ones, as far
      // as they fill them: a lone line costs more than its share of a group.
      if (pass.lanes == kLanes) line = run_groups<kLanes>(range, w, line, end);
      if (pass.lanes >= kLanes / 2) line = run_groups<kLanes / 2>(range, w, line, end);
      if (pass.lanes >= kLanes / 4) line = run_groups<kLanes / 4>(range, w, line, end);
      run_groups<1>(range, w, line, end);
      if (range.stream.lines || range.stream.tiles) stream_fence();
    });
  }

  // What one task needs to transform its range of lines.
  struct Range {
    const Pass& pass;
    const void* src;
    void* dst;
    void* scratch;
    T fct;
    Streaming stream;  // none but in the last pass
  };

  // Transforms lines [line, end) `lanes` at a time, up to a bunch of groups
  // together, while whole groups remain; returns the first line not done.
  template <std::size_t lanes>
  std::int64_t run_groups(const Range& r, LineWalker& w, std::int64_t line,
                          std::int64_t end) const {
    if constexpr (lanes == 0 || !lane_width_exists(lanes)) {
      return line;
    } else {
      using V = std::conditional_t<lanes == 1, T, typename ducc::simd_select<T, lanes>::type>;
      std::int64_t src_off[kMaxBunch * lanes], dst_off[kMaxBunch * lanes];
      const std::int64_t width = static_cast<std::int64_t>(lanes);
      while (line + width <= end) {
        const std::size_t groups =
            std::min<std::size_t>(r.pass.bunch, static_cast<std::size_t>((end - line) / width));
        for (std::size_t k = 0; k < groups * lanes; ++k, w.next()) {
          src_off[k] = w.src();
          dst_off[k] = w.dst();
        }
        if (r.pass.op == LineOp::kComplex)
          transform_complex<V, lanes>(r, line, groups, src_off, dst_off);
        else
          transform_real<V, lanes>(r, groups, src_off, dst_off);
        line += static_cast<std::int64_t>(groups) * width;
      }
      return line;
    }
  }

  // Transforms `groups` SIMD groups of complex lines, first_line onwards
  // (V is T or a SIMD vector of T). Even a contiguous single line is
  // transformed in scratch rather than in place in the output: the output is
  // then written once, in order (measured 1-7% faster for long lines, e.g.
  // c2c f64 65537x31 91 -> 86 ms).
  template <class V, std::size_t lanes>
  void transform_complex(const Range& r, std::int64_t first_line, std::size_t groups,
                         const std::int64_t* src_off, const std::int64_t* dst_off) const {
    const Pass& pass = r.pass;
    const std::int64_t n = pass.n;
    const std::int64_t ss = pass.src_strides[pass.axis];
    const std::int64_t ds = pass.dst_strides[pass.axis];
    const auto* s = static_cast<const Cmplx<T>*>(r.src);
    auto* d = static_cast<Cmplx<T>*>(r.dst);
    const auto& plan = lanes == 1 ? pass.complex.single : pass.complex.lanes;
    auto* scratch = static_cast<Cmplx<V>*>(r.scratch);
    const std::size_t stride = pass.group_scratch();
    alignas(64) T re[lanes], im[lanes];
    // Neighbouring lines (along any axis but the last) move as runs of
    // (re, im) pairs, one run per element (lane_tiles::split_pairs).
    // Measured against value by value (alternated processes, medians):
    // c2c f32 2^18 x 8 (four-step passes) 0.75 on 1 thread, 0.80 on 2; c2c
    // f64 along axis 0 of 128^3 0.93, of 1024^2 0.92.
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
    // Contiguous lines move whole tiles first (lane_tiles.h), then the rest
    // value by value. Measured against value by value throughout, 1 thread,
    // buffers placed as XLA places them: c2c f32 2048x128 0.75, f32
    // 16384x128 0.77, f64 16384x128 0.59 (0.89 without the streaming below).
    std::int64_t gathered = 0;
    if (ss == 1)
      for (std::size_t g = 0; g < groups; ++g)
        gathered = lane_tiles::gather_values<T, lanes>(
                       line_values<lanes>(s, src_off + g * lanes).data(), 0, 2 * n,
                       values_of(scratch + g * stride)) / 2;
    for_each_in_bunch<false>(s, src_off, ss, groups, lanes, gathered, n, gather);
    const Cmplx<V>* res[kMaxBunch];
    for (std::size_t g = 0; g < groups; ++g) {
      Cmplx<V>* data = scratch + g * stride;
      res[g] = plan->engine.exec(data, data + n, r.fct, spec_.forward);
    }
    auto put = [&](std::size_t g, std::int64_t i, const Cmplx<V>& x) {
      const std::int64_t* off = dst_off + g * lanes;
      if (dst_neighbours)
        return lane_tiles::join_pairs<T, lanes>(values_of(&x), values_of(d + off[0] + i * ds));
      store_lanes(x.r, re);
      store_lanes(x.i, im);
      for (std::size_t j = 0; j < lanes; ++j) d[off[j] + i * ds] = Cmplx<T>(re[j], im[j]);
    };
    if (pass.twiddles) {
      const FourStepTwiddled<V, lanes> twiddled(*pass.twiddles, first_line, groups, spec_.forward);
      for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, 0, n,
                              [&](std::size_t g, std::int64_t i) {
                                put(g, i, twiddled(res[g][i], g, i));
                              });
      return;
    }
    // A contiguous single line is one run of memory: streamed whole (c2c f64
    // 16384x127 on memory in use, alternated processes: 1 thread 15.7 ->
    // 13.5 ms, 2 threads 7.7 -> 6.8 ms; f32 32768x63 9.3 -> 8.5 ms; on fresh
    // memory, where it is not used, 1.00x).
    if (lanes == 1 && ds == 1 && r.stream.lines) {
      for (std::size_t g = 0; g < groups; ++g)
        stream_copy(d + dst_off[g], res[g], static_cast<std::size_t>(n) * sizeof(Cmplx<T>));
      return;
    }
    // Tiles of up to 4 lines are streamed into the largest outputs (see
    // kStreamTilesMinBytes); tiles of 8 lines are not: a streaming store
    // holds a write-combining buffer until its cache line is complete, and
    // 8 lines at once ran out of them (f32 16384x128: 2.6 -> 4.6 ms).
    const bool stream_tiles = r.stream.tiles && lanes <= 4;
    std::int64_t scattered = 0;
    if (ds == 1)
      for (std::size_t g = 0; g < groups; ++g)
        scattered = lane_tiles::scatter_values<T, lanes>(
                        values_of(res[g]), line_values<lanes>(d, dst_off + g * lanes).data(),
                        0, 2 * n, stream_tiles) / 2;
    for_each_in_bunch<true>(d, dst_off, ds, groups, lanes, scattered, n,
                            [&](std::size_t g, std::int64_t i) { put(g, i, res[g][i]); });
  }

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

  // Transforms `groups` SIMD groups of real lines (V is T or a SIMD vector
  // of T). Contiguous lines move whole tiles at a time (lane_tiles.h), then
  // value by value; strided ones element by element across the bunch, as
  // runs of values where the lines are neighbours (c2r f32 along axis 0 of
  // 4096x256, 1 thread: 0.89; r2c 0.95; float64 0.97-0.99), else value by
  // value. The zero and Nyquist terms, real, are moved apart from the loops.
  template <class V, std::size_t lanes>
  void transform_real(const Range& r, std::size_t groups, const std::int64_t* src_off,
                      const std::int64_t* dst_off) const {
    const Pass& pass = r.pass;
    const std::int64_t n = pass.n;
    const std::int64_t pairs = (n + 1) / 2;  // elements 1 .. pairs - 1 have both parts
    const std::int64_t ss = pass.src_strides[pass.axis];
    const std::int64_t ds = pass.dst_strides[pass.axis];
    alignas(64) T re[lanes], im[lanes];
    const auto& plan = lanes == 1 ? pass.real.single : pass.real.lanes;
    // pocketfft's real layout ("halfcomplex"): r0, r1, i1, r2, i2, ... [, r_{n/2}].
    V* line[kMaxBunch];  // group_scratch() counts complex vectors, two V each
    for (std::size_t g = 0; g < groups; ++g)
      line[g] = static_cast<V*>(r.scratch) + g * 2 * pass.group_scratch();
    // Negates the imaginary parts of a halfcomplex line in scratch.
    auto conjugate = [n](V* values) {
      for (std::int64_t k = 1; 2 * k < n; ++k) values[2 * k] = -values[2 * k];
    };
    if (pass.op == LineOp::kRealToComplex) {
      const auto* s = static_cast<const T*>(r.src);
      auto* d = static_cast<Cmplx<T>*>(r.dst);
      std::int64_t gathered = 0;
      if (ss == 1)
        for (std::size_t g = 0; g < groups; ++g)
          gathered = lane_tiles::gather_values<T, lanes>(
              line_values<lanes>(s, src_off + g * lanes).data(), 0, n, values_of(line[g]));
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
        if (!spec_.forward) conjugate(out);
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
          scattered = lane_tiles::scatter_values<T, lanes>(
                          values_of(res[g] + 1), line_values<lanes>(d, dst_off + g * lanes).data(),
                          2, 2 * pairs) / 2;
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
    std::int64_t gathered = 1;
    if (ss == 1 && n > 1)
      for (std::size_t g = 0; g < groups; ++g)
        gathered = lane_tiles::gather_values<T, lanes>(
                       line_values<lanes>(s, src_off + g * lanes).data(), 2, 2 * pairs,
                       values_of(line[g] + 1)) / 2;
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
      if (spec_.forward) conjugate(line[g]);
      res[g] = plan->engine.exec(line[g], line[g] + n, r.fct, false);
    }
    std::int64_t scattered = 0;
    if (ds == 1)
      for (std::size_t g = 0; g < groups; ++g)
        scattered = lane_tiles::scatter_values<T, lanes>(
            values_of(res[g]), line_values<lanes>(d, dst_off + g * lanes).data(), 0, n);
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

  // The twiddle factors of a four-step column pass: element i of column c
  // is multiplied by twiddle (i, c), conjugated for the inverse sign. A SIMD
  // group's lines are usually neighbouring columns, whose twiddles are side
  // by side in the table: loaded as a run of pairs.
  template <class V, std::size_t lanes>
  class FourStepTwiddled {
   public:
    FourStepTwiddled(const FourStepTwiddles<T>& table, std::int64_t first_line,
                     std::size_t groups, bool forward)
        : values_(table.values.data()), columns_(table.columns), sign_(forward ? T(1) : T(-1)) {
      for (std::size_t k = 0; k < groups * lanes; ++k)
        column_[k] = (first_line + static_cast<std::int64_t>(k)) % columns_;
      in_order_ = neighbours<lanes>(column_, groups);
    }
    Cmplx<V> operator()(const Cmplx<V>& x, std::size_t g, std::int64_t i) const {
      const Cmplx<T>* row = values_ + i * columns_;
      const std::int64_t* column = column_ + g * lanes;
      alignas(64) T w[2 * lanes];
      if (in_order_) {
        lane_tiles::split_pairs<T, lanes>(values_of(row + column[0]), w);
      } else {
        for (std::size_t j = 0; j < lanes; ++j) {
          w[j] = row[column[j]].r;
          w[lanes + j] = row[column[j]].i;
        }
      }
      const V wr = load_lanes<V>(w), wi = load_lanes<V>(w + lanes) * V(sign_);
      return Cmplx<V>(x.r * wr - x.i * wi, x.r * wi + x.i * wr);
    }

   private:
    const Cmplx<T>* values_;
    std::int64_t columns_;
    T sign_;
    std::int64_t column_[kMaxBunch * lanes];
    bool in_order_;
  };

  TransformSpec spec_;
  std::vector<Pass> passes_;
  std::int64_t temp_elements_ = 0;  // complex elements of the temporary buffer
  std::vector<std::int64_t> in_strides_, out_strides_;
};

}  // namespace

std::unique_ptr<CpuTransform> CpuTransform::prepare(const TransformSpec& spec, PlanCache& cache) {
  if (std::string problem = spec.check(); !problem.empty()) throw std::invalid_argument(problem);
  for (std::int64_t axis : spec.axes)
    if (spec.length(axis) < 1 && !spec.empty())
      throw std::invalid_argument("transform length must be at least 1");
  if (spec.precision == Precision::kSingle)
    return std::make_unique<CpuTransformImpl<float>>(spec, cache);
  return std::make_unique<CpuTransformImpl<double>>(spec, cache);
}

}  // namespace jax_apple_fft
