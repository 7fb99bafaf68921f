#include "metal/emulator/emulator_threadgroup.h"

#include <cstdio>
#include <cstdlib>

namespace jax_apple_fft::metal_emulator {
namespace {

// The barrier of the group the calling worker is running, like a GPU
// thread's implicit membership; set by the executor around each group.
thread_local ThreadgroupBarrier* current_barrier = nullptr;

}  // namespace

void enter_threadgroup(ThreadgroupBarrier* barrier) { current_barrier = barrier; }

void wait_for_threadgroup() {
  if (current_barrier == nullptr) {
    std::fputs("threadgroup_barrier called outside an emulated threadgroup\n", stderr);
    std::abort();
  }
  current_barrier->arrive_and_wait();
}

}  // namespace jax_apple_fft::metal_emulator
