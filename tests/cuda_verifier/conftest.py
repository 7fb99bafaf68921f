"""The CUDA verifier's modules live in verification/cuda and the plan runners
it shares with the emulator in verification/metal, outside the package."""

import pathlib
import sys

_VERIFICATION = pathlib.Path(__file__).resolve().parents[2] / "verification"
sys.path[:0] = [str(_VERIFICATION / "cuda"), str(_VERIFICATION / "metal")]
