"""jax_apple_fft: FFTs for JAX on the CPU (pocketfft) and, on Apple silicon, Metal.

Every transform matches numpy.fft's signature and works under jit, grad and
vmap. Keyword-only ``backend=`` picks where it runs ("auto", "cpu",
"metal"); ``cache=`` names the PlanCache that owns its plans.
"""

import importlib.util as _importlib_util
import pathlib as _pathlib

if _importlib_util.find_spec("jax_apple_fft._core") is None:
    # Else the first `from jax_apple_fft import _core` fails as a "circular import".
    raise ImportError(
        f"jax_apple_fft: the compiled module _core is missing from "
        f"{_pathlib.Path(__file__).parent}: Python imported this package from a source tree "
        f"(the directory Python runs in comes first on sys.path) where _core is not built. "
        f"Install the package (python -m pip install .) and run Python from another "
        f"directory, or build _core in place: cmake -S . -B build && cmake --build build && "
        f"cp build/_core*.so jax_apple_fft/")

from jax_apple_fft.errors import (
    BackendUnavailableError,
    CacheClosedError,
    DefaultCacheError,
    JaxAppleFftError,
    MetalSelfCheckWarning,
    PlanBuildError,
    UnsupportedError,
)
from jax_apple_fft.frontend.drop_in import disable, enable, enabled, is_enabled
from jax_apple_fft.frontend.helpers import fftfreq, fftshift, ifftshift, rfftfreq
from jax_apple_fft.frontend.transforms import (
    fft,
    fft2,
    fftn,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)
from jax_apple_fft.runtime.backends import BackendInfo, backends
from jax_apple_fft.runtime.cache import (
    CacheStats,
    PlanCache,
    configure_default_cache,
    default_cache,
)
from jax_apple_fft.runtime.registration import register_targets
from jax_apple_fft.version import __version__

__all__ = [
    "BackendInfo", "BackendUnavailableError", "CacheClosedError", "CacheStats",
    "DefaultCacheError", "JaxAppleFftError", "MetalSelfCheckWarning", "PlanBuildError",
    "PlanCache", "UnsupportedError",
    "backends", "configure_default_cache", "default_cache", "register_targets",
    "enable", "disable", "enabled", "is_enabled",
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft",
    "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]
