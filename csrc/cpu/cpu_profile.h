// Where a CPU transform's time goes: per pass, its wall time and each
// thread's busy time and task count. Filled by CpuTransform::profile, a
// measuring instrument (benchmarks/stages.py); execute() records nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace jax_apple_fft {

struct CpuPassProfile {
  double seconds = 0;                // wall time of the pass
  std::vector<double> busy_seconds;  // per thread that ran tasks, in order of first task
  std::vector<std::int64_t> tasks;   // tasks each of those threads ran
};

struct CpuProfile {
  double seconds = 0;  // the whole execution, scratch and page advice included
  std::vector<CpuPassProfile> passes;
};

// Collects task times from the threads of one pass.
class PassRecorder {
 public:
  explicit PassRecorder(CpuPassProfile& pass) : pass_(pass) {}
  void task_done(double seconds) {
    const std::thread::id me = std::this_thread::get_id();
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t slot = 0;
    while (slot < threads_.size() && threads_[slot] != me) ++slot;
    if (slot == threads_.size()) {
      threads_.push_back(me);
      pass_.busy_seconds.push_back(0);
      pass_.tasks.push_back(0);
    }
    pass_.busy_seconds[slot] += seconds;
    ++pass_.tasks[slot];
  }

 private:
  CpuPassProfile& pass_;
  std::mutex mutex_;
  std::vector<std::thread::id> threads_;
};

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace jax_apple_fft
