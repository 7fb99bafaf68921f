"""Runs the Metal planner's dispatch records on an NVIDIA GPU, through CuPy.

A verifier and a measuring instrument for the Metal kernels, not a backend:
the kernels of shaders/ compiled for CUDA (cuda_source.py), launched with
each record's grid (threadgroups -> blocks), threadgroup size (-> block),
threadgroup memory (-> dynamic shared memory), bindings (buffer index ->
kernel argument, at the record's byte offset) and FftParams (by value where
CuPy passes a struct intact, else from device memory), in the plan's order,
as the Apple executor and the emulator run them. A dispatch with pipeline
constants runs the kernel built with them, as the Apple executor builds its
pipeline (`fixed_shapes=False`: the build without, which the emulator runs).

    runner = CudaPlanRunner()
    y = runner.fft(x)                      # numpy in, numpy out
    plan, _ = runner.plan(C2C, True, 4096, (512, 4096), axis=1)
    runner.run_on_device(plan, x_gpu, y_gpu)   # cupy arrays, no copies
"""

from __future__ import annotations

import pathlib
import tempfile

import numpy as np

from jax_apple_fft import _core
from plan_runner import C2C, MetalPlanRunner  # verification/metal, on sys.path
from cuda_source import (ENTRY_PREFIX, FFT_KERNELS, PARAMS_IN_MEMORY_SUFFIX, PARAMS_PROBE, SHADERS,
                         compile_fixed_kernels, compile_options, register_cap, translation_unit)

import cupy  # noqa: E402 -- optional: only the verifier needs it

BUFFER_ARGUMENTS = 6  # buffers 0-5 of the one kernel signature; FftParams is 7th
SHADERS_LIBRARY = SHADERS / "fft_library.metal"


def cuda_available() -> bool:
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except cupy.cuda.runtime.CUDARuntimeError:
        return False


def params_argument(params_bytes: bytes) -> np.void:
    """FftParams as a CuPy kernel argument passed by value: a numpy structured
    scalar of the struct's bytes (every field is 32 bits, so its layout is
    an array of words)."""
    words = np.dtype([("words", "<u4", (len(params_bytes) // 4,))])
    return np.frombuffer(params_bytes, dtype=words)[0]


class CudaPlanRunner(MetalPlanRunner):
    """Compiles the kernels once and runs Metal plans, planned for NVIDIA's
    coalesced piece, on the current GPU."""

    coalesced_bytes = _core.NVIDIA_COALESCED_BYTES

    def __init__(self, kernels: tuple[str, ...] = FFT_KERNELS, source: str | None = None,
                 extra_options: tuple[str, ...] = (), fixed_shapes: bool = True,
                 build_in_pool: bool = True, metal_file: pathlib.Path = SHADERS_LIBRARY):
        # The builds without pipeline constants: one module per register cap
        # (cuda_source.MAX_REGISTERS), compiled when a dispatch first needs one
        # (the capped group takes minutes with -lineinfo, and a run of fixed
        # builds never needs it). `source`, if given, defines every kernel and
        # is compiled once per cap. `metal_file`: the kernel library to build
        # from, another tree's to compare its kernels with these on the same
        # plans (the plans come from the installed package).
        self.kernels, self.source = tuple(kernels), source
        self.extra_options = tuple(extra_options)
        self._generic: dict[str, tuple] = {}  # kernel -> (by value, params in memory)
        self.probe_module = cupy.RawModule(code=source or translation_unit(metal_file, ()),
                                           options=(*compile_options(), *self.extra_options))
        self._tables: dict[str, cupy.ndarray] = {}  # plan key -> uploaded tables
        # kernel -> the kernel that runs its dispatches instead (one whose radices
        # include the first's), to measure one kernel build against another
        self.substitutes: dict[str, str] = {}
        self.params_by_value = self._by_value_works()
        self.fixed_shapes = fixed_shapes
        self.build_in_pool = build_in_pool
        self.metal_file = metal_file
        self.arch = "sm_" + cupy.cuda.Device().compute_capability
        # (kernel, pipeline constants) -> (by-value entry, params-in-memory entry)
        self._fixed: dict[tuple, tuple] = {}

    def _fixed_build(self, dispatch) -> tuple | None:
        """(kernel, constants) of the build that runs `dispatch`, or None for
        the build without constants (a kernel that takes none, or a runner
        built with fixed_shapes false)."""
        constants = tuple(dispatch["pipeline_constants"])
        if not (self.fixed_shapes and any(constants)):
            return None
        return self.substitutes.get(dispatch["kernel"], dispatch["kernel"]), constants

    def prepare(self, plans) -> None:
        """Builds the kernels with pipeline constants that `plans` need, all
        at once (one build per kernel and constants)."""
        self._build([d for plan in plans for d in plan.dispatches])

    def _build(self, dispatches) -> None:
        wanted = sorted({self._fixed_build(d) for d in dispatches} - {None} - set(self._fixed))
        if not wanted:
            return
        binaries = compile_fixed_kernels(wanted, self.arch, self.extra_options, self.build_in_pool,
                                         self.metal_file)
        for (kernel, constants), binary in zip(wanted, binaries):
            with tempfile.NamedTemporaryFile(suffix=".cubin") as file:
                file.write(binary)
                file.flush()
                module = cupy.RawModule(path=file.name)
                self._fixed[kernel, constants] = (
                    module.get_function(ENTRY_PREFIX + kernel),
                    module.get_function(ENTRY_PREFIX + kernel + PARAMS_IN_MEMORY_SUFFIX))

    def _entry_points(self, dispatch) -> tuple:
        """(by value, params in memory) entry points that run `dispatch`."""
        build = self._fixed_build(dispatch)
        if build is None:
            return self.generic_entry_points(
                self.substitutes.get(dispatch["kernel"], dispatch["kernel"]))
        self._build([dispatch])
        return self._fixed[build]

    def generic_entry_points(self, kernel: str) -> tuple:
        """(by value, params in memory) entry points of `kernel`'s build
        without pipeline constants, its register cap's module compiled once."""
        if kernel not in self._generic:
            cap = register_cap(kernel)
            group = tuple(k for k in self.kernels if register_cap(k) == cap)
            module = cupy.RawModule(
                code=self.source or translation_unit(self.metal_file, group),
                options=(*compile_options(max_registers=cap), *self.extra_options))
            for k in group:
                self._generic[k] = (module.get_function(ENTRY_PREFIX + k),
                                    module.get_function(ENTRY_PREFIX + k + PARAMS_IN_MEMORY_SUFFIX))
        return self._generic[kernel]

    def _by_value_works(self) -> bool:
        """Whether this CuPy passes FftParams by value intact: the probe
        kernel copies what it received back to memory."""
        plan, _ = self.plan(C2C, True, 64, (1, 64), axis=1)
        sent = plan.dispatches[0]["params_bytes"]
        received = cupy.zeros(len(sent) // 4, np.uint32)
        try:
            self.probe_module.get_function(PARAMS_PROBE)(
                (1,), (32,), (params_argument(sent), np.uintp(received.data.ptr)))
            return cupy.asnumpy(received).tobytes() == sent
        except (TypeError, ValueError):
            return False

    def tables(self, plan) -> cupy.ndarray | None:
        """The plan's tables on the device, uploaded once per plan."""
        if not plan.table_bytes:
            return None
        if plan.key not in self._tables:
            self._tables[plan.key] = cupy.asarray(np.frombuffer(plan.tables, np.uint8))
        return self._tables[plan.key]

    def launches(self, plan, device_in: cupy.ndarray, device_out: cupy.ndarray):
        """(function, grid, block, arguments, shared bytes) of each dispatch,
        resolved once so that timing loops launch only."""
        scratch = cupy.empty(plan.scratch_bytes, np.uint8) if plan.scratch_bytes else None
        tables = self.tables(plan)
        resolved = []
        held = [scratch]
        for i, d in enumerate(plan.dispatches):
            if tuple(d["threadgroups"][1:]) != (1, 1) or tuple(d["threads"][1:]) != (1, 1):
                raise ValueError(f"{d['kernel']}: the kernels index one grid dimension only")
            pointers = [0] * BUFFER_ARGUMENTS
            # The package's one binding rule (csrc/metal/dispatch_bindings.h).
            for index, address in plan.bound_addresses(
                    i, device_in.data.ptr, device_out.data.ptr,
                    None if scratch is None else scratch.data.ptr,
                    None if tables is None else tables.data.ptr):
                pointers[index] = address
            by_value, params_in_memory = self._entry_points(d)
            if self.params_by_value:
                function = by_value
                params = params_argument(d["params_bytes"])
            else:
                function = params_in_memory
                held.append(cupy.asarray(np.frombuffer(d["params_bytes"], np.uint8)))
                params = np.uintp(held[-1].data.ptr)
            arguments = (*(np.uintp(p) for p in pointers), params)
            resolved.append((function, (d["threadgroups"][0],), (d["threads"][0],), arguments,
                             d["threadgroup_memory_bytes"]))
        return resolved, held  # what the launches point to, alive as long as they are

    def run_on_device(self, plan, device_in: cupy.ndarray, device_out: cupy.ndarray) -> None:
        if device_in.nbytes < plan.source_bytes or device_out.nbytes < plan.destination_bytes:
            raise ValueError("a device buffer is smaller than the plan's bindings reach")
        launches, _held = self.launches(plan, device_in, device_out)
        for function, grid, block, arguments, shared in launches:
            function(grid, block, arguments, shared_mem=shared)

    def run(self, plan, x: np.ndarray, out_shape, out_dtype) -> np.ndarray:
        out = cupy.empty(out_shape, out_dtype)
        if out.size:
            self.run_on_device(plan, cupy.asarray(np.ascontiguousarray(x)), out)
        return cupy.asnumpy(out)
