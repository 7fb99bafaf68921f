"""Differential fuzz of the transforms against numpy, looking for crashes.

Random functions, shapes (zero-size too), axes, n/s (None, -1, 0, huge, bools),
dtypes, norms and backends. A case passes when ours and numpy agree to float
rounding, or when ours raises a Python exception; the fuzz fails on a wrong
value or on a process that dies. Cases run in child processes, each taking a
slice of the seed range, so a crash names its case and the others go on.

    python tools/fuzz_against_numpy.py --cases 2000 --processes 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys

FUNCTIONS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
             "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
ONE_AXIS = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"}
DTYPES = ["bool", "int32", "float32", "float64", "complex64", "complex128"]
NORMS = [None, "backward", "ortho", "forward", "bad"]
BACKENDS = ["auto", "cpu", "metal-emulated", "metal"]


def make_case(seed: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    name = FUNCTIONS[rng.integers(len(FUNCTIONS))]
    ndim = int(rng.integers(0, 5))
    shape = [int(rng.choice([0, 1, 2, 3, 5, 8, 12, 17])) for _ in range(ndim)]

    def length():
        return rng.choice([None, -1, 0, 1, 2, 7, 16, 33, True, 2**40, 2**63], p=[
            0.2, 0.05, 0.05, 0.1, 0.1, 0.15, 0.15, 0.1, 0.04, 0.03, 0.03])

    kwargs = {}
    if name in ONE_AXIS:
        if rng.random() < 0.5:
            kwargs["n"] = length()
        if rng.random() < 0.5:
            kwargs["axis"] = int(rng.integers(-ndim - 1, ndim + 1))
    else:
        if rng.random() < 0.6:
            k = int(rng.integers(0, ndim + 2))
            kwargs["axes"] = [int(rng.integers(-ndim - 1, ndim + 1)) for _ in range(k)]
        if rng.random() < 0.5:
            k = len(kwargs.get("axes", [])) if "axes" in kwargs and rng.random() < 0.8 else \
                int(rng.integers(0, ndim + 2))
            kwargs["s"] = [length() for _ in range(k)]
    norm = NORMS[rng.choice(len(NORMS), p=[0.3, 0.2, 0.2, 0.25, 0.05])]
    if norm is not None:
        kwargs["norm"] = norm
    kwargs = {k: ([None if v is None else (bool(v) if isinstance(v, np.bool_) else int(v))
                   for v in value] if isinstance(value, list) else
                  (None if value is None else (bool(value) if isinstance(value, (bool, np.bool_))
                                               else value if isinstance(value, str)
                                               else int(value))))
              for k, value in kwargs.items()}
    return {"seed": seed, "name": name, "shape": shape,
            "dtype": DTYPES[rng.integers(len(DTYPES))], "x64": bool(rng.random() < 0.5),
            "backend": BACKENDS[rng.choice(len(BACKENDS), p=[0.4, 0.3, 0.25, 0.05])],
            "jit": bool(rng.random() < 0.3), "kwargs": kwargs}


def run_case(case: dict) -> str:
    """'ok', 'raised ...' or 'WRONG ...'."""
    import jax
    import numpy as np

    import jax_apple_fft as af

    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}
    x = (np.random.default_rng(case["seed"]).standard_normal(case["shape"]) * 3).astype(
        case["dtype"])
    with jax.enable_x64(case["x64"]):
        f = lambda v: getattr(af, case["name"])(v, backend=case["backend"], **kwargs)
        try:
            ours = np.asarray((jax.jit(f) if case["jit"] else f)(x))
        except Exception as e:  # noqa: BLE001 - a Python exception is not a crash
            return f"raised {type(e).__name__}"
    try:
        expected = getattr(np.fft, case["name"])(x.astype(np.complex128) if case["name"]
                                                 not in ("rfft", "rfftn", "rfft2", "ihfft")
                                                 else x.astype(np.float64), **kwargs)
    except Exception:  # noqa: BLE001 - numpy refuses what jnp.fft accepts, e.g. empty
        return "ok (numpy raised)"
    if ours.shape != expected.shape:
        return f"WRONG shape {ours.shape} vs {expected.shape}"
    scale = max(float(np.max(np.abs(expected), initial=0)), 1.0)
    error = float(np.max(np.abs(ours - expected), initial=0)) / scale
    single = ours.dtype in (np.float32, np.complex64)
    if not error <= (1e-3 if single else 1e-9) or (np.isnan(ours).sum() != np.isnan(expected).sum()):
        return f"WRONG max error {error:.3g}"
    return "ok"


def child(first: int, last: int) -> None:
    for seed in range(first, last):
        case = make_case(seed)
        print(json.dumps({"seed": seed, "result": run_case(case)}), flush=True)


def run_slice(first: int, last: int) -> tuple[list, list]:
    """Runs seeds [first, last) in children, restarting after a crash."""
    results, crashes = [], []
    while first < last:
        proc = subprocess.run([sys.executable, __file__, "--child", str(first), str(last)],
                              capture_output=True, text=True)
        done = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        results += done
        first += len(done)
        if proc.returncode != 0:
            crashes.append({"case": make_case(first), "returncode": proc.returncode,
                            "stderr": proc.stderr[-2000:]})
            first += 1
    return results, crashes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    step = -(-args.cases // args.processes)
    slices = [(args.first_seed + i, min(args.first_seed + i + step, args.first_seed + args.cases))
              for i in range(0, args.cases, step)]
    with multiprocessing.Pool(len(slices)) as pool:
        outcomes = pool.starmap(run_slice, slices)
    results = [r for done, _ in outcomes for r in done]
    crashes = [c for _, crashed in outcomes for c in crashed]
    wrong = [r for r in results if r["result"].startswith("WRONG")]
    raised = sum(r["result"].startswith("raised") for r in results)
    print(f"{len(results)} cases: {len(results) - raised - len(wrong)} agreed, {raised} raised "
          f"a Python exception, {len(wrong)} wrong, {len(crashes)} crashed the process")
    for item in wrong[:20]:
        print("wrong:", item, make_case(item["seed"]))
    for crash in crashes[:20]:
        print("crash:", json.dumps(crash["case"]), "returncode", crash["returncode"])
        print(crash["stderr"][-600:])
    return 1 if wrong or crashes else 0


if __name__ == "__main__":
    sys.exit(main())
