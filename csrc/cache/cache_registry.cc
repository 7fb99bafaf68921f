#include "cache/cache_registry.h"

#include <stdexcept>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace jax_apple_fft {

int available_cores() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
#endif
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

CacheRegistry& CacheRegistry::table() {
  static CacheRegistry* registry = new CacheRegistry();
  return *registry;
}

CacheRegistry::CacheRegistry() {
  std::random_device entropy;
  random_.seed((std::uint64_t{entropy()} << 32) ^ entropy());
  default_limits_.threads = available_cores();
}

NamedCache CacheRegistry::create(const CacheLimits& limits) {
  NamedCache named;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    do {
      named.handle = random_() >> 1;  // 63 bits: MLIR's integer attributes take no more
    } while (named.handle == kDefaultCache || live_.count(named.handle));
    live_.emplace(named.handle, std::weak_ptr<PlanCache>());  // reserved
  }
  const std::uint64_t handle = named.handle;
  try {
    // The last owner's release frees the handle; never under mutex_.
    named.cache = std::shared_ptr<PlanCache>(new PlanCache(limits), [this, handle](PlanCache* c) {
      delete c;
      forget(handle);
    });
  } catch (...) {
    forget(handle);
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  live_[handle] = named.cache;
  return named;
}

void CacheRegistry::forget(std::uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_.erase(handle);
}

std::shared_ptr<PlanCache> CacheRegistry::default_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!default_) default_ = std::make_shared<PlanCache>(default_limits_);
  return default_;
}

CacheLimits CacheRegistry::default_limits() {
  std::lock_guard<std::mutex> lock(mutex_);
  return default_limits_;
}

void CacheRegistry::configure_default(const CacheLimits& limits) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (default_)
    throw std::logic_error(
        "the default PlanCache is already in use (built by its first use: a transform, "
        "default_cache(), or a compiled call naming it), so its limits are fixed; call "
        "configure_default_cache before any of these, or pass a PlanCache of your own");
  default_limits_ = limits;
}

bool CacheRegistry::default_built() {
  std::lock_guard<std::mutex> lock(mutex_);
  return default_ != nullptr;
}

std::shared_ptr<PlanCache> CacheRegistry::find(std::uint64_t handle) {
  if (handle == kDefaultCache) return default_cache();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(handle);
  return it == live_.end() ? nullptr : it->second.lock();
}

}  // namespace jax_apple_fft
