// The CPU backend's plan as a plain value: the passes of one transform, what
// each does, with which lane width, grain and split. cpu_planner.h builds it
// without touching memory or threads; cpu_kernels.cc runs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jax_apple_fft {

// Longer lines could not be held in memory anyway; refusing them up front
// keeps a bad length from costing gigabytes of twiddles before failing.
constexpr std::int64_t kMaxLineLength = std::int64_t(1) << 36;

// kComplex, kRealToComplex and kComplexToReal transform lines with pocketfft.
// A real line of even length n can instead run as a complex one of n / 2
// points (which a four-step split spreads over every thread), between
// kPackHalfLength (C2R: the n/2 + 1 bins to the n/2 complex values, into the
// output seen as complex) and kUnpackHalfLength (R2C: the n/2 values to the
// n/2 + 1 bins, in place); or the complex pass packs or unpacks its lines
// (FusedHalfLength below); see half_length.h. A long prime complex line runs
// as Bluestein's convolution of length m (bluestein.h) in the work buffer:
// kChirpIn (the chirped line, zero-padded to m), two complex passes of m
// points around kChirpKernel (times the chirp's spectrum), then kChirpOut
// (the first n values, chirped, into place); a long prime real line too,
// whose real values or n/2 + 1 bins the chirp passes read or write.
enum class LineOp {
  kComplex,
  kRealToComplex,
  kComplexToReal,
  kPackHalfLength,
  kUnpackHalfLength,
  kChirpIn,
  kChirpKernel,
  kChirpOut,
};
enum class Buffer { kInput, kOutput, kTemp, kWork };

inline bool half_length_op(LineOp op) {
  return op == LineOp::kPackHalfLength || op == LineOp::kUnpackHalfLength;
}
inline bool chirp_op(LineOp op) {
  return op == LineOp::kChirpIn || op == LineOp::kChirpKernel || op == LineOp::kChirpOut;
}
// Passes of values one by one, with no line plan: their tasks split lines.
inline bool pointwise_op(LineOp op) { return half_length_op(op) || chirp_op(op); }

// The layout a pocketfft line plan is built for: a SIMD group's lines, one
// in each lane of its vectors; one line at a time; or one line at a time
// vectorised inside the line (pocketfft's own layout, for long lines).
enum class LineLayout { kSimdGroups, kOneLine, kOneLineVectorised };

// The pocketfft line plans a pass runs: one for whole SIMD groups, and one
// for the lines left over from them, one at a time.
struct PassLinePlans {
  bool simd_groups = false;            // a LineLayout::kSimdGroups plan
  std::optional<LineLayout> one_line;  // kOneLine or kOneLineVectorised, if any
};

enum class OutputAhead { kNone, kWholeBunch, kScatter };

// A line of n = rows * columns points as a rows x columns matrix (four_step.h).
struct FourStepSplit {
  std::int64_t rows, columns;  // rows <= columns
};

// The pack (C2R) or unpack (R2C) of a half-length real line (half_length.h)
// run by the complex pass that transforms its lines one at a time, in place
// of a pass of its own over memory: each line packed from the bins into
// scratch on its way in, or unpacked from scratch into the output on its
// way out. The pass's n is the half length: the real lines have 2 n points.
struct FusedHalfLength {
  LineOp op;     // kPackHalfLength or kUnpackHalfLength
  bool forward;  // its sign (the complex lines run forward for R2C, inverse for C2R)
};

// One pass: every line along `axis` of `shape` (all other indices), read
// from `src` and written to `dst` with the given element strides.
struct CpuPass {
  LineOp op = LineOp::kComplex;
  Buffer src = Buffer::kInput, dst = Buffer::kOutput;
  std::vector<std::int64_t> shape, src_strides, dst_strides;
  std::int64_t axis = 0;
  std::int64_t n = 1;  // transform length (the real length for real ops)
  std::int64_t chirp_length = 0;  // Bluestein's convolution length m (chirp ops)
  LineOp chirp_of = LineOp::kComplex;  // the line op the chirp ops stand for
  bool forward = true;  // the exponent's sign this pass runs with
  bool last = false;   // applies the transform's scale, may stream its stores
  // The column pass of a four-step split multiplies by its twiddles on the
  // way out: from a table of all rows x columns of them, rounded to the
  // precision (twiddle_table), or each formed in double as it is used.
  std::optional<FourStepSplit> twiddled;
  bool twiddle_table = false;
  std::optional<FusedHalfLength> fused;

  std::size_t lanes = 1;  // widest SIMD group: lines transformed at once
  std::size_t bunch = 1;  // SIMD groups gathered and scattered together
  PassLinePlans line_plans;
  // Short contiguous source lines: each bunch asks for the memory of the
  // lines that follow it (line_kernels.h).
  bool prefetch_ahead = false;
  // Contiguous lines in SIMD groups ask for their output's cache lines for
  // writing (bunch_access.h): a small bunch's whole output while it is
  // gathered, a larger one's a fixed distance ahead of its scatter.
  OutputAhead output_ahead = OutputAhead::kNone;
  // Scratch of one SIMD group, in vectors of `lanes` complex values.
  std::size_t group_scratch = 0;
  std::int64_t tasks = 1;            // the pass is cut into this many tasks
  std::int64_t groups_per_task = 1;  // of this many SIMD groups each

  std::int64_t lines() const;
  bool contiguous() const { return src_strides[axis] == 1 && dst_strides[axis] == 1; }
};

struct CpuPlan {
  std::vector<CpuPass> passes;
  std::int64_t temp_elements = 0;  // complex elements of the temporary buffer
  std::int64_t work_elements = 0;  // complex elements of Bluestein's work buffer

  // One line per pass, for tests and debugging.
  std::string describe() const;
};

}  // namespace jax_apple_fft
