#include <cstring>

#include "metal/metal_plan.h"
#include "metal/metal_request.h"

namespace jax_apple_fft {
namespace {

// Keys compare scales bit for bit (std::bit_cast is missing from older macOS SDKs).
std::int64_t bits_of(double value) {
  std::int64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

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
                  out.inner_stride, out.outer_stride, bits_of(scale), coalesced_bytes}};
}

}  // namespace jax_apple_fft
