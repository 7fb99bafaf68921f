"""Runs Python snippets in a fresh interpreter, for tests of what must not
crash the process (a crash there fails the test instead of killing pytest)
and of what depends on a process's state (import order, flags, handles)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

CPU_ONLY = {"JAX_PLATFORMS": "cpu"}


def run_python(code: str, *args: str, flags=(), timeout: float = 300,
               limit_address_space: int | None = None, cwd=None,
               env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs `code` (dedented) with `python flags -c code args`; returns the
    completed process. `limit_address_space` sets RLIMIT_AS in the child. It
    runs outside the repository by default, where `-c` would put the source
    tree's package (no compiled _core) ahead of the installed one, and on
    JAX's CPU client only (CPU_ONLY), as the tests in this process run on the
    CPU where JAX's default device is another (conftest.py)."""
    code = textwrap.dedent(code)
    if limit_address_space is not None:  # set in the child: no fork hook in a threaded parent
        code = (f"import resource\nresource.setrlimit(resource.RLIMIT_AS, "
                f"({limit_address_space}, {limit_address_space}))\n{code}")
    return subprocess.run([sys.executable, *flags, "-c", code, *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd or tempfile.gettempdir(),
                          env={**os.environ, **CPU_ONLY, **(env or {})})


def check_ok(result: subprocess.CompletedProcess) -> str:
    """Fails the test, with the child's output, unless it exited with 0."""
    if result.returncode != 0:
        pytest.fail(f"child exited with {result.returncode}\n--- stdout\n{result.stdout}"
                    f"\n--- stderr\n{result.stderr[-4000:]}")
    return result.stdout
