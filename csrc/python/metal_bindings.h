// Python bindings of the Metal planner (on _core: the self-check lists the
// kernels a plan dispatches), and of the emulator and the kernel source (on
// _core.testing: what tests and the verifiers drive directly).
#pragma once

#include <nanobind/nanobind.h>

namespace jax_apple_fft {

void bind_metal(nanobind::module_& m, nanobind::module_& testing);

}  // namespace jax_apple_fft
