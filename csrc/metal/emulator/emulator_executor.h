// The executor that runs Metal programs in the emulator, on any OS.
//
// It is the testing backend ("metal-emulated"): the same JAX call, FFI
// target, planner and dispatch records as on a Mac, with the kernels run
// as C++. Like the Apple executor it binds XLA's buffers in place.
#pragma once

#include <memory>
#include <string>

#include "metal/emulator/metal_emulator.h"
#include "metal/metal_executor.h"

namespace jax_apple_fft {

class EmulatorExecutor final : public MetalExecutor {
 public:
  MetalExecutorKind kind() const override { return MetalExecutorKind::emulator; }
  std::shared_ptr<const MetalPipeline> build_pipeline(
      const std::string& kernel, const std::vector<std::uint32_t>& constants) override;
  std::shared_ptr<const MetalTables> upload_tables(
      const std::shared_ptr<const MetalPlan>& plan) override;
  void run(const MetalProgram& program, const void* input, void* output,
           PlanCache& cache) override;

 private:
  MetalEmulator emulator_;
};

}  // namespace jax_apple_fft
