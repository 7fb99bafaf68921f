// The emulator's two synchronisation points, written out rather than taken
// from <barrier> and <latch>: older macOS SDKs' libc++ marks those
// unavailable, and the emulator is built into the macOS module too.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace jax_apple_fft::metal_emulator {

// A reusable barrier of a fixed number of threads (a threadgroup's).
class ThreadgroupBarrier {
 public:
  explicit ThreadgroupBarrier(std::size_t threads) : threads_(threads) {}

  // Returns once all threads have arrived at this phase. The phase number,
  // not the count, is what waiters check, so a thread that hurries on to the
  // next phase cannot release the ones still leaving this one.
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t phase = phase_;
    if (++arrived_ == threads_) {
      arrived_ = 0;
      ++phase_;
      lock.unlock();
      all_arrived_.notify_all();
      return;
    }
    all_arrived_.wait(lock, [&] { return phase_ != phase; });
  }

 private:
  const std::size_t threads_;
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  std::size_t arrived_ = 0;
  std::uint64_t phase_ = 0;
};

// Counts participants down to zero once; wait() returns when it gets there.
class CompletionLatch {
 public:
  explicit CompletionLatch(std::size_t count) : remaining_(count) {}

  void count_down() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--remaining_ == 0) done_.notify_all();
  }

  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return remaining_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::size_t remaining_;
};

}  // namespace jax_apple_fft::metal_emulator
