"""The benchmarks' shared code: the suite's rows, the contenders, inputs,
the numerical check, timing, and the table, JSON and plot of a run.

Importing this package imports nothing else, so that an entry point can set
XLA's flags and the allocator's policy before jax starts.
"""
