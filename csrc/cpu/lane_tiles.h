// Moves square tiles between contiguous lines and SIMD-lane order. pocketfft
// transforms `lanes` lines at once with element i of line j in lane j of
// one vector; contiguous lines hold element i of line j next to element
// i + 1 of the same line. Going between the two one value at a time costs a
// load and a lane insert per value; a tile of `lanes` lines x `lanes`
// elements is instead loaded as whole vectors and transposed in registers.
// Complex values are (re, im) pairs in memory and split re / im vectors in
// lane order (pocketfft's Cmplx of vectors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/simd_namespace.h"
#include "cpu/stream_copy.h"

namespace jax_apple_fft::JAX_APPLE_FFT_SIMD::lane_tiles {

template <class T, std::size_t lanes>
struct VecOf {
  typedef T type __attribute__((vector_size(lanes * sizeof(T))));
};
template <class T, std::size_t lanes>
using Vec = typename VecOf<T, lanes>::type;

template <class V>
inline V load(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <class V>
inline void store(void* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}
// One stage of a transpose: in every 2h x 2h block, the upper right and
// lower left h x h blocks trade places (rows a and a + h, columns with and
// without bit h). After the stages for every bit the tile is transposed.
// Written as folds over index sequences so that every loop is unrolled and
// the tile stays in registers.
template <std::size_t lanes, std::size_t h, class V, std::size_t... c>
inline void trade_blocks(V& a, V& b, std::index_sequence<c...>) {
  const V upper = __builtin_shufflevector(a, b, ((c & h) ? lanes + c - h : c)...);
  b = __builtin_shufflevector(a, b, ((c & h) ? lanes + c : c + h)...);
  a = upper;
}
template <std::size_t lanes, std::size_t h, class V, std::size_t... p>
inline void transpose_stage(V (&rows)[lanes], std::index_sequence<p...>) {
  constexpr auto columns = std::make_index_sequence<lanes>();
  (trade_blocks<lanes, h>(rows[p / h * 2 * h + p % h], rows[p / h * 2 * h + p % h + h], columns),
   ...);
}
template <std::size_t lanes, std::size_t h = lanes / 2, class V>
inline void transpose(V (&rows)[lanes]) {
  if constexpr (h > 0) {
    transpose_stage<lanes, h>(rows, std::make_index_sequence<lanes / 2>());
    transpose<lanes, h / 2>(rows);
  }
}

// What gather_values and scatter_values call after each tile: nothing, or a
// step of work spread over the tiles (WriteAhead, ScatterAhead in
// bunch_access.h).
struct NoStep {
  void operator()() const {}
};

// One tile: values [at, at + lanes) of `lanes` lines -> `lanes` vectors at
// out, one per value.
template <class T, std::size_t lanes>
inline void gather_tile(const T* const* lines, std::ptrdiff_t at, T* out) {
  using V = Vec<T, lanes>;
  V rows[lanes];
#pragma GCC unroll 16
  for (std::size_t j = 0; j < lanes; ++j) rows[j] = load<V>(lines[j] + at);
  transpose<lanes>(rows);
#pragma GCC unroll 16
  for (std::size_t k = 0; k < lanes; ++k) store(out + k * lanes, rows[k]);
}

// The reverse of gather_tile.
template <class T, std::size_t lanes, bool streaming>
inline void scatter_tile(const T* in, T* const* lines, std::ptrdiff_t at) {
  using V = Vec<T, lanes>;
  V rows[lanes];
#pragma GCC unroll 16
  for (std::size_t k = 0; k < lanes; ++k) rows[k] = load<V>(in + k * lanes);
  transpose<lanes>(rows);
#pragma GCC unroll 16
  for (std::size_t j = 0; j < lanes; ++j) {
    if constexpr (streaming) store_streaming(lines[j] + at, rows[j]);
    else store(lines[j] + at, rows[j]);
  }
}

// Values [from, to) of `lanes` lines -> vectors: value v of line j goes to
// lane j of the vector at out + (v - from) * lanes. Moves whole tiles only
// and returns the first value not moved, calling step() after each tile. A
// complex element is two values, (re, im), which is also how pocketfft keeps
// a complex vector: one vector of re, one of im.
template <class T, std::size_t lanes, class Step = NoStep>
inline std::ptrdiff_t gather_values(const T* const* lines, std::ptrdiff_t from, std::ptrdiff_t to,
                                    T* out, Step&& step = Step{}) {
  std::ptrdiff_t v = from;
  if constexpr (lanes > 1)
    for (; v + static_cast<std::ptrdiff_t>(lanes) <= to; v += lanes, out += lanes * lanes) {
      gather_tile<T, lanes>(lines, v, out);
      step();
    }
  return v;
}

// The reverse of gather_values, calling step() after each tile of plain
// stores. Streaming stores are used only when every store is aligned to the
// vector's size.
template <class T, std::size_t lanes, class Step = NoStep>
inline std::ptrdiff_t scatter_values(const T* in, T* const* lines, std::ptrdiff_t from,
                                     std::ptrdiff_t to, bool streaming = false,
                                     Step&& step = Step{}) {
  std::ptrdiff_t v = from;
  if constexpr (lanes > 1) {
    constexpr std::uintptr_t misaligned = lanes * sizeof(T) - 1;
    for (std::size_t j = 0; j < lanes; ++j)
      if (reinterpret_cast<std::uintptr_t>(lines[j] + from) & misaligned) streaming = false;
    if (streaming)
      for (; v + static_cast<std::ptrdiff_t>(lanes) <= to; v += lanes, in += lanes * lanes)
        scatter_tile<T, lanes, true>(in, lines, v);
    else
      for (; v + static_cast<std::ptrdiff_t>(lanes) <= to; v += lanes, in += lanes * lanes) {
        scatter_tile<T, lanes, false>(in, lines, v);
        step();
      }
  }
  return v;
}

// Neighbouring lines (line j + 1 starting one complex element after line j,
// as along any axis but the last) hold element i of all `lanes` lines side
// by side: `lanes` (re, im) pairs in one run of memory. split_pairs turns
// such a run into pocketfft's complex vector (`lanes` re values, then
// `lanes` im values); join_pairs is the reverse. Two whole-vector loads or
// stores and two shuffles, where going value by value costs a load and a
// lane insert (or an extract and a store) per value.
template <std::size_t parity, class V, std::size_t... c>
inline V every_other(const V& a, const V& b, std::index_sequence<c...>) {
  return __builtin_shufflevector(a, b, (2 * c + parity)...);
}
template <std::size_t lanes, std::size_t first, class V, std::size_t... c>
inline V zip_from(const V& re, const V& im, std::index_sequence<c...>) {
  return __builtin_shufflevector(re, im, ((c % 2) ? lanes + first + c / 2 : first + c / 2)...);
}

template <class T, std::size_t lanes>
inline void split_pairs(const T* pairs, T* re_im) {
  if constexpr (lanes == 1) {
    re_im[0] = pairs[0];
    re_im[1] = pairs[1];
  } else {
    using V = Vec<T, lanes>;
    constexpr auto c = std::make_index_sequence<lanes>();
    const V a = load<V>(pairs), b = load<V>(pairs + lanes);
    store(re_im, every_other<0>(a, b, c));
    store(re_im + lanes, every_other<1>(a, b, c));
  }
}

template <class T, std::size_t lanes>
inline void join_pairs(const T* re_im, T* pairs) {
  if constexpr (lanes == 1) {
    pairs[0] = re_im[0];
    pairs[1] = re_im[1];
  } else {
    using V = Vec<T, lanes>;
    constexpr auto c = std::make_index_sequence<lanes>();
    const V re = load<V>(re_im), im = load<V>(re_im + lanes);
    store(pairs, zip_from<lanes, 0>(re, im, c));
    store(pairs + lanes, zip_from<lanes, lanes / 2>(re, im, c));
  }
}

}  // namespace jax_apple_fft::JAX_APPLE_FFT_SIMD::lane_tiles
