#include "cache/plan_cache.h"

#include <unistd.h>

#include <algorithm>
#include <new>

namespace jax_apple_fft {

std::size_t default_max_bytes() {
  constexpr std::size_t kLeast = std::size_t(256) << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return kLeast;
  const std::size_t physical = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_bytes);
  return std::max(kLeast, physical / 8);
}

namespace {

std::size_t scratch_slots(int threads) {
  // One slot per worker thread plus room for concurrent callers.
  return static_cast<std::size_t>(std::max(threads, 1)) * 2 + 2;
}

}  // namespace

PlanCache::PlanCache(const CacheLimits& limits)
    : limits_(limits),
      workers_(std::max(limits.threads, 1)),
      scratch_(scratch_slots(limits.threads), [this] {
        return plan_bytes_.load(std::memory_order_relaxed) + scratch_.retained_bytes() <=
               limits_.max_bytes;
      }) {}

std::shared_ptr<const CachedValue> PlanCache::get_or_build(const PlanKey& key,
                                                          const Builder& build) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed()) throw CacheClosedError("this PlanCache has been closed");
  if (auto it = entries_.find(key); it != entries_.end()) {
    ++counters_.hits;
    recency_.splice(recency_.begin(), recency_, it->second.recency);
    return it->second.plan;
  }
  ++counters_.misses;
  if (auto pending = building_.find(key); pending != building_.end()) {
    // Another thread is building this key: wait for its result.
    ++counters_.waits;
    std::shared_ptr<Build> other = pending->second;
    build_finished_.wait(lock, [&] { return other->done; });
    if (!other->plan) throw PlanBuildError(other->error);
    return other->plan;
  }
  auto mine = std::make_shared<Build>();
  building_.emplace(key, mine);
  lock.unlock();

  std::shared_ptr<const CachedValue> plan;
  std::string error;
  try {
    plan = build();
    if (!plan) error = "the builder returned no plan";
  } catch (const std::bad_alloc&) {
    error = "out of memory";
  } catch (const std::exception& e) {
    error = e.what();
  }

  lock.lock();
  building_.erase(key);
  mine->done = true;
  if (plan) {
    ++counters_.builds;
    mine->plan = plan;
    if (!closed()) insert_locked(key, plan);
  } else {
    ++counters_.failed_builds;
    mine->error = "could not build plan " + key.describe() + ": " + error;
  }
  build_finished_.notify_all();
  if (!plan) throw PlanBuildError(mine->error);
  return plan;
}

bool PlanCache::fits_locked(std::size_t extra_bytes, std::size_t extra_entries) const {
  return entries_.size() + extra_entries <= limits_.max_entries &&
         plan_bytes_.load(std::memory_order_relaxed) + scratch_.retained_bytes() + extra_bytes <=
             limits_.max_bytes;
}

void PlanCache::insert_locked(const PlanKey& key, std::shared_ptr<const CachedValue> plan) {
  const std::size_t bytes = plan->bytes();
  if (bytes > limits_.max_bytes || limits_.max_entries == 0) return;  // too big to keep
  if (!fits_locked(bytes, 1)) scratch_.release_idle();
  while (!fits_locked(bytes, 1) && !recency_.empty()) {
    evict_locked(entries_.find(recency_.back()));
    ++counters_.evictions;
  }
  if (!fits_locked(bytes, 1)) return;  // scratch in use right now fills the budget
  recency_.push_front(key);
  entries_.emplace(key, Entry{std::move(plan), bytes, recency_.begin()});
  plan_bytes_.fetch_add(bytes, std::memory_order_relaxed);
}

void PlanCache::prune_evicted_locked() const {
  std::erase_if(evicted_, [](const auto& e) { return e.first.expired(); });
}

void PlanCache::evict_locked(std::unordered_map<PlanKey, Entry, PlanKeyHash>::iterator it) {
  Entry& entry = it->second;
  // Pruning when the list has doubled keeps it within twice the plans still
  // in use, at a constant cost per eviction.
  if (evicted_.size() >= evicted_prune_at_) {
    prune_evicted_locked();
    evicted_prune_at_ = std::max(kEvictedPruneMin, 2 * evicted_.size());
  }
  evicted_.emplace_back(entry.plan, entry.bytes);
  plan_bytes_.fetch_sub(entry.bytes, std::memory_order_relaxed);
  recency_.erase(entry.recency);
  entries_.erase(it);
}

CacheStats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  CacheStats s = counters_;
  s.entries = entries_.size();
  s.plan_bytes = plan_bytes_.load(std::memory_order_relaxed);
  s.scratch_bytes = scratch_.retained_bytes();
  s.retained_bytes = s.plan_bytes + s.scratch_bytes;
  s.transient_scratch = scratch_.transient_allocations();
  const WorkerPoolStats workers = workers_.stats();
  s.worker_threads = workers.live_workers;
  s.worker_start_failures = workers.start_failures;
  prune_evicted_locked();
  s.evicted_in_use = evicted_.size();
  for (const auto& e : evicted_) s.evicted_in_use_bytes += e.second;
  return s;
}

std::size_t PlanCache::evicted_tracked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evicted_.size();
}

std::shared_ptr<void> PlanCache::resident(const std::string& name,
                                          const std::function<std::shared_ptr<void>()>& make) {
  std::lock_guard<std::mutex> lock(resident_mutex_);
  std::shared_ptr<void>& slot = resident_[name];
  if (!slot) slot = make();
  return slot;
}

std::shared_ptr<void> PlanCache::find_resident(const std::string& name) const {
  std::lock_guard<std::mutex> lock(resident_mutex_);
  auto it = resident_.find(name);
  return it == resident_.end() ? nullptr : it->second;
}

void PlanCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  clear_locked();
}

void PlanCache::clear_locked() {
  while (!recency_.empty()) evict_locked(entries_.find(recency_.back()));
  scratch_.release_idle();
}

void PlanCache::close() {
  // Under the lock that lookups check it with, so no lookup that saw the
  // cache open inserts after the clear.
  std::lock_guard<std::mutex> lock(mutex_);
  closed_.store(true, std::memory_order_release);
  clear_locked();
}

}  // namespace jax_apple_fft
