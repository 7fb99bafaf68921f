"""Whether jnp.fft runs on one thread. XLA reads its flags once, when jax
starts its CPU client, so asking must happen before jax is first used."""

from __future__ import annotations

import os

# Turns off XLA's intra-op thread pool, on which jnp.fft otherwise uses every core.
SINGLE_THREAD_FLAG = "--xla_cpu_multi_thread_eigen=false"


def request_single_thread() -> None:
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {SINGLE_THREAD_FLAG}".strip()


def single_threaded() -> bool:
    return SINGLE_THREAD_FLAG in os.environ.get("XLA_FLAGS", "")
