"""The instruction budget of the batched c2c kernels, counted in the SASS of
their builds with pipeline constants (sass_count.py): NVRTC and nvdisasm,
no GPU. The budgets are the Metal kernels' targets, so that a change that
brings back per-element addressing fails here, not on a GPU months later."""

import pytest

import cuda_source
import sass_count

NVDISASM = sass_count.find_nvdisasm()
needs_tools = pytest.mark.skipif(NVDISASM is None or cuda_source.find_nvrtc() is None,
                                 reason="NVRTC or nvdisasm is not installed")


@needs_tools
@pytest.mark.parametrize("n,budget", [(16, 45), (64, 45), (1024, 80), (4096, 80)])
def test_batched_c2c_stays_within_its_instruction_budget(n, budget):
    """At most 80 instructions per complex element at 1024 and 4096 points
    (VkFFT held to Apple's limits takes 52 and 60), 45 at 16 and 64 (40, 44)."""
    (single_pass,) = sass_count.c2c_row(n, NVDISASM)
    assert single_pass <= budget


@needs_tools
def test_the_count_sees_each_pass():
    """A four-step length counts both passes, each above the one-pass kernels'."""
    passes = sass_count.c2c_row(1 << 20, NVDISASM)
    assert len(passes) == 2 and min(passes) > 36


def global_accesses(dispatch) -> str:
    """The dispatch's device loads (L) and stores (S) in program order."""
    lines = sass_count.kernel_sass(dispatch["kernel"], tuple(dispatch["pipeline_constants"]),
                                   NVDISASM)
    return "".join("L" if " LDG" in line else "S" for line in lines
                   if " LDG" in line or " STG" in line)


@needs_tools
def test_stores_that_read_a_table_issue_their_loads_first():
    """A table load placed after a store waits for it (the store may alias the
    table): Bluestein's chirp reads all its table entries before the first
    store."""
    plan = sass_count.c2c_plan(4099, 64)
    (last,) = [d for d in plan.dispatches if d["params"]["post_mode"] == "times_table"]
    order = global_accesses(last)
    assert "L" not in order[order.index("S"):], order
