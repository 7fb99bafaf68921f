// The one table of PlanCaches that compiled code names by handle.
//
// A jitted call carries its cache as an integer attribute, and compiled code
// can outlive the process that traced it (jax.export, the persistent
// compilation cache). So a handle means the same thing in every process or
// nothing in any other:
//   - kDefaultCache (0) names the running process's default cache, built on
//     first use with the limits configure_default set before: exported code
//     and cached executables find it anywhere;
//   - every other cache gets a random 63-bit handle, which no other process
//     holds, so code that names it fails clearly elsewhere.
// A user cache's handle names it while anything holds the cache (a Python
// PlanCache, a compiled call site); afterwards it resolves to nothing, never
// to a dangling pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>

#include "cache/plan_cache.h"

namespace jax_apple_fft {

struct NamedCache {
  std::uint64_t handle = 0;
  std::shared_ptr<PlanCache> cache;
};

class CacheRegistry {
 public:
  static constexpr std::uint64_t kDefaultCache = 0;

  // The one table for this process (handles must mean the same thing to
  // every executable, whichever thread compiles it). Never destroyed: caches
  // may be released after static destruction has begun.
  static CacheRegistry& table();

  // A new cache under a fresh random handle (never kDefaultCache).
  NamedCache create(const CacheLimits& limits);
  // Null if the handle names no live cache; kDefaultCache always resolves.
  std::shared_ptr<PlanCache> find(std::uint64_t handle);
  // The process's default cache, built on first use.
  std::shared_ptr<PlanCache> default_cache();

  // The limits the default cache is (or will be) built with: default limits
  // and one thread per available core unless configure_default changed them.
  CacheLimits default_limits();
  // Sets the default cache's limits; std::logic_error once it is built.
  void configure_default(const CacheLimits& limits);
  bool default_built();

 private:
  CacheRegistry();
  void forget(std::uint64_t handle);

  std::mutex mutex_;
  std::mt19937_64 random_;
  std::unordered_map<std::uint64_t, std::weak_ptr<PlanCache>> live_;
  CacheLimits default_limits_;
  std::shared_ptr<PlanCache> default_;
};

// The cores this process may run on (its CPU affinity where the OS has one).
int available_cores();

}  // namespace jax_apple_fft
