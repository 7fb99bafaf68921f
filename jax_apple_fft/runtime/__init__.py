"""Runtime pieces: plan caches, backend selection, FFI registration."""
