// The backend-independent description of one transform call: what the FFI
// layer decodes from attributes and buffer shapes, and what every backend
// (CPU, Metal) plans from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jax_apple_fft {

// Bound to Python as _core.TransformKind and _core.Precision (csrc/python).
enum class TransformKind : std::int32_t { kC2C = 0, kR2C = 1, kC2R = 2 };
enum class Precision : std::int32_t { kSingle = 0, kDouble = 1 };

// The most dimensions a transform's arrays may have (numpy's own limit).
constexpr std::size_t kMaxRank = 64;

struct TransformSpec {
  TransformKind kind = TransformKind::kC2C;
  // Sign of the exponent: forward is exp(-2 pi i jk/n), inverse exp(+...).
  bool forward = true;
  Precision precision = Precision::kSingle;
  // Dense row-major shapes, in elements (real or complex as the kind says).
  std::vector<std::int64_t> in_shape;
  std::vector<std::int64_t> out_shape;
  // Transformed axes. For R2C and C2R the last one is the real axis.
  std::vector<std::int64_t> axes;
  // Applied once, fused into the last pass.
  double scale = 1.0;

  // Empty when the spec is self-consistent, else a message saying why not.
  std::string check() const;
  // Length of the transform along `axis` (the real length for the real axis).
  std::int64_t length(std::int64_t axis) const;
  bool empty() const;  // no element in the input or the output
};

}  // namespace jax_apple_fft
