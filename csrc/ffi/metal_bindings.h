// Python bindings of the Metal planner, the emulator and the kernel source
// (private, on _core): what tests and the verifiers drive directly.
#pragma once

#include <nanobind/nanobind.h>

namespace jax_apple_fft {

void bind_metal(nanobind::module_& m);

}  // namespace jax_apple_fft
