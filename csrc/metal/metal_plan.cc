#include <bit>

#include "metal/metal_plan.h"
#include "metal/metal_request.h"

namespace jax_apple_fft {

std::size_t MetalPlan::bytes() const {
  std::size_t total = sizeof(*this) + table_bytes();
  for (const MetalDispatch& d : dispatches) {
    total += sizeof(d) + d.kernel.capacity() + d.bindings.capacity() * sizeof(MetalBinding);
  }
  return total;
}

PlanKey MetalRequest::key() const {
  return PlanKey{"metal.fft",
                 {static_cast<std::int64_t>(kind), forward ? 1 : 0, n, outer_count, inner_count,
                  in.elem_stride, in.inner_stride, in.outer_stride, out.elem_stride,
                  out.inner_stride, out.outer_stride, std::bit_cast<std::int64_t>(scale)}};
}

}  // namespace jax_apple_fft
