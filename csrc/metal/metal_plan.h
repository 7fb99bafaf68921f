// What the Metal planner produces: dispatch records any executor can replay.
//
// A plan names kernels by their Metal function name and binds buffers by
// role and byte offset. The Apple executor and the emulator both just walk
// `dispatches` in order; neither makes a decision of its own.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cache/cached_value.h"
#include "metal/shader_types.h"

namespace jax_apple_fft {

// The buffer slots a plan's dispatches bind. A plan reads its source and
// writes its destination; which tensors those are is the caller's choice
// (a program step's source and destination, dispatch_bindings.h).
enum class MetalBufferSlot : std::uint8_t {
  source,       // the tensor the plan reads
  destination,  // the tensor the plan writes
  scratch,      // a per-call workspace of MetalPlan::scratch_bytes
  tables,       // MetalPlan::tables, uploaded once per plan
};

struct MetalBinding {
  std::uint32_t index;  // [[buffer(index)]]
  MetalBufferSlot buffer;
  std::uint64_t offset_bytes;
};

// Index of the FftParams argument (set with setBytes, not a buffer).
inline constexpr std::uint32_t kMetalParamsIndex = 6;

struct MetalDispatch {
  std::string kernel;
  std::array<std::uint32_t, 3> threadgroups{1, 1, 1};  // grid, in threadgroups
  std::array<std::uint32_t, 3> threads{1, 1, 1};       // threads per threadgroup
  std::uint32_t threadgroup_memory_bytes = 0;          // [[threadgroup(0)]]
  std::vector<MetalBinding> bindings;
  shaders::FftParams params{};
  // The function constants of the kernel's pipeline, by index
  // (shaders/fft_pipeline_constants.h); empty for a kernel that takes none.
  std::vector<std::uint32_t> pipeline_constants;
};

class MetalPlan : public CachedValue {
 public:
  PlanKey key;
  std::vector<MetalDispatch> dispatches;
  std::vector<shaders::float2> tables;  // twiddles and chirps, computed in double
  std::uint64_t scratch_bytes = 0;
  std::uint64_t source_bytes = 0;       // smallest source buffer the bindings may touch
  std::uint64_t destination_bytes = 0;  // smallest destination buffer the bindings may touch

  std::size_t table_bytes() const { return tables.size() * sizeof(shaders::float2); }
  // Tables and records; scratch is workspace, accounted by whoever allocates it.
  std::size_t bytes() const override;
};

}  // namespace jax_apple_fft
