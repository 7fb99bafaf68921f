// The "jax_apple_fft_cpu" XLA FFI target: an instantiate stage that plans
// each call site once, and an execute stage that runs the plan.
#pragma once

#include "xla/ffi/api/c_api.h"

namespace jax_apple_fft {

// The two stage handlers, as the function pointers XLA expects.
void* CpuInstantiateHandler();
void* CpuExecuteHandler();

// The per-call-site state type, registered with XLA before the target.
XLA_FFI_TypeId* CallSiteStateTypeId();
const XLA_FFI_TypeInfo* CallSiteStateTypeInfo();

}  // namespace jax_apple_fft
