#include "cpu/cpu_planner.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cpu/prime_lengths.h"

namespace jax_apple_fft {

std::int64_t CpuPass::lines() const {
  std::int64_t count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (static_cast<std::int64_t>(d) != axis) count *= shape[d];
  return count;
}

std::string CpuPlan::describe() const {
  static const char* const kOps[] = {"c2c",    "r2c",      "c2r",          "pack",
                                     "unpack", "chirp-in", "chirp-kernel", "chirp-out"};
  static const char* const kBuffers[] = {"input", "output", "temp", "work"};
  std::ostringstream out;
  for (const CpuPass& p : passes) {
    out << kOps[static_cast<int>(p.op)] << " axis " << p.axis << " n " << p.n << " lines "
        << p.lines() << " " << kBuffers[static_cast<int>(p.src)] << "->"
        << kBuffers[static_cast<int>(p.dst)] << " lanes " << p.lanes << " bunch " << p.bunch
        << " tasks " << p.tasks << "x" << p.groups_per_task;
    if (p.twiddled) out << " twiddled " << p.twiddled->rows << "x" << p.twiddled->columns;
    if (p.twiddle_table) out << " from a table";
    if (p.fused) out << (p.fused->op == LineOp::kPackHalfLength ? " packs" : " unpacks");
    if (chirp_op(p.op)) out << " m " << p.chirp_length << " of " << kOps[static_cast<int>(p.chirp_of)];
    if (p.prefetch_ahead) out << " prefetch";
    if (p.output_ahead == OutputAhead::kWholeBunch) out << " write-ahead";
    if (p.output_ahead == OutputAhead::kScatter) out << " scatter-ahead";
    if (p.last) out << " last";
    out << "\n";
  }
  out << "temp " << temp_elements << "\n";
  if (work_elements) out << "work " << work_elements << "\n";
  return out.str();
}

bool CpuMachine::lane_width_exists(std::size_t lanes) const {
  if (lanes == 1) return true;
  if (lanes == simd_lanes) return simd_lanes > 1;
  if (lanes == simd_lanes / 2) return half_width;
  if (lanes == simd_lanes / 4) return quarter_width;
  return false;
}

std::size_t CpuMachine::narrowest_group(std::size_t lanes) const {
  std::size_t narrowest = lanes;
  for (std::size_t width : {simd_lanes / 2, simd_lanes / 4})
    if (width > 1 && width <= lanes && lane_width_exists(width)) narrowest = width;
  return narrowest;
}

std::optional<FourStepSplit> most_square_split(std::int64_t n, std::int64_t min_length) {
  if (n < min_length || n > kMaxLineLength) return std::nullopt;
  auto rows = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
  while (rows * rows > n) --rows;
  while ((rows + 1) * (rows + 1) <= n) ++rows;
  for (; rows >= kFourStepMinFactor; --rows)
    if (n % rows == 0) return FourStepSplit{rows, n / rows};
  return std::nullopt;
}

std::optional<FourStepSplit> large_factor_split(std::int64_t n) {
  if (n < 2 || n > kMaxLineLength) return std::nullopt;
  const std::uint64_t p = prime_lengths::prime_factors(static_cast<std::uint64_t>(n)).back();
  const auto factor = static_cast<std::int64_t>(p);
  if (factor == n || !(factor >= kLargeFactorMinPrime || prime_lengths::takes_rader(p)))
    return std::nullopt;
  return FourStepSplit{std::min(factor, n / factor), std::max(factor, n / factor)};
}

namespace {

// Whether a pass of `bytes` below kMinBytesToShare gains more from sharing
// than waking the threads costs.
bool small_pass_shares(std::int64_t bytes, const CpuMachine& machine) {
  if (machine.threads < kMinThreadsToShareSmall) return false;
  const double one_thread = static_cast<double>(bytes) * kSecondsPerByte;
  const double saved = one_thread * (1.0 - 1.0 / static_cast<double>(machine.threads));
  return saved > machine.wake_seconds();
}

// Many small tasks from a shared counter: a thread the machine slows down
// leaves its share to the others.
// `point_bytes`: bytes of one point of a line (a complex or a real value).
std::int64_t task_count(std::int64_t lines, std::int64_t n, std::int64_t point_bytes,
                        const CpuMachine& machine) {
  const std::int64_t threads = machine.threads;
  if (threads <= 1) return 1;
  const std::int64_t elements = lines * n;
  const std::int64_t bytes = elements * point_bytes;
  const std::int64_t tasks = std::max<std::int64_t>(1, elements / kMinElementsPerTask);
  const bool shared = bytes >= kMinBytesToShare || small_pass_shares(bytes, machine);
  return shared ? std::max(tasks, kTasksPerThread * threads) : tasks;
}

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// How many lines in a row of a pass start one element after another, in
// the source and the destination alike: the dimensions other than the
// axis, innermost first, for as long as they are dense on both sides.
std::int64_t neighbour_run(const CpuPass& pass) {
  std::int64_t run = 1;
  for (std::size_t d = pass.shape.size(); d-- > 0;) {
    if (static_cast<std::int64_t>(d) == pass.axis || pass.shape[d] == 1) continue;
    if (pass.src_strides[d] != run || pass.dst_strides[d] != run) break;
    run *= pass.shape[d];
  }
  return run;
}

class Planner {
 public:
  Planner(const TransformSpec& spec, const CpuMachine& machine, const LinePlanSizer& sizer)
      : spec_(spec), machine_(machine), sizer_(sizer), in_strides_(dense_strides(spec.in_shape)),
        out_strides_(dense_strides(spec.out_shape)) {}

  CpuPlan plan() {
    if (spec_.empty()) return std::move(plan_);
    const std::size_t axes = spec_.axes.size();
    switch (spec_.kind) {
      case TransformKind::kC2C:
        for (std::size_t i = 0; i < axes; ++i)
          complex_pass(spec_.axes[i], i == 0 ? Buffer::kInput : Buffer::kOutput, Buffer::kOutput);
        break;
      case TransformKind::kR2C:
        real_pass(LineOp::kRealToComplex, Buffer::kInput, Buffer::kOutput);
        for (std::size_t i = 0; i + 1 < axes; ++i)
          complex_pass(spec_.axes[i], Buffer::kOutput, Buffer::kOutput);
        break;
      case TransformKind::kC2R:
        // Complex passes first, into a temporary: XLA's input is read-only.
        if (axes > 1) {
          plan_.temp_elements = 1;
          for (std::int64_t d : spec_.in_shape) plan_.temp_elements *= d;
        }
        for (std::size_t i = 0; i + 1 < axes; ++i)
          complex_pass(spec_.axes[i], i == 0 ? Buffer::kInput : Buffer::kTemp, Buffer::kTemp);
        real_pass(LineOp::kComplexToReal, axes > 1 ? Buffer::kTemp : Buffer::kInput,
                  Buffer::kOutput);
        break;
    }
    plan_.passes.back().last = true;
    return std::move(plan_);
  }

 private:
  const std::vector<std::int64_t>& shape_of(Buffer b) const {
    return b == Buffer::kOutput ? spec_.out_shape : spec_.in_shape;
  }
  const std::vector<std::int64_t>& strides_of(Buffer b) const {
    return b == Buffer::kOutput ? out_strides_ : in_strides_;
  }
  CpuPass pass(LineOp op, Buffer src, Buffer dst, std::int64_t axis, std::int64_t n) const {
    CpuPass p;
    p.op = op;
    p.src = src;
    p.dst = dst;
    p.shape = shape_of(dst);
    p.src_strides = strides_of(src);
    p.dst_strides = strides_of(dst);
    p.axis = axis;
    p.n = n;
    p.forward = spec_.forward;
    return p;
  }

  void complex_pass(std::int64_t axis, Buffer src, Buffer dst) {
    complex_lines(pass(LineOp::kComplex, src, dst, axis, spec_.in_shape[axis]));
  }

  // A long contiguous complex axis, or one with a large prime factor
  // (large_factor_split), runs as columns into the temporary (twiddled on
  // the way out), then rows from there into place.
  void complex_lines(CpuPass whole) {
    const std::int64_t axis = whole.axis;
    const Buffer src = whole.src, dst = whole.dst;
    const bool temp_free = src != Buffer::kTemp && dst != Buffer::kTemp;
    if (temp_free && chirp_pays(whole)) return chirp_lines(std::move(whole));
    if (!(temp_free && whole.contiguous())) return add(std::move(whole));
    const auto split = line_split(whole);
    if (!split) return add(std::move(whole));
    const auto view = [&](std::vector<std::int64_t> v, std::int64_t outer, std::int64_t inner) {
      v[axis] = outer;
      v.insert(v.begin() + axis + 1, inner);
      return v;
    };
    const std::vector<std::int64_t> matrix = view(whole.shape, split->rows, split->columns);
    const std::vector<std::int64_t> temp_strides = dense_strides(matrix);
    CpuPass columns = whole;
    columns.dst = Buffer::kTemp;
    columns.shape = matrix;
    columns.src_strides = view(whole.src_strides, split->columns, 1);
    columns.dst_strides = temp_strides;
    columns.n = split->rows;
    columns.twiddled = split;
    columns.twiddle_table =
        whole.n * 2 * static_cast<std::int64_t>(machine_.value_bytes) <= kTwiddleTableMaxBytes;
    CpuPass rows = whole;
    rows.src = Buffer::kTemp;
    rows.shape = matrix;
    rows.src_strides = temp_strides;
    rows.dst_strides = view(whole.dst_strides, 1, split->rows);
    rows.axis = axis + 1;
    rows.n = split->columns;
    plan_.temp_elements = std::max(plan_.temp_elements, columns.lines() * columns.n);
    add(std::move(columns));
    add(std::move(rows));
  }

  // The split of a contiguous complex pass's lines, if they take one.
  std::optional<FourStepSplit> line_split(const CpuPass& whole) const {
    auto split = four_step_split(whole.n, whole.lines());
    if (!split && widest_lanes(whole) < machine_.simd_lanes) split = large_factor_split(whole.n);
    return split;
  }

  // Lines enough for a full SIMD group on every thread.
  std::int64_t full_groups() const {
    return std::max<std::int64_t>(machine_.threads, 1) * static_cast<std::int64_t>(machine_.simd_lanes);
  }

  // See kFourStepNarrowMinLength.
  std::optional<FourStepSplit> four_step_split(std::int64_t n, std::int64_t lines) const {
    std::int64_t narrow_min = kFourStepNarrowMinLength;
    if (machine_.value_bytes == 8)
      narrow_min = machine_.threads >= kMinThreadsToShareSmall ? 2 * kFourStepNarrowMinLength
                                                               : kFourStepMinLength;
    return most_square_split(n, lines < full_groups() ? narrow_min : kFourStepMinLength);
  }

  // See kChirpAlwaysLength.
  bool chirp_pays(const CpuPass& whole) const {
    if (!prime_lengths::takes_bluestein(static_cast<std::uint64_t>(whole.n))) return false;
    return whole.n >= kChirpAlwaysLength || whole.lines() < full_groups();
  }

  // A long prime line (prime_lengths.h) as Bluestein's convolution of m
  // points (bluestein.h) in the work buffer: a lines x m matrix, whose rows
  // split four-step, in the order the pass walks its lines. `whole` is a
  // complex or real pass whose source is not the temporary.
  void chirp_lines(CpuPass whole) {
    const std::int64_t axis = whole.axis, lines = whole.lines();
    const auto m = static_cast<std::int64_t>(prime_lengths::bluestein_length(
        static_cast<std::uint64_t>(whole.n)));
    std::vector<std::int64_t> work_strides(whole.shape.size(), 1);
    for (std::int64_t d = static_cast<std::int64_t>(whole.shape.size()), step = m; d-- > 0;)
      if (d != axis) {
        work_strides[d] = step;
        step *= whole.shape[d];
      }
    plan_.work_elements = std::max(plan_.work_elements, lines * m);
    CpuPass on_work = whole;
    on_work.op = LineOp::kComplex;
    on_work.src = on_work.dst = Buffer::kWork;
    on_work.shape = {lines, m};
    on_work.src_strides = on_work.dst_strides = {m, 1};
    on_work.axis = 1;
    CpuPass in = whole, kernel = on_work, out = whole;
    for (CpuPass* p : {&in, &kernel, &out}) {
      p->chirp_length = m;
      p->chirp_of = whole.op;
    }
    in.op = LineOp::kChirpIn;
    in.dst = Buffer::kWork;
    in.dst_strides = work_strides;
    kernel.op = LineOp::kChirpKernel;
    out.op = LineOp::kChirpOut;
    out.src = Buffer::kWork;
    out.src_strides = work_strides;
    on_work.n = m;
    add(std::move(in));
    on_work.forward = true;
    complex_lines(on_work);
    add(std::move(kernel));
    on_work.forward = false;
    complex_lines(on_work);
    add(std::move(out));
  }

  void real_pass(LineOp op, Buffer src, Buffer dst) {
    const std::int64_t axis = spec_.axes.back();
    CpuPass whole = pass(op, src, dst, axis, spec_.length(axis));
    if (half_length_pays(whole)) return half_length(std::move(whole));
    if (src != Buffer::kTemp && chirp_pays(whole)) return chirp_lines(std::move(whole));
    add(std::move(whole));
  }

  // Real lines whose half is a four-step length: the complex line of half the
  // length, split four-step, runs faster than pocketfft's real transform of
  // the whole line, on one thread as on all (measured at 2^17 to 2^20 points,
  // 1 and 2 threads, benchmarks/compare_builds.py), and splits over threads
  // however few the lines. float64 lines of a power of two from
  // kDoubleHalfLengthMinLength run at half the length even unsplit.
  bool half_length_pays(const CpuPass& whole) const {
    if (whole.n % 2 != 0) return false;
    const bool power_of_two = (whole.n & (whole.n - 1)) == 0;
    if (machine_.value_bytes == 8 && power_of_two && whole.n >= kDoubleHalfLengthMinLength) return true;
    return four_step_split(whole.n / 2, whole.lines()).has_value();
  }

  // The real pass as a complex one of n / 2 points (half_length.h): R2C
  // transforms the input seen as complex into the output with the forward
  // sign, then unpacks there (conjugating for the inverse sign); C2R packs the
  // bins into the output seen as complex (conjugating for the forward sign),
  // then transforms it there with the inverse sign.
  void half_length(CpuPass whole) {
    const std::int64_t axis = whole.axis, h = whole.n / 2;
    auto as_complex = [axis](std::vector<std::int64_t> strides) {
      for (std::size_t d = 0; d < strides.size(); ++d)
        if (static_cast<std::int64_t>(d) != axis) strides[d] /= 2;
      return strides;
    };
    CpuPass lines = whole;
    lines.op = LineOp::kComplex;
    lines.n = h;
    lines.shape[axis] = h;
    if (whole.op == LineOp::kRealToComplex) {
      lines.src_strides = as_complex(whole.src_strides);
      lines.forward = true;
      if (one_line_at_a_time(lines)) {
        lines.fused = FusedHalfLength{LineOp::kUnpackHalfLength, whole.forward};
        return add(std::move(lines));
      }
      complex_lines(std::move(lines));
      CpuPass unpack = whole;
      unpack.op = LineOp::kUnpackHalfLength;
      unpack.src = whole.dst;
      unpack.src_strides = whole.dst_strides;
      add(std::move(unpack));
      return;
    }
    CpuPass pack = whole;
    pack.op = LineOp::kPackHalfLength;
    pack.dst_strides = as_complex(whole.dst_strides);
    lines.src = lines.dst = whole.dst;
    lines.src_strides = lines.dst_strides = pack.dst_strides;
    lines.forward = false;
    CpuPass packing = lines;  // reading the bins themselves
    packing.src = whole.src;
    packing.src_strides = whole.src_strides;
    if (one_line_at_a_time(packing)) {
      packing.fused = FusedHalfLength{LineOp::kPackHalfLength, whole.forward};
      return add(std::move(packing));
    }
    add(std::move(pack));
    complex_lines(std::move(lines));
  }

  // Whether contiguous complex half lines will run unsplit and one at a
  // time: then the line kernel packs or unpacks each (FusedHalfLength).
  // Not the rows pass of a four-step split: its tasks could unpack bands of
  // rows with their mirror rows (k1, rows - k1), but those bins and their
  // twiddles lie a row of the matrix apart, and cost more than the pass
  // saves (docs/performance.md).
  bool one_line_at_a_time(const CpuPass& lines) const {
    return lines.contiguous() && !line_split(lines) && widest_lanes(lines) == 1;
  }

  void add(CpuPass p) {
    if (pointwise_op(p.op)) {
      // Value by value; every line's values split into as many ranges.
      const std::int64_t lines = p.lines();
      const std::int64_t per_line = tasks(p) / lines;
      p.tasks = lines * std::max<std::int64_t>(1, per_line);
      plan_.passes.push_back(std::move(p));
      return;
    }
    choose_lanes(p);
    p.bunch = choose_bunch(p);
    // Lines one at a time ask nothing ahead: asked ahead of their scatter, 8192- and
    // 16384-point lines ran no faster, and some slower (docs/performance.md).
    if (p.lanes > 1 && p.contiguous())
      p.output_ahead = p.bunch * p.lanes * output_line_bytes(p) < kWriteAheadBytes
                           ? OutputAhead::kWholeBunch
                           : OutputAhead::kScatter;
    const std::int64_t lines = p.lines();
    const std::int64_t width = static_cast<std::int64_t>(p.lanes);
    const std::int64_t groups = (lines + width - 1) / width;
    p.tasks = std::min<std::int64_t>(groups, tasks(p));
    p.groups_per_task = (groups + p.tasks - 1) / p.tasks;
    plan_.passes.push_back(std::move(p));
  }

  std::size_t output_line_bytes(const CpuPass& p) const {
    const auto n = static_cast<std::size_t>(p.n);
    switch (p.op) {
      case LineOp::kRealToComplex: return (n / 2 + 1) * 2 * machine_.value_bytes;
      case LineOp::kComplexToReal: return n * machine_.value_bytes;
      default: return n * 2 * machine_.value_bytes;
    }
  }

  // The widest SIMD group that leaves a group for every thread the pass
  // keeps busy. Contiguous lines whose widest group would overflow half of
  // L2 while one line fits run one at a time (complex, and real float64;
  // real float32 lines lost that way).
  std::size_t widest_lanes(const CpuPass& p) const {
    const bool real = p.op != LineOp::kComplex;
    const std::int64_t lines = p.lines();
    const std::int64_t threads = busy_threads(p);
    std::size_t lanes = machine_.simd_lanes;
    while (lanes > 1 && !(machine_.lane_width_exists(lanes) &&
                          static_cast<std::int64_t>(lanes) * threads <= lines))
      lanes /= 2;
    // A line's data plus pocketfft's buffer of the same size.
    const std::size_t value_bytes = real ? machine_.value_bytes : 2 * machine_.value_bytes;
    auto fits_half_l2 = [&](std::size_t l) {
      return 2 * static_cast<std::size_t>(p.n) * l * value_bytes <= machine_.l2_bytes / 2;
    };
    const bool single_may_win = !real || machine_.value_bytes == 8;
    if (single_may_win && p.contiguous() && !fits_half_l2(lanes) && fits_half_l2(1)) lanes = 1;
    return lanes;
  }

  void choose_lanes(CpuPass& p) {
    const bool real = p.op != LineOp::kComplex;
    const std::int64_t lines = p.lines();
    const std::size_t lanes = widest_lanes(p);
    p.lanes = lanes;
    const std::size_t narrowest = machine_.narrowest_group(lanes);
    p.line_plans.simd_groups = lanes > 1;
    if (narrowest == 1 || lines % static_cast<std::int64_t>(narrowest) != 0) {
      const bool vectorised = p.n >= 300 && p.n % 4 == 0;  // pocketfft's own rule
      p.line_plans.one_line = vectorised ? LineLayout::kOneLineVectorised : LineLayout::kOneLine;
    }
    p.prefetch_ahead = p.src_strides[p.axis] == 1 && p.n <= kShortLineMaxLength;
    const std::size_t pass_index = plan_.passes.size();
    std::size_t bufsize = 0;
    if (p.line_plans.simd_groups)
      bufsize = std::max(bufsize, sizer_({pass_index, LineLayout::kSimdGroups, real, p.n}));
    if (p.line_plans.one_line)
      bufsize = std::max(bufsize, sizer_({pass_index, *p.line_plans.one_line, real, p.n}));
    const std::size_t length = static_cast<std::size_t>(p.n);
    p.group_scratch = real ? (length + bufsize + 1) / 2 : 2 * length + bufsize;
  }

  // Strided lines are gathered several SIMD groups at a time, so that memory
  // moves in runs of several cache lines; the groups' scratch stays within
  // half of L2, every busy thread keeps a bunch, and real lines are bunched
  // only where the groups lie side by side (bunches across a narrow last
  // axis lost for them, and gained for complex lines).
  std::size_t choose_bunch(const CpuPass& p) const {
    if (p.contiguous() || p.lanes == 1) return 1;
    const std::int64_t lines = p.lines();
    const std::size_t group_bytes = p.group_scratch * p.lanes * 2 * machine_.value_bytes;
    const std::int64_t busy = busy_threads(p);
    const std::int64_t run = p.op == LineOp::kComplex ? lines : neighbour_run(p);
    std::size_t bunch = kMaxBunch;
    while (bunch > 1 && (bunch * group_bytes > machine_.l2_bytes / 2 ||
                         static_cast<std::int64_t>(bunch * p.lanes) * busy > lines ||
                         static_cast<std::int64_t>(bunch * p.lanes) > run))
      bunch /= 2;
    return bunch;
  }

  // Tasks by the pass's points: real values for real lines, complex pairs of
  // bins (n / 2 per line) for a pack or unpack, the m values of Bluestein's
  // convolution before its last pass, complex values otherwise.
  std::int64_t tasks(const CpuPass& p) const {
    const auto value_bytes = static_cast<std::int64_t>(machine_.value_bytes);
    const bool real = p.op == LineOp::kRealToComplex || p.op == LineOp::kComplexToReal;
    std::int64_t points = p.n;
    if (half_length_op(p.op)) points = p.n / 2;
    if (p.op == LineOp::kChirpIn || p.op == LineOp::kChirpKernel) points = p.chirp_length;
    return task_count(p.lines(), points, real ? value_bytes : 2 * value_bytes, machine_);
  }

  std::int64_t busy_threads(const CpuPass& p) const {
    return std::min(tasks(p), std::max<std::int64_t>(machine_.threads, 1));
  }

  const TransformSpec& spec_;
  const CpuMachine& machine_;
  const LinePlanSizer& sizer_;
  std::vector<std::int64_t> in_strides_, out_strides_;
  CpuPlan plan_;
};

}  // namespace

CpuPlan plan_cpu_transform(const TransformSpec& spec, const CpuMachine& machine,
                           const LinePlanSizer& sizer) {
  return Planner(spec, machine, sizer).plan();
}

}  // namespace jax_apple_fft
