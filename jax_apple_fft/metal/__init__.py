"""The Metal backend's portable parts: planner inspection and the self-check."""
