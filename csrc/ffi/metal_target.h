// The "jax_apple_fft_metal" XLA FFI target: plans a call site's Metal
// program through its PlanCache once, then runs it on the executor named by
// the `executor` attribute (the Apple GPU, or the emulator for testing).
#pragma once

#include "xla/ffi/api/c_api.h"

namespace jax_apple_fft {

void* MetalInstantiateHandler();
void* MetalExecuteHandler();

// The per-call-site state type, registered with XLA before the target.
XLA_FFI_TypeId* MetalCallSiteStateTypeId();
const XLA_FFI_TypeInfo* MetalCallSiteStateTypeInfo();

}  // namespace jax_apple_fft
