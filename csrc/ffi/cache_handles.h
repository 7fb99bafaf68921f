// Handles that name a PlanCache inside compiled code.
//
// A jitted call carries its cache as an integer attribute, and compiled code
// can outlive the process that traced it (jax.export, the persistent
// compilation cache). So a handle means the same thing in every process or
// nothing in any other:
//   - kDefaultCache (0) names the running process's default cache, built on
//     first use: exported code and cached executables find it anywhere;
//   - every other cache gets a random 63-bit handle, which no other process
//     holds, so code that names it fails clearly elsewhere.
// The table keeps weak references to user caches, so a handle whose cache was
// dropped resolves to a clear error instead of a dangling pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>

#include "cache/plan_cache.h"

namespace jax_apple_fft {

class CacheHandles {
 public:
  static constexpr std::uint64_t kDefaultCache = 0;

  // The one table for this process (handles must mean the same thing to
  // every executable, whichever thread compiles it).
  static CacheHandles& table();

  // A fresh random handle (never kDefaultCache) for `cache`.
  std::uint64_t add(const std::shared_ptr<PlanCache>& cache);
  void remove(std::uint64_t handle);
  // Null if the handle names no live cache; kDefaultCache always resolves.
  std::shared_ptr<PlanCache> find(std::uint64_t handle);
  // The process's default cache: default limits, one thread per available core.
  std::shared_ptr<PlanCache> default_cache();

 private:
  CacheHandles();
  std::mutex mutex_;
  std::mt19937_64 random_;
  std::unordered_map<std::uint64_t, std::weak_ptr<PlanCache>> live_;
  std::shared_ptr<PlanCache> default_;
};

// The cores this process may run on (its CPU affinity where the OS has one).
int available_cores();

}  // namespace jax_apple_fft
