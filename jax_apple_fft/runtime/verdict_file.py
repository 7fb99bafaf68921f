"""Where self-check verdicts persist between processes: one small JSON file
in the user's cache directory.

``JAX_APPLE_FFT_CACHE_DIR`` relocates it; the value ``off`` turns persistence
off. The file is a hint, never a requirement: one that is missing, corrupt
or unwritable reads as empty and is replaced (or left alone) silently.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import sys
import tempfile

__all__ = ["CACHE_DIR_VARIABLE", "FILE_NAME", "load", "path", "store"]

CACHE_DIR_VARIABLE = "JAX_APPLE_FFT_CACHE_DIR"
FILE_NAME = "self_check.json"
_FORMAT = 1
_MOST_ENTRIES = 32  # oldest dropped first: one per device and version is plenty


def path() -> pathlib.Path | None:
    """The verdict file, or None when persistence is off."""
    configured = os.environ.get(CACHE_DIR_VARIABLE)
    if configured == "off":
        return None
    if configured:
        return pathlib.Path(configured) / FILE_NAME
    if sys.platform == "darwin":
        base = pathlib.Path.home() / "Library" / "Caches"
    else:
        base = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return base / "jax_apple_fft" / FILE_NAME


def _read() -> dict[str, dict]:
    where = path()
    if where is None:
        return {}
    try:
        content = json.loads(where.read_text(encoding="utf-8"))
        verdicts = content["verdicts"] if content.get("format") == _FORMAT else {}
        return {k: v for k, v in verdicts.items() if isinstance(v, dict)}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def load(key: str) -> dict | None:
    """The stored record of `key`, or None."""
    return _read().get(key)


def store(key: str, record: dict) -> None:
    """Stores `record` under `key`, atomically; does nothing if the file
    cannot be written."""
    where = path()
    if where is None:
        return
    verdicts = _read()
    verdicts.pop(key, None)
    verdicts[key] = record
    kept = dict(list(verdicts.items())[-_MOST_ENTRIES:])
    text = json.dumps({"format": _FORMAT, "verdicts": kept}, indent=1, sort_keys=False)
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=where.parent, prefix=".self_check.")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, where)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
