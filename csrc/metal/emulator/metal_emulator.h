// Runs Metal dispatch records on the CPU, kernels compiled as C++.
//
// A verifier, not a backend: every GPU thread of a threadgroup is an OS
// thread, the group's threads run concurrently and meet at a real barrier,
// threadgroup memory is private to the group and device buffers are shared by
// all. Worker threads are owned by the Emulator object and reused by every
// dispatch it runs.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "metal/dispatch_bindings.h"
#include "metal/metal_plan.h"
#include "metal/shader_types.h"

namespace jax_apple_fft {

// Pointers bound to a kernel's buffer arguments 0-5.
struct EmulatorBuffers {
  const float* in = nullptr;
  float* out = nullptr;
  const shaders::float2* twiddles = nullptr;
  const shaders::float2* pre = nullptr;
  const shaders::float2* post = nullptr;
  const shaders::float2* extra = nullptr;
};

struct EmulatorGrid {
  std::uint32_t threadgroups = 1;
  std::uint32_t threads = 1;  // per threadgroup
  std::uint32_t threadgroup_memory_bytes = 0;
};

class MetalEmulator {
 public:
  // Up to `concurrent_groups` threadgroups run at the same time, so races
  // between groups through device memory are visible to a race detector too.
  explicit MetalEmulator(std::uint32_t concurrent_groups = 1);
  ~MetalEmulator();
  MetalEmulator(const MetalEmulator&) = delete;
  MetalEmulator& operator=(const MetalEmulator&) = delete;

  // Runs every dispatch of `plan`; buffers must span plan.input_bytes and
  // plan.output_bytes. Scratch is allocated per call.
  void run(const MetalPlan& plan, const void* input, void* output);

  // Runs one kernel over a grid and returns when every thread has finished.
  void dispatch(shaders::KernelFunction kernel, const EmulatorBuffers& buffers,
                const shaders::FftParams& params, const EmulatorGrid& grid);
  // Runs one dispatch record, its buffers placed in `call` (dispatch_bindings.h).
  void dispatch_record(shaders::KernelFunction kernel, const MetalDispatch& record,
                       const BindingFrame& frame, const CallPlaces<char*>& call);

  std::uint32_t concurrent_groups() const { return concurrent_groups_; }
  std::size_t worker_count() const;

 private:
  struct Job;
  void ensure_workers(std::size_t count);
  void worker_loop(std::size_t index, std::uint64_t seen);
  static void run_share(Job& job, std::size_t index);

  const std::uint32_t concurrent_groups_;
  std::mutex dispatch_mutex_;  // one dispatch at a time
  mutable std::mutex mutex_;
  std::condition_variable job_posted_;
  std::uint64_t generation_ = 0;
  Job* job_ = nullptr;
  std::size_t participants_ = 0;  // workers [0, participants_) run job_
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace jax_apple_fft
