// Where the buffers of a dispatch record lie in one call: the one rule by
// which every executor of dispatch records (the Apple executor, the emulator,
// the CUDA verifier through _core) turns a binding into memory and offset.
//
// A binding names one of its plan's buffer slots and a byte offset into it. A
// call provides memory of four kinds: the caller's input and output tensors, a
// workspace (a program's intermediate tensor at its start, the scratch at
// MetalProgram::scratch_offset()) and the tables of the plan being run. Each
// executor names that memory by its own handle: a pointer in the emulator, a
// Metal buffer on a Mac, a device address in CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metal/metal_executor.h"
#include "metal/metal_plan.h"
#include "metal/metal_program.h"

namespace jax_apple_fft {

enum class CallMemory : std::uint8_t { input, output, workspace, tables };

const char* call_memory_name(CallMemory memory);

// What one plan's slots are in a call: the tensors it reads and writes, and
// where its scratch starts in the workspace. The default is a plan run alone.
struct BindingFrame {
  MetalProgramTensor source = MetalProgramTensor::input;
  MetalProgramTensor destination = MetalProgramTensor::output;
  std::uint64_t scratch_offset = 0;
};

BindingFrame step_frame(const MetalProgram& program, const MetalStep& step);

struct CallLocation {
  CallMemory memory;
  std::uint64_t offset_bytes;
};

// Throws MetalExecutionError for a binding index outside the kernel
// signature's buffers (0 to kMetalParamsIndex - 1).
CallLocation locate_binding(const BindingFrame& frame, const MetalBinding& binding);

// Memory of an executor: its handle and the byte offset to bind it at.
template <class Handle>
struct Place {
  Handle handle{};
  std::uint64_t offset_bytes = 0;
};

// The memory one call provides; absent where the call has none (no
// workspace, a plan without tables).
template <class Handle>
struct CallPlaces {
  std::optional<Place<Handle>> input;
  std::optional<Place<Handle>> output;
  std::optional<Place<Handle>> workspace;
  std::optional<Place<Handle>> tables;

  const std::optional<Place<Handle>>& at(CallMemory memory) const {
    switch (memory) {
      case CallMemory::input:
        return input;
      case CallMemory::output:
        return output;
      case CallMemory::workspace:
        return workspace;
      case CallMemory::tables:
        break;
    }
    return tables;
  }
};

template <class Handle>
struct BoundBuffer {
  std::uint32_t index;  // [[buffer(index)]]
  Place<Handle> place;
};

// Every binding of `dispatch`, in its order, placed in `call`. Throws
// MetalExecutionError where a binding needs memory the call lacks.
template <class Handle>
std::vector<BoundBuffer<Handle>> bind_dispatch(const MetalDispatch& dispatch,
                                               const BindingFrame& frame,
                                               const CallPlaces<Handle>& call) {
  std::vector<BoundBuffer<Handle>> bound;
  bound.reserve(dispatch.bindings.size());
  for (const MetalBinding& binding : dispatch.bindings) {
    const CallLocation location = locate_binding(frame, binding);
    const std::optional<Place<Handle>>& base = call.at(location.memory);
    if (!base) {
      throw MetalExecutionError(dispatch.kernel + " binds the " +
                                call_memory_name(location.memory) + ", which this call lacks");
    }
    bound.push_back({binding.index, {base->handle, base->offset_bytes + location.offset_bytes}});
  }
  return bound;
}

}  // namespace jax_apple_fft
