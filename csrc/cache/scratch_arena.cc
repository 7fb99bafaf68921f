#include "cache/scratch_arena.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "cache/huge_pages.h"

namespace jax_apple_fft {
namespace {

// Large buffers start on a huge page so that all of them can be one.
std::size_t alignment_for(std::size_t bytes) {
  return bytes >= kHugePageMinBytes ? kHugePageBytes : 64;
}

// Null where the memory is not there, without a throw anywhere (see
// try_acquire): libstdc++'s nothrow operator new catches the throwing one's
// exception, so it is posix_memalign.
void* allocate(std::size_t bytes) noexcept {
  void* data = nullptr;
  if (posix_memalign(&data, alignment_for(bytes), bytes) != 0) return nullptr;
  advise_huge_pages(data, bytes);
  return data;
}
void deallocate(void* data) { std::free(data); }

}  // namespace

ScratchArena::ScratchArena(std::size_t slots, std::function<bool()> within_budget)
    : slots_(new Slot[slots]), slot_count_(slots), within_budget_(std::move(within_budget)) {}

ScratchArena::~ScratchArena() {
  for (std::size_t i = 0; i < slot_count_; ++i) free_slot_buffer(slots_[i]);
}

ScratchArena::Lease::Lease(Lease&& other) noexcept
    : arena_(other.arena_), slot_(other.slot_), data_(other.data_) {
  other.arena_ = nullptr;
  other.data_ = nullptr;
}

ScratchArena::Lease::~Lease() {
  if (!arena_) return;
  if (slot_ < 0) {
    deallocate(data_);
  } else {
    arena_->give_back(slot_);
  }
}

ScratchArena::Lease ScratchArena::acquire(std::size_t bytes) {
  Lease lease = try_acquire(bytes);
  if (!lease.data()) throw std::bad_alloc();
  return lease;
}

ScratchArena::Lease ScratchArena::try_acquire(std::size_t bytes) noexcept {
  bytes = std::max<std::size_t>(bytes, 1);  // data() is null only on failure
  // Always from the first slot: calls in sequence then reuse the same few
  // buffers, and only as many large ones stay alive as ran at once.
  for (std::size_t index = 0; index < slot_count_; ++index) {
    Slot& slot = slots_[index];
    if (slot.busy.exchange(true, std::memory_order_acquire)) continue;
    if (slot.capacity < bytes) {
      free_slot_buffer(slot);
      slot.data = allocate(bytes);
      if (!slot.data) {
        slot.busy.store(false, std::memory_order_release);
        return Lease(nullptr, -1, nullptr);
      }
      slot.capacity = bytes;
      retained_.fetch_add(bytes, std::memory_order_relaxed);
    }
    return Lease(this, static_cast<std::ptrdiff_t>(index), slot.data);
  }
  void* data = allocate(bytes);
  if (!data) return Lease(nullptr, -1, nullptr);
  transient_.fetch_add(1, std::memory_order_relaxed);
  return Lease(this, -1, data);
}

void ScratchArena::give_back(std::ptrdiff_t index) {
  Slot& slot = slots_[index];
  // Keep the buffer only while plans plus scratch fit the cache's budget.
  if (!within_budget_()) free_slot_buffer(slot);
  slot.busy.store(false, std::memory_order_release);
}

void ScratchArena::release_idle() {
  for (std::size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slots_[i];
    if (slot.busy.exchange(true, std::memory_order_acquire)) continue;
    free_slot_buffer(slot);
    slot.busy.store(false, std::memory_order_release);
  }
}

void ScratchArena::free_slot_buffer(Slot& slot) {
  if (!slot.data) return;
  deallocate(slot.data);
  retained_.fetch_sub(slot.capacity, std::memory_order_relaxed);
  slot.data = nullptr;
  slot.capacity = 0;
}

}  // namespace jax_apple_fft
