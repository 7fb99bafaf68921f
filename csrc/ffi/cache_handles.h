// Handles that name a PlanCache inside compiled code.
//
// A jitted call carries its cache as an integer attribute. The table below
// maps live handles to weak references, so a handle whose cache was dropped,
// or one that never existed, resolves to a clear error instead of a dangling
// pointer. The table owns nothing: caches belong to their Python objects and
// to the executables that use them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "cache/plan_cache.h"

namespace jax_apple_fft {

class CacheHandles {
 public:
  // The one table for this process (handles must mean the same thing to
  // every executable, whichever thread compiles it).
  static CacheHandles& table();

  std::uint64_t add(const std::shared_ptr<PlanCache>& cache);
  void remove(std::uint64_t handle);
  // Null if the handle names no live cache.
  std::shared_ptr<PlanCache> find(std::uint64_t handle) const;

 private:
  mutable std::mutex mutex_;
  std::uint64_t next_ = 1;
  std::unordered_map<std::uint64_t, std::weak_ptr<PlanCache>> live_;
};

}  // namespace jax_apple_fft
