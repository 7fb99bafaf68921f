#include "cache/cached_value.h"

namespace jax_apple_fft {

std::string PlanKey::describe() const {
  std::string text = family + "(";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(fields[i]);
  }
  return text + ")";
}

std::size_t PlanKeyHash::operator()(const PlanKey& key) const noexcept {
  std::size_t h = std::hash<std::string>{}(key.family);
  for (std::int64_t field : key.fields) {
    h ^= std::hash<std::int64_t>{}(field) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  }
  return h;
}

}  // namespace jax_apple_fft
