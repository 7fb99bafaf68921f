#include "cache/scratch_arena.h"

#include <new>

namespace jax_apple_fft {
namespace {

constexpr std::align_val_t kAlignment{64};

void* allocate(std::size_t bytes) { return ::operator new(bytes == 0 ? 1 : bytes, kAlignment); }
void deallocate(void* data) { ::operator delete(data, kAlignment); }

}  // namespace

ScratchArena::ScratchArena(std::size_t lanes, std::function<bool()> within_budget)
    : lanes_(new Lane[lanes]), lane_count_(lanes), within_budget_(std::move(within_budget)) {}

ScratchArena::~ScratchArena() {
  for (std::size_t i = 0; i < lane_count_; ++i) free_lane_buffer(lanes_[i]);
}

ScratchArena::Lease::Lease(Lease&& other) noexcept
    : arena_(other.arena_), lane_(other.lane_), data_(other.data_), bytes_(other.bytes_) {
  other.arena_ = nullptr;
  other.data_ = nullptr;
}

ScratchArena::Lease::~Lease() {
  if (!arena_) return;
  if (lane_ < 0) {
    deallocate(data_);
  } else {
    arena_->give_back(lane_);
  }
}

ScratchArena::Lease ScratchArena::acquire(std::size_t bytes) {
  // Start at a rotating lane so concurrent callers rarely collide.
  const std::size_t start = next_lane_.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t k = 0; k < lane_count_; ++k) {
    const std::size_t index = (start + k) % lane_count_;
    Lane& lane = lanes_[index];
    if (lane.busy.exchange(true, std::memory_order_acquire)) continue;
    if (lane.capacity < bytes) {
      free_lane_buffer(lane);
      try {
        lane.data = allocate(bytes);
      } catch (...) {
        lane.busy.store(false, std::memory_order_release);
        throw;
      }
      lane.capacity = bytes;
      retained_.fetch_add(bytes, std::memory_order_relaxed);
    }
    return Lease(this, static_cast<std::ptrdiff_t>(index), lane.data, bytes);
  }
  transient_.fetch_add(1, std::memory_order_relaxed);
  return Lease(this, -1, allocate(bytes), bytes);
}

void ScratchArena::give_back(std::ptrdiff_t index) {
  Lane& lane = lanes_[index];
  // Keep the buffer only while plans plus scratch fit the cache's budget.
  if (!within_budget_()) free_lane_buffer(lane);
  lane.busy.store(false, std::memory_order_release);
}

void ScratchArena::release_idle() {
  for (std::size_t i = 0; i < lane_count_; ++i) {
    Lane& lane = lanes_[i];
    if (lane.busy.exchange(true, std::memory_order_acquire)) continue;
    free_lane_buffer(lane);
    lane.busy.store(false, std::memory_order_release);
  }
}

void ScratchArena::free_lane_buffer(Lane& lane) {
  if (!lane.data) return;
  deallocate(lane.data);
  retained_.fetch_sub(lane.capacity, std::memory_order_relaxed);
  lane.data = nullptr;
  lane.capacity = 0;
}

}  // namespace jax_apple_fft
