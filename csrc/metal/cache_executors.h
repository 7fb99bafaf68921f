// The Metal executors of a PlanCache: each kind is built once per cache, on
// first use, and lives as long as the cache (never global).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "metal/metal_executor.h"

namespace jax_apple_fft {

class PlanCache;

// Metal cannot run here (not macOS, no device, or a build without the Apple
// executor). The message says why.
class MetalUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The executor of `kind` owned by `cache`, built on first use.
// Throws MetalUnavailableError.
std::shared_ptr<MetalExecutor> metal_executor(PlanCache& cache, MetalExecutorKind kind);

// Its transfer counters, or nothing if `cache` never built that executor.
std::optional<MetalTransferStats> metal_transfer_stats(const PlanCache& cache,
                                                       MetalExecutorKind kind);

// Whether the Apple GPU can run Metal programs in this process, and how its
// kernel library is obtained ("metallib" or "source").
struct AppleMetalStatus {
  bool available = false;
  std::string reason;
  std::string library;
};
AppleMetalStatus apple_metal_status();

}  // namespace jax_apple_fft
