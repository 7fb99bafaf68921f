"""The kernels of shaders/ translate to CUDA: NVRTC compiles them, with the
entry points the CUDA executor launches. Needs only NVRTC (the
nvidia-cuda-nvrtc wheel), no GPU."""

import pathlib
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
@pytest.mark.parametrize("n", (64, 1000, 1024, 2187, 4095, 4096))
def test_stockham_kernels_keep_their_values_in_registers(n):
    # Built with their pipeline constants at the 64-register cap the executor
    # builds them with, the stages hold their values in registers: a spill of
    # a few values at most (4095's radix-13 stages hold two butterflies).
    from plan_runner import C2C, MetalPlanRunner

    plan, _ = MetalPlanRunner.plan(C2C, True, n, (8, n), axis=1)
    (dispatch,) = plan.dispatches
    usage = cuda_source.register_usage((dispatch["kernel"],),
                                       pipeline_constants=tuple(dispatch["pipeline_constants"]))
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
                    (C2R, 1000), (R2C, 1 << 14), (C2R, 1 << 14), (R2C, 999), (C2R, 999),
                    (C2C, 12289)):
        in_n = n // 2 + 1 if kind == C2R else n
        plan, _ = MetalPlanRunner.plan(kind, kind != C2R, n, (2, in_n), axis=1)
        named |= {d["kernel"] for d in plan.dispatches}
    assert named == set(cuda_source.FFT_KERNELS)


@needs_nvrtc
def test_pipeline_constants_fold_the_shape():
    """Built with a dispatch's pipeline constants, the Stockham kernel divides
    by the shape no more: the divisions left address the sides (a transform's
    batch entry and residue, interleaved or not)."""
    from plan_runner import C2C, MetalPlanRunner

    plan, _ = MetalPlanRunner.plan(C2C, True, 4097, (2, 4097), axis=1)
    convolving = next(d for d in plan.dispatches if d["params"]["convolve"])
    source = cuda_source.translation_unit(kernels=(convolving["kernel"],))

    def divisions(constants):
        ptx = cuda_source.compile_to_ptx(source, cuda_source.compile_options(
            "compute_90", pipeline_constants=tuple(constants)))
        return len(re.findall(r"\b(?:div|rem)\.u32", ptx)) / 2  # two entry points

    fixed, generic = divisions(convolving["pipeline_constants"]), divisions(())
    assert fixed <= 14 and generic > 4 * fixed


@needs_nvrtc
def test_fixed_kernels_build_in_a_pool():
    from plan_runner import C2C, MetalPlanRunner

    builds = [(d["kernel"], tuple(d["pipeline_constants"])) for n in (1000, 13)
              for d in MetalPlanRunner.plan(C2C, True, n, (3, n), axis=1)[0].dispatches]
    assert [kernel for kernel, _ in builds] == ["fft_stockham_smooth7", "fft_stockham"]
    binaries = cuda_source.compile_fixed_kernels(builds, "sm_90")
    assert [b[:4] for b in binaries] == [b"\x7fELF"] * 2  # CUBIN
    assert binaries[0] != binaries[1]


@needs_nvrtc
def test_stage_ends_meet_device_memory_in_registers():
    """4096 = 16^3 with 256 threads: the first stage takes its inputs from the
    load and the last gives its outputs to the store, so the three stages
    exchange through threadgroup memory twice, waiting three times (the
    first stage after writing, the second after reading and after writing)."""
    from plan_runner import C2C, MetalPlanRunner

    plan, _ = MetalPlanRunner.plan(C2C, True, 4096, (2, 4096), axis=1)
    (dispatch,) = plan.dispatches
    assert dispatch["params"]["radices"] == [16, 16, 16]
    source = cuda_source.translation_unit(kernels=(dispatch["kernel"],))
    fixed = cuda_source.compile_to_ptx(source, cuda_source.compile_options(
        "compute_90", pipeline_constants=tuple(dispatch["pipeline_constants"])))
    assert fixed.count("bar.sync") == 2 * 3  # two entry points


@needs_nvrtc
def test_kept_cubins_are_reused_without_nvrtc(tmp_path, monkeypatch):
    """With $FFT_VERIFY_CUBIN_CACHE set, a fixed build is compiled once; the
    same kernel and constants then come from the folder, others do not."""
    from plan_runner import C2C, MetalPlanRunner

    dispatch, = MetalPlanRunner.plan(C2C, True, 16, (3, 16), axis=1)[0].dispatches
    constants = tuple(dispatch["pipeline_constants"])
    monkeypatch.setenv(cuda_source.CUBIN_CACHE_VARIABLE, str(tmp_path))
    built = cuda_source.compile_fixed_kernel(dispatch["kernel"], constants, "sm_90")
    assert [p.suffix for p in tmp_path.iterdir()] == [".cubin"]

    def no_nvrtc(*arguments, **keywords):
        raise AssertionError("NVRTC ran for a kept build")

    monkeypatch.setattr(cuda_source, "compile_with_log", no_nvrtc)
    assert cuda_source.compile_fixed_kernel(dispatch["kernel"], constants, "sm_90") == built
    with pytest.raises(AssertionError, match="NVRTC ran"):
        cuda_source.compile_fixed_kernel(dispatch["kernel"], constants, "sm_80")


def test_a_kernel_file_is_included_by_its_full_path(monkeypatch):
    """NVRTC compiles the translation unit from a temporary folder, where a
    relative #include of the kernel file would not open."""
    monkeypatch.chdir(cuda_source.REPOSITORY)
    source = cuda_source.translation_unit(pathlib.Path("shaders") / "fft_library.metal")
    assert f'#include "{cuda_source.SHADERS / "fft_library.metal"}"' in source
