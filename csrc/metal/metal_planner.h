// The Metal planner: from a request to dispatch records, on any OS.
//
// Strategy by length n of a complex transform:
//   n <= 4096 with factors in {2,3,5,7,11,13}: one Stockham dispatch in
//     threadgroup memory (several transforms per group when n is small);
//   larger such n = n1 * n2 with n1, n2 <= 4096: four-step, two dispatches
//     through scratch, the w_n^(k1 j2) twiddle fused into the first;
//   any other n: Bluestein over a power-of-two length m >= 2n - 1.
// Real transforms of even n use a half-length complex transform plus an
// unpack (R2C) or pack (C2R) dispatch; odd n use the full-length complex one.
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
