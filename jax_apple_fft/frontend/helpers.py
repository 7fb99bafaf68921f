"""Frequency grids and shifts. They involve no transform, so they are
jax.numpy.fft's own functions, re-exported for a complete numpy.fft API."""

from jax.numpy.fft import fftfreq, fftshift, ifftshift, rfftfreq

__all__ = ["fftfreq", "fftshift", "ifftshift", "rfftfreq"]
