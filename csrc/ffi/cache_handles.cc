#include "ffi/cache_handles.h"

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

CacheHandles& CacheHandles::table() {
  static CacheHandles handles;
  return handles;
}

CacheHandles::CacheHandles() {
  std::random_device entropy;
  random_.seed((std::uint64_t{entropy()} << 32) ^ entropy());
}

std::uint64_t CacheHandles::add(const std::shared_ptr<PlanCache>& cache) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint64_t handle;
  do {
    handle = random_() >> 1;  // 63 bits: MLIR's integer attributes take no more
  } while (handle == kDefaultCache || live_.count(handle));
  live_.emplace(handle, cache);
  return handle;
}

void CacheHandles::remove(std::uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_.erase(handle);
}

std::shared_ptr<PlanCache> CacheHandles::default_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!default_) {
    CacheLimits limits;
    limits.threads = available_cores();
    default_ = std::make_shared<PlanCache>(limits);
  }
  return default_;
}

std::shared_ptr<PlanCache> CacheHandles::find(std::uint64_t handle) {
  if (handle == kDefaultCache) return default_cache();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(handle);
  return it == live_.end() ? nullptr : it->second.lock();
}

}  // namespace jax_apple_fft
