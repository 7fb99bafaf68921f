#include "ffi/cpu_target.h"

#include <memory>
#include <string>

#include "cpu/cpu_transform.h"
#include "ffi/call_site.h"
#include "ffi/spec_from_attributes.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::TransformKind);
XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::Precision);

namespace jax_apple_fft {
namespace {

// What one call site keeps between calls: its cache and its resolved plans.
struct CallSiteState {
  static ffi::TypeId id;
  std::shared_ptr<PlanCache> cache;
  std::unique_ptr<CpuTransform> transform;
};
ffi::TypeId CallSiteState::id = {};
constexpr XLA_FFI_TypeInfo kCallSiteStateInfo = ffi::MakeTypeInfo<CallSiteState>();

constexpr const char* kPrefix = "jax_apple_fft: ";

ffi::ErrorOr<std::unique_ptr<CallSiteState>> Instantiate(
    TransformKind kind, bool forward, Precision precision, ffi::Span<const std::int64_t> in_shape,
    ffi::Span<const std::int64_t> axes, ffi::Span<const std::int64_t> lengths, double scale,
    std::uint64_t cache_handle) {
  auto cache = find_call_site_cache(cache_handle, kPrefix);
  if (!cache.has_value()) return ffi::Unexpected(cache.error());
  auto spec = spec_from_attributes(kind, forward, precision, in_shape, axes, lengths, scale);
  if (!spec.has_value())
    return ffi::Unexpected(ffi::Error::InvalidArgument(kPrefix + spec.error()));
  auto state = std::make_unique<CallSiteState>();
  state->cache = *cache;
  try {
    state->transform = CpuTransform::prepare(*spec, *state->cache);
  } catch (...) {
    return ffi::Unexpected(error_from_exception(kPrefix));
  }
  return state;
}

ffi::Error Execute(CallSiteState* state, ffi::AnyBuffer in, ffi::Result<ffi::AnyBuffer> out) {
  if (auto error = check_call(state->transform->spec(), in, *out, kPrefix);
      error.failure())
    return error;
  try {
    state->transform->execute(in.untyped_data(), out->untyped_data(), *state->cache);
  } catch (...) {
    return error_from_exception(kPrefix);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER(CpuInstantiate, Instantiate,
                       ffi::Ffi::BindInstantiate()
                           .Attr<TransformKind>("kind")
                           .Attr<bool>("forward")
                           .Attr<Precision>("precision")
                           .Attr<ffi::Span<const std::int64_t>>("in_shape")
                           .Attr<ffi::Span<const std::int64_t>>("axes")
                           .Attr<ffi::Span<const std::int64_t>>("lengths")
                           .Attr<double>("scale")
                           .Attr<std::uint64_t>("cache"));

XLA_FFI_DEFINE_HANDLER(CpuExecute, Execute,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::State<CallSiteState>>()
                           .Arg<ffi::AnyBuffer>()
                           .Ret<ffi::AnyBuffer>());

}  // namespace

void* CpuInstantiateHandler() { return reinterpret_cast<void*>(CpuInstantiate); }
void* CpuExecuteHandler() { return reinterpret_cast<void*>(CpuExecute); }

XLA_FFI_TypeId* CallSiteStateTypeId() { return &CallSiteState::id; }
const XLA_FFI_TypeInfo* CallSiteStateTypeInfo() { return &kCallSiteStateInfo; }

}  // namespace jax_apple_fft
