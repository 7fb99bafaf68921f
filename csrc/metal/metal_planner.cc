// Dispatch records of the route metal_routes.h chooses: each pass a Stockham
// or element-wise dispatch, its sides' addresses (FftSide), the operations
// fused into its loads and stores, and the tables and scratch it binds.
#include "metal/metal_planner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cache/plan_cache.h"
#include "metal/metal_routes.h"
#include "metal/metal_tables.h"

namespace jax_apple_fft {
namespace {

using shaders::FftParams;
using shaders::FftSide;
using metal_routes::bluestein_length;
using metal_routes::fits_one_group;
using metal_routes::four_step_split;
using metal_routes::kThreadgroupElements;
using metal_routes::rader_generator;
using metal_routes::stockham_kernel;
using metal_routes::three_pass_split;

constexpr std::uint32_t kMaxGroupThreads = metal_routes::kMaxTransformThreads;
using metal_routes::kAlongThreads;
constexpr std::uint64_t kAlignment = 256;  // bytes; every table and scratch region starts aligned
constexpr std::uint64_t kIndexLimit = std::uint64_t(1) << 32;  // kernels index floats with uint

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

[[noreturn]] void fail(const std::string& message) { throw PlanBuildError("Metal FFT: " + message); }

// The pipeline constants of a Stockham dispatch (fft_pipeline_constants.h):
// its shape, the radix list as a stage count per radix and the order of the
// kernel's stage runs (the order of the list), and its modes.
std::vector<std::uint32_t> stockham_pipeline_constants(const FftParams& p) {
  constexpr std::uint32_t kRunOrder[FFT_RUN_RADICES] = {16, 10, 8, 4, 2, 9, 3, 5, 7, 11, 13};
  std::vector<std::uint32_t> constants(FFT_CONSTANT_COUNT, 0);
  constants[FFT_CONSTANT_FIXED_SHAPE] = 1;
  constants[FFT_CONSTANT_N] = p.n;
  constants[FFT_CONSTANT_THREADS_PER_TRANSFORM] = p.threads_per_transform;
  constants[FFT_CONSTANT_PER_GROUP] = p.per_group;
  for (std::uint32_t s = 0; s < p.num_stages; ++s) {
    const auto* at = std::find(std::begin(kRunOrder), std::end(kRunOrder), p.radix[s]);
    constants[FFT_CONSTANT_STAGES + std::uint32_t(at - std::begin(kRunOrder))] += 1;
  }
  constants[FFT_CONSTANT_ODD_FIRST] = p.num_stages != 0 && p.radix[0] % 2 == 1 ? 1 : 0;
  constants[FFT_CONSTANT_INVERSE] = p.inverse;
  constants[FFT_CONSTANT_PRE_MODE] = p.pre_mode;
  constants[FFT_CONSTANT_POST_MODE] = p.post_mode;
  constants[FFT_CONSTANT_CONVOLVE] = p.convolve;
  constants[FFT_CONSTANT_IN_KIND] = p.in.kind;
  constants[FFT_CONSTANT_IN_WALK] = p.in.walk;
  constants[FFT_CONSTANT_OUT_KIND] = p.out.kind;
  constants[FFT_CONSTANT_OUT_WALK] = p.out.walk;
  constants[FFT_CONSTANT_INTERLEAVED] = p.batch_interleave > 1 ? 1 : 0;
  constants[FFT_CONSTANT_PER_BATCH] = p.per_batch;
  const auto layout = [&](const FftSide& s, std::uint32_t mode, std::uint32_t real_bins_mode) {
    return shaders::side_layout(s.g_mul, s.elem_stride, s.valid, s.r_mul, s.inner_count,
                                shaders::side_touched(p.n, mode, real_bins_mode), p.per_batch);
  };
  constants[FFT_CONSTANT_IN_LAYOUT] = layout(p.in, p.pre_mode, FFT_FUSED_C2R_PACK);
  constants[FFT_CONSTANT_OUT_LAYOUT] = layout(p.out, p.post_mode, FFT_FUSED_R2C_UNPACK);
  return constants;
}

// How the group's threads cover one side's elements (FFT_WALK_*): one
// contiguous run of float pairs where the group's transforms are one and
// their threads would not take coalesced pieces along them
// (`coalesced_along`), else neighbouring threads on neighbouring transforms
// where a transform's own elements are apart; either way a warp's accesses
// are contiguous in the usual layouts. A walk other than the run lets the
// first stage load, or the last store, in registers (shaders/fft_stages.h).
std::uint32_t choose_walk(const FftSide& s, std::uint64_t n, std::uint64_t per_group,
                          std::uint64_t per_batch, bool multiplied, bool coalesced_along) {
  const bool pairs = s.kind == FFT_SIDE_COMPLEX || s.kind == FFT_SIDE_REAL_PAIRS;
  const std::uint64_t unit = s.kind == FFT_SIDE_COMPLEX ? 1 : 2;  // side elements per pair
  const bool every_element_valid = (n - 1) + (per_batch - 1) * std::uint64_t(s.r_mul) < s.valid;
  const bool even_bases = s.kind == FFT_SIDE_COMPLEX ||
                          (s.outer_stride % 2 == 0 && (s.inner_count == 1 || s.inner_stride % 2 == 0));
  const bool run_in_batch = per_batch % per_group == 0 && (per_group == 1 || s.r_mul == n);
  const bool run_across_batches =
      per_batch == 1 && (s.inner_count == 1 ? s.outer_stride == unit * n
                                            : s.inner_stride == unit * n &&
                                                  s.outer_stride == s.inner_count * unit * n);
  if (!coalesced_along && pairs && !multiplied && s.g_mul == 1 && s.elem_stride == 1 &&
      every_element_valid &&
      even_bases && (run_in_batch || run_across_batches)) {
    return FFT_WALK_RUN;
  }
  if (per_group > 1 && std::uint64_t(s.g_mul) * s.elem_stride != 1) return FFT_WALK_ACROSS;
  return FFT_WALK_ALONG;
}

std::uint32_t checked_u32(std::uint64_t value, const char* what) {
  if (value >= kIndexLimit) fail(std::string(what) + " exceeds the 32-bit index range of the kernels");
  return static_cast<std::uint32_t>(value);
}

struct Endpoint {
  MetalBufferSlot buffer = MetalBufferSlot::scratch;
  std::uint64_t offset_bytes = 0;
  FftSide side{};
};

// The operation fused into a load or store (FFT_FUSED_*) and the tables it reads.
struct FusedOperation {
  std::uint32_t mode = FFT_FUSED_NONE;
  std::uint64_t table = 0;
  std::uint64_t fine_table = 0;
  std::uint32_t twiddle_n = 0;
  std::uint32_t twiddle_shift = 0;
};

FusedOperation times_table(std::uint64_t table) {
  return FusedOperation{FFT_FUSED_TIMES_TABLE, table, table, 0, 0};
}

class Planner {
 public:
  explicit Planner(const MetalRequest& request) : request_(request) {}

  std::shared_ptr<const MetalPlan> build() {
    validate();
    plan_ = std::make_shared<MetalPlan>();
    plan_->key = request_.key();
    const std::uint64_t n = request_.n;
    const std::uint64_t half = n / 2;
    const bool even = n % 2 == 0;
    switch (request_.kind) {
      case TransformKind::kC2C:
        plan_->source_bytes = extent_bytes(request_.in, n, 8);
        plan_->destination_bytes = extent_bytes(request_.out, n, 8);
        if (batch_ == 0) break;
        complex_transform(n, !request_.forward, user(MetalBufferSlot::source, FFT_SIDE_COMPLEX, n),
                          user(MetalBufferSlot::destination, FFT_SIDE_COMPLEX, n), {}, {}, request_.scale);
        break;
      case TransformKind::kR2C:
        plan_->source_bytes = extent_bytes(request_.in, n, 4);
        plan_->destination_bytes = extent_bytes(request_.out, half + 1, 8);
        if (batch_ == 0) break;
        if (even && fits_one_group(half)) {  // the unpack fused into the store
          stockham_pass(std::uint32_t(half), false, batch_, 1,
                        user(MetalBufferSlot::source, FFT_SIDE_REAL_PAIRS, half),
                        user(MetalBufferSlot::destination, FFT_SIDE_COMPLEX, half + 1), {},
                        real_pack(FFT_FUSED_R2C_UNPACK, n), request_.scale);
        } else if (even) {
          Endpoint z = scratch_at(add_scratch(batch_ * half * 8), half);
          complex_transform(half, false, user(MetalBufferSlot::source, FFT_SIDE_REAL_PAIRS, half), z,
                            {}, {}, 1.0);
          elementwise("fft_r2c_unpack", half + 1, z,
                      user(MetalBufferSlot::destination, FFT_SIDE_COMPLEX, half + 1),
                      real_pack_roots(n), request_.scale);
        } else {
          complex_transform(n, false, user(MetalBufferSlot::source, FFT_SIDE_REAL, n),
                            user(MetalBufferSlot::destination, FFT_SIDE_COMPLEX, half + 1), {}, {},
                            request_.scale);
        }
        break;
      case TransformKind::kC2R:
        plan_->source_bytes = extent_bytes(request_.in, half + 1, 8);
        plan_->destination_bytes = extent_bytes(request_.out, n, 4);
        if (batch_ == 0) break;
        if (even && half > 1 && fits_one_group(half)) {  // the pack fused into the first stage
          stockham_pass(std::uint32_t(half), true, batch_, 1,
                        user(MetalBufferSlot::source, FFT_SIDE_COMPLEX, half + 1),
                        user(MetalBufferSlot::destination, FFT_SIDE_REAL_PAIRS, half),
                        real_pack(FFT_FUSED_C2R_PACK, n), {}, request_.scale);
        } else if (even) {
          Endpoint z = scratch_at(add_scratch(batch_ * half * 8), half);
          elementwise("fft_c2r_pack", half, user(MetalBufferSlot::source, FFT_SIDE_COMPLEX, half + 1), z,
                      real_pack_roots(n), 1.0);
          complex_transform(half, true, z, user(MetalBufferSlot::destination, FFT_SIDE_REAL_PAIRS, half),
                            {}, {}, request_.scale);
        } else {
          Endpoint full = scratch_at(add_scratch(batch_ * n * 8), n);
          elementwise("fft_c2r_expand", n, user(MetalBufferSlot::source, FFT_SIDE_COMPLEX, half + 1),
                      full, 0, 1.0);
          complex_transform(n, true, full, user(MetalBufferSlot::destination, FFT_SIDE_REAL, n), {}, {},
                            request_.scale);
        }
        break;
    }
    return plan_;
  }

 private:
  void validate() {
    const MetalRequest& r = request_;
    if (r.n < 1) fail("the transform length must be at least 1");
    if (r.n > kMetalMaxLength) fail("lengths above 2^24 are not supported");
    if (!metal_routes::valid_coalesced_bytes(r.coalesced_bytes)) {
      fail("a coalesced piece must be a power of two from 8 to 128 bytes");
    }
    across_ = metal_routes::across_transforms(r.coalesced_bytes);
    coalesced_length_ = metal_routes::coalesced_length(r.coalesced_bytes);
    if (r.outer_count < 0 || r.inner_count < 0) fail("batch counts must be non-negative");
    for (const MetalLayout* l : {&r.in, &r.out}) {
      if (l->elem_stride < 0 || l->inner_stride < 0 || l->outer_stride < 0) {
        fail("negative strides are not supported");
      }
    }
    if (r.kind != TransformKind::kC2C && r.kind != TransformKind::kR2C &&
        r.kind != TransformKind::kC2R) {
      fail("unknown transform kind");
    }
    batch_ = static_cast<std::uint64_t>(r.outer_count) * static_cast<std::uint64_t>(r.inner_count);
    // Along a non-last axis the inner batch entries are the contiguous
    // columns beside each element: passes that split the axis keep them
    // neighbours (FftParams::batch_interleave), except three-pass routes,
    // whose middle pass reorders its batch entries.
    const bool columns = r.inner_count > 1 && r.in.inner_stride == 1 && r.out.inner_stride == 1 &&
                         r.in.elem_stride >= r.inner_count && r.out.elem_stride >= r.inner_count;
    const bool real_half = r.kind != TransformKind::kC2C && r.n % 2 == 0;
    if (columns && !three_pass_route(real_half ? r.n / 2 : r.n)) interleave_ = r.inner_count;
  }

  // Bytes spanned by `count` elements per batch entry of `element_bytes` each.
  std::uint64_t extent_bytes(const MetalLayout& l, std::uint64_t count, std::uint64_t element_bytes) {
    if (batch_ == 0 || count == 0) return 0;
    std::uint64_t last = (request_.outer_count - 1) * std::uint64_t(l.outer_stride) +
                         (request_.inner_count - 1) * std::uint64_t(l.inner_stride) +
                         (count - 1) * std::uint64_t(l.elem_stride);
    checked_u32((last + 1) * element_bytes / 4, "the tensor extent");
    return (last + 1) * element_bytes;
  }

  Endpoint user(MetalBufferSlot buffer, std::uint32_t kind, std::uint64_t valid) const {
    const MetalLayout& l = buffer == MetalBufferSlot::source ? request_.in : request_.out;
    Endpoint e;
    e.buffer = buffer;
    e.side = FftSide{kind,
                     std::uint32_t(valid),
                     1,
                     0,
                     std::uint32_t(l.elem_stride),
                     std::uint32_t(request_.inner_count),
                     std::uint32_t(l.inner_stride),
                     std::uint32_t(l.outer_stride),
                     FFT_WALK_ALONG};
    return e;
  }

  std::uint64_t add_table(const std::vector<std::complex<double>>& values) {
    std::vector<shaders::float2>& tables = plan_->tables;
    std::uint64_t offset = align_up(tables.size() * sizeof(shaders::float2), kAlignment);
    tables.resize(offset / sizeof(shaders::float2));
    for (const auto& v : values) tables.emplace_back(float(v.real()), float(v.imag()));
    return offset;
  }

  // e^{-2 pi i k / n}, k < n: the stage twiddles of a Stockham transform of length n.
  std::uint64_t stage_twiddles(std::uint32_t n) {
    auto found = twiddle_tables_.find(n);
    if (found != twiddle_tables_.end()) return found->second;
    std::uint64_t offset = add_table(metal_tables::roots(n, n));
    twiddle_tables_.emplace(n, offset);
    return offset;
  }

  // `count` complex values per batch entry, `pitch` >= count apart: one batch
  // entry after another, or interleaved as the request's columns are
  // (interleave_).
  Endpoint scratch_at(std::uint64_t offset_bytes, std::uint32_t count, std::uint32_t pitch = 0) const {
    Endpoint e;
    e.buffer = MetalBufferSlot::scratch;
    e.offset_bytes = offset_bytes;
    const auto c = std::uint32_t(interleave_);
    const std::uint32_t apart = std::max(count, pitch);
    e.side = c == 1 ? FftSide{FFT_SIDE_COMPLEX, count, 1, 0, 1, 1, 0, apart, FFT_WALK_ALONG}
                    : FftSide{FFT_SIDE_COMPLEX, count, 1, 0, c, c, 1, apart * c, FFT_WALK_ALONG};
    return e;
  }

  std::uint64_t add_scratch(std::uint64_t bytes) {
    std::uint64_t offset = align_up(plan_->scratch_bytes, kAlignment);
    plan_->scratch_bytes = offset + bytes;
    checked_u32(bytes / 4, "the scratch size");
    return offset;
  }

  // The shape of a pass with a strided side (every pass of a split length).
  metal_routes::StockhamShape strided_shape(std::uint32_t n, bool ends_without_walks = true) const {
    return metal_routes::stockham_shape(n, kMaxGroupThreads / std::max<std::uint32_t>(8, across_),
                                        1, /*tens_where_more_ends=*/ends_without_walks,
                                        ends_without_walks);
  }

  bool every_end_in_registers(const std::array<std::uint32_t, 3>& lengths) const {
    return std::all_of(lengths.begin(), lengths.end(),
                       [&](std::uint32_t f) { return strided_shape(f).ends_in_registers() == 2; });
  }

  // Stage ends that a pass of length f of a two-pass split passes through
  // threadgroup memory where it is crowded: a group holds fewer than 8 of its
  // transforms (f > 512), too few to hide the exchanges' latency.
  int crowded_ends_in_memory(std::uint32_t f) const {
    return kThreadgroupElements / f < 8 ? 2 - strided_shape(f).ends_in_registers() : 0;
  }

  // The three passes complex_transform takes for a length above one group:
  // where no two passes of coalesced lengths split it, or where the two
  // passes' crowded_ends_in_memory sum to 2 or more and three passes keep
  // every stage end in registers. On the H200 three passes ran 1.09 to 1.34
  // times faster than two where the rule takes them (3^12: 81^3 against
  // 729^2); docs/metal.md lists the lengths measured.
  std::optional<std::array<std::uint32_t, 3>> three_pass_route(std::uint64_t n) const {
    if (fits_one_group(n)) return std::nullopt;
    const auto three = three_pass_split(n, coalesced_length_);
    const auto two = four_step_split(n, coalesced_length_);
    if (!three || !two) return three;
    const int in_memory = crowded_ends_in_memory(two->first) + crowded_ends_in_memory(two->second);
    if (in_memory >= 2 && every_end_in_registers(*three)) return three;
    return std::nullopt;
  }

  void complex_transform(std::uint64_t n, bool inverse, Endpoint in, Endpoint out, FusedOperation pre,
                         FusedOperation post, double scale) {
    // A group holds fewer than across_ strided columns of a length above
    // coalesced_length_: four-step passes walk across whole pieces.
    const bool split_columns = interleave_ >= across_ && n > coalesced_length_;
    if (fits_one_group(n) && !split_columns) {
      stockham_pass(std::uint32_t(n), inverse, batch_, 1, in, out, pre, post, scale);
    } else if (auto split3 = three_pass_route(n)) {
      three_pass(*split3, inverse, in, out, pre, post, scale);
    } else if (auto split = four_step_split(n, coalesced_length_)) {
      four_step(split->first, split->second, inverse, in, out, pre, post, scale);
    } else if (auto split = four_step_split(n)) {
      four_step(split->first, split->second, inverse, in, out, pre, post, scale);
    } else if (auto wide3 = three_pass_split(n, kThreadgroupElements)) {
      three_pass(*wide3, inverse, in, out, pre, post, scale);
    } else if (auto generator = rader_generator(n)) {
      rader(n, *generator, inverse, in, out, scale);
    } else {
      bluestein(n, inverse, in, out, scale);
    }
  }

  // e^{-2 pi i k / n}, k <= n / 2: the table of a real FFT's pack or unpack.
  std::uint64_t real_pack_roots(std::uint64_t n) {
    return add_table(metal_tables::roots(n, n / 2 + 1));
  }

  // The pack or unpack (FFT_FUSED_C2R_PACK, FFT_FUSED_R2C_UNPACK) fused into a pass.
  FusedOperation real_pack(std::uint32_t mode, std::uint64_t n) {
    FusedOperation pack;
    pack.mode = mode;
    pack.table = real_pack_roots(n);
    return pack;
  }

  // w_n^e = coarse[e >> shift] * fine[e & (split - 1)], split = 2^shift >= sqrt(n):
  // the twiddle between the passes of a four-step transform of length n.
  FusedOperation four_step_twiddle(std::uint64_t n) {
    std::uint32_t shift = 0;
    while ((std::uint64_t(1) << (2 * shift)) < n) ++shift;
    const std::uint64_t split = std::uint64_t(1) << shift;
    FusedOperation twiddle;
    twiddle.mode = FFT_FUSED_FOUR_STEP_TWIDDLE;
    twiddle.table = add_table(metal_tables::roots(n, ceil_div(n, split), split));
    twiddle.fine_table = add_table(metal_tables::roots(n, split));
    twiddle.twiddle_n = std::uint32_t(n);
    twiddle.twiddle_shift = shift;
    return twiddle;
  }

  // Element j1 * n2 + j2 of a side as element j1 of column transform j2.
  static Endpoint columns(Endpoint e, std::uint32_t n2) {
    e.side.g_mul = n2;
    e.side.r_mul = 1;
    return e;
  }

  // Element j1 * n2 + j2 of a side as element j2 of row transform j1.
  static Endpoint rows(Endpoint e, std::uint32_t n2) {
    e.side.r_mul = n2;
    return e;
  }

  // X[k1 + n1 k2] = sum_j2 w_n2^(j2 k2) w_n^(j2 k1) sum_j1 x[j1 n2 + j2] w_n1^(j1 k1).
  // Pass 1 transforms the n2 strided columns and applies w_n^(j2 k1); pass 2
  // transforms the rows and writes them with stride n1.
  void four_step(std::uint32_t n1, std::uint32_t n2, bool inverse, Endpoint in, Endpoint out,
                 FusedOperation pre, FusedOperation post, double scale) {
    const std::uint64_t n = std::uint64_t(n1) * n2;
    const Endpoint middle = scratch_at(add_scratch(batch_ * n * 8), std::uint32_t(n));
    stockham_pass(n1, inverse, batch_ * n2, n2, columns(in, n2), columns(middle, n2), pre,
                  four_step_twiddle(n), 1.0);

    // X[k1 + n1 k2] is element k2 of the transform k1 of stride n1.
    stockham_pass(n2, inverse, batch_ * n1, n1, rows(middle, n2),
                  columns(out, n1), {}, post, scale);
  }

  // n = n1 m, m = n2 n3: the four-step split applied twice, so that every
  // pass is one group long (at most coalesced_length_ where n allows) and its
  // group's transforms are neighbours in memory. Pass 1 transforms the
  // columns j1 of stride m and applies w_n^(k1 r); pass 2 transforms,
  // within row k1, the columns j2 of stride n3, applies w_m^(k2 j3) and
  // stores Z[k1, k2, j3] at (k2 n1 + k1) n3 + j3; pass 3 transforms those
  // rows, r = k2 n1 + k1, into X[k1 + n1 k2 + n1 n2 k3], element k3 at
  // r + n1 n2 k3. Storing Z transposed keeps every side affine in its
  // transform's index.
  void three_pass(std::array<std::uint32_t, 3> split, bool inverse, Endpoint in, Endpoint out,
                  FusedOperation pre, FusedOperation post, double scale) {
    const auto [n1, n2, n3] = split;
    const std::uint32_t m = n2 * n3;
    const std::uint32_t n = n1 * m;
    const std::uint64_t first = add_scratch(batch_ * n * 8);
    const std::uint64_t second = add_scratch(batch_ * n * 8);
    stockham_pass(n1, inverse, batch_ * m, m, columns(in, m), columns(scratch_at(first, n), m),
                  pre, four_step_twiddle(n), 1.0);

    Endpoint transposed = scratch_at(second, n);  // batch b = (entry, k1) at entry n + k1 n3
    transposed.side.inner_count = n1;
    transposed.side.inner_stride = n3;
    stockham_pass(n2, inverse, batch_ * n1 * n3, n3, columns(scratch_at(first, m), n3),
                  columns(transposed, n1 * n3), {}, four_step_twiddle(m), 1.0);

    stockham_pass(n3, inverse, batch_ * n1 * n2, n1 * n2, rows(scratch_at(second, n), n3),
                  columns(out, n1 * n2), {}, post, scale);
  }

  // X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]), c[j] = e^{-+ pi i j^2 / n}: a
  // circular convolution of length m. In one group, one pass loads x c, goes
  // forward, multiplies by the spectrum, comes back and stores times c; else
  // convolution_passes, with the chirp on the first load and the last store.
  void bluestein(std::uint64_t n, bool inverse, Endpoint in, Endpoint out, double scale) {
    const std::optional<std::uint64_t> length = bluestein_length(n);
    if (!length) fail("Bluestein length " + std::to_string(n) + " is too large");
    const std::uint64_t m = *length;
    const auto chirp = metal_tables::chirp(n, inverse ? +1 : -1);
    const FusedOperation by_chirp = times_table(add_table(chirp));
    const std::vector<std::complex<double>> spectrum = metal_tables::bluestein_spectrum(chirp, m);
    if (fits_one_group(m)) {
      stockham_pass(std::uint32_t(m), false, batch_, 1, in, out, by_chirp, by_chirp, scale,
                    add_table(spectrum));
      return;
    }
    const Endpoint middle = scratch_at(add_scratch(batch_ * m * 8), std::uint32_t(m));
    convolution_passes(spectrum, FFT_CONVOLVE_BLUESTEIN, in, middle, out, by_chirp, by_chirp,
                       scale);
  }

  // X[g^-q] = x[0] + sum_p x[g^p] b[q - p], b[m] = w_n^(g^-m), for a prime n
  // with primitive root g: a circular convolution of n - 1 points in
  // convolution_passes, in a scratch that keeps one more value per batch
  // entry. The column pass gathers x[g^q] and keeps x[0] as that value; the
  // row pass convolves, adds x[0] to the product's element 0 (so to every
  // output) and keeps x[0] plus the sum of x[g^q], which is X[0]
  // (FFT_CONVOLVE_RADER); the column pass back leaves X[g^-q] at element q,
  // and fft_permute stores every bin in order, each read from where it lies
  // (bins stored straight to their permuted places were written a sector
  // piece at a time).
  void rader(std::uint64_t n, std::uint64_t generator, bool inverse, Endpoint in, Endpoint out,
             double scale) {
    FusedOperation gather;
    gather.mode = FFT_FUSED_RADER_GATHER;
    gather.table = add_table(metal_tables::rader_indices(n, generator, false));
    const std::uint32_t m = std::uint32_t(n - 1);
    const Endpoint middle = scratch_at(add_scratch(batch_ * n * 8), m, std::uint32_t(n));
    convolution_passes(metal_tables::rader_spectrum(n, generator, inverse ? +1 : -1),
                       FFT_CONVOLVE_RADER, in, middle, middle, gather, {}, 1.0);
    elementwise("fft_permute", out.side.valid, middle, out,
                add_table(metal_tables::rader_sources(n, generator)), scale);
  }

  // A circular convolution of m = n1 n2 points (the spectrum's length, split
  // four-step) in three passes through `middle`, the forward and inverse
  // transforms sharing their middle: the column pass goes forward (`load` on
  // its load); one row pass goes forward, multiplies by the spectrum (stored
  // in row order) and comes back; a column pass comes back (`store` and the
  // scale on its store), in place where `out` is `middle` (a group reads all
  // its elements before its first store: a barrier lies between, or one
  // stage whose thread stores the elements it loaded):
  // x[j1 n2 + j2] = sum_k1 w_n1^(-j1 k1) w_m^(-j2 k1) sum_k2 P[k1 + n1 k2] w_n2^(-j2 k2).
  void convolution_passes(const std::vector<std::complex<double>>& spectrum,
                          std::uint32_t convolution, Endpoint in, Endpoint middle, Endpoint out,
                          FusedOperation load, FusedOperation store, double scale) {
    const std::uint64_t m = spectrum.size();
    const auto [n1, n2] = *four_step_split(m);
    std::vector<std::complex<double>> in_rows(m);
    for (std::uint64_t k1 = 0; k1 < n1; ++k1) {
      for (std::uint64_t k2 = 0; k2 < n2; ++k2) in_rows[k1 * n2 + k2] = spectrum[k1 + n1 * k2];
    }
    const FusedOperation twiddle = four_step_twiddle(m);
    stockham_pass(n1, false, batch_ * n2, n2, columns(in, n2), columns(middle, n2), load, twiddle,
                  1.0);
    stockham_pass(n2, false, batch_ * n1, n1, rows(middle, n2), rows(middle, n2), {}, {}, 1.0,
                  add_table(in_rows), convolution);
    stockham_pass(n1, true, batch_ * n2, n2, columns(middle, n2), columns(out, n2), twiddle, store,
                  scale);
  }

  // One dispatch of the Stockham kernel; with `spectrum` (a table offset), a
  // convolution (FftParams::convolve, Bluestein's unless told).
  void stockham_pass(std::uint32_t n, bool inverse, std::uint64_t transforms,
                     std::uint32_t per_batch, Endpoint in, Endpoint out, FusedOperation pre,
                     FusedOperation post, double scale,
                     std::optional<std::uint64_t> spectrum = std::nullopt,
                     std::uint32_t convolution = FFT_CONVOLVE_BLUESTEIN) {
    // A side strided along its transforms walks across across_ of them at
    // least, for whole coalesced pieces: fewer threads per transform.
    const bool strided = std::uint64_t(in.side.g_mul) * in.side.elem_stride != 1 ||
                         std::uint64_t(out.side.g_mul) * out.side.elem_stride != 1;
    // A strided side takes threads per transform for a group of 8 transforms
    // or more, and of across_ at least, where the length allows (24696's
    // 147-point pass: 21 threads, 12 per group, ran 1.2 times faster than 49
    // on the H200). A contiguous side takes at least kAlongThreads, and 8
    // from 64 points (64 = 8 * 8 on 8 threads ran 1.23 times faster than
    // 16 * 4 on 4: half the registers and threadgroup memory per transform).
    const std::uint32_t least_threads = n >= 64 ? 8 : kAlongThreads;
    // Both ends of a pass that packs, unpacks or convolves walk through
    // threadgroup memory.
    const bool ends_without_walks =
        !spectrum && pre.mode != FFT_FUSED_C2R_PACK && post.mode != FFT_FUSED_R2C_UNPACK;
    const metal_routes::StockhamShape shape =
        strided ? strided_shape(n, ends_without_walks)
                : metal_routes::stockham_shape(n, kMaxGroupThreads, least_threads);
    const std::vector<std::uint32_t>& radices = shape.radices;
    const std::uint32_t threads_each = shape.threads;
    const char* kernel = stockham_kernel(radices);
    const bool swizzled = kernel == std::string("fft_stockham_pow2");
    // Transforms n apart at most (a wider pitch trims the group below).
    std::uint64_t most = std::min<std::uint64_t>(kThreadgroupElements / n,
                                                 kMaxGroupThreads / threads_each);
    most = std::max<std::uint64_t>(1, std::min(most, transforms));
    // A side whose stage end can meet device memory in registers walks along
    // its transforms rather than as one run, where a transform has
    // kAlongThreads threads or more.
    const bool coalesced = threads_each >= kAlongThreads;
    const bool load_in_registers =
        coalesced && shape.first_stage_divides() && pre.mode != FFT_FUSED_C2R_PACK;
    const bool store_in_registers =
        coalesced && shape.last_stage_divides() && post.mode != FFT_FUSED_R2C_UNPACK;
    auto in_walk = [&](std::uint64_t group) {
      return choose_walk(in.side, n, group, per_batch, pre.mode != FFT_FUSED_NONE, load_in_registers);
    };
    auto out_walk = [&](std::uint64_t group) {
      return choose_walk(out.side, n, group, per_batch, post.mode != FFT_FUSED_NONE,
                         store_in_registers);
    };
    // Fewer transforms per group, down to three quarters, where a group that
    // divides a batch entry's transforms lets more sides walk as one run
    // (the rows of Bluestein's convolving pass).
    auto runs = [&](std::uint64_t group) {
      return int(in_walk(group) == FFT_WALK_RUN) + int(out_walk(group) == FFT_WALK_RUN);
    };
    std::uint64_t per_group = most;
    for (std::uint64_t group = most - 1; group > 0 && 4 * group >= 3 * most; --group) {
      if (per_batch % group == 0 && runs(group) > runs(most)) {
        per_group = group;
        break;
      }
    }

    // A group whose sides do not walk as one run places its transforms
    // transform_pitch apart, which may hold fewer of them.
    auto pitch = [&](std::uint64_t group) {
      return shaders::transform_pitch(n, swizzled, in_walk(group), out_walk(group), threads_each,
                                      std::uint32_t(group));
    };
    while (per_group > 1 && per_group * pitch(per_group) > kThreadgroupElements) --per_group;

    FftParams p{};
    p.n = n;
    p.num_stages = std::uint32_t(radices.size());
    std::copy(radices.begin(), radices.end(), p.radix);
    p.inverse = inverse ? 1 : 0;
    p.transforms = checked_u32(transforms, "the number of transforms");
    p.per_batch = per_batch;
    p.batch_interleave = per_batch > 1 ? std::uint32_t(interleave_) : 1;
    p.per_group = std::uint32_t(per_group);
    p.threads_per_transform = threads_each;
    p.group_threads = std::uint32_t(per_group) * threads_each;
    p.pre_mode = pre.mode;
    p.post_mode = post.mode;
    const FusedOperation& four_step = post.mode == FFT_FUSED_FOUR_STEP_TWIDDLE ? post : pre;
    p.twiddle_n = four_step.twiddle_n;
    p.twiddle_shift = four_step.twiddle_shift;
    p.convolve = spectrum ? convolution : FFT_CONVOLVE_NONE;
    p.scale = float(scale);
    p.in = in.side;
    p.out = out.side;
    p.in.walk = in_walk(per_group);
    p.out.walk = out_walk(per_group);

    const std::uint64_t twiddles = stage_twiddles(n);
    MetalDispatch d;
    d.kernel = kernel;
    d.threadgroups = {checked_u32(ceil_div(transforms, per_group), "the grid"), 1, 1};
    d.threads = {p.group_threads, 1, 1};
    // Whole blocks of 16 elements: the swizzle permutes within each block.
    d.threadgroup_memory_bytes =
        std::uint32_t(align_up(per_group * pitch(per_group), 16) * sizeof(shaders::float2));
    d.bindings = {{0, in.buffer, in.offset_bytes},
                  {1, out.buffer, out.offset_bytes},
                  {2, MetalBufferSlot::tables, twiddles},
                  {3, MetalBufferSlot::tables, pre.mode != FFT_FUSED_NONE ? pre.table : twiddles},
                  {4, MetalBufferSlot::tables, post.mode != FFT_FUSED_NONE ? post.table : twiddles},
                  {5, MetalBufferSlot::tables, extra_table(pre, post, spectrum, twiddles)}};
    d.params = p;
    d.pipeline_constants = stockham_pipeline_constants(p);
    plan_->dispatches.push_back(std::move(d));
  }

  // Buffer 5: the four-step twiddle's fine table, or the convolution's spectrum.
  static std::uint64_t extra_table(const FusedOperation& pre, const FusedOperation& post,
                                   std::optional<std::uint64_t> spectrum, std::uint64_t unused) {
    if (post.mode == FFT_FUSED_FOUR_STEP_TWIDDLE) return post.fine_table;
    if (pre.mode == FFT_FUSED_FOUR_STEP_TWIDDLE) return pre.fine_table;
    return spectrum.value_or(unused);
  }

  // One thread per item: `per_batch` items for each batch entry; `table` (the
  // real passes' roots, fft_permute's indices) at every table binding.
  void elementwise(const char* kernel, std::uint64_t per_batch, Endpoint in, Endpoint out,
                   std::uint64_t table, double scale) {
    const std::uint64_t items = batch_ * per_batch;
    const std::uint32_t group_threads = std::uint32_t(std::min<std::uint64_t>(kMaxGroupThreads, items));
    FftParams p{};
    p.n = std::uint32_t(request_.n);
    p.transforms = checked_u32(items, "the number of items");
    p.per_batch = std::uint32_t(per_batch);
    p.batch_interleave = 1;
    p.per_group = group_threads;
    p.threads_per_transform = 1;
    p.group_threads = group_threads;
    p.scale = float(scale);
    p.in = in.side;
    p.out = out.side;

    MetalDispatch d;
    d.kernel = kernel;
    d.threadgroups = {std::uint32_t(ceil_div(items, group_threads)), 1, 1};
    d.threads = {group_threads, 1, 1};
    d.bindings = {{0, in.buffer, in.offset_bytes},
                  {1, out.buffer, out.offset_bytes},
                  {2, MetalBufferSlot::tables, table},
                  {3, MetalBufferSlot::tables, table},
                  {4, MetalBufferSlot::tables, table},
                  {5, MetalBufferSlot::tables, table}};
    d.params = p;
    plan_->dispatches.push_back(std::move(d));
  }

  const MetalRequest request_;
  std::uint32_t across_ = 1;             // metal_routes::across_transforms
  std::uint64_t coalesced_length_ = 1;  // metal_routes::coalesced_length
  std::uint64_t batch_ = 0;
  std::uint64_t interleave_ = 1;  // FftParams::batch_interleave of passes that split the axis
  std::shared_ptr<MetalPlan> plan_;
  std::map<std::uint32_t, std::uint64_t> twiddle_tables_;     // length -> table offset
};

}  // namespace

std::shared_ptr<const MetalPlan> build_metal_plan(const MetalRequest& request) {
  return Planner(request).build();
}

}  // namespace jax_apple_fft
