// A fork-join pool owned by one PlanCache. The calling thread always takes
// part, so a pool of `threads` runs threads - 1 workers. Several callers may
// run parallel loops at once; their jobs share the workers first come, first
// served.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace jax_apple_fft {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls body(i) for every i in [0, tasks), spread over the caller and the
  // workers, and returns when all calls have returned. The first exception
  // thrown by a body is rethrown here after the loop has drained.
  void parallel_for(std::size_t tasks, const std::function<void(std::size_t)>& body);

 private:
  struct Job;
  void worker_loop();
  static void run_tasks(Job& job);

  std::mutex mutex_;
  std::condition_variable work_available_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace jax_apple_fft
