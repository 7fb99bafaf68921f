"""Throughput of the 1-D rows by transform length, one line per contender."""

from __future__ import annotations

import math
from pathlib import Path

from .measure import RowResult
from .suite import ELEMENTS_PER_1D_ROW, KINDS, PRECISIONS

PANEL_COLUMNS = 3


def _is_power_of_two(n: int) -> bool:
    return n & (n - 1) == 0


def _series(results: list[RowResult], label: str) -> tuple[list[int], list[float]]:
    """Transform lengths and GFLOP/s of one contender."""
    return ([result.row.lengths[0] for result in results],
            [result.row.flops / result.median(label) / 1e9 for result in results])


def contender_styles(labels: list[str]) -> dict[str, tuple[str, str]]:
    """(colour, line style) of each contender, no two alike: matplotlib's
    colour cycle has ten colours and the suite with FFTW at two thread counts
    eleven contenders, so the next ten are dashed."""
    return {label: (f"C{index % 10}", "-" if index % 20 < 10 else "--")
            for index, label in enumerate(labels)}


def plot_throughput(results: list[RowResult], labels: list[str], path: Path) -> None:
    import matplotlib  # the bench extra's; imported here so the styles need none

    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt

    one_d = [result for result in results if result.row.group == "1d"]
    panels = [(precision, kind) for precision in PRECISIONS for kind in KINDS
              if any((result.row.precision, result.row.kind) == (precision, kind) for result in one_d)]
    if not panels:
        return
    rows_of_panels = math.ceil(len(panels) / PANEL_COLUMNS)
    columns = min(PANEL_COLUMNS, len(panels))
    figure, axes = plt.subplots(rows_of_panels, columns, squeeze=False,
                                figsize=(5.2 * columns, 3.8 * rows_of_panels))
    for panel_axes, (precision, kind) in zip(axes.flat, panels):
        panel_results = sorted((result for result in one_d
                                if (result.row.precision, result.row.kind) == (precision, kind)),
                               key=lambda result: result.row.lengths[0])
        # Powers of two are joined by lines; other lengths take other code
        # paths (mixed radix, Bluestein), so they are crosses, not zigzags.
        powers = [result for result in panel_results if _is_power_of_two(result.row.lengths[0])]
        others = [result for result in panel_results if not _is_power_of_two(result.row.lengths[0])]
        for label, (color, line_style) in contender_styles(labels).items():
            panel_axes.plot(*_series(powers, label), marker="o", markersize=3, label=label,
                            color=color, linestyle=line_style)
            panel_axes.plot(*_series(others, label), linestyle="none", marker="x", color=color)
        panel_axes.set_xscale("log", base=2)
        panel_axes.set_ylim(bottom=0)
        panel_axes.set_title(f"{kind} {precision}")
        panel_axes.set_xlabel("transform length n")
        panel_axes.set_ylabel("GFLOP/s (5 n log2 n; real: half)")
        panel_axes.grid(True, alpha=0.3)
    for unused_axes in list(axes.flat)[len(panels):]:
        unused_axes.set_visible(False)
    axes.flat[0].legend(fontsize="small")
    figure.suptitle(f"1-D batched transforms, about 2^{math.log2(ELEMENTS_PER_1D_ROW):.0f} "
                    "elements per row; x = lengths that are not powers of two (higher is better)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
