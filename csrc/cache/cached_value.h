// What a PlanCache stores: any immutable, shareable object built from a key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace jax_apple_fft {

class CachedValue {
 public:
  virtual ~CachedValue() = default;
  // Bytes this object keeps alive (tables, twiddles, the object itself).
  virtual std::size_t bytes() const = 0;
};

// An exact plan key: a family name and every integer that shapes the plan.
// Two keys are equal only if all fields are equal; the hash only picks a bucket.
struct PlanKey {
  std::string family;
  std::vector<std::int64_t> fields;

  bool operator==(const PlanKey& other) const = default;
  std::string describe() const;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& key) const noexcept;
};

}  // namespace jax_apple_fft
