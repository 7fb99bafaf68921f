// A whole transform on the Metal backend: one Metal plan per transformed axis.
//
// The planner handles one axis at a time; a multi-axis transform chains
// steps. C2C and R2C write the output first and finish in place there (the
// kernels load a transform completely before storing it, so in place is
// safe). C2R must not write its input, so its complex axes run through an
// intermediate tensor before the final C2R step writes the output.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "metal/metal_executor.h"
#include "metal/metal_plan.h"
#include "metal/metal_request.h"
#include "spec/transform_spec.h"

namespace jax_apple_fft {

class PlanCache;

// The tensors of one call of a program: the caller's input and output, and
// the intermediate that C2R's complex axes write in the workspace.
enum class MetalProgramTensor : std::uint8_t { input, output, intermediate };

struct MetalStep {
  std::shared_ptr<const MetalPlan> plan;
  MetalProgramTensor source = MetalProgramTensor::input;
  MetalProgramTensor destination = MetalProgramTensor::output;
  // One per dispatch of `plan`, in order.
  std::vector<std::shared_ptr<const MetalPipeline>> pipelines;
  // Null when the plan has no tables.
  std::shared_ptr<const MetalTables> tables;
};

struct MetalProgram {
  std::vector<MetalStep> steps;
  std::uint64_t input_bytes = 0;
  std::uint64_t output_bytes = 0;
  std::uint64_t intermediate_bytes = 0;  // complex64 tensor between C2R's axes
  std::uint64_t scratch_bytes = 0;       // the largest step's scratch

  // Executors place scratch after the intermediate in one workspace, at an
  // offset every binding may use (Metal wants aligned buffer offsets).
  std::uint64_t scratch_offset() const { return (intermediate_bytes + 255) / 256 * 256; }
  std::uint64_t workspace_bytes() const { return scratch_offset() + scratch_bytes; }
};

// The per-axis requests of `spec` (single precision), with where each step
// reads and writes. Pure: touches no cache.
struct MetalStepRequest {
  MetalRequest request;
  MetalProgramTensor source;
  MetalProgramTensor destination;
};
std::vector<MetalStepRequest> metal_step_requests(const TransformSpec& spec);

// Resolves every plan and pipeline through `cache`. Throws PlanBuildError
// (plan or pipeline build failed) or CacheClosedError.
MetalProgram prepare_metal_program(const TransformSpec& spec, PlanCache& cache,
                                   MetalExecutor& executor);

}  // namespace jax_apple_fft
