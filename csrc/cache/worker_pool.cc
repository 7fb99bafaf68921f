#include "cache/worker_pool.h"

#include <pthread.h>

#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif

#include <algorithm>
#include <system_error>
#include <vector>

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

// Allocates the C++ runtime's thread-local exception state of the calling
// thread, if it has none yet. glibc allocates a loaded library's thread-local
// data on a thread's first use, and aborts the process when it cannot; a
// throw here (a refused worker, scratch out of memory) comes when memory has
// run out, so the state must exist before the workers take what is left.
void touch_exception_state() {
#if defined(__GLIBCXX__)
  abi::__cxa_get_globals();
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

WorkerPool::WorkerPool(int threads, WorkerPoolOptions options)
    : max_workers_(static_cast<std::size_t>(std::max(threads, 1) - 1)),
      options_(std::move(options)) {}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_available_.notify_all();
  // No worker starts or is joined elsewhere once stopping_ is set.
  for (auto& worker : workers_) worker.thread.join();
}

WorkerPoolStats WorkerPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return WorkerPoolStats{live_, started_, start_failures_};
}

double WorkerPool::wake_seconds() {
  std::lock_guard<std::mutex> lock(wake_mutex_);
  if (!wake_seconds_) wake_seconds_ = measure_wake();
  return *wake_seconds_;
}

void WorkerPool::set_wake_seconds(double seconds) {
  std::lock_guard<std::mutex> lock(wake_mutex_);
  wake_seconds_ = seconds;
}

// Each trip is a loop of threads() tasks, each of which waits until all have
// started: no thread can take two, so the loop ends once every thread has
// joined it (or at the deadline, when one never comes). The first trip
// starts the workers and is not counted; between trips the workers go back
// to sleep.
double WorkerPool::measure_wake() {
  if (max_workers_ == 0) return 0;
  using Clock = std::chrono::steady_clock;
  const std::size_t all = max_workers_ + 1;
  const double deadline_seconds = std::chrono::duration<double>(kWakeDeadline).count();
  std::vector<double> trips;
  for (int trip = 0; trip <= kWakeTrips; ++trip) {
    std::atomic<std::size_t> joined{0};
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline =
        start + (trip == 0 ? Clock::duration(kStartDeadline) : Clock::duration(kWakeDeadline));
    parallel_for(all, [&](std::size_t) {
      joined.fetch_add(1, std::memory_order_acq_rel);
      while (joined.load(std::memory_order_acquire) < all && Clock::now() < deadline)
        std::this_thread::yield();
    });
    const Clock::duration took = std::min<Clock::duration>(Clock::now() - start, kWakeDeadline);
    if (trip > 0) trips.push_back(std::chrono::duration<double>(took).count());
    if (trips.size() >= 3 &&
        std::all_of(trips.end() - 3, trips.end(), [&](double t) { return t == deadline_seconds; }))
      break;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return *std::min_element(trips.begin(), trips.end());
}

void WorkerPool::run_tasks(Job& job) {
  for (;;) {
    const std::size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
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

std::shared_ptr<WorkerPool::Job> WorkerPool::open_job_locked() const {
  for (const auto& queued : queue_)
    if (queued->next.load(std::memory_order_relaxed) < queued->tasks) return queued;
  return nullptr;
}

void WorkerPool::join_exited_locked() {
  // An exited worker set its flag under mutex_ and touches nothing of the
  // pool afterwards, so joining it here cannot wait on this lock.
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (!it->exited) {
      ++it;
      continue;
    }
    it->thread.join();
    it = workers_.erase(it);
  }
}

void WorkerPool::start_workers_locked(std::size_t wanted) {
  join_exited_locked();
  while (live_ < wanted) {
    try {
      if (options_.refuse_start && options_.refuse_start())
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      Worker& worker = workers_.emplace_back();
      try {
        worker.thread = std::thread([this, &worker] { worker_loop(worker); });
      } catch (...) {
        workers_.pop_back();
        throw;
      }
    } catch (...) {
      // Out of threads or memory: the loop runs on those that exist.
      ++start_failures_;
      return;
    }
    ++live_;
    ++started_;
  }
}

void WorkerPool::parallel_for(std::size_t tasks,
                              const std::function<void(std::size_t)>& body) {
  if (tasks == 0) return;
  if (tasks == 1 || max_workers_ == 0) {
    for (std::size_t i = 0; i < tasks; ++i) body(i);
    return;
  }
  touch_exception_state();
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->tasks = tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    start_workers_locked(std::min(tasks - 1, max_workers_));
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
    queue_.erase(std::find(queue_.begin(), queue_.end(), job));
  }
  if (job->error) std::rethrow_exception(job->error);
}

void WorkerPool::worker_loop(Worker& self) {
  name_this_thread();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    std::shared_ptr<Job> job;
    const bool woken = work_available_.wait_for(lock, options_.idle_exit, [&] {
      job = open_job_locked();
      return stopping_ || job != nullptr;
    });
    if (stopping_ || !woken) break;
    lock.unlock();
    // The job may have run out of tasks since it was chosen; run_tasks then
    // claims none. The shared_ptr keeps the job alive either way.
    if (options_.after_pick) options_.after_pick();
    run_tasks(*job);
    job.reset();
    lock.lock();
  }
  --live_;
  self.exited = true;
}

}  // namespace jax_apple_fft
