#include "metal/emulator/metal_emulator.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "metal/emulator/emulated_kernels.h"
#include "metal/emulator/emulator_threadgroup.h"

namespace jax_apple_fft {

namespace {

constexpr std::uint32_t kMaxThreadsPerGroup = 1024;

// One threadgroup slot: its memory and the barrier its threads share.
struct Slot {
  explicit Slot(std::uint32_t threads, std::size_t elements)
      : barrier(threads),
        // Threadgroup memory starts undefined on a GPU; NaN makes reads of
        // never-written elements show up in the results.
        memory(elements, shaders::float2(std::numeric_limits<float>::quiet_NaN(),
                                         std::numeric_limits<float>::quiet_NaN())) {}
  metal_emulator::ThreadgroupBarrier barrier;
  std::vector<shaders::float2> memory;
};

}  // namespace

struct MetalEmulator::Job {
  Job(shaders::KernelFunction kernel_, const EmulatorBuffers& buffers_,
      const shaders::FftParams& params_, const EmulatorGrid& grid_, std::uint32_t slot_count)
      : kernel(kernel_),
        buffers(buffers_),
        params(params_),
        grid(grid_),
        participants(std::size_t(slot_count) * grid_.threads),
        done(participants) {
    for (std::uint32_t s = 0; s < slot_count; ++s) {
      slots.push_back(std::make_unique<Slot>(grid.threads,
                                             grid.threadgroup_memory_bytes / sizeof(shaders::float2)));
    }
  }
  shaders::KernelFunction kernel;
  EmulatorBuffers buffers;
  shaders::FftParams params;
  EmulatorGrid grid;
  std::vector<std::unique_ptr<Slot>> slots;
  std::size_t participants;
  metal_emulator::CompletionLatch done;
};

MetalEmulator::MetalEmulator(std::uint32_t concurrent_groups)
    : concurrent_groups_(std::max<std::uint32_t>(1, concurrent_groups)) {}

MetalEmulator::~MetalEmulator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  job_posted_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

std::size_t MetalEmulator::worker_count() const {
  std::lock_guard lock(mutex_);
  return workers_.size();
}

void MetalEmulator::ensure_workers(std::size_t count) {
  std::lock_guard lock(mutex_);
  while (workers_.size() < count) {
    // A new worker starts from the current generation, so it takes part in
    // the dispatch about to be posted however late the OS starts it.
    workers_.emplace_back([this, index = workers_.size(), seen = generation_] {
      worker_loop(index, seen);
    });
  }
}

void MetalEmulator::worker_loop(std::size_t index, std::uint64_t seen) {
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock lock(mutex_);
      job_posted_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      // Only participants touch the job: the dispatcher waits for them alone,
      // so the job may be gone by the time any other worker wakes up.
      if (index < participants_) job = job_;
    }
    if (job != nullptr) run_share(*job, index);
  }
}

// Worker `index` is thread tid of slot `index / threads`; the slot runs
// groups slot, slot + slots, ... one after another.
void MetalEmulator::run_share(Job& job, std::size_t index) {
  const std::uint32_t threads = job.grid.threads;
  const std::size_t slot_index = index / threads;
  const auto tid = static_cast<std::uint32_t>(index % threads);
  Slot& slot = *job.slots[slot_index];
  metal_emulator::enter_threadgroup(&slot.barrier);
  for (std::size_t group = slot_index; group < job.grid.threadgroups; group += job.slots.size()) {
    job.kernel(job.buffers.in, job.buffers.out, job.buffers.twiddles, job.buffers.pre,
               job.buffers.post, job.buffers.extra, job.params, slot.memory.data(), tid,
               static_cast<std::uint32_t>(group));
    // The next group reuses this slot's memory: on a GPU it would be another
    // group's memory, so wait until every thread of this group is done.
    slot.barrier.arrive_and_wait();
  }
  metal_emulator::enter_threadgroup(nullptr);
  job.done.count_down();
}

void MetalEmulator::dispatch(shaders::KernelFunction kernel, const EmulatorBuffers& buffers,
                             const shaders::FftParams& params, const EmulatorGrid& grid) {
  if (grid.threads == 0 || grid.threads > kMaxThreadsPerGroup) {
    throw std::invalid_argument("threads per threadgroup must be in [1, 1024]");
  }
  if (grid.threadgroups == 0) return;
  std::lock_guard serial(dispatch_mutex_);
  const std::uint32_t slots = std::min(concurrent_groups_, grid.threadgroups);
  Job job(kernel, buffers, params, grid, slots);
  ensure_workers(job.participants);
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    participants_ = job.participants;
    ++generation_;
  }
  job_posted_.notify_all();
  job.done.wait();
  std::lock_guard lock(mutex_);
  job_ = nullptr;
  participants_ = 0;
}

void MetalEmulator::run(const MetalPlan& plan, const void* input, void* output) {
  std::vector<float> scratch(plan.scratch_bytes / sizeof(float));
  CallPlaces<char*> call;
  call.input = Place<char*>{const_cast<char*>(static_cast<const char*>(input))};
  call.output = Place<char*>{static_cast<char*>(output)};
  if (!scratch.empty()) call.workspace = Place<char*>{reinterpret_cast<char*>(scratch.data())};
  if (!plan.tables.empty()) {
    auto* tables = const_cast<shaders::float2*>(plan.tables.data());
    call.tables = Place<char*>{reinterpret_cast<char*>(tables)};
  }
  for (const MetalDispatch& d : plan.dispatches) {
    shaders::KernelFunction kernel = metal_emulator::find_kernel(d.kernel);
    if (kernel == nullptr) throw std::invalid_argument("no emulated kernel named " + d.kernel);
    dispatch_record(kernel, d, BindingFrame{}, call);
  }
}

void MetalEmulator::dispatch_record(shaders::KernelFunction kernel, const MetalDispatch& d,
                                    const BindingFrame& frame, const CallPlaces<char*>& call) {
  void* bound[kMetalParamsIndex] = {};
  for (const BoundBuffer<char*>& b : bind_dispatch(d, frame, call)) {
    bound[b.index] = b.place.handle + b.place.offset_bytes;
  }
  EmulatorBuffers buffers;
  buffers.in = static_cast<const float*>(bound[0]);
  buffers.out = static_cast<float*>(bound[1]);
  buffers.twiddles = static_cast<const shaders::float2*>(bound[2]);
  buffers.pre = static_cast<const shaders::float2*>(bound[3]);
  buffers.post = static_cast<const shaders::float2*>(bound[4]);
  buffers.extra = static_cast<const shaders::float2*>(bound[5]);
  dispatch(kernel, buffers, d.params,
           EmulatorGrid{d.threadgroups[0] * d.threadgroups[1] * d.threadgroups[2],
                        d.threads[0] * d.threads[1] * d.threads[2], d.threadgroup_memory_bytes});
}

}  // namespace jax_apple_fft
