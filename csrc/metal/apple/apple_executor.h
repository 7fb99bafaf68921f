// The Apple executor: runs Metal programs on the Apple GPU (macOS only).
//
// Pure C++ interface; the Objective-C++ lives in apple_executor.mm.
#pragma once

#include <memory>

#include "metal/metal_executor.h"

namespace jax_apple_fft {

// A new executor with its own device, command queue and kernel library.
// Throws MetalUnavailableError when there is no Metal device or library.
std::shared_ptr<MetalExecutor> make_apple_executor();

}  // namespace jax_apple_fft
