// C++ tests of the worker pool, built with sanitizers in CI (.ci/sanitizers).
// They use many more threads than this machine has cores, and a seam that
// makes a worker pause between choosing a job and running it, so that races
// which need many cores to show up show here.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cache/worker_pool.h"
#include "harness.h"

using namespace jax_apple_fft;
using test_support::expect;
using namespace std::chrono_literals;

namespace {


// Several callers run many tiny loops at once on a pool of many threads;
// every worker pauses after it has chosen a job, so by the time it runs the
// job the callers have usually taken every task.
void test_many_callers_tiny_jobs() {
  WorkerPoolOptions options;
  options.after_pick = [] { std::this_thread::sleep_for(50us); };
  WorkerPool pool(32, options);
  std::atomic<long> wrong{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([&, c] {
      for (int rep = 0; rep < 2000; ++rep) {
        const std::size_t tasks = 2 + (rep + c) % 4;
        std::vector<std::atomic<int>> ran(tasks);
        pool.parallel_for(tasks, [&](std::size_t i) { ran[i].fetch_add(1); });
        for (auto& r : ran)
          if (r.load() != 1) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : callers) t.join();
  expect(wrong.load() == 0, "every task of every loop runs exactly once");
  expect(pool.stats().live_workers <= 31, "no more workers than threads - 1");
}

void test_errors_propagate() {
  WorkerPool pool(3);
  std::atomic<int> ran{0};
  bool threw = false;
  try {
    pool.parallel_for(16, [&](std::size_t i) {
      ran.fetch_add(1);
      if (i == 5) throw std::runtime_error("task failed");
    });
  } catch (const std::runtime_error&) {
    threw = true;
  }
  expect(threw && ran.load() == 16, "every task runs and the error is rethrown");
}

void test_workers_start_lazily_and_exit_when_idle() {
  WorkerPoolOptions options;
  options.idle_exit = 20ms;
  WorkerPool pool(8, options);
  expect(pool.stats().live_workers == 0, "no worker before the first loop");
  pool.parallel_for(3, [](std::size_t) {});
  expect(pool.stats().live_workers == 2, "a loop of 3 tasks starts 2 workers");
  pool.parallel_for(64, [](std::size_t) {});
  expect(pool.stats().live_workers == 7, "a loop of 64 tasks starts all 7 workers");
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (pool.stats().live_workers > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  expect(pool.stats().live_workers == 0, "idle workers exit");
  std::atomic<int> ran{0};
  pool.parallel_for(16, [&](std::size_t) { ran.fetch_add(1); });
  expect(ran.load() == 16 && pool.stats().started >= 14, "workers start again after exiting");
}

// Workers exit while new loops arrive: a worker that timed out must never be
// counted as one that will take the next job.
void test_idle_exit_races_new_loops() {
  WorkerPoolOptions options;
  options.idle_exit = 1ms;
  WorkerPool pool(16, options);
  std::vector<std::thread> callers;
  std::atomic<long> wrong{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 200; ++rep) {
        std::atomic<int> ran{0};
        pool.parallel_for(8, [&](std::size_t) { ran.fetch_add(1); });
        if (ran.load() != 8) wrong.fetch_add(1);
        if (rep % 16 == 0) std::this_thread::sleep_for(2ms);
      }
    });
  }
  for (auto& t : callers) t.join();
  expect(wrong.load() == 0, "loops complete while workers come and go");
}

// When the system refuses threads, loops still complete on those that exist.
void test_refused_workers_leave_the_loop_to_the_others() {
  WorkerPoolOptions options;
  std::atomic<int> allowed{3};
  options.refuse_start = [&] { return allowed.fetch_sub(1) <= 0; };
  WorkerPool pool(16, options);
  std::vector<std::thread> callers;
  std::atomic<long> wrong{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep) {
        std::vector<std::atomic<int>> ran(40);
        pool.parallel_for(ran.size(), [&](std::size_t i) { ran[i].fetch_add(1); });
        for (auto& r : ran)
          if (r.load() != 1) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : callers) t.join();
  const auto stats = pool.stats();
  expect(wrong.load() == 0, "loops complete with refused workers");
  expect(stats.started == 3 && stats.live_workers == 3 && stats.start_failures >= 1,
         "three workers started, the rest refused and counted");
}

void test_single_thread_pool_runs_inline() {
  WorkerPool pool(1);
  const auto caller = std::this_thread::get_id();
  bool elsewhere = false;
  pool.parallel_for(10, [&](std::size_t) { elsewhere |= std::this_thread::get_id() != caller; });
  expect(!elsewhere && pool.stats().started == 0, "a one-thread pool runs on the caller");
}

// The wake cost is measured once, while other callers run loops and ask
// for it at the same time, and every caller sees the one value.
void test_wake_cost_is_measured_once() {
  WorkerPool pool(16);
  std::vector<double> seen(8);
  std::atomic<long> wrong{0};
  std::vector<std::thread> callers;
  for (std::size_t c = 0; c < seen.size(); ++c) {
    callers.emplace_back([&, c] {
      std::vector<std::atomic<int>> ran(20);
      pool.parallel_for(ran.size(), [&](std::size_t i) { ran[i].fetch_add(1); });
      seen[c] = pool.wake_seconds();
      for (auto& r : ran)
        if (r.load() != 1) wrong.fetch_add(1);
    });
  }
  for (auto& t : callers) t.join();
  const double deadline = std::chrono::duration<double>(WorkerPool::kWakeDeadline).count();
  expect(wrong.load() == 0, "loops complete while the wake cost is measured");
  for (double w : seen) expect(w == seen[0], "one measurement for every caller");
  expect(seen[0] > 0 && seen[0] <= deadline, "between 0 and the deadline");
  expect(pool.wake_seconds() == seen[0], "kept");
  pool.set_wake_seconds(2e-6);
  expect(pool.wake_seconds() == 2e-6, "a fixed value replaces it");
}

// A worker that never comes makes every trip end at its deadline.
void test_wake_cost_of_refused_workers_is_the_deadline() {
  WorkerPoolOptions options;
  options.refuse_start = [] { return true; };
  WorkerPool pool(4, options);
  const double deadline = std::chrono::duration<double>(WorkerPool::kWakeDeadline).count();
  expect(pool.wake_seconds() == deadline, "no worker joins: the deadline");
  expect(WorkerPool(1).wake_seconds() == 0, "a one-thread pool wakes nothing");
}

// A worker that takes longer to start than a trip's deadline (it pauses on
// its first job): the starting is left out of the cost, so trips on the
// started worker can come in under the deadline. Timed by the scheduler, a
// pool's trips may all miss on a loaded machine, so a few pools are tried;
// counting the start, every trip of every pool would end at the deadline.
void test_wake_cost_leaves_out_slow_starts() {
  WorkerPoolOptions options;
  options.after_pick = [] {
    thread_local bool started = false;
    if (!started) std::this_thread::sleep_for(20ms);
    started = true;
  };
  const double deadline = std::chrono::duration<double>(WorkerPool::kWakeDeadline).count();
  bool under = false;
  for (int pool = 0; pool < 5 && !under; ++pool)
    under = WorkerPool(2, options).wake_seconds() < deadline;
  expect(under, "a started worker wakes within the deadline");
}

const test_support::Suite kSuite("worker_pool", {
    TEST_CASE(test_many_callers_tiny_jobs),
    TEST_CASE(test_errors_propagate),
    TEST_CASE(test_workers_start_lazily_and_exit_when_idle),
    TEST_CASE(test_idle_exit_races_new_loops),
    TEST_CASE(test_refused_workers_leave_the_loop_to_the_others),
    TEST_CASE(test_single_thread_pool_runs_inline),
    TEST_CASE(test_wake_cost_is_measured_once),
    TEST_CASE(test_wake_cost_of_refused_workers_is_the_deadline),
    TEST_CASE(test_wake_cost_leaves_out_slow_starts),
});

}  // namespace
