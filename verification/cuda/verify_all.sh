#!/usr/bin/env bash
# Everything the CUDA verifier checks, in one run on a CUDA machine with the
# package's build tools, CuPy and compute-sanitizer; results go to $OUT
# (default verification/cuda/results). From the repository root:
#
#   OUT=/some/dir bash verification/cuda/verify_all.sh
#
# Builds and installs the package (JAX_APPLE_FFT_DUCC0_SDIST may name a local
# ducc0 source distribution where the machine has no network) and, where
# PYVKFFT_SOURCE names pyvkfft's source tree, VkFFT (build_vkfft.sh); then runs
# the verifier's tests, the accuracy sweep, each compute-sanitizer tool on the
# representative set, racecheck on the planted missing barrier, the
# throughput table against VkFFT and cuFFT, and, where ncu is installed,
# instructions per element. Each step's output is in $OUT/<step>.txt.
set -uo pipefail
OUT=${OUT:-verification/cuda/results}
mkdir -p "$OUT"
VERIFY=verification/cuda/verify_on_gpu.py
step() {  # step NAME COMMAND...: runs it, keeps its output, reports its status
  local name=$1; shift
  local start=$(date +%s)
  "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "$name: rc=$rc, $(( $(date +%s) - start )) s"
  tail -n 25 "$OUT/$name.txt"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
step build python3 -m pip install --no-build-isolation --no-deps .
if [ -n "${PYVKFFT_SOURCE:-}" ]; then
  vkfft=$(mktemp -d)
  step vkfft bash verification/cuda/build_vkfft.sh "$PYVKFFT_SOURCE" "$vkfft"
  export PYTHONPATH="$vkfft${PYTHONPATH:+:$PYTHONPATH}"
fi
step tests python3 -m pytest tests/cuda_verifier -q -p no:cacheprovider
step accuracy python3 "$VERIFY" accuracy --out "$OUT"
for tool in racecheck synccheck memcheck initcheck; do
  step "sanitize-$tool" compute-sanitizer --tool "$tool" --error-exitcode 3 \
    python3 "$VERIFY" sanitize
done
step racy-racecheck compute-sanitizer --tool racecheck --racecheck-report hazard \
  python3 "$VERIFY" racy
step throughput python3 "$VERIFY" throughput --out "$OUT"
if command -v ncu > /dev/null; then
  step instructions python3 "$VERIFY" instructions --lengths 16 64 1024 4096 --out "$OUT"
fi
