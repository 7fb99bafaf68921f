#include "ffi/cache_handles.h"

namespace jax_apple_fft {

CacheHandles& CacheHandles::table() {
  static CacheHandles handles;
  return handles;
}

std::uint64_t CacheHandles::add(const std::shared_ptr<PlanCache>& cache) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t handle = next_++;
  live_.emplace(handle, cache);
  return handle;
}

void CacheHandles::remove(std::uint64_t handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_.erase(handle);
}

std::shared_ptr<PlanCache> CacheHandles::find(std::uint64_t handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(handle);
  return it == live_.end() ? nullptr : it->second.lock();
}

}  // namespace jax_apple_fft
