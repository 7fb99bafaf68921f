#include "metal/emulator/emulator_executor.h"

#include <stdexcept>
#include <utility>

#include "cache/plan_cache.h"
#include "metal/dispatch_bindings.h"
#include "metal/emulator/emulated_kernels.h"
#include "metal/metal_program.h"

namespace jax_apple_fft {
namespace {

class EmulatedPipeline final : public MetalPipeline {
 public:
  explicit EmulatedPipeline(shaders::KernelFunction f) : function(f) {}
  std::size_t bytes() const override { return sizeof(*this); }
  const shaders::KernelFunction function;
};

// The emulated device reads the plan's own memory, as a Mac's GPU reads the
// buffer it was uploaded to.
class EmulatedTables final : public MetalTables {
 public:
  explicit EmulatedTables(std::shared_ptr<const MetalPlan> p) : plan(std::move(p)) {}
  std::size_t bytes() const override { return sizeof(*this); }
  char* data() const {
    return reinterpret_cast<char*>(const_cast<shaders::float2*>(plan->tables.data()));
  }
  const std::shared_ptr<const MetalPlan> plan;
};

}  // namespace

std::shared_ptr<const MetalTables> EmulatorExecutor::upload_tables(
    const std::shared_ptr<const MetalPlan>& plan) {
  return std::make_shared<EmulatedTables>(plan);
}

std::shared_ptr<const MetalPipeline> EmulatorExecutor::build_pipeline(
    const std::string& kernel, const std::vector<std::uint32_t>& /*constants*/) {
  shaders::KernelFunction function = metal_emulator::find_kernel(kernel);
  if (function == nullptr) throw std::invalid_argument("no emulated kernel named " + kernel);
  return std::make_shared<EmulatedPipeline>(function);
}

void EmulatorExecutor::run(const MetalProgram& program, const void* input, void* output,
                           PlanCache& cache) {
  count_call();
  if (program.steps.empty()) return;
  // The caller's buffers are bound in place, as the Apple executor wraps them.
  count_wrapped(program.input_bytes + program.output_bytes);
  ScratchArena::Lease work = cache.scratch().acquire(program.workspace_bytes());
  CallPlaces<char*> call;
  call.input = Place<char*>{const_cast<char*>(static_cast<const char*>(input))};
  call.output = Place<char*>{static_cast<char*>(output)};
  if (program.workspace_bytes() > 0) call.workspace = Place<char*>{work.as<char>()};
  for (const MetalStep& step : program.steps) {
    call.tables.reset();
    if (step.tables) {
      call.tables = Place<char*>{static_cast<const EmulatedTables&>(*step.tables).data()};
    }
    const BindingFrame frame = step_frame(program, step);
    for (std::size_t i = 0; i < step.plan->dispatches.size(); ++i) {
      const auto& pipeline = static_cast<const EmulatedPipeline&>(*step.pipelines[i]);
      emulator_.dispatch_record(pipeline.function, step.plan->dispatches[i], frame, call);
    }
  }
}

}  // namespace jax_apple_fft
