#include "ffi/cpu_target.h"

#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "cpu/cpu_transform.h"
#include "ffi/cache_handles.h"
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

ffi::ErrorOr<std::unique_ptr<CallSiteState>> Instantiate(
    TransformKind kind, bool forward, Precision precision, ffi::Span<const std::int64_t> in_shape,
    ffi::Span<const std::int64_t> axes, ffi::Span<const std::int64_t> lengths, double scale,
    std::uint64_t cache_handle) {
  auto state = std::make_unique<CallSiteState>();
  state->cache = CacheHandles::table().find(cache_handle);
  if (!state->cache)
    return ffi::Unexpected(ffi::Error::InvalidArgument(
        "jax_apple_fft: the PlanCache this computation was traced with no longer exists; "
        "trace it again with a live cache"));
  auto spec = spec_from_attributes(kind, forward, precision, in_shape, axes, lengths, scale);
  if (!spec.has_value())
    return ffi::Unexpected(ffi::Error::InvalidArgument("jax_apple_fft: " + spec.error()));
  try {
    state->transform = CpuTransform::prepare(*spec, *state->cache);
  } catch (const CacheClosedError& e) {
    return ffi::Unexpected(
        ffi::Error(ffi::ErrorCode::kFailedPrecondition, std::string("jax_apple_fft: ") + e.what()));
  } catch (const std::exception& e) {
    return ffi::Unexpected(ffi::Error::Internal(std::string("jax_apple_fft: ") + e.what()));
  }
  return state;
}

std::string describe_shape(ffi::Span<const std::int64_t> dims) {
  std::string text = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + (dims.size() == 1 ? ",)" : ")");
}

ffi::Error check_buffer(const char* what, ffi::DataType dtype, ffi::Span<const std::int64_t> dims,
                        ffi::DataType expected_dtype, const std::vector<std::int64_t>& expected) {
  bool same = dims.size() == expected.size();
  for (std::size_t i = 0; same && i < dims.size(); ++i) same = dims[i] == expected[i];
  if (dtype != expected_dtype || !same)
    return ffi::Error::InvalidArgument(std::string("jax_apple_fft: ") + what +
                                       " buffer does not match the planned transform (shape " +
                                       describe_shape(dims) + ")");
  return ffi::Error::Success();
}

ffi::Error Execute(CallSiteState* state, ffi::AnyBuffer in, ffi::Result<ffi::AnyBuffer> out) {
  const TransformSpec& spec = state->transform->spec();
  const bool single = spec.precision == Precision::kSingle;
  const ffi::DataType complex_type = single ? ffi::DataType::C64 : ffi::DataType::C128;
  const ffi::DataType real_type = single ? ffi::DataType::F32 : ffi::DataType::F64;
  if (auto e = check_buffer("input", in.element_type(), in.dimensions(),
                            spec.kind == TransformKind::kR2C ? real_type : complex_type,
                            spec.in_shape);
      e.failure())
    return e;
  if (auto e = check_buffer("output", out->element_type(), out->dimensions(),
                            spec.kind == TransformKind::kC2R ? real_type : complex_type,
                            spec.out_shape);
      e.failure())
    return e;
  if (state->cache->closed())
    return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                      "jax_apple_fft: this computation's PlanCache has been closed");
  try {
    state->transform->execute(in.untyped_data(), out->untyped_data(), *state->cache);
  } catch (const std::bad_alloc&) {
    return ffi::Error(ffi::ErrorCode::kResourceExhausted, "jax_apple_fft: out of memory");
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("jax_apple_fft: ") + e.what());
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
