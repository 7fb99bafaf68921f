"""Distributed fftn against jax.numpy.fft.fftn on the same sharded inputs.

Run from the repository root with the package installed:

    python benchmarks/sharded.py --devices 8 --sizes 256 512

`--devices N` forces N CPU devices (XLA_FLAGS, before jax starts). Rows:
c64 cubes, slab (P("x") over a 1-D mesh of all devices) and pencil (P("x",
"y") over a 2-D mesh), forward fftn; the "-T" layouts ask both contenders
for the transposed result (P(None, "x"), P(None, "x", "y")): ours through
out_sharding, jnp through jit's out_shardings. Both contenders are jitted and
compiled before timing; rounds interleave them; the table gives medians, the
ratio ours/jnp and the collectives each compiled HLO holds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--sizes", type=int, nargs="+", default=[256])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--layouts", nargs="+", default=["slab", "pencil"],
                        choices=["slab", "pencil", "slab-T", "pencil-T"])
    return parser.parse_args()


COLLECTIVES = ("all-gather", "all-to-all", "collective-permute", "all-reduce")


def collectives(compiled) -> str:
    text = compiled.as_text()
    found = [f"{text.count(op + '(')} {op}" for op in COLLECTIVES if op + "(" in text]
    return ", ".join(found) or "none"


def main() -> int:
    arguments = parse_arguments()
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_force_host_platform_device_count={arguments.devices}")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding, PartitionSpec as P

    from bench.report import machine_info, machine_line

    import jax_apple_fft as af

    devices = jax.device_count()
    pencil_shape = next((a, devices // a) for a in range(int(devices ** 0.5), 0, -1)
                        if devices % a == 0)
    slab_mesh, pencil_mesh = jax.make_mesh((devices,), ("x",)), jax.make_mesh(pencil_shape, ("x", "y"))
    layouts = {  # operand's mesh and spec, the result's spec (None: the operand's)
        "slab": (slab_mesh, P("x"), None), "pencil": (pencil_mesh, P("x", "y"), None),
        "slab-T": (slab_mesh, P("x"), P(None, "x")),
        "pencil-T": (pencil_mesh, P("x", "y"), P(None, "x", "y"))}
    print(machine_line(machine_info(), (os.cpu_count() or 1,)))
    print(f"{devices} CPU devices; pencil mesh {pencil_shape[0]}x{pencil_shape[1]}; "
          f"medians of {arguments.rounds} interleaved rounds")
    header = f"{'row':<22}{'ours ms':>10}{'jnp ms':>10}{'ours/jnp':>10}   ours' HLO / jnp's HLO"
    print(header)
    rng = np.random.default_rng(0)
    for n in arguments.sizes:
        x = (rng.standard_normal((n, n, n), np.float32)
             + 1j * rng.standard_normal((n, n, n), np.float32)).astype(np.complex64)
        for layout in arguments.layouts:
            mesh, spec, result = layouts[layout]
            xs = jax.device_put(x, NamedSharding(mesh, spec))
            out = None if result is None else NamedSharding(mesh, result)
            ours = (lambda v: af.fftn(v, out_sharding=out)) if out is not None else af.fftn
            contenders = {"ours": jax.jit(ours).lower(xs).compile(),
                          "jnp": jax.jit(jnp.fft.fftn, out_shardings=out).lower(xs).compile()}
            check, reference = (np.asarray(contenders[k](xs).addressable_shards[0].data)
                                for k in ("ours", "jnp"))
            error = np.max(np.abs(check - reference)) / np.max(np.abs(reference))
            assert error < 1e-4, (layout, n, error)
            samples = {name: [] for name in contenders}
            for _ in range(arguments.rounds):
                for name, compiled in contenders.items():
                    start = time.perf_counter()
                    compiled(xs).block_until_ready()
                    samples[name].append(time.perf_counter() - start)
            ours, theirs = (statistics.median(samples[k]) * 1e3 for k in ("ours", "jnp"))
            print(f"{f'c64 {n}^3 {layout}':<22}{ours:>10.1f}{theirs:>10.1f}{ours / theirs:>10.2f}"
                  f"   {collectives(contenders['ours'])} / {collectives(contenders['jnp'])}",
                  flush=True)
            del xs, contenders
    return 0


if __name__ == "__main__":
    sys.exit(main())
