"""Instructions per complex element of a plan's Stockham dispatches, counted
in the SASS of their builds with pipeline constants: NVRTC and nvdisasm, no GPU.

A build that fixes the shape unrolls every loop, so each thread runs its
kernel's instructions once, less the branches it skips: the static count
times threads per transform over the length is what ncu counts executed
per element (`verify_on_gpu.py instructions`; within one instruction at 16,
64, 1024 and 4096 points on the H200).

    python verification/cuda/sass_count.py [--lengths 16 64 1024 4096]
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import tempfile

import cuda_source
from jax_apple_fft import _core
from jax_apple_fft.metal.axis_plans import plan_along_axis
from jax_apple_fft.primitive.transform_kind import TransformKind

ARCH = "sm_90"


def find_nvdisasm() -> str | None:
    """nvdisasm from the nvidia-cuda-nvdisasm wheel, CUDA_PATH or PATH."""
    candidates = []
    try:
        import nvidia  # the wheels' namespace package

        for root in nvidia.__path__:
            candidates += sorted(glob.glob(os.path.join(root, "cu*", "bin", "nvdisasm")))
    except ImportError:
        pass
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            candidates.append(os.path.join(root, "bin", "nvdisasm"))
    candidates.append(shutil.which("nvdisasm") or "")
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def kernel_sass(kernel: str, constants: tuple[int, ...], nvdisasm: str) -> list[str]:
    """The instructions (NOPs aside) of `kernel`'s by-value entry point built
    with `constants`, as the CUDA executor builds it, one SASS line each."""
    cubin = cuda_source.compile_fixed_kernel(kernel, constants, ARCH)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        sass = subprocess.run([nvdisasm, "-c", f.name], capture_output=True, text=True,
                              check=True).stdout
    sections = re.split(r"//-+ \.text\.", sass)[1:]
    entry = next(s for s in sections if s.split()[0] == cuda_source.ENTRY_PREFIX + kernel)
    return [line for line in entry.splitlines()
            if re.search(r"/\*[0-9a-f]{4}\*/", line) and " NOP" not in line]


def kernel_instructions(kernel: str, constants: tuple[int, ...], nvdisasm: str) -> int:
    """How many instructions kernel_sass lists."""
    return len(kernel_sass(kernel, constants, nvdisasm))


def per_element(plan, nvdisasm: str) -> list[float]:
    """Instructions per complex element of each Stockham dispatch of `plan`:
    each pass touches every element, so a transform costs their sum."""
    counts = []
    for d in plan.dispatches:
        if not d["kernel"].startswith("fft_stockham"):
            continue
        p = d["params"]
        total = kernel_instructions(d["kernel"], tuple(d["pipeline_constants"]), nvdisasm)
        counts.append(total * p["threads_per_transform"] / p["n"])
    return counts


def c2c_plan(n: int, batch: int):
    """The plan of a batched forward c2c of length n (contiguous rows), as
    the CUDA verifier plans it."""
    plan, _ = plan_along_axis(TransformKind.C2C, True, n, (batch, n), 1, 1.0,
                              _core.NVIDIA_COALESCED_BYTES)
    return plan


def c2c_row(n: int, nvdisasm: str) -> list[float]:
    """per_element of c2c_plan for about 2^20 elements."""
    return per_element(c2c_plan(n, max(1, (1 << 20) // n)), nvdisasm)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[16, 64, 1024, 4096])
    arguments = parser.parse_args()
    nvdisasm = find_nvdisasm()
    if nvdisasm is None or cuda_source.find_nvrtc() is None:
        print("needs NVRTC and nvdisasm (pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-nvdisasm)")
        return 1
    for n in arguments.lengths:
        passes = c2c_row(n, nvdisasm)
        print(f"c2c n={n}: {sum(passes):.0f} instructions per complex element "
              f"({' + '.join(f'{c:.0f}' for c in passes)} over {len(passes)} passes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
