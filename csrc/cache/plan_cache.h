// PlanCache: the one owner of plans, scratch memory and worker threads.
//
// Bounded by entries and bytes, least-recently-used eviction, exact keys,
// one build per key even when many threads miss at once, and statistics.
// Entries are shared_ptrs: a plan that an executable still uses survives its
// eviction and is reported as "evicted but in use" until released.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cache/cached_value.h"
#include "cache/scratch_arena.h"
#include "cache/worker_pool.h"

namespace jax_apple_fft {

// Building a plan failed (out of memory, unsupported size, ...). No entry is
// left behind; a later lookup of the same key tries again.
class PlanBuildError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The cache was closed; nothing can be looked up or executed through it.
class CacheClosedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The byte budget of a cache made without one: an eighth of physical
// memory, at least 256 MiB. Scratch is kept between calls only within the
// budget, and a long line's is large: a 16777213-point complex64 line
// (Bluestein) keeps 1.07 GB of plan and scratch, and ran 4.6 times slower
// re-faulting its scratch on every call.
std::size_t default_max_bytes();

struct CacheLimits {
  std::size_t max_entries = 256;
  std::size_t max_bytes = default_max_bytes();
  int threads = 1;
};

struct CacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t builds = 0;
  std::uint64_t failed_builds = 0;
  std::uint64_t waits = 0;  // misses served by another thread's build
  std::uint64_t evictions = 0;
  std::size_t entries = 0;
  std::size_t plan_bytes = 0;
  std::size_t scratch_bytes = 0;
  std::size_t retained_bytes = 0;  // plan_bytes + scratch_bytes
  std::size_t evicted_in_use = 0;  // evicted plans still held by executables
  std::size_t evicted_in_use_bytes = 0;
  std::uint64_t transient_scratch = 0;  // calls that found every scratch slot busy
  std::size_t worker_threads = 0;        // worker threads alive now (idle ones exit)
  std::uint64_t worker_start_failures = 0;  // workers the system refused to start
};

class PlanCache {
 public:
  using Builder = std::function<std::shared_ptr<const CachedValue>()>;

  explicit PlanCache(const CacheLimits& limits);
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // Returns the plan for `key`, building it with `build` on a miss.
  // Throws PlanBuildError or CacheClosedError.
  std::shared_ptr<const CachedValue> get_or_build(const PlanKey& key, const Builder& build);

  template <class Plan>
  std::shared_ptr<const Plan> get(const PlanKey& key, const Builder& build) {
    return std::static_pointer_cast<const Plan>(get_or_build(key, build));
  }

  CacheStats stats() const;
  void clear();
  // Clears the cache; later lookups throw CacheClosedError and a build that
  // finishes after this keeps nothing.
  void close();
  bool closed() const { return closed_.load(std::memory_order_acquire); }

  // A backend's long-lived object (the Metal device context): one per name,
  // built by `make` on first use, never evicted, released with the cache.
  std::shared_ptr<void> resident(const std::string& name,
                                 const std::function<std::shared_ptr<void>()>& make);
  // The resident object called `name`, or null if it was never built.
  std::shared_ptr<void> find_resident(const std::string& name) const;

  const CacheLimits& limits() const { return limits_; }
  // Evicted plans the cache still tracks for stats (tests check the bound).
  std::size_t evicted_tracked() const;
  WorkerPool& workers() { return workers_; }
  ScratchArena& scratch() { return scratch_; }

 private:
  struct Entry {
    std::shared_ptr<const CachedValue> plan;
    std::size_t bytes;
    std::list<PlanKey>::iterator recency;  // position in recency_, front = newest
  };
  struct Build {
    bool done = false;
    std::shared_ptr<const CachedValue> plan;
    std::string error;
  };

  void insert_locked(const PlanKey& key, std::shared_ptr<const CachedValue> plan);
  // Drops an entry; an executable may still hold its plan.
  void evict_locked(std::unordered_map<PlanKey, Entry, PlanKeyHash>::iterator it);
  bool fits_locked(std::size_t extra_bytes, std::size_t extra_entries) const;
  void clear_locked();
  // Forgets evicted plans that no executable holds any more.
  void prune_evicted_locked() const;

  const CacheLimits limits_;
  mutable std::mutex mutex_;
  std::condition_variable build_finished_;
  std::unordered_map<PlanKey, Entry, PlanKeyHash> entries_;
  std::unordered_map<PlanKey, std::shared_ptr<Build>, PlanKeyHash> building_;
  std::list<PlanKey> recency_;
  mutable std::vector<std::pair<std::weak_ptr<const CachedValue>, std::size_t>> evicted_;
  std::size_t evicted_prune_at_ = kEvictedPruneMin;  // evicted_'s size that triggers a prune
  static constexpr std::size_t kEvictedPruneMin = 64;
  std::atomic<std::size_t> plan_bytes_{0};
  std::atomic<bool> closed_{false};  // written under mutex_
  CacheStats counters_;  // hits, misses, builds, failed_builds, waits, evictions
  WorkerPool workers_;
  ScratchArena scratch_;
  mutable std::mutex resident_mutex_;  // separate: building a context can be slow
  std::unordered_map<std::string, std::shared_ptr<void>> resident_;
};

}  // namespace jax_apple_fft
