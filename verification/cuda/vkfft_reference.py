"""VkFFT on the verifier's own buffers: the yardstick for the Metal kernels.

VkFFT is the fastest portable GPU FFT and has a Metal backend of its own. Its
CUDA backend (pyvkfft, built by build_vkfft.sh) runs here in two
configurations per row:
  apple:    32 KiB of shared memory, at most 256 threads per block and three
            passes from 2^19 points up, as on an Apple GPU: the same limits
            our planner obeys, the target;
  released: VkFFT's own choices for this GPU (it takes the H200's 227 KiB of
            shared memory, which no Apple GPU has).
Each app transforms out of place, from the row's input into its output.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

APPLE_LIMITS = {"VKFFT_SMEM": "32768", "VKFFT_MAXTHREADS": "256", "VKFFT_SWAP3": str(1 << 19)}
CONFIGURATIONS = ("apple", "released")

try:
    from pyvkfft.cuda import VkFFTApp
except ImportError:  # optional: the throughput table leaves VkFFT's columns out
    VkFFTApp = None


def available() -> bool:
    return VkFFTApp is not None


@contextlib.contextmanager
def limits(configuration: str):
    """The environment an app of `configuration` is made in."""
    if configuration not in CONFIGURATIONS:
        raise ValueError(f"VkFFT configurations are {CONFIGURATIONS}, not {configuration!r}")
    wanted = APPLE_LIMITS if configuration == "apple" else {}
    saved = {name: os.environ.pop(name, None) for name in APPLE_LIMITS}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value


def transform(configuration: str, kind: str, x, y, axes: tuple[int, ...]):
    """A function that runs VkFFT's transform of x into y (CuPy arrays) over
    the trailing `axes` (C2C forward, R2C forward or C2R inverse), planned
    under `configuration`'s limits."""
    ndim = len(axes)
    real = kind != "c2c"
    shape = y.shape if kind == "c2r" else x.shape
    with limits(configuration):
        app = VkFFTApp(shape, np.float32 if real else np.complex64, ndim=ndim, inplace=False,
                       r2c=real)
    if kind == "c2r":
        return lambda: app.ifft(x, y)
    return lambda: app.fft(x, y)
