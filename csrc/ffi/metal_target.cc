#include "ffi/metal_target.h"

#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "ffi/call_site.h"
#include "ffi/spec_from_attributes.h"
#include "metal/cache_executors.h"
#include "metal/metal_program.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::TransformKind);
XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::Precision);
XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::MetalExecutorKind);

namespace jax_apple_fft {
namespace {

struct MetalCallSiteState {
  static ffi::TypeId id;
  std::shared_ptr<PlanCache> cache;
  std::shared_ptr<MetalExecutor> executor;
  TransformSpec spec;
  MetalProgram program;
};
ffi::TypeId MetalCallSiteState::id = {};
constexpr XLA_FFI_TypeInfo kMetalCallSiteStateInfo = ffi::MakeTypeInfo<MetalCallSiteState>();

constexpr const char* kPrefix = "jax_apple_fft (Metal): ";

ffi::ErrorOr<std::unique_ptr<MetalCallSiteState>> Instantiate(
    MetalExecutorKind executor, TransformKind kind, bool forward, Precision precision,
    ffi::Span<const std::int64_t> in_shape, ffi::Span<const std::int64_t> axes,
    ffi::Span<const std::int64_t> lengths, double scale, std::uint64_t cache_handle) {
  auto cache = find_call_site_cache(cache_handle, kPrefix);
  if (!cache.has_value()) return ffi::Unexpected(cache.error());
  if (precision != Precision::kSingle)
    return ffi::Unexpected(ffi::Error::InvalidArgument(
        std::string(kPrefix) + "Metal runs float32/complex64 only; use backend='cpu' for "
                               "float64/complex128"));
  auto spec = spec_from_attributes(kind, forward, precision, in_shape, axes, lengths, scale);
  if (!spec.has_value())
    return ffi::Unexpected(ffi::Error::InvalidArgument(kPrefix + spec.error()));
  auto state = std::make_unique<MetalCallSiteState>();
  state->cache = *cache;
  state->spec = *spec;
  try {
    state->executor = metal_executor(*state->cache, executor);
    state->program = prepare_metal_program(state->spec, *state->cache, *state->executor);
  } catch (const MetalUnavailableError& e) {
    return ffi::Unexpected(ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                                      kPrefix + std::string(e.what()) + "; use backend='cpu'"));
  } catch (...) {
    return ffi::Unexpected(error_from_exception(kPrefix));
  }
  return state;
}

ffi::Error Execute(MetalCallSiteState* state, ffi::AnyBuffer in, ffi::Result<ffi::AnyBuffer> out) {
  if (auto error = check_call(state->spec, in, *out, kPrefix); error.failure())
    return error;
  try {
    state->executor->run(state->program, in.untyped_data(), out->untyped_data(), *state->cache);
  } catch (...) {
    return error_from_exception(kPrefix);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER(MetalInstantiate, Instantiate,
                       ffi::Ffi::BindInstantiate()
                           .Attr<MetalExecutorKind>("executor")
                           .Attr<TransformKind>("kind")
                           .Attr<bool>("forward")
                           .Attr<Precision>("precision")
                           .Attr<ffi::Span<const std::int64_t>>("in_shape")
                           .Attr<ffi::Span<const std::int64_t>>("axes")
                           .Attr<ffi::Span<const std::int64_t>>("lengths")
                           .Attr<double>("scale")
                           .Attr<std::uint64_t>("cache"));

XLA_FFI_DEFINE_HANDLER(MetalExecute, Execute,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::State<MetalCallSiteState>>()
                           .Arg<ffi::AnyBuffer>()
                           .Ret<ffi::AnyBuffer>());

}  // namespace

void* MetalInstantiateHandler() { return reinterpret_cast<void*>(MetalInstantiate); }
void* MetalExecuteHandler() { return reinterpret_cast<void*>(MetalExecute); }

XLA_FFI_TypeId* MetalCallSiteStateTypeId() { return &MetalCallSiteState::id; }
const XLA_FFI_TypeInfo* MetalCallSiteStateTypeInfo() { return &kMetalCallSiteStateInfo; }

}  // namespace jax_apple_fft
