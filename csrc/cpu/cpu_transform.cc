// N-dimensional transforms as a sequence of passes, one per axis. A pass
// gathers lines along its axis from strided memory, transforms them with a
// pocketfft line plan and scatters them back; no transposes. Lines are
// handled `vlen` at a time in SIMD lanes when a group fits in L2, and split
// over the cache's worker threads.
#include "cpu/cpu_transform.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cpu/line_plans.h"

namespace jax_apple_fft {
namespace {

using ducc::Cmplx;

constexpr std::size_t kL2Bytes = std::size_t(1) << 20;
// Below this many complex elements per pass, threads cost more than they save.
constexpr std::int64_t kMinElementsPerTask = std::int64_t(1) << 15;

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
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

// Lane access that works for scalars and SIMD vectors alike.
template <class V, class T>
inline void set_lane(V& v, std::size_t lane, T x) {
  if constexpr (std::is_same_v<V, T>) v = x; else v[lane] = x;
}
template <class V, class T>
inline T get_lane(const V& v, std::size_t lane) {
  if constexpr (std::is_same_v<V, T>) return v; else return v[lane];
}

template <class T>
class CpuTransformImpl final : public CpuTransform {
  using Vec = typename ducc::simd_select<T, ducc::native_simd<T>::size()>::type;
  static constexpr std::size_t kLanes = ducc::native_simd<T>::size();
  using ComplexPlan = LinePlan<ComplexEngine<T>>;
  using RealPlan = LinePlan<RealEngine<T>>;

  struct Pass {
    LineOp op;
    std::int64_t axis;
    std::int64_t n;  // transform length (the real length for real ops)
    Buffer src, dst;
    bool last;
    std::shared_ptr<const ComplexPlan> complex_plan;
    std::shared_ptr<const RealPlan> real_plan;
  };

 public:
  CpuTransformImpl(const TransformSpec& spec, PlanCache& cache) : spec_(spec) {
    if (spec.empty()) return;  // nothing to plan
    const std::int64_t real_axis = spec.axes.back();
    const bool one_line = spec.in_shape.size() == 1;
    auto complex_pass = [&](std::int64_t axis, Buffer src, Buffer dst) {
      const std::int64_t n = spec.in_shape[axis];
      passes_.push_back({LineOp::kComplex, axis, n, src, dst, false,
                         get_line_plan<ComplexEngine<T>, T>(cache, false, n, one_line), nullptr});
    };
    auto real_pass = [&](LineOp op, Buffer src, Buffer dst) {
      const std::int64_t n = spec.length(real_axis);
      passes_.push_back({op, real_axis, n, src, dst, false, nullptr,
                         get_line_plan<RealEngine<T>, T>(cache, true, n, one_line)});
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
        for (std::size_t i = 0; i + 1 < spec.axes.size(); ++i)
          complex_pass(spec.axes[i], i == 0 ? Buffer::kInput : Buffer::kTemp, Buffer::kTemp);
        real_pass(LineOp::kComplexToReal, spec.axes.size() > 1 ? Buffer::kTemp : Buffer::kInput,
                  Buffer::kOutput);
        break;
    }
    passes_.back().last = true;
    in_strides_ = dense_strides(spec.in_shape);
    out_strides_ = dense_strides(spec.out_shape);
  }

  const TransformSpec& spec() const override { return spec_; }

  void execute(const void* in, void* out, PlanCache& cache) const override {
    if (spec_.empty()) {
      // An empty input with a non-empty output (length-0 transform) sums nothing.
      std::int64_t count = 1;
      for (std::int64_t d : spec_.out_shape) count *= d;
      std::memset(out, 0, static_cast<std::size_t>(count) * out_element_bytes());
      return;
    }
    ScratchArena::Lease temp = cache.scratch().acquire(temp_bytes());
    for (const Pass& pass : passes_) run_pass(pass, in, out, temp.data(), cache);
  }

 private:
  std::size_t out_element_bytes() const {
    return spec_.kind == TransformKind::kC2R ? sizeof(T) : sizeof(Cmplx<T>);
  }
  std::size_t temp_bytes() const {
    if (spec_.kind != TransformKind::kC2R || spec_.axes.size() == 1) return 0;
    std::int64_t count = 1;
    for (std::int64_t d : spec_.in_shape) count *= d;
    return static_cast<std::size_t>(count) * sizeof(Cmplx<T>);
  }

  const std::vector<std::int64_t>& shape_of(Buffer b) const {
    return b == Buffer::kOutput ? spec_.out_shape : spec_.in_shape;
  }
  const std::vector<std::int64_t>& strides_of(Buffer b) const {
    return b == Buffer::kOutput ? out_strides_ : in_strides_;
  }

  void run_pass(const Pass& pass, const void* in, void* out, void* temp, PlanCache& cache) const {
    auto pointer = [&](Buffer b) -> void* {
      if (b == Buffer::kInput) return const_cast<void*>(in);
      return b == Buffer::kOutput ? out : temp;
    };
    const void* src = pointer(pass.src);
    void* dst = pointer(pass.dst);
    LineWalker walker(shape_of(pass.dst), strides_of(pass.src), strides_of(pass.dst), pass.axis);
    const std::int64_t lines = walker.lines();
    const std::int64_t n = pass.n;
    const std::size_t plan_buf = pass.complex_plan ? pass.complex_plan->engine.bufsize()
                                                   : pass.real_plan->engine.bufsize();
    // Working set of one group: the line data plus the plan's scratch.
    const std::size_t vector_bytes = (2 * n + plan_buf) * sizeof(Cmplx<Vec>);
    const bool vectorize = kLanes > 1 && lines >= static_cast<std::int64_t>(kLanes) &&
                           vector_bytes <= kL2Bytes;
    const std::int64_t group = vectorize ? kLanes : 1;
    const std::int64_t groups = (lines + group - 1) / group;
    const std::int64_t max_tasks = std::max<std::int64_t>(1, lines * n / kMinElementsPerTask);
    const std::int64_t tasks =
        std::min<std::int64_t>({groups, max_tasks, cache.workers().threads()});
    const std::int64_t groups_per_task = (groups + tasks - 1) / tasks;
    const std::size_t scratch_bytes =
        std::max(vector_bytes, (2 * n + plan_buf) * sizeof(Cmplx<T>));
    const T fct = pass.last ? static_cast<T>(spec_.scale) : T(1);

    cache.workers().parallel_for(static_cast<std::size_t>(tasks), [&](std::size_t task) {
      const std::int64_t first = static_cast<std::int64_t>(task) * groups_per_task * group;
      const std::int64_t end = std::min(lines, first + groups_per_task * group);
      if (first >= end) return;
      ScratchArena::Lease scratch = cache.scratch().acquire(scratch_bytes);
      LineWalker w = walker;
      w.seek(first);
      std::int64_t line = first;
      std::int64_t src_off[kLanes], dst_off[kLanes];
      if (vectorize) {
        for (; line + group <= end; line += group) {
          for (std::size_t j = 0; j < kLanes; ++j, w.next()) {
            src_off[j] = w.src();
            dst_off[j] = w.dst();
          }
          transform_lines<Vec, kLanes>(pass, src, dst, src_off, dst_off, scratch.data(), fct);
        }
      }
      for (; line < end; ++line, w.next()) {
        src_off[0] = w.src();
        dst_off[0] = w.dst();
        transform_lines<T, 1>(pass, src, dst, src_off, dst_off, scratch.data(), fct);
      }
    });
  }

  // Transforms `lanes` lines at once (V is T or a SIMD vector of T).
  template <class V, std::size_t lanes>
  void transform_lines(const Pass& pass, const void* src, void* dst, const std::int64_t* src_off,
                       const std::int64_t* dst_off, void* scratch, T fct) const {
    const std::int64_t n = pass.n;
    const std::int64_t src_stride = strides_of(pass.src)[pass.axis];
    const std::int64_t dst_stride = strides_of(pass.dst)[pass.axis];
    if (pass.op == LineOp::kComplex) {
      auto* data = static_cast<Cmplx<V>*>(scratch);
      auto* work = data + n;
      const auto* s = static_cast<const Cmplx<T>*>(src);
      auto* d = static_cast<Cmplx<T>*>(dst);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < lanes; ++j) {
          const Cmplx<T>& x = s[src_off[j] + i * src_stride];
          set_lane(data[i].r, j, x.r);
          set_lane(data[i].i, j, x.i);
        }
      const Cmplx<V>* res = pass.complex_plan->engine.exec(data, work, fct, spec_.forward);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < lanes; ++j)
          d[dst_off[j] + i * dst_stride] =
              Cmplx<T>(get_lane<V, T>(res[i].r, j), get_lane<V, T>(res[i].i, j));
      return;
    }
    auto* data = static_cast<V*>(scratch);
    auto* work = data + n;
    // pocketfft's real layout ("halfcomplex"): r0, r1, i1, r2, i2, ... [, r_{n/2}].
    if (pass.op == LineOp::kRealToComplex) {
      const auto* s = static_cast<const T*>(src);
      auto* d = static_cast<Cmplx<T>*>(dst);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < lanes; ++j) set_lane(data[i], j, s[src_off[j] + i * src_stride]);
      const V* res = pass.real_plan->engine.exec(data, work, fct, true);
      // The inverse-sign transform of real data is the conjugate.
      const T sign = spec_.forward ? T(1) : T(-1);
      for (std::size_t j = 0; j < lanes; ++j) {
        Cmplx<T>* line = d + dst_off[j];
        line[0] = Cmplx<T>(get_lane<V, T>(res[0], j), T(0));
        std::int64_t k = 1;
        for (; 2 * k < n; ++k)
          line[k * dst_stride] = Cmplx<T>(get_lane<V, T>(res[2 * k - 1], j),
                                          sign * get_lane<V, T>(res[2 * k], j));
        if (2 * k == n) line[k * dst_stride] = Cmplx<T>(get_lane<V, T>(res[n - 1], j), T(0));
      }
      return;
    }
    // Complex to real: pocketfft's backward real transform has the inverse
    // sign, so a forward-sign C2R conjugates its input first. The imaginary
    // parts of the zero and Nyquist terms are dropped, as numpy does.
    const auto* s = static_cast<const Cmplx<T>*>(src);
    auto* d = static_cast<T*>(dst);
    const T sign = spec_.forward ? T(-1) : T(1);
    for (std::size_t j = 0; j < lanes; ++j) {
      const Cmplx<T>* line = s + src_off[j];
      set_lane(data[0], j, line[0].r);
      std::int64_t k = 1;
      for (; 2 * k < n; ++k) {
        set_lane(data[2 * k - 1], j, line[k * src_stride].r);
        set_lane(data[2 * k], j, sign * line[k * src_stride].i);
      }
      if (2 * k == n) set_lane(data[n - 1], j, line[k * src_stride].r);
    }
    const V* res = pass.real_plan->engine.exec(data, work, fct, false);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < lanes; ++j)
        d[dst_off[j] + i * dst_stride] = get_lane<V, T>(res[i], j);
  }

  TransformSpec spec_;
  std::vector<Pass> passes_;
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
