#include "ffi/metal_target.h"

#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "ffi/cache_handles.h"
#include "ffi/spec_from_attributes.h"
#include "metal/metal_executors.h"
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

ffi::Error failure(ffi::ErrorCode code, const std::string& message) {
  return ffi::Error(code, "jax_apple_fft (Metal): " + message);
}

ffi::ErrorOr<std::unique_ptr<MetalCallSiteState>> Instantiate(
    MetalExecutorKind executor, TransformKind kind, bool forward, Precision precision,
    ffi::Span<const std::int64_t> in_shape, ffi::Span<const std::int64_t> axes,
    ffi::Span<const std::int64_t> lengths, double scale, std::uint64_t cache_handle) {
  auto state = std::make_unique<MetalCallSiteState>();
  state->cache = CacheHandles::table().find(cache_handle);
  if (!state->cache)
    return ffi::Unexpected(failure(ffi::ErrorCode::kInvalidArgument,
                                   "the PlanCache this computation was traced with no longer "
                                   "exists; trace it again with a live cache"));
  if (precision != Precision::kSingle)
    return ffi::Unexpected(failure(ffi::ErrorCode::kInvalidArgument,
                                   "Metal runs float32/complex64 only; use backend='cpu' for "
                                   "float64/complex128"));
  auto spec = spec_from_attributes(kind, forward, precision, in_shape, axes, lengths, scale);
  if (!spec.has_value())
    return ffi::Unexpected(failure(ffi::ErrorCode::kInvalidArgument, spec.error()));
  state->spec = *spec;
  try {
    state->executor = metal_executor(*state->cache, executor);
    state->program = prepare_metal_program(state->spec, *state->cache, *state->executor);
  } catch (const MetalUnavailableError& e) {
    return ffi::Unexpected(failure(ffi::ErrorCode::kFailedPrecondition,
                                   std::string(e.what()) + "; use backend='cpu'"));
  } catch (const CacheClosedError& e) {
    return ffi::Unexpected(failure(ffi::ErrorCode::kFailedPrecondition, e.what()));
  } catch (const std::invalid_argument& e) {
    return ffi::Unexpected(failure(ffi::ErrorCode::kInvalidArgument, e.what()));
  } catch (const std::exception& e) {
    return ffi::Unexpected(failure(ffi::ErrorCode::kInternal, e.what()));
  }
  return state;
}

bool same_dims(ffi::Span<const std::int64_t> dims, const std::vector<std::int64_t>& expected) {
  if (dims.size() != expected.size()) return false;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != expected[i]) return false;
  return true;
}

ffi::Error Execute(MetalCallSiteState* state, ffi::AnyBuffer in, ffi::Result<ffi::AnyBuffer> out) {
  const TransformSpec& spec = state->spec;
  const auto in_type = spec.kind == TransformKind::kR2C ? ffi::DataType::F32 : ffi::DataType::C64;
  const auto out_type = spec.kind == TransformKind::kC2R ? ffi::DataType::F32 : ffi::DataType::C64;
  if (in.element_type() != in_type || !same_dims(in.dimensions(), spec.in_shape))
    return failure(ffi::ErrorCode::kInvalidArgument,
                   "the input buffer does not match the planned transform");
  if (out->element_type() != out_type || !same_dims(out->dimensions(), spec.out_shape))
    return failure(ffi::ErrorCode::kInvalidArgument,
                   "the output buffer does not match the planned transform");
  if (state->cache->closed())
    return failure(ffi::ErrorCode::kFailedPrecondition, "this computation's PlanCache has been closed");
  try {
    state->executor->run(state->program, in.untyped_data(), out->untyped_data(), *state->cache);
  } catch (const std::bad_alloc&) {
    return failure(ffi::ErrorCode::kResourceExhausted, "out of memory");
  } catch (const std::exception& e) {
    return failure(ffi::ErrorCode::kInternal, e.what());
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
