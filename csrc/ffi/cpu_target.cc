#include "ffi/cpu_target.h"

#include <memory>
#include <utility>

#include "cpu/cpu_transform.h"
#include "ffi/call_site_target.h"

namespace ffi = xla::ffi;

namespace jax_apple_fft {
namespace {

// A call site of the CPU target: the transform it prepared, every precision.
struct CpuSite {
  static constexpr const char* kPrefix = "jax_apple_fft: ";

  template <class Binding>
  static Binding&& bind_own_attributes(Binding&& binding) {
    return std::move(binding);
  }
  static ffi::Error check(Precision) { return ffi::Error::Success(); }
  static ffi::ErrorOr<CpuSite> prepare(const TransformSpec& spec, PlanCache& cache) {
    return CpuSite{CpuTransform::prepare(spec, cache)};
  }
  const TransformSpec& spec() const { return transform->spec(); }
  void execute(const void* in, void* out, PlanCache& cache) const {
    transform->execute(in, out, cache);
  }

  std::unique_ptr<CpuTransform> transform;
};

using CpuTarget = CallSiteTarget<CpuSite>;

}  // namespace

void* CpuInstantiateHandler() { return CpuTarget::instantiate_handler(); }
void* CpuExecuteHandler() { return CpuTarget::execute_handler(); }

XLA_FFI_TypeId* CallSiteStateTypeId() { return CpuTarget::state_type_id(); }
const XLA_FFI_TypeInfo* CallSiteStateTypeInfo() { return CpuTarget::state_type_info(); }

}  // namespace jax_apple_fft
