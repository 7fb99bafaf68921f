// The PlanCache (plan_cache.h): its bounds and LRU order, failed and
// concurrent builds, close() during a build, and evicted plans still held.
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cache/plan_cache.h"
#include "harness.h"

using namespace jax_apple_fft;
using test_support::expect;

namespace {

struct FixedPlan : CachedValue {
  explicit FixedPlan(std::size_t b) : b_(b) {}
  std::size_t bytes() const override { return b_; }
  std::size_t b_;
};

void test_cache_bounds_and_lru() {
  PlanCache cache(CacheLimits{3, 1000, 1});
  auto build = [](std::size_t bytes) { return [=] { return std::make_shared<FixedPlan>(bytes); }; };
  for (int i = 0; i < 3; ++i) cache.get_or_build(PlanKey{"t", {i}}, build(100));
  cache.get_or_build(PlanKey{"t", {0}}, build(100));  // 0 is now the newest
  cache.get_or_build(PlanKey{"t", {3}}, build(100));  // evicts 1, the oldest
  auto s = cache.stats();
  expect(s.entries == 3 && s.evictions == 1, "entry bound evicts one");
  expect(s.hits == 1 && s.misses == 4 && s.builds == 4, "hit/miss counts");
  cache.get_or_build(PlanKey{"t", {0}}, build(100));
  expect(cache.stats().hits == 2, "0 survived eviction");
  cache.get_or_build(PlanKey{"t", {4}}, build(850));  // byte bound: only one 100 fits beside it
  s = cache.stats();
  expect(s.retained_bytes <= 1000 && s.entries == 2 && s.evictions == 3, "byte bound");
  // A plan bigger than the whole budget is returned but not kept.
  auto big = cache.get_or_build(PlanKey{"t", {5}}, build(5000));
  expect(big && cache.stats().plan_bytes <= 1000, "oversized plan not retained");
  // Keys compare in full: same hash bucket or not, different fields differ.
  cache.clear();
  cache.get_or_build(PlanKey{"t", {1, 2}}, build(10));
  cache.get_or_build(PlanKey{"t", {2, 1}}, build(10));
  expect(cache.stats().entries == 2, "distinct keys");
}

void test_failed_build_leaves_nothing() {
  PlanCache cache(CacheLimits{8, 1 << 20, 1});
  bool threw = false;
  try {
    cache.get_or_build(PlanKey{"t", {1}}, []() -> std::shared_ptr<const CachedValue> {
      throw std::runtime_error("boom");
    });
  } catch (const PlanBuildError&) {
    threw = true;
  }
  const auto s = cache.stats();
  expect(threw && s.entries == 0 && s.failed_builds == 1, "failed build is typed and leaves no entry");
}

// A build that finishes after close() must not leave an entry in the
// closed cache (close takes the lock that lookups check it under).
void test_close_during_build_keeps_nothing() {
  PlanCache cache(CacheLimits{8, 1 << 20, 1});
  std::atomic<bool> building{false};
  std::thread builder([&] {
    cache.get_or_build(PlanKey{"t", {1}}, [&] {
      building.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return std::make_shared<FixedPlan>(10);
    });
  });
  while (!building.load()) std::this_thread::yield();
  cache.close();
  builder.join();
  expect(cache.stats().entries == 0 && cache.stats().plan_bytes == 0,
         "a build finishing after close keeps nothing");
  bool threw = false;
  try {
    cache.get_or_build(PlanKey{"t", {2}}, [] { return std::make_shared<FixedPlan>(10); });
  } catch (const CacheClosedError&) {
    threw = true;
  }
  expect(threw, "lookups after close throw CacheClosedError");
}

// Evicted plans are tracked (for evicted_in_use) only while something holds
// them, whether or not anyone asks for stats.
void test_evicted_plans_forgotten_without_stats() {
  PlanCache cache(CacheLimits{1, 1 << 20, 1});
  auto held = cache.get_or_build(PlanKey{"t", {-1}}, [] { return std::make_shared<FixedPlan>(10); });
  for (int i = 0; i < 10000; ++i)
    cache.get_or_build(PlanKey{"t", {i}}, [] { return std::make_shared<FixedPlan>(10); });
  expect(cache.evicted_tracked() <= 128, "evicted plans no one holds are forgotten");
  expect(cache.stats().evicted_in_use == 1, "the held evicted plan is still reported");
}

void test_one_build_per_key_under_contention() {
  PlanCache cache(CacheLimits{8, 1 << 20, 1});
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      cache.get_or_build(PlanKey{"t", {42}}, [&] {
        builds.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::make_shared<FixedPlan>(10);
      });
    });
  }
  for (auto& t : threads) t.join();
  expect(builds.load() == 1, "one build for eight concurrent misses");
}

const test_support::Suite kSuite("plan_cache", {
    TEST_CASE(test_cache_bounds_and_lru),
    TEST_CASE(test_failed_build_leaves_nothing),
    TEST_CASE(test_close_during_build_keeps_nothing),
    TEST_CASE(test_evicted_plans_forgotten_without_stats),
    TEST_CASE(test_one_build_per_key_under_contention),
});

}  // namespace
