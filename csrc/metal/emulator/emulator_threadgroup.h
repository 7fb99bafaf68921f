// The emulated GPU thread's view of its threadgroup.
//
// A kernel calls threadgroup_barrier() with no handle to its group, as on a
// GPU, so each emulator worker records which group it is running in; the
// barrier is a real one (emulator_sync.h) shared by that group's OS threads.
#pragma once

#include "metal/emulator/emulator_sync.h"

namespace jax_apple_fft::metal_emulator {

// Binds the calling OS thread to a threadgroup's barrier (nullptr: none).
void enter_threadgroup(ThreadgroupBarrier* barrier);

// Blocks until every thread of the caller's threadgroup has arrived.
void wait_for_threadgroup();

}  // namespace jax_apple_fft::metal_emulator
