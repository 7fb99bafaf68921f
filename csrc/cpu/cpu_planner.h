// The CPU planner: from a transform spec and what the machine offers to a
// CpuPlan. Pure: it runs nothing and allocates nothing but the plan; the
// sizes of pocketfft's line buffers come from the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "cpu/cpu_plan.h"
#include "spec/transform_spec.h"

namespace jax_apple_fft {

// L2 per core of the machine the planner's rules were measured on.
constexpr std::size_t kMeasuredL2Bytes = std::size_t(2) << 20;

// What the planner needs to know of the machine and the cache.
struct CpuMachine {
  std::size_t value_bytes = 8;  // sizeof the real type: 4 or 8
  std::size_t simd_lanes = 1;   // values per native SIMD vector
  // Whether SIMD groups of simd_lanes / 2 and simd_lanes / 4 lines exist.
  bool half_width = false;
  bool quarter_width = false;
  std::int64_t threads = 1;  // the cache's worker threads
  std::size_t l2_bytes = kMeasuredL2Bytes;
  // Seconds from a loop's start until every thread has joined it
  // (WorkerPool::wake_seconds), asked only where a pass below
  // kMinBytesToShare could share: measuring it starts every worker. Unknown
  // (infinite, the default): such passes are never shared.
  std::function<double()> wake_seconds = [] { return std::numeric_limits<double>::infinity(); };

  bool lane_width_exists(std::size_t lanes) const;
  // The narrowest group the driver runs for a pass whose widest is `lanes`.
  std::size_t narrowest_group(std::size_t lanes) const;
};

// A pocketfft line plan the planner chose, and where: the caller resolves
// it (through the PlanCache) and returns its buffer size in values.
struct LinePlanChoice {
  std::size_t pass;
  LineLayout layout;
  bool real;
  std::int64_t n;
};
using LinePlanSizer = std::function<std::size_t(const LinePlanChoice&)>;

// Complex lines of at least this many points run as two passes (four-step).
constexpr std::int64_t kFourStepMinLength = std::int64_t(1) << 16;
// Lines that cannot give every thread a full SIMD group (fewer than threads
// x simd_lanes) split four-step from this length, and real lines from twice
// it run at half the length: one pass of such lines runs narrow groups on
// some threads and leaves the others idle. float32 lines gained on 2 threads
// (r2c 65536 x 8 1.00 -> 0.73 ms, c2c 32768 x 8 0.79 -> 0.66) and on 16
// (r2c 65536 x 32 1.78 -> 0.96, c2c 32768 x 64 1.50 -> 1.28). float64 lines,
// which mostly run one at a time anyway, gained on 16 threads from twice the
// length (r2c 65536 x 32 2.08 -> 1.42) and lost on 2 (c2c 32768 x 4 0.62 ->
// 0.78, r2c 65536 x 4 0.88 -> 0.97), so they split so only from
// kMinThreadsToShareSmall threads (benchmarks/compare_builds.py, ours-all).
constexpr std::int64_t kFourStepNarrowMinLength = std::int64_t(1) << 14;
// float64 real lines of a power of two of at least this many points run as
// complex lines of half the length (half_length.h) whether or not those split
// four-step: pocketfft's complex transform, vectorised inside one line, beats
// its real one. benchmarks/compare_builds.py, 2-core EPYC, 5 processes a
// build, ours-all over scipy-all, whole -> half: r2c 65536 x 32 0.946 -> 0.890,
// 32768 x 64 0.871 -> 0.792, 65536 x 4 0.804 -> 0.627, 32768 x 2 1.170 ->
// 1.181; c2r 65536 x 32 0.871 -> 0.810, 32768 x 64 0.843 -> 0.773; one thread
// alike (r2c 32768 x 64 8.05 -> 7.30 ms). At 98304 = 3 * 2^15 the whole line
// wins (98304 x 21, three runs: r2c 0.743, 0.761, 0.798 -> 0.855, 0.883,
// 0.861; c2r 0.810, 0.780, 0.765 -> 0.916, 0.886, 0.833). Not measured below
// 2^15, at other lengths, nor for float32.
constexpr std::int64_t kDoubleHalfLengthMinLength = std::int64_t(1) << 15;
// Neither factor of a four-step split may be shorter than this.
constexpr std::int64_t kFourStepMinFactor = 16;
// A four-step column pass reads its twiddles from a table of one line's
// worth where the table is at most kTwiddleTableMaxBytes: forming each in
// double as it is used took a fifth of the pass (benchmarks/stages.py, c2c
// float32 65536 x 32, one thread), a table read from cache costs a load, and
// it paid for one or two lines as well (c2c float32 65536 x 2, 2 threads,
// 0.79 -> 0.62 ms). Tables of 2 and 4 MiB (float32 and float64 lines of 2^18)
// gained nothing on a 512 KiB L2.
constexpr std::int64_t kTwiddleTableMaxBytes = std::int64_t(1) << 20;
// Contiguous lines of at most this many points carry too little arithmetic
// per byte for the hardware prefetcher to stay ahead of the transform, and
// prefetch the lines that follow in software (128-point lines gained nothing).
constexpr std::int64_t kShortLineMaxLength = 64;
// Contiguous lines gathered into SIMD groups ask for their whole output's
// cache lines while they are gathered (WriteAhead in bunch_access.h) where
// a bunch's output is under this many bytes: on one thread, c2c float32
// 64 x 32768 ran 1.3 times FFTW's time without it and 0.9 with it, r2c
// float64 1536 x 1365 (48 KiB) 1.3 and 0.95; c2c float32 1024 x 2048
// (64 KiB) and 4096 x 512 (256 KiB) lost, their lines asked for too early
// to stay in cache. Larger bunches ask a fixed distance ahead of their
// scatter instead (ScatterAhead).
constexpr std::size_t kWriteAheadBytes = std::size_t(64) << 10;
// Most SIMD groups gathered together.
constexpr std::size_t kMaxBunch = 8;
// A pass is cut into tasks of at least this many elements; one of at least
// kMinBytesToShare (its lines' bytes) into at least kTasksPerThread tasks per
// thread, so that a thread woken late still finds work: with one task per
// thread the others take a late thread's share whole.
constexpr std::int64_t kMinElementsPerTask = std::int64_t(1) << 17;
constexpr std::int64_t kMinBytesToShare = std::int64_t(2) << 20;
constexpr std::int64_t kTasksPerThread = 4;
// A smaller pass is cut so too when the pool has at least
// kMinThreadsToShareSmall threads and what sharing saves, its one-thread
// time (kSecondsPerByte a byte of its lines) times 1 - 1 / threads, exceeds
// the machine's wake_seconds; otherwise it keeps its tasks of
// kMinElementsPerTask.
// c2c float64 256 x 256 passes (1 MiB) ran in 0.19 and 0.27 ms on one
// thread: the faster, about 0.18 ns a byte. On 16 cores whose pool joined
// in 58 us, passes of 0.25-1 MiB shared over 16 threads ran 1.2 to 4.1
// times faster than one task; on 2 threads whose pool joined in 5-7 us,
// 256 x 256 passes shared ran at 0.77-1.02 of their one-task speed.
constexpr double kSecondsPerByte = 0.18e-9;
constexpr std::int64_t kMinThreadsToShareSmall = 4;

// Prime lines that take Bluestein's algorithm (prime_lengths.h) run as the
// plan's own passes (bluestein.h) where pocketfft's line plans would not give
// every thread a full SIMD group of lines, and always from this length. With
// more lines, pocketfft's Bluestein on whole groups won below it: 65539 x 32
// took 53.6 against 62.6 ms (complex64, 1 thread) and 96.1 against 126
// (complex128); one line of 65539 took 5.36 against 3.46, and 524309 x 4
// 78.0 against 67.0 (docs/performance.md, "Long primes").
constexpr std::int64_t kChirpAlwaysLength = std::int64_t(1) << 19;

// The most square split of n, if n is at least min_length and has one.
std::optional<FourStepSplit> most_square_split(std::int64_t n, std::int64_t min_length);

// A contiguous complex line that would run in narrower SIMD groups than the
// machine's widest (too long for full groups in half of L2, or too few
// lines), has no four-step split and whose largest prime factor p takes
// Rader's algorithm (prime_lengths.h) or is at least kLargeFactorMinPrime,
// runs as a four-step split of p and n / p, whose passes hold full groups:
// pocketfft transforms such a line whole and scalar, with a pass of p
// operations a point or Bluestein's algorithm over all of it.
// benchmarks/lines_against_fftw.py on a 2-core EPYC, complex64, our time over
// FFTW's, the whole line -> the split: 12345 = 15 823 x 169 lines, one thread 1.34,
// 1.26 -> 0.62, 0.70, two 1.28, 1.18 -> 0.55, 0.58; in ns a point, one
// thread, 16144 = 16 1009 10.6 -> 6.9, 16256 = 128 127 8.3 -> 5.8, 13504 = 64
// 211 10.2 -> 7.4. Primes that take neither gained nothing or lost below 700:
// 101, 131, 137 (complex128, two threads, 7.0 -> 9.1 and 8.1 -> 9.8), 409,
// 587. Lines that fill SIMD groups lost (1030 = 10 103 x 1024: 6.0 -> 14.8).
constexpr std::int64_t kLargeFactorMinPrime = 700;

// The split of n into its largest prime factor p and n / p, the shorter as
// rows, if p takes Rader's algorithm or is at least kLargeFactorMinPrime
// and p < n.
std::optional<FourStepSplit> large_factor_split(std::int64_t n);

// The plan of `spec` (which must pass spec.check()). Calls `sizer` once for
// every line plan a pass needs, in pass order.
CpuPlan plan_cpu_transform(const TransformSpec& spec, const CpuMachine& machine,
                           const LinePlanSizer& sizer);

}  // namespace jax_apple_fft
