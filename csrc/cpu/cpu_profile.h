// Where a CPU transform's time goes: per pass, its wall time and each
// thread's busy time and task count. Filled by CpuTransform::profile, a
// measuring instrument (benchmarks/stages.py). The driver takes its
// profiler as a policy (cpu_kernels.cc): execute() runs it with
// NoProfiler, whose hooks compile to nothing; profile() with CpuProfiler.
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

// The driver's profiler policy, for execute(): records nothing.
struct NoProfiler {
  // The hooks of one pass's tasks.
  struct Pass {
    struct Task {
      void done() {}
    };
    Task task_started() { return {}; }
  };
  void start(std::size_t /*passes*/) {}
  template <class RunPass>
  void time_pass(std::size_t /*index*/, const RunPass& run_pass) {
    Pass pass;
    run_pass(pass);
  }
};

// The driver's profiler policy for profile(): times every pass, and every
// task on the thread that ran it (a clock read and a lock per task).
class CpuProfiler {
 public:
  class Pass {
   public:
    explicit Pass(CpuPassProfile& profile) : recorder_(profile) {}
    class Task {
     public:
      explicit Task(PassRecorder& recorder)
          : recorder_(recorder), started_(std::chrono::steady_clock::now()) {}
      void done() { recorder_.task_done(seconds_since(started_)); }

     private:
      PassRecorder& recorder_;
      std::chrono::steady_clock::time_point started_;
    };
    Task task_started() { return Task(recorder_); }

   private:
    PassRecorder recorder_;
  };

  explicit CpuProfiler(CpuProfile& profile) : profile_(profile) {}
  void start(std::size_t passes) { profile_.passes.resize(passes); }
  template <class RunPass>
  void time_pass(std::size_t index, const RunPass& run_pass) {
    const auto start = std::chrono::steady_clock::now();
    Pass pass(profile_.passes[index]);
    run_pass(pass);
    profile_.passes[index].seconds = seconds_since(start);
  }

 private:
  CpuProfile& profile_;
};

}  // namespace jax_apple_fft
