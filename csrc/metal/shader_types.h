// The Metal vector type the kernels use, as plain C++.
//
// Lives in the namespace the kernels are compiled into, so host code (the
// emulator's kernel signatures) can name it without the compatibility
// header's macros.
#pragma once

#include "fft_params.h"

namespace jax_apple_fft::shaders {

struct alignas(8) float2 {  // aligned as Metal's float2, so loads can be 8-byte wide
  float x = 0.0f;
  float y = 0.0f;
  constexpr float2() = default;
  constexpr float2(float x_, float y_) : x(x_), y(y_) {}
};

inline float2 operator+(float2 a, float2 b) { return {a.x + b.x, a.y + b.y}; }
inline float2 operator-(float2 a, float2 b) { return {a.x - b.x, a.y - b.y}; }
inline float2 operator-(float2 a) { return {-a.x, -a.y}; }
inline float2 operator*(float2 a, float2 b) { return {a.x * b.x, a.y * b.y}; }
inline float2 operator*(float2 a, float s) { return {a.x * s, a.y * s}; }
inline float2 operator*(float s, float2 a) { return {a.x * s, a.y * s}; }
inline float2& operator+=(float2& a, float2 b) { return a = a + b; }
inline float2& operator-=(float2& a, float2 b) { return a = a - b; }

// Every kernel has this signature: buffers 0-5, parameters at 6, threadgroup
// memory 0, then the thread's index in its group and the group's index.
using KernelFunction = void (*)(const float* in, float* out, const float2* twiddles,
                                const float2* pre, const float2* post, const float2* extra,
                                const FftParams& params, float2* threadgroup_memory, uint tid,
                                uint group);

}  // namespace jax_apple_fft::shaders
