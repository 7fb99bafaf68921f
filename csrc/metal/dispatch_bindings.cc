#include "metal/dispatch_bindings.h"

namespace jax_apple_fft {
namespace {

CallLocation tensor_location(MetalProgramTensor tensor) {
  switch (tensor) {
    case MetalProgramTensor::input:
      return {CallMemory::input, 0};
    case MetalProgramTensor::output:
      return {CallMemory::output, 0};
    case MetalProgramTensor::intermediate:
      break;
  }
  return {CallMemory::workspace, 0};  // the intermediate starts the workspace
}

}  // namespace

const char* call_memory_name(CallMemory memory) {
  switch (memory) {
    case CallMemory::input:
      return "input tensor";
    case CallMemory::output:
      return "output tensor";
    case CallMemory::workspace:
      return "workspace";
    case CallMemory::tables:
      break;
  }
  return "tables";
}

BindingFrame step_frame(const MetalProgram& program, const MetalStep& step) {
  return BindingFrame{step.source, step.destination, program.scratch_offset()};
}

CallLocation locate_binding(const BindingFrame& frame, const MetalBinding& binding) {
  if (binding.index >= kMetalParamsIndex) {
    throw MetalExecutionError("buffer index " + std::to_string(binding.index) +
                              " is outside the kernel signature's buffers");
  }
  CallLocation base{CallMemory::tables, 0};
  switch (binding.buffer) {
    case MetalBufferSlot::source:
      base = tensor_location(frame.source);
      break;
    case MetalBufferSlot::destination:
      base = tensor_location(frame.destination);
      break;
    case MetalBufferSlot::scratch:
      base = {CallMemory::workspace, frame.scratch_offset};
      break;
    case MetalBufferSlot::tables:
      break;
  }
  return {base.memory, base.offset_bytes + binding.offset_bytes};
}

}  // namespace jax_apple_fft
