#include "spec/transform_spec.h"

#include <algorithm>

namespace jax_apple_fft {
namespace {

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (std::int64_t d : shape) count *= d;
  return count;
}

}  // namespace

std::string TransformSpec::check() const {
  const std::int64_t rank = static_cast<std::int64_t>(in_shape.size());
  if (out_shape.size() != in_shape.size()) return "input and output ranks differ";
  if (in_shape.size() > kMaxRank) return "more than " + std::to_string(kMaxRank) + " dimensions";
  if (axes.empty()) return "no axes to transform";
  std::vector<bool> seen(rank, false);
  for (std::int64_t axis : axes) {
    if (axis < 0 || axis >= rank) return "axis " + std::to_string(axis) + " is out of range";
    if (seen[axis]) return "axis " + std::to_string(axis) + " is repeated";
    seen[axis] = true;
  }
  const std::int64_t real_axis = axes.back();
  for (std::int64_t d = 0; d < rank; ++d) {
    if (in_shape[d] < 0 || out_shape[d] < 0) return "negative dimension";
    const bool halved = kind != TransformKind::kC2C && d == real_axis;
    if (!halved && in_shape[d] != out_shape[d])
      return "input and output differ along dimension " + std::to_string(d);
  }
  if (kind == TransformKind::kR2C && out_shape[real_axis] != in_shape[real_axis] / 2 + 1)
    return "R2C output must hold n/2+1 elements along the real axis";
  if (kind == TransformKind::kC2R && in_shape[real_axis] != out_shape[real_axis] / 2 + 1)
    return "C2R input must hold n/2+1 elements along the real axis";
  if (precision != Precision::kSingle && precision != Precision::kDouble)
    return "unknown precision";
  return {};
}

std::int64_t TransformSpec::length(std::int64_t axis) const {
  if (kind == TransformKind::kC2R) return out_shape[axis];
  return in_shape[axis];
}

bool TransformSpec::empty() const {
  return element_count(in_shape) == 0 || element_count(out_shape) == 0;
}

}  // namespace jax_apple_fft
