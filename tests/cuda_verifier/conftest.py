"""The CUDA verifier's modules live in verification/cuda, outside the package."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "verification" / "cuda"))
