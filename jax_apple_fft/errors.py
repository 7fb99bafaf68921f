"""Exceptions raised by jax_apple_fft, and its warnings. ``JaxAppleFftError``
is the base of every exception, including those the native extension raises."""

from __future__ import annotations

__all__ = [
    "BackendUnavailableError",
    "CacheClosedError",
    "DefaultCacheError",
    "JaxAppleFftError",
    "MetalSelfCheckWarning",
    "PlanBuildError",
    "UnsupportedError",
]


class JaxAppleFftError(Exception):
    """Base class of every error this package raises."""


class BackendUnavailableError(JaxAppleFftError, RuntimeError):
    """The requested backend cannot run on this machine or in this build."""


class UnsupportedError(JaxAppleFftError, ValueError):
    """The backend exists but cannot serve this request (dtype, size, ...)."""


class PlanBuildError(JaxAppleFftError, RuntimeError):
    """A plan could not be built (out of memory, unsupported size, ...); the
    cache keeps no entry for it."""


class CacheClosedError(JaxAppleFftError, RuntimeError):
    """The PlanCache was closed. Raised when a transform is traced with it; a
    computation compiled before the close fails when run, with a
    ``jax.errors.JaxRuntimeError`` (FAILED_PRECONDITION) that says so."""


class DefaultCacheError(JaxAppleFftError, RuntimeError):
    """The default PlanCache was asked what only a cache of one's own allows:
    to be closed, or to be configured after its first use."""


class MetalSelfCheckWarning(UserWarning):
    """The Metal self-check failed on this device, so ``backend="auto"``
    runs on the CPU. Warned once per process; the message names the failing
    check and how to report it."""
