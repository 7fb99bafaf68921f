#include "metal/cache_executors.h"

#include "cache/plan_cache.h"
#include "metal/emulator/emulator_executor.h"

#if defined(JAX_APPLE_FFT_APPLE_EXECUTOR)
#include "metal/apple/apple_executor.h"
#endif

namespace jax_apple_fft {
namespace {

std::string resident_name(MetalExecutorKind kind) {
  return kind == MetalExecutorKind::apple ? "metal.executor.apple" : "metal.executor.emulator";
}

std::shared_ptr<MetalExecutor> make_executor(MetalExecutorKind kind) {
  if (kind == MetalExecutorKind::emulator) return std::make_shared<EmulatorExecutor>();
#if defined(JAX_APPLE_FFT_APPLE_EXECUTOR)
  return make_apple_executor();
#else
  throw MetalUnavailableError(apple_metal_status().reason);
#endif
}

}  // namespace

std::shared_ptr<MetalExecutor> metal_executor(PlanCache& cache, MetalExecutorKind kind) {
  return std::static_pointer_cast<MetalExecutor>(
      cache.resident(resident_name(kind), [kind] { return make_executor(kind); }));
}

std::optional<MetalTransferStats> metal_transfer_stats(const PlanCache& cache,
                                                       MetalExecutorKind kind) {
  auto executor = std::static_pointer_cast<MetalExecutor>(cache.find_resident(resident_name(kind)));
  if (!executor) return std::nullopt;
  return executor->transfer_stats();
}

#if !defined(JAX_APPLE_FFT_APPLE_EXECUTOR)
AppleMetalStatus apple_metal_status() {
#if defined(__APPLE__)
  return {false, "this build of jax_apple_fft was made without the Apple Metal executor", ""};
#else
  return {false, "Metal needs macOS on Apple silicon", ""};
#endif
}
#endif

}  // namespace jax_apple_fft
