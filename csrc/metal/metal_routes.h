// The Metal planner's route choice: how a length factors into the passes
// the kernels run, and which kernel build runs a pass. Pure functions of
// lengths; metal_planner.cc builds the dispatch records of the route.
//
// A complex transform of length n takes the first route that serves it:
//   one Stockham pass in one threadgroup (n <= 4096, factors in 2..13);
//   three passes of at most coalesced_length each, where two do not split
//   n or would crowd (metal_planner.cc, three_pass_route);
//   four-step, two passes of at most coalesced_length each;
//   four-step, two passes of at most 4096 each;
//   three passes of at most 4096 each;
//   Rader, for a prime n whose n - 1 takes a four-step split, where
//   Bluestein's convolution would not fit one group: a convolution of n - 1
//   points in three passes, which carry bin 0 beside it;
//   Bluestein, a convolution of a length m >= 2n - 1 that one of the above
//   routes takes.
// Real transforms of even n run a half-length complex transform with the
// pack (C2R) or unpack (R2C) fused into its one pass or run as a pass of its
// own; odd n run the full-length complex transform.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fft_params.h"

namespace jax_apple_fft::metal_routes {

inline constexpr std::uint64_t kThreadgroupElements = FFT_THREADGROUP_ELEMENTS;

// Bytes of one coalesced piece of device memory, a property of the GPU a
// plan is for: a SIMD group's accesses that fill whole pieces cost no more
// than the bytes they move. NVIDIA's sectors are 32 bytes (the CUDA
// verifier's GPU); Apple GPUs are planned with 64 (VkFFT's setting for
// Metal; not measured here).
inline constexpr std::uint32_t kNvidiaCoalescedBytes = 32;
inline constexpr std::uint32_t kAppleCoalescedBytes = 64;

// The pieces the planner takes: powers of two from one complex64 value (8
// bytes) to 128.
constexpr bool valid_coalesced_bytes(std::uint32_t bytes) {
  return bytes >= 8 && bytes <= 128 && (bytes & (bytes - 1)) == 0;
}

// Neighbouring transforms whose same complex64 element fills one piece.
constexpr std::uint32_t across_transforms(std::uint32_t coalesced_bytes) {
  return coalesced_bytes / 8;
}

// The longest pass whose group holds across_transforms transforms side by
// side, so that neighbouring threads' accesses to them fill whole pieces.
constexpr std::uint64_t coalesced_length(std::uint32_t coalesced_bytes) {
  return kThreadgroupElements / across_transforms(coalesced_bytes);
}

// Stockham radices for n in the kernels' order (16s for lengths 2^k, else
// 8s; then 4, 2, 9s and odd primes ascending), or nothing if
// n has a prime factor above 13.
std::optional<std::vector<std::uint32_t>> stockham_radices(std::uint64_t n);

// Whether one Stockham pass in one threadgroup takes length n.
bool fits_one_group(std::uint64_t n);

// A split n = n1 * n2 with both factors single-group lengths of at most
// `longest`, n1 as close to sqrt(n) as possible from below.
std::optional<std::pair<std::uint32_t, std::uint32_t>> four_step_split(
    std::uint64_t n, std::uint64_t longest = kThreadgroupElements);

// A split n = n1 * n2 * n3 into single-group lengths, n2 and n3 of at most
// `longest`, n1 <= n2 <= n3, the smallest factor as large as possible.
std::optional<std::array<std::uint32_t, 3>> three_pass_split(std::uint64_t n,
                                                            std::uint64_t longest);

// The Bluestein convolution length for n: the cheapest m >= 2n - 1 with no
// prime factor above 7 that one group or a four-step split takes. Lengths 2^k
// run the radix-2^k kernel, which holds half the registers, so another m
// must be at least a fifth shorter to be taken.
std::optional<std::uint64_t> bluestein_length(std::uint64_t n);

// The smallest primitive root of n where n takes Rader's route (above),
// else nothing.
std::optional<std::uint64_t> rader_generator(std::uint64_t n);

// The Stockham kernel compiled for the fewest radices that hold `radices`
// (stockham_radices' 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, and 10 from
// stockham_shape).
const char* stockham_kernel(const std::vector<std::uint32_t>& radices);

// The most threads one transform takes: a group's threads (256) are within
// every Apple GPU's pipeline limit.
inline constexpr std::uint32_t kMaxTransformThreads = 256;

// Threads per transform whose loads and stores along a contiguous transform
// count as coalesced: 32 bytes per access, whatever the GPU's piece, since
// the group's own later accesses read the rest of a wider piece (on the
// H200, 16 = 4 * 4 on 4 threads ran 1.4 times faster than one thread
// walking the group's transforms as one run through threadgroup memory).
inline constexpr std::uint32_t kAlongThreads = 4;

// The radices and threads per transform of a single-group length n.
//
// Threads per transform: at least ceil(n / FFT_MAX_THREAD_VALUES) and at
// most `most_threads` where that is more, the fewest that divide the first
// stage's butterflies and the last's, so that both take their values
// straight from the load and give them to the store (shaders/fft_stages.h);
// else that divide one of them; else the fewest that give no stage more
// than FFT_MAX_THREAD_VALUES values per thread. Where no such count makes
// both ends divide, the pass walks nothing (`ends_without_walks`: it
// neither packs, unpacks nor convolves) and fewer threads do, those fewer
// come before one end: each stage's
// FFT_STAGE_HELD(R) butterflies a thread, not a walk's
// FFT_MAX_THREAD_VALUES elements, bound them (1000 = 10^3 on 50 threads,
// 20 values each).
//
// Radix 9 for factors 3^2, also where no thread count divides a stage end:
// half the exchanges of radix 3 outweigh the uneven share of butterflies
// (on the H200, 3^12's strided 729-point passes ran 1.05 times faster,
// 3969 1.3 and 1401's Bluestein passes 1.7).
//
// Radix 10 for each pair of factors 2 and 5 where that puts more stage ends
// in registers (`tens_where_more_ends`): 1000 = 10^3 on 100 threads gives
// every thread one butterfly per stage and both ends, where 8 * 5^3 takes 125
// threads, the first end only, and 200 radix-5 butterflies per stage on them
// (on the H200, batched 1000 ran 1.19 times faster, 500 1.25, 100 1.09).
// The planner's strided passes take the tens with `ends_without_walks`:
// with it 10^6's passes of 1000 = 10^3 on 50 threads keep both ends in
// registers, where 8 * 5^3 on the 63 threads of a walk kept none (on the
// H100, 10^6 ran 1.11 times faster, 5 * 10^5 1.22, 4 * 10^6 1.23, no split
// length slower); the tens alone took 10^6 to three passes of 100, which
// ran 1.03 times slower than two of 1000.
//
// Stage order: the kernel runs the even radices' stages, then the odd
// ones' (FftParams::radix lists them in that order), or the odd ones' first.
// Odd first where that puts more stage ends in registers, or as many on as
// many threads where the even radices start with 4 or 8: an even radix R at
// span 1 scatters its outputs R apart in threadgroup memory, which in the
// kernels without the swizzle puts up to R of a SIMD group's accesses in one
// bank (bank_model.py counts 1.8 times the fewest wavefronts at 10^6's
// strided 1000-point passes, 1.3 odd first; a lone radix 2 costs less than
// the odd stages' scatters it would move).
//
// A power of two of 16 or more that the rule above gives fewer than
// `least_threads` threads takes that many, with radices of at most
// n / least_threads so that both stage ends still divide (16 = 4 * 4 on 4
// threads: its loads and stores along the transform then fill 32-byte
// pieces; one thread with one radix-16 stage walked as a run through
// threadgroup memory and ran 1.4 times slower on the H200).
struct StockhamShape {
  std::uint32_t n = 1;
  std::vector<std::uint32_t> radices;
  std::uint32_t threads = 1;

  // Whether the threads divide the first (last) stage's butterflies, so that
  // the stage's inputs (outputs) are exactly the elements each thread loads
  // (stores) along the transform (loads_into_first_stage and
  // stores_from_last_stage in shaders/fft_group_io.h add the walk and mode).
  bool first_stage_divides() const;
  bool last_stage_divides() const;
  int ends_in_registers() const;
};
StockhamShape stockham_shape(std::uint32_t n, std::uint32_t most_threads = kMaxTransformThreads,
                             std::uint32_t least_threads = 1, bool tens_where_more_ends = true,
                             bool ends_without_walks = false);

}  // namespace jax_apple_fft::metal_routes
