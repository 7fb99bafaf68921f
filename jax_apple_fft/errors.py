"""Exceptions raised by jax_apple_fft."""

from __future__ import annotations

from jax_apple_fft._core import CacheClosedError, PlanBuildError

__all__ = [
    "BackendUnavailableError",
    "CacheClosedError",
    "JaxAppleFftError",
    "PlanBuildError",
    "UnsupportedError",
]


class JaxAppleFftError(Exception):
    """Base class of the errors this package defines in Python."""


class BackendUnavailableError(JaxAppleFftError, RuntimeError):
    """The requested backend cannot run on this machine or in this build."""


class UnsupportedError(JaxAppleFftError, ValueError):
    """The backend exists but cannot serve this request (dtype, size, ...)."""
