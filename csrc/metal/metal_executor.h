// What runs a Metal program: the Apple GPU or the emulator, behind one interface.
//
// An executor is a PlanCache's resident object (see cache_executors.h): it
// owns the device side of the backend (Metal device, queue, library; or the
// emulator's threads) and counts how it reached the caller's tensors.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache/cached_value.h"

namespace jax_apple_fft {

struct MetalProgram;
class PlanCache;

enum class MetalExecutorKind : std::int32_t { apple = 0, emulator = 1 };

// A kernel made ready to dispatch (a compute pipeline state on a Mac). Kept
// in the PlanCache like a plan, so it is counted and shared by call sites.
class MetalPipeline : public CachedValue {};

class MetalPlan;

// A plan's tables where the device reads them: uploaded once per plan (a
// Metal buffer on a Mac; the plan's own host memory in the emulator). Kept in
// the PlanCache beside the plan's pipelines.
class MetalTables : public CachedValue {};

// The GPU (or the emulator) reported a failure while running a program.
class MetalExecutionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How an executor reached the caller's tensors, summed over every call:
// bytes of input and output tensors bound in place (wrapped), and bytes
// copied because wrapping failed (staged; should stay zero). Both count the
// tensors' own bytes, whatever page rounding the wrapping needed; the
// executor's workspace and the plans' tables are not the caller's and are
// not counted.
struct MetalTransferStats {
  std::uint64_t calls = 0;
  std::uint64_t bytes_wrapped = 0;
  std::uint64_t bytes_staged = 0;
};

class MetalExecutor {
 public:
  virtual ~MetalExecutor() = default;

  virtual MetalExecutorKind kind() const = 0;
  // `kernel` with its pipeline constants (none if empty). The emulator runs
  // every kernel's build without them, which reads the same values from
  // FftParams. Throws if `kernel` cannot be built; the PlanCache reports it
  // as a PlanBuildError.
  virtual std::shared_ptr<const MetalPipeline> build_pipeline(
      const std::string& kernel, const std::vector<std::uint32_t>& constants) = 0;
  // Makes `plan`'s tables readable by the device. `plan` is kept alive by the
  // result where the device reads its memory directly. Throws like build_pipeline.
  virtual std::shared_ptr<const MetalTables> upload_tables(
      const std::shared_ptr<const MetalPlan>& plan) = 0;
  // Runs every step of `program` and returns when all of its work is done.
  // Scratch and intermediates come from the cache's scratch arena.
  virtual void run(const MetalProgram& program, const void* input, void* output,
                   PlanCache& cache) = 0;

  MetalTransferStats transfer_stats() const {
    return {calls_.load(std::memory_order_relaxed), wrapped_.load(std::memory_order_relaxed),
            staged_.load(std::memory_order_relaxed)};
  }

 protected:
  void count_call() { calls_.fetch_add(1, std::memory_order_relaxed); }
  void count_wrapped(std::uint64_t bytes) { wrapped_.fetch_add(bytes, std::memory_order_relaxed); }
  void count_staged(std::uint64_t bytes) { staged_.fetch_add(bytes, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> calls_{0};
  std::atomic<std::uint64_t> wrapped_{0};
  std::atomic<std::uint64_t> staged_{0};
};

}  // namespace jax_apple_fft
