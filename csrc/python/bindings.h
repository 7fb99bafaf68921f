// What the parts of the extension module share: the spec of a transform
// described from Python, and the cache a handle names.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cache/cache_registry.h"
#include "ffi/spec_from_attributes.h"
#include "spec/transform_spec.h"

namespace jax_apple_fft {

// The spec of a transform described from Python, or ValueError.
inline TransformSpec checked_spec(TransformKind kind, bool forward, Precision precision,
                                  const std::vector<std::int64_t>& in_shape,
                                  const std::vector<std::int64_t>& axes,
                                  const std::vector<std::int64_t>& lengths, double scale = 1.0) {
  auto spec = spec_from_attributes(kind, forward, precision, in_shape, axes, lengths, scale);
  if (!spec.has_value()) throw nanobind::value_error(spec.error().c_str());
  return *spec;
}

// The live cache `handle` names, or ValueError.
inline std::shared_ptr<PlanCache> cache_named(std::uint64_t handle) {
  auto cache = CacheRegistry::table().find(handle);
  if (!cache) throw nanobind::value_error("no live PlanCache has this handle in this process");
  return cache;
}

// The test and measuring hooks, on the submodule `_core.testing`.
void bind_testing(nanobind::module_& testing);

}  // namespace jax_apple_fft
