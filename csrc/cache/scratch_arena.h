// Working memory reused across calls. The arena has a fixed number of slots;
// a call takes a free slot without locking (an atomic flag per slot) and gives
// it back when done. A slot keeps its buffer for the next call while the
// cache's byte budget allows; when every slot is busy, the call gets a
// transient buffer that is freed on return (counted, so it shows in stats).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace jax_apple_fft {

class ScratchArena {
 public:
  // within_budget() says whether the cache may keep what it holds now.
  ScratchArena(std::size_t slots, std::function<bool()> within_budget);
  ~ScratchArena();
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    void* data() const { return data_; }
    template <class T>
    T* as() const { return static_cast<T*>(data_); }

   private:
    friend class ScratchArena;
    Lease(ScratchArena* arena, std::ptrdiff_t slot, void* data)
        : arena_(arena), slot_(slot), data_(data) {}
    ScratchArena* arena_;
    std::ptrdiff_t slot_;  // -1: transient buffer owned by the lease
    void* data_;
  };

  // 64-byte aligned memory of at least `bytes`; throws std::bad_alloc.
  Lease acquire(std::size_t bytes);
  // The same, with a null data() where the memory is not there. Worker
  // threads use it: a throw there is a first touch of the C++ runtime's
  // thread-local exception state, which glibc allocates lazily for a loaded
  // module and, out of memory, aborts the process instead of failing.
  Lease try_acquire(std::size_t bytes) noexcept;
  // Frees the buffers of idle slots.
  void release_idle();

  std::size_t retained_bytes() const { return retained_.load(std::memory_order_relaxed); }
  std::uint64_t transient_allocations() const {
    return transient_.load(std::memory_order_relaxed);
  }

 private:
  struct Slot {
    std::atomic<bool> busy{false};
    void* data = nullptr;
    std::size_t capacity = 0;
  };
  void give_back(std::ptrdiff_t slot);
  void free_slot_buffer(Slot& slot);

  std::unique_ptr<Slot[]> slots_;
  std::size_t slot_count_;
  std::function<bool()> within_budget_;
  std::atomic<std::size_t> retained_{0};
  std::atomic<std::uint64_t> transient_{0};
};

}  // namespace jax_apple_fft
