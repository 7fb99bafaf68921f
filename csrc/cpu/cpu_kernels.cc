// One SIMD level's copy of the CPU backend's driver (compiled once per level,
// in namespace jax_apple_fft::JAX_APPLE_FFT_SIMD: cmake/CpuInstructionSet.cmake). It
// plans a transform (cpu_planner.h), resolves the plan's pocketfft line plans
// through the PlanCache, and runs its passes over the cache's worker threads,
// each task on its own scratch slot, with the line kernels of line_kernels.h.
// No transposes: a pass gathers lines along its axis from strided memory and
// scatters them back.
#include "cpu/cpu_kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "cache/huge_pages.h"
#include "cpu/cpu_planner.h"
#include "cpu/line_kernels.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD {
namespace {

// Outputs of at least this many bytes, on memory already in use, are written
// with streaming stores; smaller ones stay in cache for whoever reads them.
// Fresh ones are faulted in before the passes (populate_output).
constexpr std::size_t kStreamMinBytes = std::size_t(8) << 20;
// Tiles of SIMD groups (lane_tiles.h) stream only into outputs this large:
// 16 MiB outputs lost when streamed.
constexpr std::size_t kStreamTilesMinBytes = std::size_t(32) << 20;

// Faults in a fresh output in pieces of kHugePageBytes (aligned, so that each
// piece can be one huge page) shared over the workers: the kernel zeroes
// them side by side, where the passes' first stores would fault one small
// page at a time in whatever order their lines take.
void populate_output(void* out, std::size_t bytes, WorkerPool& workers) {
  if (workers.threads() < 2) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(out);
  const std::uintptr_t end = begin + bytes;
  const std::uintptr_t first_piece = begin & ~(std::uintptr_t(kHugePageBytes) - 1);
  const std::size_t pieces = (end - first_piece + kHugePageBytes - 1) / kHugePageBytes;
  workers.parallel_for(pieces, [&](std::size_t i) {
    const std::uintptr_t from = std::max(begin, first_piece + i * kHugePageBytes);
    const std::uintptr_t to = std::min(end, first_piece + (i + 1) * kHugePageBytes);
    populate_for_writing(reinterpret_cast<void*>(from), to - from);
  });
}

template <class T>
class CpuTransformImpl final : public CpuTransform {
  static constexpr std::size_t kLanes = ducc::native_simd<T>::size();
  using Kernels = LineKernels<T>;

  // SIMD widths pocketfft can run: kLanes, kLanes / 2, kLanes / 4 (and 1).
  static constexpr bool lane_width_exists(std::size_t lanes) {
    if (lanes == 1) return true;
    if (lanes == kLanes) return kLanes > 1;
    if (lanes == kLanes / 2 && kLanes / 2 > 1) return ducc::simd_exists<T, kLanes / 2>;
    if (lanes == kLanes / 4 && kLanes / 4 > 1) return ducc::simd_exists<T, kLanes / 4>;
    return false;
  }

  // What the planner is told of this build, for `threads` workers; with
  // `workers`, their wake cost, measured if the planner asks for it.
  static CpuMachine machine(std::int64_t threads, WorkerPool* workers = nullptr) {
    CpuMachine m;
    m.value_bytes = sizeof(T);
    m.simd_lanes = kLanes;
    m.half_width = kLanes / 2 > 1 && lane_width_exists(kLanes / 2);
    m.quarter_width = kLanes / 4 > 1 && lane_width_exists(kLanes / 4);
    m.threads = threads;
    if (workers != nullptr) m.wake_seconds = [workers] { return workers->wake_seconds(); };
    return m;
  }

 public:
  CpuTransformImpl(const TransformSpec& spec, PlanCache& cache) : spec_(spec) {
    // Each line plan the planner chooses is looked up once, into its pass.
    auto sizer = [&](const LinePlanChoice& c) -> std::size_t {
      if (plans_.size() <= c.pass) plans_.resize(c.pass + 1);
      PassPlans<T>& p = plans_[c.pass];
      const bool groups = c.layout == LineLayout::kSimdGroups;
      if (c.real) {
        auto plan = get_line_plan<RealEngine<T>, T>(cache, true, c.n, c.layout);
        (groups ? p.real_groups : p.real_one_line) = plan;
        return plan->engine.bufsize();
      }
      auto plan = get_line_plan<ComplexEngine<T>, T>(cache, false, c.n, c.layout);
      (groups ? p.complex_groups : p.complex_one_line) = plan;
      return plan->engine.bufsize();
    };
    WorkerPool& workers = cache.workers();
    plan_ = plan_cpu_transform(spec, machine(workers.threads(), &workers), sizer);
    plans_.resize(plan_.passes.size());
    for (std::size_t i = 0; i < plan_.passes.size(); ++i) {
      const CpuPass& pass = plan_.passes[i];
      if (pass.twiddled)
        plans_[i].twiddles = get_four_step_twiddles<T>(cache, *pass.twiddled, pass.lanes);
      if (pass.twiddle_table)
        plans_[i].twiddle_table =
            get_four_step_twiddle_table<T>(cache, *plans_[i].twiddles, *pass.twiddled);
      PassPlans<T>& p = plans_[i];
      const auto& complex_plan = p.complex_groups ? p.complex_groups : p.complex_one_line;
      if (complex_plan && !pass.twiddled && !pass.fused && pass.contiguous() &&
          pass.op == LineOp::kComplex)
        p.line_vectors = complex_plan->engine.vectors();
      const auto& real_plan = p.real_groups ? p.real_groups : p.real_one_line;
      if (real_plan && pass.contiguous() &&
          (pass.op == LineOp::kRealToComplex || pass.op == LineOp::kComplexToReal))
        p.real_line_vectors = real_plan->engine.vectors();
      // A pack or unpack pass is as long as its real lines; a fused one, half.
      if (half_length_op(pass.op) || pass.fused)
        p.half_length = get_half_length_twiddles<T>(cache, pass.fused ? 2 * pass.n : pass.n);
      if (chirp_op(pass.op)) plans_[i].chirp = get_chirp_tables<T>(cache, pass.n, pass.chirp_length);
    }
  }

  // cpu_working_bytes. pocketfft's buffer for a line of n points is at most
  // 4n + 64 values (Bluestein's is the largest), and its tables with
  // Bluestein's or Rader's kernels at most 8n complex values; the chirp
  // passes' tables n + m values (bluestein.h); a four-step twiddle table
  // rows x columns. Planned with the wake cost unknown: small passes then
  // stay one task, whose SIMD groups and bunches are the widest any wake
  // cost gives.
  static std::size_t working_bytes(const TransformSpec& spec, std::int64_t threads) {
    const auto buffer_bound = [](const LinePlanChoice& c) {
      return 4 * static_cast<std::size_t>(c.n) + 64;
    };
    const CpuPlan plan = plan_cpu_transform(spec, machine(threads), buffer_bound);
    std::size_t scratch = 0, tables = 0;
    for (const CpuPass& pass : plan.passes) {
      scratch = std::max(scratch, pass.bunch * pass.group_scratch * pass.lanes);
      tables += chirp_op(pass.op) ? static_cast<std::size_t>(pass.n + pass.chirp_length)
                                  : 8 * static_cast<std::size_t>(pass.n);
      if (pass.twiddle_table)
        tables += static_cast<std::size_t>(pass.twiddled->rows * pass.twiddled->columns);
    }
    const std::size_t threads_at_once = static_cast<std::size_t>(std::max<std::int64_t>(threads, 1));
    return (static_cast<std::size_t>(plan.temp_elements + plan.work_elements) +
            threads_at_once * scratch + tables) *
           sizeof(Cmplx<T>);
  }

  const TransformSpec& spec() const override { return spec_; }
  const CpuPlan& plan() const override { return plan_; }

  void execute(const void* in, void* out, PlanCache& cache) const override {
    NoProfiler none;
    run(in, out, cache, none);
  }

  CpuProfile profile(const void* in, void* out, PlanCache& cache) const override {
    CpuProfile profile;
    CpuProfiler profiler(profile);
    const auto start = std::chrono::steady_clock::now();
    run(in, out, cache, profiler);
    profile.seconds = seconds_since(start);
    return profile;
  }

 private:
  // Runs the passes; `profiler` (cpu_profile.h) times what it chooses to.
  template <class Profiler>
  void run(const void* in, void* out, PlanCache& cache, Profiler& profiler) const {
    if (spec_.empty()) {
      // An empty input with a non-empty output (length-0 transform) sums nothing.
      std::memset(out, 0, out_count() * out_element_bytes());
      return;
    }
    // The last page tells whether the output is memory in use: the allocator
    // writes its bookkeeping next to the first, never the last, of a fresh block.
    const std::size_t out_bytes = out_count() * out_element_bytes();
    const bool large = out_bytes >= kStreamMinBytes;
    const bool in_use = large && page_in_memory(static_cast<const char*>(out) + out_bytes - 1);
    const Streaming stream{in_use, in_use && out_bytes >= kStreamTilesMinBytes};
    // Every output element is written: fresh pages may as well be huge ones.
    advise_huge_pages(out, out_bytes);
    if (large && !in_use) populate_output(out, out_bytes, cache.workers());
    // The temporary, then the work buffer, in one piece.
    ScratchArena::Lease temp = cache.scratch().acquire(temp_bytes());
    const Buffers buffers{in, out, temp.data(), temp.as<Cmplx<T>>() + plan_.temp_elements};
    profiler.start(plan_.passes.size());
    for (std::size_t i = 0; i < plan_.passes.size(); ++i)
      profiler.time_pass(i, [&](typename Profiler::Pass& pass_profiler) {
        run_pass(plan_.passes[i], plans_[i], buffers, cache, stream, pass_profiler);
      });
  }

  std::size_t out_count() const {
    std::int64_t count = 1;
    for (std::int64_t d : spec_.out_shape) count *= d;
    return static_cast<std::size_t>(count);
  }
  std::size_t out_element_bytes() const {
    return spec_.kind == TransformKind::kC2R ? sizeof(T) : sizeof(Cmplx<T>);
  }
  std::size_t temp_bytes() const {
    return static_cast<std::size_t>(plan_.temp_elements + plan_.work_elements) * sizeof(Cmplx<T>);
  }

  // The memory a pass reads and writes, by cpu_plan.h's Buffer.
  struct Buffers {
    const void* in;
    void *out, *temp, *work;
    void* operator[](Buffer b) const {
      switch (b) {
        case Buffer::kInput: return const_cast<void*>(in);
        case Buffer::kOutput: return out;
        case Buffer::kTemp: return temp;
        case Buffer::kWork: return work;
      }
      return nullptr;
    }
  };

  template <class PassProfiler>
  void run_pass(const CpuPass& pass, const PassPlans<T>& plans, const Buffers& buffers,
                PlanCache& cache, Streaming stream, PassProfiler& profiler) const {
    const void* src = buffers[pass.src];
    void* dst = buffers[pass.dst];
    const LineWalker walker(pass.shape, pass.src_strides, pass.dst_strides, pass.axis);
    const T fct = pass.last ? static_cast<T>(spec_.scale) : T(1);
    if (pointwise_op(pass.op))
      return run_pointwise(pass, plans, walker, src, dst, fct, cache, profiler);
    const std::int64_t lines = walker.lines();
    const std::int64_t group = static_cast<std::int64_t>(pass.lanes);
    const std::size_t scratch_bytes =
        pass.bunch * pass.group_scratch * pass.lanes * sizeof(Cmplx<T>);

    auto run_task = [&](std::size_t task, void* scratch) {
      auto timing = profiler.task_started();
      const std::int64_t first = static_cast<std::int64_t>(task) * pass.groups_per_task * group;
      const std::int64_t end = std::min(lines, first + pass.groups_per_task * group);
      LineWalker w = walker;
      w.seek(first);
      // Only the last pass streams: an earlier one's output is read back.
      const TaskLines<T> range{pass, plans, src, dst, scratch, fct, pass.forward,
                               pass.last ? stream : Streaming{}};
      std::int64_t line = first;
      if (plans.line_vectors || plans.real_line_vectors) {
        if (plans.line_vectors)
          Kernels::template transform_line_vectors<Cmplx<T>, Cmplx<T>>(range, *plans.line_vectors,
                                                                       w, line, end);
        else if (pass.op == LineOp::kRealToComplex)
          Kernels::template transform_line_vectors<T, Cmplx<T>>(range, *plans.real_line_vectors,
                                                                w, line, end);
        else
          Kernels::template transform_line_vectors<Cmplx<T>, T>(range, *plans.real_line_vectors,
                                                                w, line, end);
        timing.done();
        return;
      }
      // Lines left over from the widest groups run in narrower ones, as far
      // as they fill them: a lone line costs more than its share of a group.
      if (pass.lanes == kLanes) line = run_groups<kLanes>(range, w, line, end);
      if (pass.lanes >= kLanes / 2) line = run_groups<kLanes / 2>(range, w, line, end);
      if (pass.lanes >= kLanes / 4) line = run_groups<kLanes / 4>(range, w, line, end);
      run_groups<1>(range, w, line, end);
      if (range.stream.lines || range.stream.tiles) stream_fence();
      timing.done();
    };
    // A task runs where its scratch can be had without a throw (see
    // ScratchArena::try_acquire); one that cannot have it is left to this
    // thread, after the others.
    std::vector<unsigned char> left(static_cast<std::size_t>(pass.tasks), 0);
    cache.workers().parallel_for(static_cast<std::size_t>(pass.tasks), [&](std::size_t task) {
      if (static_cast<std::int64_t>(task) * pass.groups_per_task * group >= lines) return;
      ScratchArena::Lease scratch = cache.scratch().try_acquire(scratch_bytes);
      if (!scratch.data()) {
        left[task] = 1;
        return;
      }
      run_task(task, scratch.data());
    });
    for (std::size_t task = 0; task < left.size(); ++task)
      if (left[task]) {
        const ScratchArena::Lease scratch = cache.scratch().acquire(scratch_bytes);
        run_task(task, scratch.data());
      }
  }

  // A pass of values one by one (half_length.h, bluestein.h): its tasks
  // split each line into pass.tasks / lines ranges (the planner makes it a
  // multiple).
  template <class PassProfiler>
  void run_pointwise(const CpuPass& pass, const PassPlans<T>& plans, const LineWalker& walker,
                     const void* src, void* dst, T fct, PlanCache& cache,
                     PassProfiler& profiler) const {
    const std::int64_t n = pass.n, m = pass.chirp_length, chunks = pass.tasks / walker.lines();
    const std::int64_t ss = pass.src_strides[pass.axis], ds = pass.dst_strides[pass.axis];
    const std::int64_t out_length = pass.shape[pass.axis];
    // Offsets count real values where the chirp passes read or write a real
    // line, else complex ones.
    constexpr auto kReal = static_cast<std::int64_t>(sizeof(T));
    constexpr auto kComplex = static_cast<std::int64_t>(sizeof(Cmplx<T>));
    const std::int64_t src_bytes =
        pass.op == LineOp::kChirpIn && pass.chirp_of == LineOp::kRealToComplex ? kReal : kComplex;
    const std::int64_t dst_bytes =
        pass.op == LineOp::kChirpOut && pass.chirp_of == LineOp::kComplexToReal ? kReal : kComplex;
    cache.workers().parallel_for(static_cast<std::size_t>(pass.tasks), [&](std::size_t task) {
      auto timing = profiler.task_started();
      const std::int64_t line = static_cast<std::int64_t>(task) / chunks;
      const std::int64_t chunk = static_cast<std::int64_t>(task) % chunks;
      LineWalker at = walker;
      at.seek(line);
      const void* line_from = static_cast<const char*>(src) + at.src() * src_bytes;
      void* line_to = static_cast<char*>(dst) + at.dst() * dst_bytes;
      const auto* from = static_cast<const Cmplx<T>*>(line_from);
      auto* to = static_cast<Cmplx<T>*>(line_to);
      switch (pass.op) {
        case LineOp::kUnpackHalfLength:
          unpack_half_length(to, to, n / 2, plans.half_length->values.data(),
                             pair_range(n / 2, chunks, chunk), fct, pass.forward);
          break;
        case LineOp::kPackHalfLength:
          pack_half_length(from, to, n / 2, plans.half_length->values.data(),
                           pair_range(n / 2, chunks, chunk), pass.forward);
          break;
        case LineOp::kChirpIn:
          chirp_in(pass.chirp_of, line_from, ss, to, n, plans.chirp->chirp.data(),
                   value_range(m, chunks, chunk), pass.forward);
          break;
        case LineOp::kChirpKernel:
          chirp_kernel(to, plans.chirp->kernel.data(), value_range(m, chunks, chunk), pass.forward);
          break;
        case LineOp::kChirpOut:
          chirp_out(pass.chirp_of, from, line_to, ds, plans.chirp->chirp.data(),
                    value_range(out_length, chunks, chunk), fct, pass.forward);
          break;
        default:
          break;
      }
      timing.done();
    });
  }

  // Transforms lines [line, end) `lanes` at a time, up to a bunch of groups
  // together, while whole groups remain; returns the first line not done.
  template <std::size_t lanes>
  std::int64_t run_groups(const TaskLines<T>& r, LineWalker& w, std::int64_t line,
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
          Kernels::template transform_complex<V, lanes>(r, line, groups, src_off, dst_off);
        else
          Kernels::template transform_real<V, lanes>(r, groups, src_off, dst_off);
        line += static_cast<std::int64_t>(groups) * width;
      }
      return line;
    }
  }

  TransformSpec spec_;
  CpuPlan plan_;
  std::vector<PassPlans<T>> plans_;  // one per pass of plan_
};

}  // namespace

std::unique_ptr<CpuTransform> make_cpu_transform(const TransformSpec& spec, PlanCache& cache) {
  if (spec.precision == Precision::kSingle)
    return std::make_unique<CpuTransformImpl<float>>(spec, cache);
  return std::make_unique<CpuTransformImpl<double>>(spec, cache);
}

std::size_t cpu_working_bytes(const TransformSpec& spec, std::int64_t threads) {
  if (spec.precision == Precision::kSingle)
    return CpuTransformImpl<float>::working_bytes(spec, threads);
  return CpuTransformImpl<double>::working_bytes(spec, threads);
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD

// pocketfft's threading shim (single-threaded here: it never starts a
// thread), which its transforms call: built into each level's copy, in the
// level's namespace.
#include "ducc0/infra/threading.cc"
