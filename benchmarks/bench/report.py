"""The results as a text table and as a JSON document."""

from __future__ import annotations

import dataclasses
import datetime
import glob
import importlib.metadata
import math
import os
import pathlib
import platform
from typing import Any

import jax_apple_fft
from . import jnp_threads
from .contenders import DROP_IN, JNP_FFT, NUMPY, OURS_ONE_THREAD
from .measure import RowResult
from .timing import TimingPlan

ROW_COLUMN_WIDTH = 26
TIME_COLUMN_WIDTH = 11
RATIO_COLUMN_WIDTH = 10
# Rows whose ours-all calls take this many page faults get them listed: an
# output in use takes none, a fresh one at least one per 2 MiB huge page.
FAULTS_WORTH_SHOWING = 10

# Ratio headers abbreviate the contenders to keep the table readable:
# ours-all -> all, ours-4t -> 4t, scipy-all -> spN, scipy-4w -> sp4,
# fftw-all -> fwN, fftw-4t -> fw4.
SHORT_NAMES = {JNP_FFT: "jnp1t" if jnp_threads.single_threaded() else "jnp", DROP_IN: "drop",
               NUMPY: "np"}


@dataclasses.dataclass(frozen=True)
class Ratio:
    numerator: str
    denominator: str

    @property
    def header(self) -> str:
        return f"{_short(self.numerator)}/{_short(self.denominator)}"

    def of(self, result: RowResult) -> float:
        return result.median(self.numerator) / result.median(self.denominator)


def _short(label: str) -> str:
    if label in SHORT_NAMES:
        return SHORT_NAMES[label]
    name, _, threads = label.partition("-")
    prefix = {"ours": "", "native": "nat", "scipy": "sp", "fftw": "fw"}.get(name, name)
    count = threads.rstrip("tw")
    if count == "all":
        return "all" if name == "ours" else prefix + "N"
    return prefix + count + ("t" if name == "ours" else "")


def ours_labels(labels: list[str]) -> list[str]:
    return [label for label in labels if label.startswith("ours-")]


def top_ours(labels: list[str]) -> str:
    """Ours on the most threads in this run (the last of the ours columns)."""
    return ours_labels(labels)[-1]


def ratios_for(labels: list[str]) -> list[Ratio]:
    """Ours on the most threads against every other contender; ours on one
    thread against jnp.fft; the drop-in against jnp.fft (what enable()
    gains); and ours against FFTW on each thread count both ran with."""
    top = top_ours(labels)
    ratios = [Ratio(top, label) for label in labels if label != top]
    if OURS_ONE_THREAD in labels and OURS_ONE_THREAD != top:
        ratios.append(Ratio(OURS_ONE_THREAD, JNP_FFT))
    ratios.append(Ratio(DROP_IN, JNP_FFT))
    for ours in ours_labels(labels):
        fftw = "fftw-" + ours.split("-", 1)[1]
        if fftw in labels and ours != top:
            ratios.append(Ratio(ours, fftw))
        transform = "native-" + ours.split("-", 1)[1]
        if fftw in labels and transform in labels:
            ratios.append(Ratio(transform, fftw))
    return ratios


def format_seconds(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f}us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f}ms"
    return f"{seconds:.3f}s"


def _finite_or_none(value: float) -> float | None:
    """JSON has no inf or nan."""
    return value if math.isfinite(value) else None


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def geometric_means(results: list[RowResult], ratios: list[Ratio]) -> dict[str, float]:
    """Over the rows where every contender agreed with the reference."""
    valid = [result for result in results if not result.disagreeing]
    return {ratio.header: geometric_mean([ratio.of(result) for result in valid]) for ratio in ratios}


def format_table(results: list[RowResult], labels: list[str]) -> str:
    ratios = ratios_for(labels)
    header = ("row".ljust(ROW_COLUMN_WIDTH)
              + "".join(label.rjust(TIME_COLUMN_WIDTH) for label in labels) + "  |"
              + "".join(ratio.header.rjust(RATIO_COLUMN_WIDTH) for ratio in ratios))
    lines = [header, "-" * len(header)]
    for result in results:
        line = (result.row.name.ljust(ROW_COLUMN_WIDTH)
                + "".join(format_seconds(result.median(label)).rjust(TIME_COLUMN_WIDTH)
                          for label in labels) + "  |"
                + "".join(f"{ratio.of(result):.2f}".rjust(RATIO_COLUMN_WIDTH) for ratio in ratios))
        if result.disagreeing:
            line += "  MISMATCH: " + ", ".join(result.disagreeing)
        lines.append(line)
    lines.append("-" * len(header))
    means = geometric_means(results, ratios)
    valid_rows = sum(not result.disagreeing for result in results)
    lines.append(f"geometric mean ({valid_rows} rows)".ljust(ROW_COLUMN_WIDTH)
                 + " " * (TIME_COLUMN_WIDTH * len(labels)) + "  |"
                 + "".join(f"{means[ratio.header]:.2f}".rjust(RATIO_COLUMN_WIDTH) for ratio in ratios))
    lines.append("")
    lines.append("ratios are median times: below 1 means ours is faster.")
    top = top_ours(labels)
    against_jnp = [Ratio(ours, JNP_FFT) for ours in ours_labels(labels)] + [Ratio(DROP_IN, JNP_FFT)]
    for ratio in against_jnp:
        slower = [result for result in results if ratio.of(result) > 1.0]
        lines.append(f"{ratio.numerator} slower than {JNP_FFT} in {len(slower)} of {len(results)} rows"
                     + (":" if slower else "."))
        lines += [f"  {result.row.name} ({ratio.of(result):.2f}x)" for result in slower]
    faulting = [result for result in results
                if result.timings[top].median_page_faults >= FAULTS_WORTH_SHOWING]
    if faulting:
        lines.append(f"page faults per call (median) where {top} took "
                     f"{FAULTS_WORTH_SHOWING} or more (first touches of fresh output memory):")
        lines += [f"  {result.row.name}: "
                  + ", ".join(f"{label} {result.timings[label].median_page_faults:.0f}"
                              for label in labels)
                  for result in faulting]
    disagreeing = [result for result in results if result.disagreeing]
    if disagreeing:
        lines.append(f"NUMERICAL MISMATCH in {len(disagreeing)} rows (excluded from the means):")
        lines += [f"  {result.row.name}: {', '.join(result.disagreeing)}" for result in disagreeing]
    return "\n".join(lines)


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _caches() -> dict[str, str]:
    """CPU 0's caches by level and type, e.g. {"L1d": "48K", "L2": "2048K"}
    (Linux sysfs; empty elsewhere)."""
    caches = {}
    for index in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        try:
            level, kind, size = (pathlib.Path(index, name).read_text().strip()
                                 for name in ("level", "type", "size"))
        except OSError:
            continue
        caches[f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")] = size
    return caches


def machine_info() -> dict[str, Any]:
    return {
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": _cpu_model(),
        "caches": _caches(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
        "versions": {
            "jax_apple_fft": jax_apple_fft.__version__,
            **{name: _version(name) for name in ("jax", "jaxlib", "numpy", "scipy")},
        },
    }


def machine_line(machine: dict[str, Any], threads: tuple[int, ...]) -> str:
    """One line naming the machine and the thread counts, atop every table."""
    caches = ", ".join(f"{level} {size}" for level, size in machine["caches"].items())
    return (f"machine: {machine['cpu_model']}, {machine['usable_cores']} usable cores"
            f"{'; ' + caches if caches else ''}; threads {', '.join(map(str, threads))}")


def to_json(results: list[RowResult], labels: list[str], plan: TimingPlan,
            quick: bool, reuse_memory: bool, wall_seconds: float,
            machine: dict[str, Any], threads: tuple[int, ...]) -> dict[str, Any]:
    ratios = ratios_for(labels)
    return {
        "machine": machine,
        "settings": {"quick": quick, "reuse_memory": reuse_memory, "contenders": labels,
                     "threads": list(threads),
                     "timing": dataclasses.asdict(plan)},
        "wall_seconds": wall_seconds,
        "rows": [
            {
                "name": result.row.name,
                **dataclasses.asdict(result.row),
                "lengths": result.row.lengths,
                "nominal_flops": result.row.flops,
                "tolerance": result.tolerance,
                "relative_errors": {label: _finite_or_none(error)
                                    for label, error in result.errors.items()},
                "agree": not result.disagreeing,
                "contenders": {
                    label: {
                        "median_seconds": timing.median,
                        "inner_loop": timing.inner_loop,
                        "samples_seconds": timing.samples,
                        "median_page_faults_per_call": _finite_or_none(timing.median_page_faults),
                    }
                    for label, timing in result.timings.items()
                },
                "ratios": {ratio.header: ratio.of(result) for ratio in ratios},
            }
            for result in results
        ],
        "geometric_means": {header: _finite_or_none(mean)
                            for header, mean in geometric_means(results, ratios).items()},
    }
