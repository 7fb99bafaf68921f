// A fork-join pool owned by one PlanCache. The calling thread always takes
// part, so a pool of `threads` runs at most threads - 1 workers. Several
// callers may run parallel loops at once; their jobs share the workers first
// come, first served.
//
// Workers start when a loop first needs them and exit after idling for
// `idle_exit`, so a pool costs no threads while unused. A worker that cannot
// be started (the system is out of threads or memory) is not an error: the
// loop runs on the threads that exist, the caller included.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace jax_apple_fft {

struct WorkerPoolOptions {
  std::chrono::milliseconds idle_exit{5000};
  // Test seam: runs in a worker after it has chosen a job and before it runs
  // the job's tasks, outside the pool's lock (to widen race windows).
  std::function<void()> after_pick;
  // Test seam: returning true makes the next worker start fail as if the
  // system had refused a thread.
  std::function<bool()> refuse_start;
};

struct WorkerPoolStats {
  std::size_t live_workers = 0;
  std::uint64_t started = 0;        // workers started since the pool was made
  std::uint64_t start_failures = 0;  // workers the system refused to start
};

class WorkerPool {
 public:
  explicit WorkerPool(int threads, WorkerPoolOptions options = {});
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The most threads a loop may use, counting the caller.
  int threads() const { return static_cast<int>(max_workers_) + 1; }
  WorkerPoolStats stats() const;

  // What starting a loop on every thread costs: the seconds from a loop's
  // start until all threads() have joined it, the fastest of kWakeTrips
  // round trips (other work only ever slows a trip), measured on the first
  // call and kept. A first loop, not counted, starts the workers and waits
  // up to kStartDeadline for all of them: where starting a thread takes
  // longer than a trip, the trips would otherwise time the starting. A trip
  // lasts at most kWakeDeadline and then counts as the deadline; the
  // measurement stops once three trips in a row have. 0 for a pool of one
  // thread.
  double wake_seconds();
  // Test seam: fixes what wake_seconds() returns from now on.
  void set_wake_seconds(double seconds);
  static constexpr int kWakeTrips = 5;
  static constexpr std::chrono::microseconds kWakeDeadline{1000};
  static constexpr std::chrono::milliseconds kStartDeadline{100};

  // Calls body(i) for every i in [0, tasks), spread over the caller and the
  // workers, and returns when all calls have returned. The first exception
  // thrown by a body is rethrown here after the loop has drained.
  void parallel_for(std::size_t tasks, const std::function<void(std::size_t)>& body);

 private:
  struct Job;
  struct Worker {
    std::thread thread;
    bool exited = false;  // set under mutex_ as the worker's last act
  };
  void worker_loop(Worker& self);
  static void run_tasks(Job& job);
  // A queued job with tasks left to claim, or null. The choice of a job and
  // the check that one exists are this one call, under mutex_.
  std::shared_ptr<Job> open_job_locked() const;
  void start_workers_locked(std::size_t wanted);
  void join_exited_locked();
  double measure_wake();

  const std::size_t max_workers_;
  const WorkerPoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable work_available_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::list<Worker> workers_;  // a list: each worker holds a reference to its node
  std::size_t live_ = 0;
  std::uint64_t started_ = 0;
  std::uint64_t start_failures_ = 0;
  bool stopping_ = false;
  std::mutex wake_mutex_;  // guards wake_seconds_, held while it is measured
  std::optional<double> wake_seconds_;
};

}  // namespace jax_apple_fft
