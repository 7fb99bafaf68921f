// The Metal planner's decisions and the emulated kernels, on CPU threads.
// Under ThreadSanitizer it also checks that a kernel missing a barrier is
// reported as a data race: it starts this program again with the test
// metal.racy_kernel (run only when named), and expects the report.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "cache/plan_cache.h"
#include "metal/dispatch_bindings.h"
#include "metal/emulator/metal_emulator.h"
#include "metal/emulator/emulator_executor.h"
#include "metal/metal_planner.h"
#include "metal/metal_program.h"
#include "accuracy.h"
#include "harness.h"
#include "racy_kernel.h"

#if defined(__SANITIZE_THREAD__)
#define BUILT_WITH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BUILT_WITH_TSAN 1
#endif
#endif

namespace jax_apple_fft {
namespace {

using Complex = std::complex<double>;
using test_support::error_bound;
using test_support::relative_error;

// The roots are computed once per length and looked up: computed per term,
// the trigonometry was 99% of this test's run time under qemu-user.
std::vector<Complex> naive_dft(const std::vector<Complex>& x, int sign) {
  const std::size_t n = x.size();
  std::vector<Complex> roots(n);
  for (std::size_t m = 0; m < n; ++m) {
    double angle = sign * 2.0 * std::numbers::pi * double(m) / double(n);
    roots[m] = Complex(std::cos(angle), std::sin(angle));
  }
  std::vector<Complex> y(n);
  for (std::size_t k = 0; k < n; ++k) {
    Complex acc = 0;
    for (std::size_t j = 0; j < n; ++j) acc += x[j] * roots[(j * k) % n];
    y[k] = acc;
  }
  return y;
}

MetalRequest request_for(TransformKind kind, std::int64_t n, std::int64_t batch, bool forward = true,
                         double scale = 1.0) {
  MetalRequest r;
  r.kind = kind;
  r.forward = forward;
  r.n = n;
  r.outer_count = batch;
  std::int64_t in_len = kind == TransformKind::kC2R ? n / 2 + 1 : n;
  std::int64_t out_len = kind == TransformKind::kR2C ? n / 2 + 1 : n;
  r.in = MetalLayout{1, 0, in_len};
  r.out = MetalLayout{1, 0, out_len};
  r.scale = scale;
  return r;
}

std::vector<std::string> kernel_names(const MetalPlan& plan) {
  std::vector<std::string> names;
  for (const MetalDispatch& d : plan.dispatches) names.push_back(d.kernel);
  return names;
}

void test_planner_decisions() {
  auto single = build_metal_plan(request_for(TransformKind::kC2C, 4096, 1, true, 0.5));
  EXPECT(single->dispatches.size() == 1);
  const MetalDispatch& d = single->dispatches[0];
  EXPECT(d.kernel == "fft_stockham_pow2");
  EXPECT(d.params.num_stages == 3 && d.params.radix[0] == 16);  // 4096 = 16^3
  EXPECT(d.threadgroup_memory_bytes == 32768);
  EXPECT(d.threads[0] <= 256);
  EXPECT(d.params.scale == 0.5f);
  EXPECT(single->scratch_bytes == 0);
  EXPECT(single->table_bytes() == 4096 * 8);

  auto small = build_metal_plan(request_for(TransformKind::kC2C, 8, 1000));
  EXPECT(small->dispatches[0].params.per_group > 1);
  EXPECT(small->dispatches[0].threadgroup_memory_bytes <= 32768);

  auto mixed = build_metal_plan(request_for(TransformKind::kC2C, 2 * 3 * 5 * 7 * 11, 1));
  EXPECT(mixed->dispatches.size() == 1 && mixed->dispatches[0].params.num_stages == 5);

  auto four_step = build_metal_plan(request_for(TransformKind::kC2C, 1 << 18, 2, false, 0.25));
  EXPECT(four_step->dispatches.size() == 2);
  EXPECT(four_step->dispatches[0].params.post_mode == FFT_FUSED_FOUR_STEP_TWIDDLE);
  EXPECT(four_step->dispatches[0].params.scale == 1.0f);
  EXPECT(four_step->dispatches[1].params.scale == 0.25f);
  EXPECT(four_step->dispatches[0].params.in.g_mul * four_step->dispatches[0].params.n == (1u << 18));
  EXPECT(four_step->scratch_bytes == std::uint64_t(2) * (1 << 18) * 8);
  for (const MetalDispatch& pass : four_step->dispatches) {
    EXPECT(pass.bindings[1].buffer == MetalBufferSlot::scratch || pass.bindings[0].buffer == MetalBufferSlot::scratch);
  }

  auto bluestein = build_metal_plan(request_for(TransformKind::kC2C, 4099, 1));
  // the convolution of length 8232 = 2^3 3 7^3, the first 7-smooth length >= 2n - 1, split
  // four-step: a forward column pass, one row pass forward and back, an inverse column pass
  EXPECT(bluestein->dispatches.size() == 3);
  EXPECT(bluestein->dispatches[0].params.n * bluestein->dispatches[1].params.n == 8232);
  EXPECT(bluestein->dispatches[0].params.pre_mode == FFT_FUSED_TIMES_TABLE);
  EXPECT(bluestein->dispatches[0].params.in.valid == 4099);
  EXPECT(bluestein->dispatches[1].params.convolve == 1);
  EXPECT(bluestein->dispatches[2].params.pre_mode == FFT_FUSED_FOUR_STEP_TWIDDLE);
  EXPECT(bluestein->dispatches[2].params.post_mode == FFT_FUSED_TIMES_TABLE);
  EXPECT(bluestein->table_bytes() >= (4099 + 8232) * 8);
  EXPECT(bluestein->scratch_bytes == 8232 * 8);
  // no 7-smooth length in [2n - 1, 0.8 * 8192): the power of two (4092 = 4 * 3 * 11 * 31 has no
  // four-step split, so 4093 is not Rader's)
  auto bluestein_pow2 = build_metal_plan(request_for(TransformKind::kC2C, 4093, 1));
  EXPECT(bluestein_pow2->dispatches[0].params.n * bluestein_pow2->dispatches[1].params.n == 8192);
  // 8191 - 1 = 2 * 3^2 * 5 * 7 * 13 splits: Rader convolves 8190 points
  auto rader = build_metal_plan(request_for(TransformKind::kC2C, 8191, 1));
  EXPECT(rader->dispatches.size() == 4);
  EXPECT(rader->dispatches[0].params.n * rader->dispatches[1].params.n == 8190);
  EXPECT(rader->dispatches[0].params.pre_mode == FFT_FUSED_RADER_GATHER);
  EXPECT(rader->dispatches[1].params.convolve == FFT_CONVOLVE_RADER);
  EXPECT(rader->dispatches[2].params.post_mode == FFT_FUSED_NONE);
  EXPECT(rader->dispatches[3].kernel == "fft_permute");

  // a convolution of length 196 >= 2 * 97 - 1 fits one group: one pass
  auto small_bluestein = build_metal_plan(request_for(TransformKind::kC2C, 97, 1));
  EXPECT(small_bluestein->dispatches.size() == 1);
  EXPECT(small_bluestein->dispatches[0].params.convolve == 1);
  EXPECT(small_bluestein->dispatches[0].params.n == 196);

  // the real packing fused into the one pass, or a pass of its own beyond one group
  EXPECT((kernel_names(*build_metal_plan(request_for(TransformKind::kR2C, 64, 1))) ==
          std::vector<std::string>{"fft_stockham_pow2"}));
  EXPECT((kernel_names(*build_metal_plan(request_for(TransformKind::kC2R, 64, 1))) ==
          std::vector<std::string>{"fft_stockham_pow2"}));
  EXPECT((kernel_names(*build_metal_plan(request_for(TransformKind::kR2C, 1 << 14, 1))) ==
          std::vector<std::string>{"fft_stockham_pow2", "fft_stockham_pow2", "fft_r2c_unpack"}));
  EXPECT((kernel_names(*build_metal_plan(request_for(TransformKind::kC2R, 1 << 14, 1))) ==
          std::vector<std::string>{"fft_c2r_pack", "fft_stockham_pow2", "fft_stockham_pow2"}));
  EXPECT((kernel_names(*build_metal_plan(request_for(TransformKind::kC2R, 63, 1))) ==
          std::vector<std::string>{"fft_c2r_expand", "fft_stockham_smooth7"}));
  EXPECT((kernel_names(*build_metal_plan(request_for(TransformKind::kR2C, 63, 1))) ==
          std::vector<std::string>{"fft_stockham_smooth7"}));

  EXPECT(build_metal_plan(request_for(TransformKind::kC2C, 16, 0))->dispatches.empty());
  // Apple's 64-byte pieces: two passes of at most 512 points up to 2^18, then three.
  EXPECT(build_metal_plan(request_for(TransformKind::kC2C, 1 << 18, 1))->dispatches.size() == 2);
  EXPECT(build_metal_plan(request_for(TransformKind::kC2C, 1 << 20, 1))->dispatches.size() == 3);
  EXPECT(build_metal_plan(request_for(TransformKind::kC2C, 1 << 24, 1))->dispatches.size() == 3);
  bool rejected = false;
  try {
    build_metal_plan(request_for(TransformKind::kC2C, std::int64_t(1) << 25, 1));
  } catch (const PlanBuildError&) {
    rejected = true;
  }
  EXPECT(rejected);

  EXPECT(request_for(TransformKind::kC2C, 16, 2).key() == request_for(TransformKind::kC2C, 16, 2).key());
  EXPECT(!(request_for(TransformKind::kC2C, 16, 2, true, 1.0).key() ==
           request_for(TransformKind::kC2C, 16, 2, true, 0.5).key()));
}

// The 16 neighbouring threads of a half SIMD group reach 16 different banks
// of 8-byte words under transform_pitch: stages and walks along transforms
// reach element rank + c of transform `local` where T is odd or no side
// walks across; walks across reach element c of 16 neighbouring transforms.
void test_transform_pitch_spreads_banks() {
  auto distinct = [](const std::vector<std::uint32_t>& words) {
    std::vector<bool> bank(16, false);
    for (std::uint32_t w : words) {
      if (bank[w % 16]) return false;
      bank[w % 16] = true;
    }
    return true;
  };
  for (std::uint32_t n = 2; n <= 1024; ++n) {
    for (std::uint32_t threads = 1; threads <= 64 && threads <= n; ++threads) {
      const std::uint32_t per_group = std::max<std::uint32_t>(2, 256 / threads);
      for (bool across : {false, true}) {
        const std::uint32_t pitch = shaders::transform_pitch(
            n, false, across ? FFT_WALK_ACROSS : FFT_WALK_ALONG, FFT_WALK_ALONG, threads, per_group);
        EXPECT(pitch >= n && pitch < n + 16);
        for (std::uint32_t first = 0; first + 16 <= per_group * threads; first += 16) {
          std::vector<std::uint32_t> along;
          for (std::uint32_t tid = first; tid < first + 16; ++tid) {
            along.push_back(tid / threads * pitch + tid % threads);
          }
          if (threads % 2 == 1 || !across) EXPECT(distinct(along));
        }
        if (across) {
          std::vector<std::uint32_t> neighbours;
          for (std::uint32_t local = 0; local < 16; ++local) neighbours.push_back(local * pitch);
          EXPECT(distinct(neighbours));
        }
      }
    }
  }
  // One transform per group, or a side walking as one run, keeps n.
  EXPECT(shaders::transform_pitch(98, false, FFT_WALK_ALONG, FFT_WALK_ALONG, 7, 1) == 98);
  EXPECT(shaders::transform_pitch(98, false, FFT_WALK_RUN, FFT_WALK_ALONG, 7, 36) == 98);
  EXPECT(shaders::transform_pitch(98, false, FFT_WALK_ALONG, FFT_WALK_ALONG, 7, 36) == 103);
}

void test_plan_cache_holds_metal_plans() {
  PlanCache cache(CacheLimits{8, std::size_t(64) << 20, 1});
  MetalRequest request = request_for(TransformKind::kC2C, 4099, 1);
  auto build = [&] { return std::shared_ptr<const CachedValue>(build_metal_plan(request)); };
  auto first = cache.get<MetalPlan>(request.key(), build);
  auto second = cache.get<MetalPlan>(request.key(), build);
  EXPECT(first == second);
  EXPECT(cache.stats().builds == 1);
  EXPECT(cache.stats().plan_bytes == first->bytes());
  EXPECT(first->bytes() > first->table_bytes());
}

// A plan's tables are made device-readable once per plan and cache, and
// shared by every program that uses the plan; a plan without tables gets none.
void test_tables_resident_per_plan() {
  PlanCache cache(CacheLimits{32, std::size_t(64) << 20, 1});
  EmulatorExecutor executor;
  const TransformSpec bluestein{TransformKind::kC2C, true, Precision::kSingle, {3, 4099}, {3, 4099},
                                {1}, 1.0};
  const MetalProgram first = prepare_metal_program(bluestein, cache, executor);
  const MetalProgram second = prepare_metal_program(bluestein, cache, executor);
  EXPECT(first.steps.size() == 1 && first.steps[0].plan->table_bytes() > 0);
  EXPECT(first.steps[0].tables != nullptr);
  EXPECT(first.steps[0].tables == second.steps[0].tables);
  for (const MetalProgram* program : {&first, &second}) {
    for (const MetalStep& step : program->steps)
      EXPECT((step.tables != nullptr) == (step.plan->table_bytes() > 0));
  }
}

std::vector<Complex> random_complex(std::size_t count, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  std::vector<Complex> values(count);
  for (auto& v : values) v = Complex(float(normal(rng)), float(normal(rng)));
  return values;
}

void check_c2c(MetalEmulator& emulator, std::int64_t n, std::int64_t batch, bool forward,
               std::mt19937& rng) {
  auto plan = build_metal_plan(request_for(TransformKind::kC2C, n, batch, forward));
  auto x = random_complex(std::size_t(n * batch), rng);
  std::vector<float> in, out(std::size_t(2 * n * batch));
  for (const Complex& v : x) in.push_back(float(v.real())), in.push_back(float(v.imag()));
  emulator.run(*plan, in.data(), out.data());
  for (std::int64_t b = 0; b < batch; ++b) {
    std::vector<Complex> row(x.begin() + b * n, x.begin() + (b + 1) * n);
    std::vector<Complex> got(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) got[k] = Complex(out[2 * (b * n + k)], out[2 * (b * n + k) + 1]);
    double error = relative_error(got, naive_dft(row, forward ? -1 : 1));
    if (error > error_bound<float>(n)) {
      std::fprintf(stderr, "c2c n=%lld forward=%d: error %.3g\n", (long long)n, forward, error);
    }
    EXPECT(error <= error_bound<float>(n));
  }
}

void check_real_roundtrip(MetalEmulator& emulator, std::int64_t n, std::mt19937& rng) {
  const std::int64_t half = n / 2 + 1;
  std::normal_distribution<double> normal;
  std::vector<float> x(static_cast<std::size_t>(n));
  std::vector<float> spectrum(static_cast<std::size_t>(2 * half));
  std::vector<float> back(static_cast<std::size_t>(n));
  for (float& v : x) v = float(normal(rng));
  emulator.run(*build_metal_plan(request_for(TransformKind::kR2C, n, 1)), x.data(), spectrum.data());
  std::vector<Complex> xc(x.begin(), x.end());
  auto want = naive_dft(xc, -1);
  std::vector<Complex> got(static_cast<std::size_t>(half));
  for (std::int64_t k = 0; k < half; ++k) got[k] = Complex(spectrum[2 * k], spectrum[2 * k + 1]);
  want.resize(std::size_t(half));
  EXPECT(relative_error(got, want) <= error_bound<float>(n));
  emulator.run(*build_metal_plan(request_for(TransformKind::kC2R, n, 1, false, 1.0 / double(n))),
               spectrum.data(), back.data());
  std::vector<Complex> back_c(back.begin(), back.end());
  EXPECT(relative_error(back_c, xc) <= 2 * error_bound<float>(n));
}

void test_emulated_plans() {
  MetalEmulator emulator(2);  // two groups at a time: cross-group races are visible too
  std::mt19937 rng(7);
  for (std::int64_t n : {1, 2, 7, 12, 64, 97, 1000, 4096, 8192}) {
    for (bool forward : {true, false}) check_c2c(emulator, n, n <= 64 ? 3 : 1, forward, rng);
  }
  for (std::int64_t n : {1, 2, 30, 31, 64, 97}) check_real_roundtrip(emulator, n, rng);
}

std::vector<float> run_reverse(shaders::KernelFunction kernel) {
  constexpr std::uint32_t threads = 64, groups = 3;
  MetalEmulator emulator(2);
  std::vector<float> in(threads * groups), out(threads * groups);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  EmulatorBuffers buffers;
  buffers.in = in.data();
  buffers.out = out.data();
  shaders::FftParams params{};
  params.group_threads = threads;
  emulator.dispatch(kernel, buffers, params, EmulatorGrid{groups, threads, threads * 8});
  return out;
}

void test_synchronised_reverse() {
  std::vector<float> out = run_reverse(test_kernels::reverse_synchronised());
  for (std::uint32_t g = 0; g < 3; ++g) {
    for (std::uint32_t t = 0; t < 64; ++t) EXPECT(out[g * 64 + t] == float(g * 64 + 63 - t));
  }
}

// The one binding rule: a plan's slots land in the tensors its step names,
// scratch after the intermediate, and a binding of memory the call lacks
// fails before anything runs.
void test_dispatch_bindings() {
  MetalDispatch d;
  d.kernel = "k";
  d.bindings = {{0, MetalBufferSlot::source, 16},
                {1, MetalBufferSlot::destination, 32},
                {2, MetalBufferSlot::scratch, 8},
                {5, MetalBufferSlot::tables, 256}};
  CallPlaces<std::uint64_t> call;
  call.input = Place<std::uint64_t>{1000, 1};
  call.output = Place<std::uint64_t>{2000, 2};
  call.workspace = Place<std::uint64_t>{3000, 3};
  call.tables = Place<std::uint64_t>{4000};

  auto at = [](const std::vector<BoundBuffer<std::uint64_t>>& bound, std::uint32_t index) {
    for (const auto& b : bound)
      if (b.index == index) return b.place.handle + b.place.offset_bytes;
    return std::uint64_t(0);
  };
  const auto alone = bind_dispatch(d, BindingFrame{}, call);
  EXPECT(alone.size() == 4);
  EXPECT(at(alone, 0) == 1000 + 1 + 16);
  EXPECT(at(alone, 1) == 2000 + 2 + 32);
  EXPECT(at(alone, 2) == 3000 + 3 + 8);
  EXPECT(at(alone, 5) == 4000 + 256);

  // A C2R program's middle step: reads the output, writes the intermediate.
  const BindingFrame middle{MetalProgramTensor::output, MetalProgramTensor::intermediate, 512};
  const auto step = bind_dispatch(d, middle, call);
  EXPECT(at(step, 0) == 2000 + 2 + 16);
  EXPECT(at(step, 1) == 3000 + 3 + 32);
  EXPECT(at(step, 2) == 3000 + 3 + 512 + 8);

  auto throws = [&](const MetalDispatch& dispatch, const CallPlaces<std::uint64_t>& places) {
    try {
      bind_dispatch(dispatch, BindingFrame{}, places);
    } catch (const MetalExecutionError&) {
      return true;
    }
    return false;
  };
  CallPlaces<std::uint64_t> no_workspace = call;
  no_workspace.workspace.reset();
  EXPECT(throws(d, no_workspace));
  CallPlaces<std::uint64_t> no_tables = call;
  no_tables.tables.reset();
  EXPECT(throws(d, no_tables));
  MetalDispatch params_slot = d;
  params_slot.bindings = {{kMetalParamsIndex, MetalBufferSlot::source, 0}};
  EXPECT(throws(params_slot, call));
}

void test_racy_kernel() { run_reverse(test_kernels::reverse_missing_barrier()); }

// Runs this program's metal.racy_kernel and expects ThreadSanitizer to report it.
void test_missing_barrier_is_reported() {
#if defined(BUILT_WITH_TSAN)
  std::string command =
      std::string("'") + test_support::program_path() + "' metal.racy_kernel 2>&1";
  FILE* child = popen(command.c_str(), "r");
  EXPECT(child != nullptr);
  if (child == nullptr) return;
  std::string output;
  char chunk[4096];
  while (std::size_t got = std::fread(chunk, 1, sizeof(chunk), child)) output.append(chunk, got);
  int status = pclose(child);
  EXPECT(output.find("WARNING: ThreadSanitizer: data race") != std::string::npos);
  EXPECT(status != 0);
  std::printf("missing barrier: %s\n", output.find("data race") != std::string::npos
                                           ? "reported by ThreadSanitizer"
                                           : "NOT reported");
#else
  std::printf("race check skipped: build with -fsanitize=thread to run it\n");
#endif
}

const test_support::Suite kSuite("metal", {
    TEST_CASE(test_planner_decisions),
    TEST_CASE(test_transform_pitch_spreads_banks),
    TEST_CASE(test_plan_cache_holds_metal_plans),
    TEST_CASE(test_tables_resident_per_plan),
    TEST_CASE(test_emulated_plans),
    TEST_CASE(test_synchronised_reverse),
    TEST_CASE(test_dispatch_bindings),
    TEST_CASE(test_missing_barrier_is_reported),
});
const test_support::OnRequest kRacyKernel("metal", TEST_CASE(test_racy_kernel));

}  // namespace
}  // namespace jax_apple_fft
