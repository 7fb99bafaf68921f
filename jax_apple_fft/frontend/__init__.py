"""The numpy-compatible front end."""
