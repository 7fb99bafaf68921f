// Tiles between contiguous lines and SIMD-lane order (lane_tiles.h).
#include <cstddef>
#include <string>
#include <vector>

#include "cpu/lane_tiles.h"
#include "harness.h"

using namespace jax_apple_fft;
using namespace jax_apple_fft::JAX_APPLE_FFT_SIMD;  // the kernel header tested directly
using test_support::expect;

namespace {

// Values [from, to) of `lanes` lines to lane order and back, for every
// width the backend uses; plain and streaming stores alike.
template <class T, std::size_t lanes>
void check_lane_tiles(bool streaming) {
  // Streaming stores need alignment to the vector's size: from = 8 has it.
  constexpr std::ptrdiff_t length = 40, to = 37;
  const std::ptrdiff_t from = streaming ? 8 : 3;
  alignas(64) T lines[lanes][length], back[lanes][length];
  std::vector<T> vectors((to - from) * lanes, T(-1));
  const T* sources[lanes];
  T* targets[lanes];
  for (std::size_t j = 0; j < lanes; ++j) {
    for (std::ptrdiff_t v = 0; v < length; ++v) lines[j][v] = static_cast<T>(1000 * j + v);
    for (std::ptrdiff_t v = 0; v < length; ++v) back[j][v] = T(-1);
    sources[j] = lines[j];
    targets[j] = back[j];
  }
  const std::ptrdiff_t gathered = lane_tiles::gather_values<T, lanes>(sources, from, to, vectors.data());
  const std::ptrdiff_t tiles = (to - from) / static_cast<std::ptrdiff_t>(lanes);
  expect(gathered == from + tiles * static_cast<std::ptrdiff_t>(lanes), "whole tiles gathered");
  bool ok = true;
  for (std::ptrdiff_t v = from; v < gathered; ++v)
    for (std::size_t j = 0; j < lanes; ++j) ok &= vectors[(v - from) * lanes + j] == lines[j][v];
  expect(ok, "gathered values in lane order, " + std::to_string(lanes) + " lanes");
  const std::ptrdiff_t scattered =
      lane_tiles::scatter_values<T, lanes>(vectors.data(), targets, from, to, streaming);
  expect(scattered == gathered, "whole tiles scattered");
  ok = true;
  for (std::size_t j = 0; j < lanes; ++j)
    for (std::ptrdiff_t v = 0; v < length; ++v)
      ok &= back[j][v] == (v >= from && v < scattered ? lines[j][v] : T(-1));
  expect(ok, "scattered values back in their lines, " + std::to_string(lanes) + " lanes");
}

void test_lane_tiles() {
  for (bool streaming : {false, true}) {
    check_lane_tiles<float, 2>(streaming);
    check_lane_tiles<float, 4>(streaming);
    check_lane_tiles<float, 8>(streaming);
    check_lane_tiles<double, 2>(streaming);
    check_lane_tiles<double, 4>(streaming);
  }
}

const test_support::Suite kSuite("lane_tiles", {
    TEST_CASE(test_lane_tiles),
});

}  // namespace
