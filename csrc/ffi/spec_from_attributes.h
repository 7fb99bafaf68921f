// Builds a TransformSpec from the FFI attributes of one call site.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "spec/transform_spec.h"

namespace jax_apple_fft {

// Either a checked spec or the reason the attributes do not make one.
class SpecOrError {
 public:
  SpecOrError(TransformSpec spec) : value_(std::move(spec)) {}
  static SpecOrError failure(std::string why) { return SpecOrError(std::move(why)); }
  bool has_value() const { return std::holds_alternative<TransformSpec>(value_); }
  const TransformSpec& operator*() const { return std::get<TransformSpec>(value_); }
  const std::string& error() const { return std::get<std::string>(value_); }

 private:
  explicit SpecOrError(std::string why) : value_(std::move(why)) {}
  std::variant<TransformSpec, std::string> value_;
};

// `lengths[i]` is the transform length along `axes[i]`; for R2C and C2R the
// last entry is the real length n (the complex side holds n/2+1).
template <class Span>
SpecOrError spec_from_attributes(TransformKind kind, bool forward, Precision precision,
                                 Span in_shape, Span axes, Span lengths, double scale) {
  TransformSpec spec;
  spec.kind = kind;
  spec.forward = forward;
  spec.precision = precision;
  spec.scale = scale;
  spec.in_shape.assign(in_shape.begin(), in_shape.end());
  spec.axes.assign(axes.begin(), axes.end());
  if (lengths.size() != axes.size()) return SpecOrError::failure("one length per axis is required");
  spec.out_shape = spec.in_shape;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const std::int64_t axis = spec.axes[i];
    if (axis < 0 || axis >= static_cast<std::int64_t>(spec.in_shape.size()))
      return SpecOrError::failure("axis " + std::to_string(axis) + " is out of range");
    const bool real_axis = i + 1 == spec.axes.size() && kind != TransformKind::kC2C;
    if (real_axis && kind == TransformKind::kR2C) spec.out_shape[axis] = lengths[i] / 2 + 1;
    if (real_axis && kind == TransformKind::kC2R) spec.out_shape[axis] = lengths[i];
    const std::int64_t complex_side = real_axis ? lengths[i] / 2 + 1 : lengths[i];
    const std::int64_t expected = kind == TransformKind::kR2C && real_axis ? lengths[i] : complex_side;
    if (spec.in_shape[axis] != expected)
      return SpecOrError::failure("input length along axis " + std::to_string(axis) +
                                  " does not match the transform length");
  }
  if (std::string problem = spec.check(); !problem.empty()) return SpecOrError::failure(problem);
  return spec;
}

}  // namespace jax_apple_fft
