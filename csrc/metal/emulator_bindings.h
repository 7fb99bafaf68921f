// Python bindings of the Metal planner and emulator (private, on _core).
#pragma once

#include <nanobind/nanobind.h>

namespace jax_apple_fft {

void bind_metal_emulator(nanobind::module_& m);

}  // namespace jax_apple_fft
