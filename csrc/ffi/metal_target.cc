#include "ffi/metal_target.h"

#include <memory>
#include <string>
#include <utility>

#include "ffi/call_site_target.h"
#include "metal/cache_executors.h"
#include "metal/metal_program.h"

namespace ffi = xla::ffi;

XLA_FFI_REGISTER_ENUM_ATTR_DECODING(jax_apple_fft::MetalExecutorKind);

namespace jax_apple_fft {
namespace {

// A call site of the Metal target: the program planned for it and the
// executor its `executor` attribute names; float32/complex64 only.
struct MetalSite {
  static constexpr const char* kPrefix = "jax_apple_fft (Metal): ";

  template <class Binding>
  static auto bind_own_attributes(Binding&& binding) {
    return std::move(binding).template Attr<MetalExecutorKind>("executor");
  }
  static ffi::Error check(Precision precision) {
    if (precision == Precision::kSingle) return ffi::Error::Success();
    return ffi::Error::InvalidArgument(std::string(kPrefix) +
                                       "Metal runs float32/complex64 only; use backend='cpu' for "
                                       "float64/complex128");
  }
  static ffi::ErrorOr<MetalSite> prepare(const TransformSpec& spec, PlanCache& cache,
                                         MetalExecutorKind executor_kind) {
    MetalSite site;
    site.spec_ = spec;
    try {
      site.executor_ = metal_executor(cache, executor_kind);
      site.program_ = prepare_metal_program(site.spec_, cache, *site.executor_);
    } catch (const MetalUnavailableError& e) {
      return ffi::Unexpected(ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                                        kPrefix + std::string(e.what()) + "; use backend='cpu'"));
    }
    return site;
  }
  const TransformSpec& spec() const { return spec_; }
  void execute(const void* in, void* out, PlanCache& cache) const {
    executor_->run(program_, in, out, cache);
  }

  TransformSpec spec_;
  std::shared_ptr<MetalExecutor> executor_;
  MetalProgram program_;
};

using MetalTarget = CallSiteTarget<MetalSite>;

}  // namespace

void* MetalInstantiateHandler() { return MetalTarget::instantiate_handler(); }
void* MetalExecuteHandler() { return MetalTarget::execute_handler(); }

XLA_FFI_TypeId* MetalCallSiteStateTypeId() { return MetalTarget::state_type_id(); }
const XLA_FFI_TypeInfo* MetalCallSiteStateTypeInfo() { return MetalTarget::state_type_info(); }

}  // namespace jax_apple_fft
