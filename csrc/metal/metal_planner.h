// The Metal planner: from a request to dispatch records, on any OS. The
// route a length takes is chosen in metal_routes.h; metal_planner.cc builds
// the records of that route.
#pragma once

#include <memory>

#include "metal/metal_plan.h"
#include "metal/metal_request.h"

namespace jax_apple_fft {

// Largest length the four-step decomposition reaches (4096 * 4096).
inline constexpr std::int64_t kMetalMaxLength = std::int64_t(1) << 24;

// Throws PlanBuildError for requests the Metal kernels cannot serve.
std::shared_ptr<const MetalPlan> build_metal_plan(const MetalRequest& request);

}  // namespace jax_apple_fft
