#!/usr/bin/env bash
# Builds pyvkfft's CUDA backend (pyvkfft 2025.1.1 holds VkFFT 1.3.4) from its
# source tree into TARGET, for vkfft_reference.py. One change to its C++
# glue: each app it makes reads three limits from the environment where they
# are set (VKFFT_SMEM: shared memory bytes; VKFFT_MAXTHREADS: threads per
# block; VKFFT_SWAP3: the length from which it plans three passes), so that
# one build plans as released and under an Apple GPU's limits. Needs nvcc
# and CuPy, no network:
#   bash verification/cuda/build_vkfft.sh PYVKFFT_SOURCE TARGET
set -euo pipefail
source=$(cd "$1" && pwd)
target=$2
work=$(mktemp -d)
cp -r "$source"/. "$work"
glue="$work/src/vkfft_cuda.cu"
python3 - "$glue" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = "  config->FFTdim = fftdim;\n"
if anchor not in text:
    sys.exit(f"{path}: no line '{anchor.strip()}' to add the limits after")
limits = "".join(
    f'  if (const char* v = std::getenv("{name}")) config->{field} = std::strtoull(v, nullptr, 10);\n'
    for name, field in (("VKFFT_SMEM", "sharedMemorySize"), ("VKFFT_MAXTHREADS", "maxThreadsNum"),
                        ("VKFFT_SWAP3", "swapTo3Stage4Step")))
text = "#include <cstdlib>\n" + text.replace(anchor, anchor + limits, 1)
open(path, "w").write(text)
PY
( cd "$work" && VKFFT_BACKEND=cuda python3 -m pip install -q --no-build-isolation --no-deps \
    --target "$target" . )
rm -rf "$work"
