"""The CUDA translation unit of the Metal kernels, and compiling it with NVRTC.

The translation unit is the files of shaders/ as they are, after
cuda_compat.h, followed by one ``extern "C" __global__`` entry point per
kernel. Every kernel has the one signature of shaders/ (buffers 0-5, the
FftParams at 6, threadgroup memory, thread and group index); the entry point
passes CUDA's dynamic shared memory as the threadgroup memory, threadIdx.x
and blockIdx.x as the indices, and takes FftParams by value, as Metal's
setBytes hands it to a kernel.

``compile_to_ptx`` drives NVRTC through its C API (ctypes), so the
translation can be checked without a GPU or CuPy: the ``nvidia-cuda-nvrtc``
wheel is enough.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import ctypes.util
import glob
import hashlib
import multiprocessing
import os
import pathlib
import re

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
SHADERS = REPOSITORY / "shaders"
INCLUDE_DIRS = (pathlib.Path(__file__).resolve().parent, REPOSITORY / "csrc", SHADERS)

# The kernels of shaders/fft_library.metal, by their Metal function names.
FFT_KERNELS = ("fft_stockham", "fft_stockham_pow2", "fft_stockham_smooth7", "fft_r2c_unpack",
               "fft_c2r_pack", "fft_c2r_expand", "fft_permute")
# The race detector's test kernels (tests/cpp/metal/racy_reverse.metal).
RACY_KERNELS = ("reverse_synchronised", "reverse_missing_barrier")
RACY_SOURCE = REPOSITORY / "tests" / "cpp" / "metal" / "racy_reverse.metal"

ENTRY_PREFIX = "cuda_"
# The same kernels taking FftParams from device memory instead of by value,
# for a CuPy that cannot pass a struct argument.
PARAMS_IN_MEMORY_SUFFIX = "_params_in_memory"


def entry_point(kernel: str) -> str:
    """The CUDA entry points that run Metal kernel `kernel`: FftParams by
    value (as Metal's setBytes passes it), and from device memory."""
    arguments = """
    const float* in, float* out, const jax_apple_fft::shaders::float2* twiddles,
    const jax_apple_fft::shaders::float2* pre, const jax_apple_fft::shaders::float2* post,
    const jax_apple_fft::shaders::float2* extra"""
    body = f"""
  extern __shared__ jax_apple_fft::shaders::float2 threadgroup_memory[];
  jax_apple_fft::shaders::{kernel}(in, out, twiddles, pre, post, extra, PARAMS,
                                   threadgroup_memory, threadIdx.x, blockIdx.x);
"""
    return (f"""
extern "C" __global__ void {ENTRY_PREFIX}{kernel}({arguments},
    jax_apple_fft::shaders::FftParams params) {{{body.replace("PARAMS", "params")}}}
extern "C" __global__ void {ENTRY_PREFIX}{kernel}{PARAMS_IN_MEMORY_SUFFIX}({arguments},
    const jax_apple_fft::shaders::FftParams* params) {{{body.replace("PARAMS", "*params")}}}
""")


# Copies the FftParams it was given by value to memory: how the executor
# checks that CuPy passes a struct argument intact, without running a kernel
# that could go astray on a garbled one.
PARAMS_PROBE = "cuda_params_probe"
PARAMS_PROBE_SOURCE = f"""
extern "C" __global__ void {PARAMS_PROBE}(jax_apple_fft::shaders::FftParams params,
                                          unsigned int* words) {{
  const unsigned int* given = reinterpret_cast<const unsigned int*>(&params);
  for (unsigned int i = threadIdx.x; i < sizeof(params) / 4; i += blockDim.x) words[i] = given[i];
}}
"""


def sources_digest(metal_file: pathlib.Path) -> str:
    """A digest of every file the translation unit may include. The source
    names them by path only, and CuPy caches compiled modules by source text:
    without the digest an edited shader would run as its cached old build."""
    digest = hashlib.sha256()
    folders = {metal_file.resolve().parent, *INCLUDE_DIRS, REPOSITORY / "csrc" / "metal"}
    for path in sorted(p for folder in folders for p in folder.iterdir() if p.is_file()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def translation_unit(metal_file: pathlib.Path = SHADERS / "fft_library.metal",
                     kernels: tuple[str, ...] = FFT_KERNELS) -> str:
    """CUDA source for `kernels`, defined in `metal_file` (included by path)."""
    return (f"// sources {sources_digest(metal_file)}\n"
            '#include "cuda_compat.h"\n'
            "namespace jax_apple_fft::shaders {\n"
            f'#include "{metal_file.resolve()}"\n'
            "}  // namespace jax_apple_fft::shaders\n"
            + "".join(entry_point(kernel) for kernel in kernels) + PARAMS_PROBE_SOURCE)


# Registers per thread for each kernel's CUDA build (NVRTC's -maxrregcount,
# one module per cap; absent: the compiler's choice). On the H200 both
# Stockham kernels ran faster capped at 64 than at the compiler's own choice
# (94 and 168 registers): resident threads count for more than the spills the
# cap causes (docs/metal.md, "Throughput").
MAX_REGISTERS = {"fft_stockham_pow2": 64, "fft_stockham_smooth7": 64, "fft_stockham": 64}


def register_cap(kernel: str) -> int | None:
    return MAX_REGISTERS.get(kernel)


def compile_options(arch: str | None = None, max_registers: int | None = None,
                    pipeline_constants: tuple[int, ...] = ()) -> list[str]:
    """NVRTC's options for a kernel; with `pipeline_constants` (a dispatch's,
    in index order), the build that fixes them, as a Metal pipeline built with
    those function constant values does (shaders/fft_pipeline_constants.h)."""
    options = ["-default-device", "-std=c++17", *(f"-I{d}" for d in INCLUDE_DIRS)]
    if arch:
        options.append(f"-arch={arch}")
    if max_registers:
        options.append(f"-maxrregcount={max_registers}")
    if pipeline_constants:
        options.append("-DFFT_PIPELINE_CONSTANTS=" + ",".join(f"{c}u" for c in pipeline_constants))
    return options


def find_nvrtc() -> str | None:
    """libnvrtc from the nvidia-cuda-nvrtc wheel, CUDA_PATH or the system."""
    candidates = []
    try:
        import nvidia  # the wheels' namespace package

        for root in nvidia.__path__:  # CUDA 12 wheels: cuda_nvrtc/lib; CUDA 13: cu13/lib
            for folder in ("cuda_nvrtc", "cu*"):
                candidates += sorted(glob.glob(os.path.join(root, folder, "lib", "libnvrtc.so*")))
    except ImportError:
        pass
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            candidates += sorted(glob.glob(os.path.join(root, "lib64", "libnvrtc.so*")))
    found = ctypes.util.find_library("nvrtc")
    if found:
        candidates.append(found)
    return next((c for c in candidates if "builtins" not in c), None)


class NvrtcError(RuntimeError):
    """NVRTC refused the source; the message holds its log."""


def compile_to_ptx(source: str, options: list[str], nvrtc_path: str | None = None) -> str:
    """PTX for `source`, or NvrtcError with NVRTC's log."""
    return compile_with_log(source, options, nvrtc_path)[0]


def _ptxas_report(kernel: str, arch: str, pipeline_constants: tuple[int, ...]) -> str:
    """NVRTC's log of `kernel` built as the executor builds it, with ptxas's
    per-function report. Turns the CUDA compute cache off in this process."""
    # A compile found in the CUDA compute cache comes back without the report.
    os.environ["CUDA_CACHE_DISABLE"] = "1"
    options = [*compile_options(arch, register_cap(kernel), pipeline_constants),
               "--ptxas-options=-v"]
    return compile_with_log(translation_unit(kernels=(kernel,)), options)[1]


def register_usage(kernels: tuple[str, ...] = FFT_KERNELS, arch: str = "sm_90",
                   pipeline_constants: tuple[int, ...] = ()) -> dict:
    """{kernel: (registers, spill store bytes)} of each kernel's by-value entry
    point, built as the executor builds it (its register cap), from ptxas's
    report: no GPU needed."""
    # In a process of its own, which turns the CUDA compute cache off.
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        logs = list(pool.map(_ptxas_report, kernels, [arch] * len(kernels),
                             [pipeline_constants] * len(kernels)))
    usage = {}
    for kernel, log in zip(kernels, logs):
        report = log.split(f"Compiling entry function '{ENTRY_PREFIX}{kernel}'")[1]
        spills = re.search(r"(\d+) bytes spill stores", report)
        registers = re.search(r"Used (\d+) registers", report)
        usage[kernel] = (int(registers.group(1)), int(spills.group(1)))
    return usage


# A folder that keeps the CUBINs of compile_fixed_kernel between runs (one
# file per source text, options and NVRTC version): a fresh machine that
# brings the folder along skips NVRTC for every kernel already built.
CUBIN_CACHE_VARIABLE = "FFT_VERIFY_CUBIN_CACHE"


def compile_fixed_kernel(kernel: str, pipeline_constants: tuple[int, ...], arch: str,
                         extra_options: tuple[str, ...] = (),
                         metal_file: pathlib.Path = SHADERS / "fft_library.metal") -> bytes:
    """CUBIN of `kernel` (both entry points) for GPU architecture `arch`
    (sm_90), built from `metal_file` with a dispatch's pipeline constants and
    the kernel's register cap, or taken from $FFT_VERIFY_CUBIN_CACHE. A
    function of its arguments only, so that a process pool can build many at
    once."""
    options = [*compile_options(arch, register_cap(kernel), pipeline_constants), *extra_options]
    source = translation_unit(metal_file, (kernel,))
    folder = os.environ.get(CUBIN_CACHE_VARIABLE)
    if not folder:
        return compile_with_log(source, options, cubin=True)[0]
    # The repository's own path is left out of the key: the source and the
    # include options name files by it, and the sources' digest covers them.
    key = hashlib.sha256("\0".join([nvrtc_version(), source, *options])
                         .replace(str(REPOSITORY), "<repository>").encode()).hexdigest()
    kept = pathlib.Path(folder) / f"{kernel}-{key[:32]}.cubin"
    if kept.is_file():
        return kept.read_bytes()
    binary = compile_with_log(source, options, cubin=True)[0]
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_suffix(f".{os.getpid()}.partial")
    partial.write_bytes(binary)
    partial.replace(kept)  # whole or absent, with builds running in parallel
    return binary


def nvrtc_version() -> str:
    """NVRTC's "major.minor", or "none" where it is not installed."""
    path = find_nvrtc()
    if path is None:
        return "none"
    major, minor = ctypes.c_int(), ctypes.c_int()
    ctypes.CDLL(path).nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def compile_fixed_kernels(builds: list[tuple[str, tuple[int, ...]]], arch: str,
                          extra_options: tuple[str, ...] = (), pool: bool = True,
                          metal_file: pathlib.Path = SHADERS / "fft_library.metal") -> list[bytes]:
    """compile_fixed_kernel of each (kernel, pipeline constants), in a pool
    of processes unless `pool` is false (under compute-sanitizer, which
    instruments every process started). spawn, not fork: a forked child would
    inherit the caller's CUDA context and Python objects."""
    arguments = [(kernel, constants, arch, extra_options, metal_file)
                 for kernel, constants in builds]
    if not pool or len(builds) == 1:
        return [compile_fixed_kernel(*a) for a in arguments]
    with concurrent.futures.ProcessPoolExecutor(
            mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(compile_fixed_kernel, *zip(*arguments)))


def compile_with_log(source: str, options: list[str], nvrtc_path: str | None = None,
                     cubin: bool = False) -> tuple:
    """PTX (or, with `cubin` and a real -arch, CUBIN bytes) for `source` and
    NVRTC's log, or NvrtcError with the log."""
    path = nvrtc_path or find_nvrtc()
    if path is None:
        raise FileNotFoundError("libnvrtc not found (pip install nvidia-cuda-nvrtc-cu12)")
    nvrtc = ctypes.CDLL(path)
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
    program = ctypes.c_void_p()

    def check(status: int, what: str) -> None:
        if status != 0:
            raise NvrtcError(f"{what}: {nvrtc.nvrtcGetErrorString(status).decode()}")

    check(nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"fft_library.cu",
                                   0, None, None), "nvrtcCreateProgram")
    try:
        encoded = [option.encode() for option in options]
        status = nvrtc.nvrtcCompileProgram(program, len(encoded),
                                           (ctypes.c_char_p * len(encoded))(*encoded))
        log_size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(log_size))
        log = ctypes.create_string_buffer(log_size.value)
        nvrtc.nvrtcGetProgramLog(program, log)
        if status != 0:
            raise NvrtcError(log.value.decode(errors="replace"))
        if cubin:
            size = ctypes.c_size_t()
            check(nvrtc.nvrtcGetCUBINSize(program, ctypes.byref(size)), "nvrtcGetCUBINSize")
            binary = ctypes.create_string_buffer(size.value)
            check(nvrtc.nvrtcGetCUBIN(program, binary), "nvrtcGetCUBIN")
            return binary.raw, log.value.decode(errors="replace")
        ptx_size = ctypes.c_size_t()
        check(nvrtc.nvrtcGetPTXSize(program, ctypes.byref(ptx_size)), "nvrtcGetPTXSize")
        ptx = ctypes.create_string_buffer(ptx_size.value)
        check(nvrtc.nvrtcGetPTX(program, ptx), "nvrtcGetPTX")
        return ptx.value.decode(), log.value.decode(errors="replace")
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
