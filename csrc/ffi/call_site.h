// What both FFI targets (CPU and Metal) check and report the same way: the
// cache a call names, the buffers XLA passes, and exceptions turned into FFI
// errors. Each message starts with the target's prefix.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cache/plan_cache.h"
#include "spec/transform_spec.h"
#include "xla/ffi/api/ffi.h"

namespace jax_apple_fft {

// The live cache `handle` names, or an error saying how to get one.
xla::ffi::ErrorOr<std::shared_ptr<PlanCache>> find_call_site_cache(std::uint64_t handle,
                                                                   const std::string& prefix);

// Success if XLA's buffers have the dtypes and shapes `spec` was planned for.
// A closed cache is not checked: a call site holds the plans it resolved, and
// runs on after close() as it does after their eviction.
xla::ffi::Error check_call(const TransformSpec& spec, const xla::ffi::AnyBuffer& in,
                           const xla::ffi::AnyBuffer& out, const std::string& prefix);

// Call inside `catch (...)`: the exception in flight as an FFI error.
xla::ffi::Error error_from_exception(const std::string& prefix);

}  // namespace jax_apple_fft
