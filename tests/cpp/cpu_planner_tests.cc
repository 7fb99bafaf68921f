// The CPU planner's decisions, on machines described by hand: nothing is
// transformed and no pocketfft plan is built (a stub gives buffer sizes).
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/cpu_planner.h"
#include "cpu/prime_lengths.h"
#include "harness.h"

using namespace jax_apple_fft;
using test_support::expect;

namespace {

// AVX2-like: 8 floats or 4 doubles per vector, half and quarter widths exist.
CpuMachine machine(std::size_t value_bytes, std::int64_t threads) {
  CpuMachine m;
  m.value_bytes = value_bytes;
  m.simd_lanes = 32 / value_bytes;
  m.half_width = true;
  m.quarter_width = value_bytes == 4;
  m.threads = threads;
  return m;
}

TransformSpec spec(TransformKind kind, std::vector<std::int64_t> shape,
                   std::vector<std::int64_t> axes) {
  TransformSpec s;
  s.kind = kind;
  s.in_shape = s.out_shape = shape;
  const std::int64_t last = axes.back();
  if (kind == TransformKind::kR2C) s.out_shape[last] = shape[last] / 2 + 1;
  if (kind == TransformKind::kC2R) s.in_shape[last] = shape[last] / 2 + 1;
  s.axes = axes;
  return s;
}

struct Recorded {
  std::vector<LinePlanChoice> choices;
  CpuPlan plan;
};

// Buffers as large as the line: roughly pocketfft's.
Recorded plan_of(const TransformSpec& s, const CpuMachine& m) {
  Recorded r;
  r.plan = plan_cpu_transform(s, m, [&](const LinePlanChoice& c) {
    r.choices.push_back(c);
    return static_cast<std::size_t>(c.n);
  });
  return r;
}

void test_one_axis_c2c() {
  const Recorded r = plan_of(spec(TransformKind::kC2C, {512, 4096}, {1}), machine(4, 2));
  expect(r.plan.passes.size() == 1, "one pass");
  const CpuPass& p = r.plan.passes[0];
  expect(p.src == Buffer::kInput && p.dst == Buffer::kOutput && p.last, "input to output, last");
  expect(p.lanes == 8 && p.bunch == 1, "widest group, contiguous lines unbunched");
  expect(p.lines() == 512 && p.n == 4096, "512 lines of 4096");
  // 512 * 4096 / 2^17 = 16 tasks, 64 groups: 4 groups each.
  expect(p.tasks == 16 && p.groups_per_task == 4, "16 tasks of 4 groups: " + r.plan.describe());
  expect(p.line_plans.simd_groups && !p.line_plans.one_line,
         "512 lines fill whole groups: no single-line plan");
  expect(r.choices.size() == 1 && r.choices[0].layout == LineLayout::kSimdGroups &&
             !r.choices[0].real,
         "the sizer asked once, for the lane plan");
  expect(r.plan.temp_elements == 0, "no temporary");
}

void test_one_thread_is_one_task() {
  const Recorded r = plan_of(spec(TransformKind::kC2C, {512, 4096}, {1}), machine(4, 1));
  expect(r.plan.passes[0].tasks == 1 && r.plan.passes[0].groups_per_task == 64,
         "one thread: one task of every group");
}

void test_lone_lines_need_a_single_line_plan() {
  const Recorded r = plan_of(spec(TransformKind::kC2C, {13, 300}, {1}), machine(4, 1));
  const CpuPass& p = r.plan.passes[0];
  // 13 lines: 8 in a group, 4 in a half group, 1 alone (narrowest group is 2).
  expect(p.lanes == 8 && p.line_plans.simd_groups && p.line_plans.one_line,
         "13 lines: groups and a lone line");
  expect(p.line_plans.one_line == LineLayout::kOneLineVectorised,
         "300 points, a multiple of 4: pocketfft vectorises inside the line");
  expect(r.choices.size() == 2 && r.choices[1].layout == LineLayout::kOneLineVectorised,
         "lane plan, then the in-line single plan");
}

void test_groups_shrink_to_keep_threads_busy() {
  // 16 lines, 16 threads: 16 * 2^13 complex float64 values (2 MiB) are one
  // task of 2^17 elements, and a pass of 2 MiB or more takes 4 per thread,
  // but no more than its 16 lines: 16 busy threads, one line each.
  CpuMachine m = machine(8, 16);
  m.l2_bytes = std::size_t(64) << 20;
  const Recorded r = plan_of(spec(TransformKind::kC2C, {16, 1 << 13}, {1}), m);
  expect(r.plan.passes[0].tasks == 16 && r.plan.passes[0].lanes == 1,
         "16 busy threads x 1 lane = 16 lines: " + r.plan.describe());
}

void test_passes_of_2_mib_take_four_tasks_per_thread() {
  const auto tasks_of = [](const Recorded& r) {
    std::vector<std::int64_t> t;
    for (const CpuPass& p : r.plan.passes) t.push_back(p.tasks);
    return t;
  };
  // 1024 x 1024 complex float32: 8 MiB a pass, 8 tasks of 2^17 elements; 16 threads take 64.
  const Recorded wide = plan_of(spec(TransformKind::kC2C, {1024, 1024}, {0, 1}), machine(4, 16));
  expect(tasks_of(wide) == std::vector<std::int64_t>{64, 64}, "64 tasks: " + wide.plan.describe());
  // 2 threads take 8, the pass's own 8 being enough.
  const Recorded two = plan_of(spec(TransformKind::kC2C, {1024, 1024}, {0, 1}), machine(4, 2));
  expect(tasks_of(two) == std::vector<std::int64_t>{8, 8}, "8 tasks: " + two.plan.describe());
  // 256 x 256 complex float64: 1 MiB a pass, one task while the wake cost is unknown.
  const Recorded small = plan_of(spec(TransformKind::kC2C, {256, 256}, {0, 1}), machine(8, 16));
  expect(tasks_of(small) == std::vector<std::int64_t>{1, 1}, "one task: " + small.plan.describe());
  // The real pass counts real values: 512 x 1024 float32 is 2 MiB.
  const Recorded real = plan_of(spec(TransformKind::kR2C, {512, 1024}, {1}), machine(4, 16));
  expect(tasks_of(real) == std::vector<std::int64_t>{64}, "real: " + real.plan.describe());
}

// A pass below 2 MiB shares as a larger one does (four tasks per thread, at
// most one per group) on 4 threads or more, when what it saves, 0.18 ns a byte times
// 1 - 1 / threads, is more than the wake cost.
void test_small_passes_share_when_waking_is_cheap() {
  const auto tasks_of = [](const CpuMachine& m) {
    const TransformSpec s = spec(TransformKind::kC2C, {256, 256}, {0, 1});
    std::vector<std::int64_t> t;
    for (const CpuPass& p : plan_of(s, m).plan.passes) t.push_back(p.tasks);
    return t;
  };
  // 0.5 MiB of complex float32: about 94 us alone, 88 us saved on 16 threads,
  // so waking must cost under 88.5 us.
  CpuMachine m = machine(4, 16);
  m.wake_seconds = [] { return 88e-6; };
  // 256 lines in groups of 8: 32 groups, one a task.
  expect(tasks_of(m) == std::vector<std::int64_t>{32, 32}, "cheap wake: shared");
  m.wake_seconds = [] { return 89e-6; };
  expect(tasks_of(m) == std::vector<std::int64_t>{1, 1}, "dear wake: one task");
  // 4 threads save 71 us, so waking must cost under 70.8 us.
  m = machine(4, 4);
  m.wake_seconds = [] { return 70e-6; };
  expect(tasks_of(m) == std::vector<std::int64_t>{16, 16}, "4 threads, cheap wake");
  m.wake_seconds = [] { return 71e-6; };
  expect(tasks_of(m) == std::vector<std::int64_t>{1, 1}, "4 threads, dear wake");
  // Fewer than kMinThreadsToShareSmall threads never share a small pass.
  m = machine(4, 2);
  m.wake_seconds = [] { return 0; };
  expect(tasks_of(m) == std::vector<std::int64_t>{1, 1}, "2 threads: one task");
  // Large passes take four tasks per thread whatever waking costs.
  m = machine(4, 16);
  m.wake_seconds = [] { return 1.0; };
  const Recorded wide = plan_of(spec(TransformKind::kC2C, {1024, 1024}, {0, 1}), m);
  expect(wide.plan.passes[0].tasks == 64, "large pass: " + wide.plan.describe());
}

void test_most_square_split() {
  expect(!most_square_split((1 << 16) - 1, kFourStepMinLength), "below the threshold");
  const auto split = most_square_split(1 << 16, kFourStepMinLength);
  expect(split && split->rows == 256 && split->columns == 256, "2^16 = 256 x 256");
  const auto odd = most_square_split(3 << 16, kFourStepMinLength);
  expect(odd && odd->rows * odd->columns == (3 << 16) && odd->rows <= odd->columns &&
             odd->rows >= 256,
         "3 * 2^16: a near-square split");
  expect(!most_square_split(65537, kFourStepMinLength), "a prime has none");
  expect(!most_square_split(2 * 65537, kFourStepMinLength), "factors below 16 do not count");

  const Recorded r = plan_of(spec(TransformKind::kC2C, {2, 1 << 20}, {1}), machine(8, 2));
  expect(r.plan.passes.size() == 2, "a long line runs as two passes");
  const CpuPass& columns = r.plan.passes[0];
  const CpuPass& rows = r.plan.passes[1];
  expect(columns.twiddled && columns.twiddled->rows == 1024 && columns.dst == Buffer::kTemp &&
             columns.n == 1024 && columns.src_strides[1] == 1024,
         "columns: strided reads into the temporary, twiddled");
  expect(!rows.twiddled && rows.src == Buffer::kTemp && rows.dst == Buffer::kOutput &&
             rows.n == 1024 && rows.last,
         "rows: from the temporary into place, last");
  expect(r.plan.temp_elements == 2 << 20, "the temporary holds the whole output");
  expect(columns.bunch > 1, "strided columns are bunched");
  expect(!columns.twiddle_table, "2 lines: twiddles formed as used");
}

void test_large_factor_split() {
  const auto split = large_factor_split(12345);  // 3 * 5 * 823
  expect(split && split->rows == 15 && split->columns == 823, "12345 = 15 x 823");
  const auto rader = large_factor_split(127 * 256);  // 127 takes Rader's algorithm
  expect(rader && rader->rows == 127 && rader->columns == 256, "the shorter factor as rows");
  expect(large_factor_split(2 * 1009) && large_factor_split(2 * 1009)->rows == 2,
         "any cofactor");
  expect(!large_factor_split(137 * 96), "137: neither Rader's nor large");
  expect(!large_factor_split(1 << 14) && !large_factor_split(823) && !large_factor_split(1),
         "smooth, prime or 1: no split");
  // 701 is the first prime from the bound; 691 - 1 = 2 3 5 23 is not Rader's.
  expect(kLargeFactorMinPrime == 700 && large_factor_split(2 * 701) && !large_factor_split(2 * 691),
         "the bound");

  // Lines in narrower groups than the machine's widest split; lines full
  // groups hold do not.
  auto first_pass = [](std::vector<std::int64_t> shape, std::size_t value_bytes) {
    const Recorded r = plan_of(spec(TransformKind::kC2C, shape, {1}), machine(value_bytes, 2));
    return r.plan.passes[0];
  };
  const CpuPass lone = first_pass({3, 12345}, 4);
  expect(lone.twiddled && lone.twiddled->rows == 15 && lone.n == 15 && lone.dst == Buffer::kTemp,
         "3 lines of 12345: split");
  expect(first_pass({169, 12345}, 8).twiddled.has_value(), "lines beyond half of L2: split");
  expect(!first_pass({1024, 1030}, 4).twiddled, "1030 = 10 x 103 in groups: whole");
  expect(!first_pass({1024, 127 * 8}, 4).twiddled, "1016 in groups: whole");
  expect(first_pass({2, 127 * 8}, 4).twiddled.has_value(), "1016, two lines: split");
  // A strided axis has no four-step split.
  const Recorded strided = plan_of(spec(TransformKind::kC2C, {12345, 3}, {0}), machine(4, 2));
  expect(strided.plan.passes.size() == 1 && !strided.plan.passes[0].twiddled, "strided: whole");
}

void test_twiddle_table() {
  auto table = [](std::int64_t lines, std::int64_t n, std::size_t value_bytes) {
    const Recorded r = plan_of(spec(TransformKind::kC2C, {lines, n}, {1}), machine(value_bytes, 2));
    expect(r.plan.passes.size() == 2 && r.plan.passes[0].twiddled && !r.plan.passes[1].twiddled,
           "four-step: " + r.plan.describe());
    return r.plan.passes[0].twiddle_table;
  };
  expect(table(4, 1 << 16, 4), "float 2^16 x 4: from a table (512 KiB)");
  expect(table(1, 1 << 16, 4), "one line too");
  expect(table(8, 1 << 16, 8), "double 2^16 x 8: a table of 1 MiB, the most");
  expect(table(8, 1 << 17, 4), "float 2^17 x 8: 1 MiB");
  expect(!table(8, 1 << 17, 8), "double 2^17: 2 MiB, formed as used");
  expect(!table(8, 1 << 18, 4), "float 2^18: 2 MiB, formed as used");
}

void test_four_step_needs_a_free_temporary() {
  // C2R's complex passes already run through the temporary: no four-step there.
  const Recorded r = plan_of(spec(TransformKind::kC2R, {1 << 16, 4}, {0, 1}), machine(8, 2));
  expect(r.plan.passes.size() == 2 && !r.plan.passes[0].twiddled,
         "C2R's complex axis in the temporary stays one pass");
  expect(r.plan.passes[0].src == Buffer::kInput && r.plan.passes[0].dst == Buffer::kTemp &&
             r.plan.passes[1].src == Buffer::kTemp && r.plan.passes[1].op == LineOp::kComplexToReal,
         "complex axis into the temporary, then C2R into the output");
}

void test_real_passes() {
  const Recorded r2c = plan_of(spec(TransformKind::kR2C, {64, 32, 30}, {0, 2}), machine(4, 2));
  expect(r2c.plan.passes.size() == 2 && r2c.plan.passes[0].op == LineOp::kRealToComplex &&
             r2c.plan.passes[0].axis == 2 && r2c.plan.passes[1].op == LineOp::kComplex &&
             r2c.plan.passes[1].axis == 0 && r2c.plan.passes[1].src == Buffer::kOutput,
         "R2C: the real axis first, then the complex ones in place in the output");
  expect(r2c.choices[0].real && !r2c.choices.back().real, "real plan, then complex");
}

void test_long_real_lines_run_at_half_length() {
  // 2 real lines of 2^20 points on 4 threads: complex lines of 2^19 (four-step
  // from the input seen as complex into the output), then the unpack in place.
  const Recorded r2c = plan_of(spec(TransformKind::kR2C, {2, 1 << 20}, {1}), machine(4, 4));
  const auto& p = r2c.plan.passes;
  expect(p.size() == 3 && p[0].twiddled && p[0].src == Buffer::kInput && p[1].dst == Buffer::kOutput,
         "r2c: four-step on half the length: " + r2c.plan.describe());
  expect(p[0].op == LineOp::kComplex && p[0].src_strides[0] == (1 << 19) &&
             p[0].shape[1] * p[0].shape[2] == (1 << 19),
         "the input as complex: rows of 2^19 values");
  TransformSpec inverse_sign = spec(TransformKind::kR2C, {2, 1 << 20}, {1});
  inverse_sign.forward = false;
  const Recorded inverse_plan = plan_of(inverse_sign, machine(4, 4));
  const auto& ip = inverse_plan.plan.passes;
  expect(ip[0].forward && ip[1].forward && !ip[2].forward,
         "inverse-sign r2c: forward complex passes, the unpack conjugates");
  expect(p[2].op == LineOp::kUnpackHalfLength && p[2].src == Buffer::kOutput &&
             p[2].dst == Buffer::kOutput && p[2].last && p[2].tasks >= 4 && p[2].tasks % 2 == 0 &&
             !p[1].fused,
         "unpack in place, a pass of its own after the rows pass, last, split within lines into "
         "as many ranges each");
  // The inverse: pack into the output seen as complex, then the inverse-sign
  // complex passes there, whatever the spec's sign.
  TransformSpec backward = spec(TransformKind::kC2R, {2, 1 << 20}, {1});
  backward.forward = true;
  const Recorded c2r = plan_of(backward, machine(4, 4));
  const auto& q = c2r.plan.passes;
  expect(q.size() == 3 && q[0].op == LineOp::kPackHalfLength && q[0].src == Buffer::kInput &&
             q[0].dst == Buffer::kOutput && q[0].dst_strides[0] == (1 << 19) && q[0].forward,
         "c2r: pack first: " + c2r.plan.describe());
  expect(!q[1].forward && !q[2].forward && q[1].src == Buffer::kOutput && q[2].last,
         "then the inverse-sign four-step on the output");
  // However many lines per thread: a line per thread, and 64 on one thread.
  expect(plan_of(spec(TransformKind::kR2C, {4, 1 << 20}, {1}), machine(4, 4)).plan.passes.size() == 3,
         "a line per thread: half the length");
  expect(plan_of(spec(TransformKind::kC2R, {64, 1 << 17}, {1}), machine(4, 1)).plan.passes.size() == 3,
         "64 lines on one thread: half the length");
  // An odd length, or half of it below the four-step threshold: one pocketfft pass.
  expect(plan_of(spec(TransformKind::kR2C, {1, (1 << 20) + 1}, {1}), machine(4, 4)).plan.passes.size() == 1,
         "an odd length: one real pass");
  expect(plan_of(spec(TransformKind::kR2C, {32, 1 << 16}, {1}), machine(4, 4)).plan.passes.size() == 1,
         "half the length below the four-step threshold, a full group a thread: one real pass");
  // float64 lines from kDoubleHalfLengthMinLength: half the length, unsplit.
  const auto double_passes = [](TransformKind kind, std::int64_t n) {
    return plan_of(spec(kind, {64, n}, {1}), machine(8, 2)).plan.passes;
  };
  const auto unsplit = double_passes(TransformKind::kR2C, kDoubleHalfLengthMinLength);
  expect(unsplit.size() == 1 && unsplit[0].op == LineOp::kComplex && !unsplit[0].twiddled &&
             unsplit[0].n == kDoubleHalfLengthMinLength / 2 && unsplit[0].lanes == 1 &&
             unsplit[0].fused && unsplit[0].fused->op == LineOp::kUnpackHalfLength &&
             2 * unsplit[0].n == kDoubleHalfLengthMinLength && unsplit[0].fused->forward &&
             unsplit[0].src == Buffer::kInput && unsplit[0].last,
         "float64 r2c of 2^15: complex lines of 2^14, unsplit, one at a time, each unpacked "
         "on its way out");
  TransformSpec inverse_unsplit = spec(TransformKind::kR2C, {64, kDoubleHalfLengthMinLength}, {1});
  inverse_unsplit.forward = false;
  const auto inverse_passes = plan_of(inverse_unsplit, machine(8, 2)).plan.passes;
  expect(inverse_passes[0].forward && !inverse_passes[0].fused->forward,
         "inverse-sign r2c: the complex lines forward, the unpack conjugates");
  // Lines in SIMD groups (an L2 that holds four of them) keep the unpack a
  // pass of its own: their values leave scratch in vectors across lines.
  CpuMachine large_l2 = machine(8, 2);
  large_l2.l2_bytes = std::size_t(64) << 20;
  const auto grouped =
      plan_of(spec(TransformKind::kR2C, {64, kDoubleHalfLengthMinLength}, {1}), large_l2).plan.passes;
  expect(grouped.size() == 2 && grouped[0].lanes > 1 && !grouped[0].fused &&
             grouped[1].op == LineOp::kUnpackHalfLength,
         "lines in SIMD groups: the unpack is a pass");
  // C2R alike: the complex lines read the bins, packed on their way in,
  // with the inverse sign; the pack conjugates for the forward sign.
  TransformSpec backward_unsplit = spec(TransformKind::kC2R, {64, kDoubleHalfLengthMinLength}, {1});
  backward_unsplit.forward = true;
  const auto packing = plan_of(backward_unsplit, machine(8, 2)).plan.passes;
  expect(packing.size() == 1 && packing[0].op == LineOp::kComplex && packing[0].lanes == 1 &&
             packing[0].src == Buffer::kInput && packing[0].dst == Buffer::kOutput &&
             packing[0].src_strides[0] == kDoubleHalfLengthMinLength / 2 + 1 &&
             packing[0].dst_strides[0] == kDoubleHalfLengthMinLength / 2 &&
             packing[0].fused && packing[0].fused->op == LineOp::kPackHalfLength &&
             packing[0].fused->forward && !packing[0].forward && packing[0].last,
         "float64 c2r of 2^15: the bins packed into complex lines of 2^14 on their way in");
  const auto grouped_c2r =
      plan_of(spec(TransformKind::kC2R, {64, kDoubleHalfLengthMinLength}, {1}), large_l2).plan.passes;
  expect(grouped_c2r.size() == 2 && grouped_c2r[0].op == LineOp::kPackHalfLength &&
             grouped_c2r[1].lanes > 1 && !grouped_c2r[1].fused,
         "c2r lines in SIMD groups: the pack is a pass");
  expect(double_passes(TransformKind::kR2C, 2 * kDoubleHalfLengthMinLength)[0].n ==
             kDoubleHalfLengthMinLength,
         "float64 r2c of 2^16: half the length");
  const auto one_real_pass = [&](TransformKind kind, std::int64_t n) {
    const auto passes = double_passes(kind, n);
    return passes.size() == 1 && passes[0].op != LineOp::kComplex;
  };
  expect(one_real_pass(TransformKind::kR2C, kDoubleHalfLengthMinLength / 2) &&
             one_real_pass(TransformKind::kR2C, 3 * kDoubleHalfLengthMinLength) &&
             one_real_pass(TransformKind::kC2R, 3 * kDoubleHalfLengthMinLength) &&
             one_real_pass(TransformKind::kR2C, kDoubleHalfLengthMinLength + 1),
         "float64 below the bound, not a power of two, or odd: one real pass");
}

void test_lines_too_few_for_full_groups_split_from_a_shorter_length() {
  // 4 threads of 8 floats: 32 lines give every thread a full group.
  const auto passes = [](TransformKind kind, std::int64_t lines, std::int64_t n, std::int64_t threads) {
    return plan_of(spec(kind, {lines, n}, {1}), machine(4, threads)).plan.passes;
  };
  const auto c2c = passes(TransformKind::kC2C, 31, 1 << 15, 4);
  expect(c2c.size() == 2 && c2c[0].twiddled && c2c[0].twiddled->rows * c2c[0].twiddled->columns == (1 << 15),
         "31 complex lines of 2^15 on 4 threads: four-step");
  expect(passes(TransformKind::kC2C, 32, 1 << 15, 4).size() == 1, "32 lines: one pass");
  expect(passes(TransformKind::kC2C, 1, (1 << 14) - 4, 4).size() == 1,
         "below the narrow threshold: one pass");
  expect(passes(TransformKind::kC2C, 4, 1 << 14, 1).size() == 2 &&
             passes(TransformKind::kC2C, 8, 1 << 14, 1).size() == 1,
         "one thread: fewer lines than a full group");
  const auto r2c = passes(TransformKind::kR2C, 16, 1 << 15, 4);
  expect(r2c.size() == 3 && r2c[0].op == LineOp::kComplex && r2c[0].n * r2c[1].n == (1 << 14) &&
             r2c[2].op == LineOp::kUnpackHalfLength,
         "16 real lines of 2^15 on 4 threads: half the length, four-step");
  expect(passes(TransformKind::kC2R, 16, 1 << 15, 4)[0].op == LineOp::kPackHalfLength &&
             passes(TransformKind::kC2R, 32, 1 << 15, 4).size() == 1,
         "c2r alike");
  expect(passes(TransformKind::kR2C, 16, 1 << 14, 4).size() == 1,
         "a real line of 2^14: its half is below the narrow threshold");
  // float64, 4 threads of 4 doubles: 16 lines fill them; the threshold is 2^15.
  const auto doubles = [](TransformKind kind, std::int64_t lines, std::int64_t n) {
    return plan_of(spec(kind, {lines, n}, {1}), machine(8, 4)).plan.passes.size();
  };
  expect(doubles(TransformKind::kC2C, 8, 1 << 14) == 1 && doubles(TransformKind::kC2C, 8, 1 << 15) == 2 &&
             doubles(TransformKind::kC2C, 16, 1 << 15) == 1,
         "float64: complex lines from 2^15");
  expect(doubles(TransformKind::kR2C, 8, 1 << 15) == 2 && doubles(TransformKind::kR2C, 8, 1 << 16) == 3,
         "float64: real lines of 2^15 at half the length unsplit, split from 2^16");
  expect(plan_of(spec(TransformKind::kC2C, {2, 1 << 15}, {1}), machine(8, 2)).plan.passes.size() == 1,
         "float64 on 2 threads: one pass");
}

void test_long_prime_lines_run_as_chirp_passes() {
  using prime_lengths::bluestein_length;
  expect(prime_lengths::takes_bluestein(32771) && prime_lengths::takes_bluestein(16777213) &&
             !prime_lengths::takes_bluestein(65537) && !prime_lengths::takes_bluestein(32749) &&
             !prime_lengths::takes_bluestein(69683),
         "Bluestein: primes from 32769 that Rader's algorithm does not take");
  expect(bluestein_length(32771) == 65610 && bluestein_length(16777213) == (1 << 25),
         "the least 2^a 3^b 5^c of at least 2n - 1");
  // Along axis 0 of 32771 x 3: the work buffer holds 3 lines of m one after another.
  const std::int64_t p = 32771, m = 65610;
  const Recorded r = plan_of(spec(TransformKind::kC2C, {p, 3}, {0}), machine(8, 4));
  const auto& q = r.plan.passes;
  expect(q.size() == 7 && q[0].op == LineOp::kChirpIn && q[3].op == LineOp::kChirpKernel &&
             q[6].op == LineOp::kChirpOut && q[6].last,
         "chirp in, two four-step passes, kernel, two four-step passes, chirp out: " +
             r.plan.describe());
  expect(q[0].src == Buffer::kInput && q[0].src_strides[0] == 3 && q[0].dst == Buffer::kWork &&
             q[0].dst_strides[0] == 1 && q[0].dst_strides[1] == m && q[0].chirp_length == m,
         "chirp in: strided lines into contiguous work lines of m");
  expect(q[1].twiddled && q[1].src == Buffer::kWork && q[2].dst == Buffer::kWork &&
             q[3].shape == std::vector<std::int64_t>{3, m} && q[3].axis == 1 && q[1].forward &&
             q[2].forward && !q[4].forward && !q[5].forward && q[4].twiddled,
         "the forward transform of m points, then the inverse, in the work buffer");
  expect(q[6].src == Buffer::kWork && q[6].dst == Buffer::kOutput && q[6].dst_strides[0] == 3 &&
             q[0].tasks % 3 == 0 && q[6].tasks % 3 == 0,
         "chirp out into place; pointwise tasks split each line alike");
  expect(r.plan.work_elements == 3 * m && r.plan.temp_elements == 3 * m, "work and temporary");
  // Enough lines for a full SIMD group per thread keep pocketfft's line
  // plans, below kChirpAlwaysLength (4 threads x 4 lanes here).
  expect(plan_of(spec(TransformKind::kC2C, {16, p}, {1}), machine(8, 4)).plan.passes.size() == 1,
         "16 lines of 32771 on 4 threads: one pass");
  expect(plan_of(spec(TransformKind::kC2C, {15, p}, {1}), machine(8, 4)).plan.passes.size() == 7,
         "15 lines: chirp passes");
  expect(plan_of(spec(TransformKind::kC2C, {64, 524309}, {1}), machine(8, 1)).plan.passes.size() == 7,
         "524309 points: chirp passes however many lines");
  // Rader's primes, shorter primes and complex passes into the temporary
  // (C2R's) keep pocketfft's line plans.
  for (std::int64_t n : {65537, 32749})
    expect(plan_of(spec(TransformKind::kC2C, {3, n}, {1}), machine(8, 4)).plan.passes.size() == 1,
           std::to_string(n) + ": one pass of pocketfft's line plans");
  // Real lines: the chirp passes read and write them as what they stand for.
  const Recorded r2c = plan_of(spec(TransformKind::kR2C, {2, p}, {1}), machine(8, 4));
  expect(r2c.plan.passes.size() == 7 && r2c.plan.passes[0].chirp_of == LineOp::kRealToComplex &&
             r2c.plan.passes[6].chirp_of == LineOp::kRealToComplex &&
             r2c.plan.passes[6].shape[1] == p / 2 + 1,
         "r2c: chirp passes of a real line: " + r2c.plan.describe());
  const Recorded c2r = plan_of(spec(TransformKind::kC2R, {p, 8}, {0, 1}), machine(8, 4));
  expect(c2r.plan.passes.size() == 2 && c2r.plan.work_elements == 0,
         "a complex pass into the temporary keeps its line plans: " + c2r.plan.describe());
  const Recorded c2r_line = plan_of(spec(TransformKind::kC2R, {2, p}, {1}), machine(8, 4));
  expect(c2r_line.plan.passes.size() == 7 &&
             c2r_line.plan.passes[0].chirp_of == LineOp::kComplexToReal,
         "c2r of one axis: chirp passes: " + c2r_line.plan.describe());
}

void test_contiguous_lines_overflowing_l2_run_alone() {
  // c2c float64, n = 2^15: a group of 4 lines (2 MiB of data and buffer)
  // overflows half of L2 where one line (512 KiB) fits.
  CpuMachine m = machine(8, 1);
  expect(plan_of(spec(TransformKind::kC2C, {64, 1 << 15}, {1}), m).plan.passes[0].lanes == 1,
         "2 MiB L2: float64 lines of 2^15 run one at a time");
  m.l2_bytes = std::size_t(8) << 20;
  expect(plan_of(spec(TransformKind::kC2C, {64, 1 << 15}, {1}), m).plan.passes[0].lanes == 4,
         "8 MiB L2: the whole group fits");
  // Real float32 lines never give up their group (2^16 points: 4 MiB a group).
  expect(plan_of(spec(TransformKind::kR2C, {64, 1 << 16}, {1}), machine(4, 1))
                 .plan.passes[0].lanes == 8,
         "real float32 lines keep the widest group");
}

void test_bunches() {
  // Strided complex lines along axis 0 of 4096 x 256 (float64, 1 thread).
  const Recorded r = plan_of(spec(TransformKind::kC2C, {4096, 256}, {0}), machine(8, 1));
  const CpuPass& p = r.plan.passes[0];
  // A group: (2 * 4096 + 4096) vectors of 4 complex doubles = 768 KiB; two
  // would overflow half of a 2 MiB L2.
  expect(p.lanes == 4 && p.bunch == 1, "768 KiB groups: one at a time: " + r.plan.describe());
  const Recorded small = plan_of(spec(TransformKind::kC2C, {256, 256}, {0}), machine(8, 1));
  expect(small.plan.passes[0].bunch == kMaxBunch, "48 KiB groups: the largest bunch");
  // Real lines are bunched only as far as they lie side by side: along
  // axis 1 of 64 x 256 x w, runs of w lines; groups of 8 lines.
  const Recorded narrow = plan_of(spec(TransformKind::kR2C, {64, 256, 2}, {1}), machine(4, 1));
  expect(narrow.plan.passes[0].lanes == 8 && narrow.plan.passes[0].bunch == 1,
         "real lines in runs of 2: no bunch");
  const Recorded wide = plan_of(spec(TransformKind::kR2C, {64, 256, 16}, {1}), machine(4, 1));
  expect(wide.plan.passes[0].bunch == 2, "real lines in runs of 16: bunches of 2 groups of 8");
  const Recorded complex = plan_of(spec(TransformKind::kC2C, {64, 256, 2}, {1}), machine(4, 1));
  expect(complex.plan.passes[0].bunch > 1, "complex lines bunch across runs");
}

void test_empty_spec_has_no_passes() {
  const Recorded r = plan_of(spec(TransformKind::kC2C, {0, 8}, {1}), machine(4, 2));
  expect(r.plan.passes.empty() && r.choices.empty(), "nothing to plan");
}

void test_short_contiguous_lines_prefetch() {
  const CpuMachine m = machine(8, 2);
  auto prefetches = [&](TransformKind kind, std::vector<std::int64_t> shape, std::int64_t axis) {
    const Recorded r = plan_of(spec(kind, std::move(shape), {axis}), m);
    return r.plan.passes[0].prefetch_ahead;
  };
  expect(prefetches(TransformKind::kC2C, {131072, 16}, 1), "c2c of 16 points prefetches");
  expect(prefetches(TransformKind::kR2C, {32768, 64}, 1), "r2c of 64 points prefetches");
  expect(prefetches(TransformKind::kC2R, {32768, 64}, 1), "c2r of 64 points prefetches");
  expect(!prefetches(TransformKind::kC2C, {16384, 128}, 1), "128 points do not");
  expect(!prefetches(TransformKind::kC2C, {64, 4096}, 0), "strided lines do not");
}

void test_short_contiguous_lines_write_ahead() {
  auto writes_ahead = [](TransformKind kind, std::vector<std::int64_t> shape, std::int64_t axis,
                         const CpuMachine& m) {
    const Recorded r = plan_of(spec(kind, std::move(shape), {axis}), m);
    return r.plan.passes.back().output_ahead == OutputAhead::kWholeBunch;
  };
  const CpuMachine m = machine(4, 2);
  expect(writes_ahead(TransformKind::kC2C, {16384, 128}, 1, m), "c2c of 128 points");
  expect(writes_ahead(TransformKind::kR2C, {131072, 16}, 1, m), "r2c of 16 points");
  expect(writes_ahead(TransformKind::kC2R, {32768, 64}, 1, m), "c2r of 64 points");
  expect(writes_ahead(TransformKind::kC2C, {4096, 512}, 1, m), "c2c of 512 points: 32 KiB");
  expect(!writes_ahead(TransformKind::kC2C, {2048, 1024}, 1, m), "1024 points: 64 KiB do not");
  expect(writes_ahead(TransformKind::kC2R, {1365, 1536}, 1, machine(8, 2)),
         "c2r float64 of 1536 points: 48 KiB of real output");
  expect(!writes_ahead(TransformKind::kC2R, {1024, 2048}, 1, machine(8, 2)),
         "c2r float64 of 2048 points: 64 KiB do not");
  // Larger bunches ask ahead of their scatter; lone lines and strided ones do not.
  auto ahead_of_scatter = [](TransformKind kind, std::vector<std::int64_t> shape,
                             std::int64_t axis, const CpuMachine& m) {
    const Recorded r = plan_of(spec(kind, std::move(shape), {axis}), m);
    return r.plan.passes.back().output_ahead == OutputAhead::kScatter;
  };
  expect(ahead_of_scatter(TransformKind::kR2C, {512, 4096}, 1, machine(8, 2)),
         "r2c float64 of 4096 points");
  expect(ahead_of_scatter(TransformKind::kC2C, {2048, 1024}, 1, m), "c2c float32 of 1024 points");
  expect(!ahead_of_scatter(TransformKind::kC2C, {1, 4096}, 1, m), "a lone line");
  expect(!ahead_of_scatter(TransformKind::kC2C, {4096, 512}, 0, m), "strided lines");
  expect(!writes_ahead(TransformKind::kC2C, {64, 4096}, 0, m), "strided lines do not");
  expect(!writes_ahead(TransformKind::kC2C, {1, 64}, 1, m), "a lone line (no SIMD group) does not");
  // The last pass of a 2-D transform writes its contiguous lines ahead.
  const Recorded two_d = plan_of(spec(TransformKind::kC2C, {128, 128}, {0, 1}), m);
  expect(two_d.plan.passes[0].output_ahead == OutputAhead::kNone &&
             two_d.plan.passes[1].output_ahead == OutputAhead::kWholeBunch,
         "2-D: the strided pass does not, the contiguous one does");
}

const test_support::Suite kSuite("cpu_planner", {
    TEST_CASE(test_one_axis_c2c),
    TEST_CASE(test_one_thread_is_one_task),
    TEST_CASE(test_lone_lines_need_a_single_line_plan),
    TEST_CASE(test_groups_shrink_to_keep_threads_busy),
    TEST_CASE(test_small_passes_share_when_waking_is_cheap),
    TEST_CASE(test_passes_of_2_mib_take_four_tasks_per_thread),
    TEST_CASE(test_most_square_split),
    TEST_CASE(test_large_factor_split),
    TEST_CASE(test_twiddle_table),
    TEST_CASE(test_four_step_needs_a_free_temporary),
    TEST_CASE(test_real_passes),
    TEST_CASE(test_long_real_lines_run_at_half_length),
    TEST_CASE(test_lines_too_few_for_full_groups_split_from_a_shorter_length),
    TEST_CASE(test_long_prime_lines_run_as_chirp_passes),
    TEST_CASE(test_contiguous_lines_overflowing_l2_run_alone),
    TEST_CASE(test_bunches),
    TEST_CASE(test_empty_spec_has_no_passes),
    TEST_CASE(test_short_contiguous_lines_prefetch),
    TEST_CASE(test_short_contiguous_lines_write_ahead),
});

}  // namespace
