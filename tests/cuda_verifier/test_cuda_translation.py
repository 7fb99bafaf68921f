"""The kernels of shaders/ translate to CUDA: NVRTC compiles them, with the
entry points the CUDA executor launches. Needs only NVRTC (the
nvidia-cuda-nvrtc wheel), no GPU."""

import re
import shutil

import pytest

import cuda_source

NVRTC = cuda_source.find_nvrtc()
needs_nvrtc = pytest.mark.skipif(NVRTC is None, reason="NVRTC is not installed")


def entry_points(kernels) -> list[str]:
    """Two per kernel (FftParams by value, and from device memory), and the
    probe of by-value passing."""
    names = [cuda_source.ENTRY_PREFIX + k for k in kernels]
    return sorted(names + [n + cuda_source.PARAMS_IN_MEMORY_SUFFIX for n in names]
                  + [cuda_source.PARAMS_PROBE])


def ptx_of(source: str) -> str:
    return cuda_source.compile_to_ptx(source, cuda_source.compile_options("compute_90"))


@needs_nvrtc
def test_fft_kernels_compile_to_one_entry_point_each():
    ptx = ptx_of(cuda_source.translation_unit())
    entries = re.findall(r"\.visible \.entry (\w+)\(", ptx)
    assert sorted(entries) == entry_points(cuda_source.FFT_KERNELS)
    # The Metal barrier became a block barrier in the Stockham kernel.
    assert "bar.sync" in ptx


@needs_nvrtc
def test_race_detector_kernels_compile():
    ptx = ptx_of(cuda_source.translation_unit(cuda_source.RACY_SOURCE, cuda_source.RACY_KERNELS))
    entries = re.findall(r"\.visible \.entry (\w+)\(", ptx)
    assert sorted(entries) == entry_points(cuda_source.RACY_KERNELS)
    for entry in ("cuda_reverse_missing_barrier(", "cuda_reverse_missing_barrier_params_in_memory("):
        barrier_free = ptx.split(".entry " + entry)[1].split(".entry")[0]
        assert "bar.sync" not in barrier_free


@needs_nvrtc
def test_stockham_kernels_keep_their_values_in_registers():
    # At the 64-register cap the executor builds them with, a kernel whose
    # stages switch over every radix in one loop spills hundreds of bytes per
    # thread; one loop per radix keeps the spill to a few values.
    usage = cuda_source.register_usage(("fft_stockham_pow2", "fft_stockham_smooth7"))
    for kernel, (registers, spilled) in usage.items():
        assert registers <= 64 and spilled <= 128, (kernel, registers, spilled)


def test_an_edited_shader_changes_the_source_text(tmp_path):
    # CuPy caches compiled modules by source text, which names the shaders by path only.
    shaders = tmp_path / "shaders"
    shutil.copytree(cuda_source.SHADERS, shaders)
    before = cuda_source.translation_unit(shaders / "fft_library.metal")
    stockham = shaders / "fft_stockham.metal"
    stockham.write_text(stockham.read_text() + "\n// edited\n")
    assert cuda_source.translation_unit(shaders / "fft_library.metal") != before


@needs_nvrtc
def test_nvrtc_errors_carry_its_log():
    with pytest.raises(cuda_source.NvrtcError, match="undefined"):
        ptx_of(cuda_source.translation_unit() + "\nvoid broken() { undefined_name(); }\n")


def test_every_planned_kernel_has_an_entry_point():
    """The kernels the planner names are the ones the translation unit exports."""
    from plan_runner import C2C, C2R, R2C, MetalPlanRunner

    named = set()
    for kind, n in ((C2C, 64), (C2C, 1 << 16), (C2C, 4097), (C2C, 3 * 11 * 13), (R2C, 1000),
                    (C2R, 1000), (R2C, 1 << 14), (C2R, 1 << 14), (R2C, 999), (C2R, 999)):
        in_n = n // 2 + 1 if kind == C2R else n
        plan, _ = MetalPlanRunner.plan(kind, kind != C2R, n, (2, in_n), axis=1)
        named |= {d["kernel"] for d in plan.dispatches}
    assert named == set(cuda_source.FFT_KERNELS)


@needs_nvrtc
def test_pipeline_constants_fold_the_shape():
    """Built with a dispatch's pipeline constants, the Stockham kernel divides
    by the shape no more: the divisions left address the sides."""
    from plan_runner import C2C, MetalPlanRunner

    plan, _ = MetalPlanRunner.plan(C2C, True, 4097, (2, 4097), axis=1)
    convolving = next(d for d in plan.dispatches if d["params"]["convolve"])
    source = cuda_source.translation_unit(kernels=(convolving["kernel"],))

    def divisions(constants):
        ptx = cuda_source.compile_to_ptx(source, cuda_source.compile_options(
            "compute_90", pipeline_constants=tuple(constants)))
        return len(re.findall(r"\b(?:div|rem)\.u32", ptx)) / 2  # two entry points

    fixed, generic = divisions(convolving["pipeline_constants"]), divisions(())
    assert fixed <= 12 and generic > 4 * fixed


@needs_nvrtc
def test_fixed_kernels_build_in_a_pool():
    builds = [("fft_stockham_smooth7", (1000, 67, 3, 1, 0, 0, 0, 3, 0, 0, 0, 1)),
              ("fft_stockham", (13, 1, 19, 0, 0, 0, 0, 0, 0, 0, 1, 1))]
    binaries = cuda_source.compile_fixed_kernels(builds, "sm_90")
    assert [b[:4] for b in binaries] == [b"\x7fELF"] * 2  # CUBIN
    assert binaries[0] != binaries[1]


@needs_nvrtc
def test_pipeline_constants_that_fix_nothing_build_the_generic_kernel():
    """The radix-2/4/8 kernel's dispatches carry constants that fix nothing
    (flag 0): their build is the one without constants, which the emulator runs."""
    from plan_runner import C2C, MetalPlanRunner

    plan, _ = MetalPlanRunner.plan(C2C, True, 4096, (2, 4096), axis=1)
    (dispatch,) = plan.dispatches
    source = cuda_source.translation_unit(kernels=(dispatch["kernel"],))
    with_constants = cuda_source.compile_to_ptx(source, cuda_source.compile_options(
        "compute_90", pipeline_constants=tuple(dispatch["pipeline_constants"])))
    without = cuda_source.compile_to_ptx(source, cuda_source.compile_options("compute_90"))
    assert with_constants == without
