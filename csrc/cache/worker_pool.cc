#include "cache/worker_pool.h"

#include <pthread.h>

namespace jax_apple_fft {
namespace {

// Names the calling thread, as top -H, perf and debuggers show it.
void name_this_thread() {
#if defined(__APPLE__)
  pthread_setname_np("jax_apple_fft");
#elif defined(__linux__)
  pthread_setname_np(pthread_self(), "jax_apple_fft");
#endif
}

}  // namespace

struct WorkerPool::Job {
  const std::function<void(std::size_t)>* body;
  std::size_t tasks;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> finished{0};
  std::mutex mutex;  // guards error and the completion wait
  std::condition_variable all_finished;
  std::exception_ptr error;
};

WorkerPool::WorkerPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_available_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void WorkerPool::run_tasks(Job& job) {
  for (;;) {
    std::size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.tasks) return;
    try {
      (*job.body)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.mutex);
      if (!job.error) job.error = std::current_exception();
    }
    if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == job.tasks) {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.all_finished.notify_all();
    }
  }
}

void WorkerPool::parallel_for(std::size_t tasks,
                              const std::function<void(std::size_t)>& body) {
  if (tasks == 0) return;
  if (tasks == 1 || workers_.empty()) {
    for (std::size_t i = 0; i < tasks; ++i) body(i);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->tasks = tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(job);
  }
  work_available_.notify_all();
  run_tasks(*job);
  {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->all_finished.wait(lock, [&] {
      return job->finished.load(std::memory_order_acquire) == job->tasks;
    });
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (*it == job) {
        queue_.erase(it);
        break;
      }
    }
  }
  if (job->error) std::rethrow_exception(job->error);
}

void WorkerPool::worker_loop() {
  name_this_thread();
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_available_.wait(lock, [&] {
        if (stopping_) return true;
        for (auto& queued : queue_)
          if (queued->next.load(std::memory_order_relaxed) < queued->tasks) return true;
        return false;
      });
      if (stopping_) return;
      for (auto& queued : queue_) {
        if (queued->next.load(std::memory_order_relaxed) < queued->tasks) {
          job = queued;
          break;
        }
      }
    }
    run_tasks(*job);
  }
}

}  // namespace jax_apple_fft
