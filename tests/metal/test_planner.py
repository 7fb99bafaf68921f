"""The Metal planner's decisions, read from the dispatch records."""

import struct

import numpy as np
import pytest

from jax_apple_fft import PlanBuildError, _core
from jax_apple_fft.primitive.transform_kind import TransformKind

C2C, R2C, C2R = TransformKind.C2C, TransformKind.R2C, TransformKind.C2R
# Coalesced pieces: Apple's plans are the package's; rules measured on the
# H200 are pinned on NVIDIA's plans, which the CUDA verifier runs.
APPLE, NVIDIA = _core.APPLE_COALESCED_BYTES, _core.NVIDIA_COALESCED_BYTES


def plan(kind, n, batch=1, forward=True, scale=1.0, coalesced_bytes=APPLE):
    in_len = n // 2 + 1 if kind == C2R else n
    out_len = n // 2 + 1 if kind == R2C else n
    return _core.metal_emulator_plan(kind, forward, n, batch, 1, (1, 0, in_len), (1, 0, out_len),
                                     scale, coalesced_bytes)


def kernels(p):
    return [d["kernel"] for d in p.dispatches]


def stockham_kernel(n):
    """The kernel compiled for the fewest radices that hold n's."""
    if n & (n - 1) == 0:
        return "fft_stockham_pow2"
    for p in (2, 3, 5, 7):
        while n % p == 0:
            n //= p
    return "fft_stockham_smooth7" if n == 1 else "fft_stockham"


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 11, 13, 64, 360, 1000, 2187, 4096])
def test_lengths_up_to_4096_with_small_factors_take_one_dispatch(n):
    p = plan(C2C, n)
    assert kernels(p) == [stockham_kernel(n)]
    d = p.dispatches[0]
    assert d["threadgroup_memory_bytes"] <= 32768
    assert d["threads"][0] <= 256
    assert p.scratch_bytes == 0


def test_radices_prefer_sixteen_for_powers_of_two_else_eight_and_nine_for_powers_of_three():
    lengths = (4096, 2048, 64, 3072, 2187, 4095)
    radices = {n: plan(C2C, n).dispatches[0]["params"]["radices"] for n in lengths}
    assert radices == {4096: [16, 16, 16], 2048: [16, 16, 8], 64: [8, 8], 3072: [3, 8, 8, 8, 2],
                       2187: [9, 9, 9, 3], 4095: [9, 5, 7, 13]}
    assert sorted(plan(C2C, 2 * 3 * 5 * 7).dispatches[0]["params"]["radices"]) == [2, 3, 5, 7]


@pytest.mark.parametrize("n,radices,threads", [
    (1000, [10, 10, 10], 100),  # 8 * 5^3 would take 125 threads and the first end only
    (100, [10, 10], 10),
    (500, [5, 10, 10], 50),
    (250, [2, 5, 5, 5], 25),  # no pair of 2 and 5 would gain an end
    (2000, [5, 5, 5, 8, 2], 200),  # 10^3 * 2 would gain none either
])
def test_radix_ten_where_it_puts_more_stage_ends_in_registers(n, radices, threads):
    """Pairs of factors 2 and 5 run as radix 10 where that puts more stage
    ends in registers than the radices without it."""
    d = plan(C2C, n, batch=64).dispatches[0]
    assert (d["params"]["radices"], d["params"]["threads_per_transform"]) == (radices, threads)
    assert d["kernel"] == "fft_stockham_smooth7"


KERNEL_RADICES = {"fft_stockham_pow2": {2, 4, 8, 16},
                  "fft_stockham_smooth7": {2, 3, 4, 5, 7, 8, 9, 10},
                  "fft_stockham": {2, 3, 4, 5, 7, 8, 9, 10, 11, 13}}


@pytest.mark.parametrize("coalesced_bytes", [APPLE, NVIDIA])
def test_every_stockham_dispatch_runs_on_a_kernel_compiled_for_its_radices(coalesced_bytes):
    """A radix the kernel has no stage loop for would be skipped: 320 = 10 * 32
    once took 10 * 16 * 2 on the kernel without radix 16. Every length up to
    4096, and the passes of Bluestein's and Rader's routes beyond it."""
    for n in [*range(1, 4097), 4099, 10007, 12289, 65537]:
        for d in plan(C2C, n, batch=4, coalesced_bytes=coalesced_bytes).dispatches:
            if d["kernel"] in KERNEL_RADICES:
                assert set(d["params"]["radices"]) <= KERNEL_RADICES[d["kernel"]], (n, d["params"])


def test_radix_nine_also_where_no_stage_end_meets_device_memory_in_registers():
    """686 * 729 on NVIDIA's pieces: its strided 729-point pass takes 46
    threads per transform, which divide neither 729 / 9 nor any other stage
    end, and still runs radix 9 (three exchanges, not six)."""
    (d,) = [d for d in plan(C2C, 686 * 729, batch=2, coalesced_bytes=NVIDIA).dispatches
            if d["params"]["n"] == 729]
    p = d["params"]
    assert p["radices"] == [9, 9, 9] and (729 // 9) % p["threads_per_transform"] != 0
    assert plan(C2C, 729, batch=2).dispatches[0]["params"]["radices"] == [9, 9, 9]


@pytest.mark.parametrize("n", [n for n in range(1, 4097) if all(
    n % p for p in (17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61))][::7] + [4095, 4000, 3888])
def test_every_single_group_length_takes_at_most_256_threads_per_group(n):
    """Every length a group holds is planned within 256 threads, a limit every
    Apple GPU's pipelines meet (a factor 13 once took 315 threads at 4095)."""
    d = plan(C2C, n).dispatches[0]
    if d["kernel"].startswith("fft_stockham") and d["params"]["n"] == n:
        assert d["threads"][0] <= 256 and d["params"]["threads_per_transform"] * 16 >= n


@pytest.mark.parametrize("n,passes", [
    (10**6, [([10, 10, 10], 50)] * 2),  # both ends, 20 values a thread (no walk)
    (4099, [([3, 7, 4], 7), ([2, 7, 7], 7), ([3, 7, 4], 7)]),  # both ends, not the first only
    (12289, [([3, 8, 4], 8), ([16, 8], 8), ([3, 8, 4], 8)]),  # both ends, not the first only
    (240, [([3, 5, 8, 2], 20)]),
    (1200, [([3, 5, 5, 8, 2], 100)]),  # odd first takes both ends, even first the first only
    (98, [([2, 7, 7], 7)]),  # a lone radix 2 stays first
])
def test_odd_radices_run_first_where_that_spares_banks_or_puts_more_ends_in_registers(n, passes):
    """The Stockham kernels run the odd radices' stages first where that puts
    more stage ends in registers, or as many on as many threads where the
    even radices start with 4 or 8 (their span-1 scatter would put up to 8 of
    a SIMD group's accesses in one bank)."""
    dispatches = [d["params"] for d in plan(C2C, n, batch=64, coalesced_bytes=NVIDIA).dispatches
                  if d["kernel"].startswith("fft_stockham")]
    assert [(d["radices"], d["threads_per_transform"]) for d in dispatches] == passes


@pytest.mark.parametrize("n,threads", [(4096, 256), (1024, 64), (256, 16), (2187, 243), (1000, 100)])
def test_threads_per_transform_divide_the_first_stage(n, threads):
    """Threads per transform divide the first stage's butterflies (and the
    last's where they can), so that it takes its inputs from the load in
    registers; the sides then walk along their transforms, not as one run."""
    d = plan(C2C, n, batch=64).dispatches[0]["params"]
    assert d["threads_per_transform"] == threads
    assert (n // d["radices"][0]) % threads == 0
    assert d["in"]["walk"] == "along"
    last_divides = (n // d["radices"][-1]) % threads == 0
    assert d["out"]["walk"] == ("along" if last_divides else "run")


@pytest.mark.parametrize("n,radices,threads", [(16, [4, 4], 4), (32, [8, 4], 4), (64, [8, 8], 8)])
def test_short_powers_of_two_take_threads_for_whole_pieces(n, radices, threads):
    """16 and 32 take 4 threads per transform, 64 takes 8, with radices that
    both stage ends' butterflies divide among them, and walk along their
    transforms: 32 bytes at a time or more, in registers at both ends."""
    d = plan(C2C, n, batch=1000).dispatches[0]["params"]
    assert (d["radices"], d["threads_per_transform"]) == (radices, threads)
    assert (d["in"]["walk"], d["out"]["walk"]) == ("along", "along")


def test_strided_passes_take_eight_transforms_per_group_where_the_length_allows():
    """24696 = 147 * 168 in four-step: its strided 147-point pass takes 21
    threads per transform (not 49), 12 per group."""
    first = plan(C2C, 24696, batch=2).dispatches[0]["params"]
    assert first["n"] == 147 and first["in"]["walk"] == "across"
    assert (first["threads_per_transform"], first["per_group"]) == (21, 12)


def test_small_lengths_share_a_threadgroup():
    d = plan(C2C, 16, batch=1000).dispatches[0]
    assert d["params"]["per_group"] > 1
    assert d["params"]["per_group"] * 16 * 8 == d["threadgroup_memory_bytes"] <= 32768


@pytest.mark.parametrize("coalesced_bytes,n", [(APPLE, 1 << 18), (NVIDIA, 1 << 20)])
def test_large_powers_of_two_use_four_step(coalesced_bytes, n):
    p = plan(C2C, n, scale=0.5, coalesced_bytes=coalesced_bytes)
    assert kernels(p) == ["fft_stockham_pow2", "fft_stockham_pow2"]
    first, second = (d["params"] for d in p.dispatches)
    assert first["n"] * second["n"] == n
    assert first["post_mode"] == "four_step_twiddle"  # the w_n^(k1 j2) twiddle is fused into pass 1
    assert (first["scale"], second["scale"]) == (1.0, 0.5)
    assert p.scratch_bytes == n * 8
    assert ("scratch" in (b[1] for b in p.dispatches[0]["bindings"]))


@pytest.mark.parametrize("coalesced_bytes,two_passes,three_passes", [
    (APPLE, [(1 << 18, (512, 512)), (3**10, (243, 243))],
     [(1 << 19, (64, 64, 128)), (1 << 20, (64, 128, 128)), (3**12, (81, 81, 81)),
      (10**6, (100, 100, 100))]),
    (NVIDIA, [(1 << 19, (512, 1024)), (1 << 20, (1024, 1024)), (686 * 729, (686, 729)),
              (10**6, (1000, 1000))],
     [(1 << 21, (128, 128, 128))]),
])
def test_the_coalesced_piece_bounds_the_passes_of_split_lengths(coalesced_bytes, two_passes,
                                                                three_passes):
    """A group of a split pass holds the neighbouring transforms whose same
    element fills a coalesced piece: 8 at Apple's 64 bytes, so passes of at
    most 512 points (three passes from 2^19), 4 at NVIDIA's 32 (1024 points)."""
    for n, factors in two_passes + three_passes:
        dispatches = plan(C2C, n, batch=2, coalesced_bytes=coalesced_bytes).dispatches
        assert tuple(d["params"]["n"] for d in dispatches) == factors, n
        across = coalesced_bytes // 8
        for d in dispatches:
            assert d["params"]["per_group"] >= across


@pytest.mark.parametrize("n,passes", [
    # a crowded pass with neither end in registers, or two with one each
    (3**12, (81, 81, 81)), (2 * 3**11, (54, 81, 81)), (600**2, (64, 75, 75)),
    (768**2, (64, 96, 96)), (729 * 1024, (81, 96, 96)),
    (1 << 20, (1024, 1024)),  # crowded, both ends in registers
    (512 * 768, (512, 768)),  # one end of one crowded pass in threadgroup memory
    (10**6, (1000, 1000)), (343 * 1024, (512, 686)),  # three passes would not keep every end
    (20000, (125, 160)),  # no crowded pass
])
def test_three_passes_where_two_are_crowded_and_exchange_through_threadgroup_memory(n, passes):
    """On NVIDIA's pieces every length here splits in two passes of at most
    1024 points. Three passes are taken where the two passes' crowded stage
    ends (in a pass of more than 512 points, of which a group holds fewer
    than 8) that go through threadgroup memory are two or more, and each of
    the three passes has both stage ends in registers."""
    def ends(d):
        p = d["params"]
        butterflies = (p["n"] // p["radices"][0], p["n"] // p["radices"][-1])
        return sum(b % p["threads_per_transform"] == 0 for b in butterflies)
    dispatches = plan(C2C, n, batch=2, coalesced_bytes=NVIDIA).dispatches
    assert tuple(d["params"]["n"] for d in dispatches) == passes
    if len(passes) == 3:
        assert [ends(d) for d in dispatches] == [2, 2, 2]


def test_split_passes_take_fewer_threads_than_a_walk_needs_where_both_ends_meet_device_memory():
    """A pass of a split length whose first and last stages both load and
    store in registers walks nothing, so its threads may hold more than the
    16 values a walk takes each: 10^6's passes of 1000 = 10^3 on 50 threads
    (20 values each, 4 transforms a group), where a walk would need 63. A
    pass that packs, unpacks or convolves keeps its walks' threads."""
    def values_per_thread(p):
        return -(-p["n"] // p["threads_per_transform"])

    for n, passes in ((10**6, (1000, 1000)), (5 * 10**5, (50, 100, 100))):
        dispatches = [d["params"] for d in plan(C2C, n, batch=2, coalesced_bytes=NVIDIA).dispatches]
        assert tuple(p["n"] for p in dispatches) == passes
        for p in dispatches:
            butterflies = (p["n"] // p["radices"][0], p["n"] // p["radices"][-1])
            assert all(b % p["threads_per_transform"] == 0 for b in butterflies)
            assert p["in"]["walk"] != "run" and p["out"]["walk"] != "run"
    assert values_per_thread(plan(C2C, 10**6, coalesced_bytes=NVIDIA).dispatches[0]["params"]) == 20
    for kind, n in ((C2C, 4099), (R2C, 2 * 10**6), (C2R, 2 * 10**6), (C2C, 1000003)):
        for d in plan(kind, n, coalesced_bytes=NVIDIA).dispatches:
            p = d["params"]
            walks = (p["convolve"] != 0 or p["pre_mode"] == "c2r_pack"
                     or p["post_mode"] == "r2c_unpack")
            if d["kernel"].startswith("fft_stockham") and walks:
                assert values_per_thread(p) <= 16, (kind, n, p)


def test_every_smooth_length_to_the_largest_is_planned_for_both_pieces():
    """Every length from 4097 to 2^24 with prime factors up to 13 takes a
    route with either piece (5^9 * 7 has no split of passes up to 512 points,
    nor two of up to 4096: it takes three passes of up to 4096)."""
    lengths = {1}
    for prime in (2, 3, 5, 7, 11, 13):
        lengths = {m * prime**k for m in lengths for k in range(25) if m * prime**k <= 1 << 24}
    for n in sorted(m for m in lengths if m > 4096):
        for coalesced_bytes in (APPLE, NVIDIA):
            plan(C2C, n, coalesced_bytes=coalesced_bytes)
    wide = plan(C2C, 5**9 * 7, coalesced_bytes=APPLE).dispatches
    assert [d["params"]["n"] for d in wide] == [125, 175, 625]


@pytest.mark.parametrize("coalesced_bytes", [0, 4, 24, 256])
def test_a_coalesced_piece_the_planner_does_not_take_raises(coalesced_bytes):
    with pytest.raises(PlanBuildError, match="coalesced piece"):
        plan(C2C, 1 << 20, coalesced_bytes=coalesced_bytes)


def test_plans_for_different_pieces_are_different_cache_entries():
    assert plan(C2C, 64, coalesced_bytes=APPLE).key != plan(C2C, 64, coalesced_bytes=NVIDIA).key


@pytest.mark.parametrize("n,factors", [(1 << 21, (128, 128, 128)), (1 << 24, (256, 256, 256)),
                                       (11**5, (11, 121, 121)), (4095 * 4095, (225, 273, 273))])
def test_lengths_with_no_split_of_two_coalesced_factors_take_three_passes(n, factors):
    # Two passes while both factors are at most 512 (a group holds 8 neighbouring transforms)
    first, second, third = (d["params"] for d in plan(C2C, n, batch=2, scale=0.5).dispatches)
    n1, n2, n3 = factors
    assert (first["n"], second["n"], third["n"]) == factors
    assert min(first["per_group"], second["per_group"], third["per_group"]) >= 8
    # every side but the row pass's load is walked across neighbouring transforms
    assert [first["in"]["walk"], first["out"]["walk"], second["in"]["walk"],
            second["out"]["walk"], third["out"]["walk"]] == ["across"] * 5
    assert (first["post_mode"], second["post_mode"], third["post_mode"]) == (
        "four_step_twiddle", "four_step_twiddle", "none")
    assert (first["twiddle_n"], second["twiddle_n"]) == (n, n2 * n3)
    # pass 2 stores Z[k1, k2, j3] at (k2 n1 + k1) n3 + j3: batches (entry, k1) at k1 n3
    assert (second["out"]["inner_count"], second["out"]["inner_stride"]) == (n1, n3)
    assert second["out"]["g_mul"] == n1 * n3
    assert (third["in"]["r_mul"], third["out"]["g_mul"]) == (n3, n1 * n2)
    assert (first["scale"], second["scale"], third["scale"]) == (1.0, 1.0, 0.5)
    assert plan(C2C, n, batch=2).scratch_bytes >= 2 * 2 * n * 8  # two regions


def test_large_primes_use_bluestein_with_host_chirp():
    p = plan(C2C, 4099)
    first, middle, last = (d["params"] for d in p.dispatches)
    assert first["pre_mode"] == "times_table" and first["in"]["valid"] == 4099
    assert middle["convolve"] == 1  # forward, times the spectrum, and back: one row pass
    assert last["pre_mode"] == "four_step_twiddle" and last["post_mode"] == "times_table"
    assert last["out"]["valid"] == 4099
    m = first["n"] * middle["n"]
    assert m == 8232  # 2^3 3 7^3: the first 7-smooth length >= 2n - 1
    assert p.table_bytes >= (4099 + m) * 8
    assert p.scratch_bytes == m * 8  # the passes share one region


@pytest.mark.parametrize("n,split", [(12289, (96, 128)), (65537, (256, 256)), (3329, (52, 64))])
def test_primes_with_smooth_predecessors_take_rader(n, split):
    """A prime n whose n - 1 splits four-step, where Bluestein would take
    three passes, convolves n - 1 points: the column pass gathers x[g^q],
    the row pass convolves (Rader's: x[0] joins element 0 of the product,
    X[0] is kept beside the scratch), the column pass back transforms in
    place, and fft_permute stores the bins in order. Each batch entry's
    scratch holds n values: n - 1 and X[0]."""
    p = plan(C2C, n, batch=3)
    assert [d["kernel"] for d in p.dispatches][3] == "fft_permute"
    first, middle, last, permute = (d["params"] for d in p.dispatches)
    assert (first["n"], middle["n"]) == split and last["n"] == split[0]
    assert (first["pre_mode"], last["post_mode"]) == ("rader_gather", "none")
    assert (middle["convolve"], first["convolve"], last["convolve"]) == (2, 0, 0)
    assert middle["in"]["valid"] == n - 1 and middle["in"]["outer_stride"] == n
    assert last["out"] == {**middle["in"], "g_mul": split[1], "r_mul": 1,
                           "walk": last["out"]["walk"]}
    assert (permute["transforms"], permute["per_batch"]) == (3 * n, n)
    assert permute["in"]["outer_stride"] == n and permute["out"]["valid"] == n
    assert p.scratch_bytes == 3 * n * 8


@pytest.mark.parametrize("n", [4099, 1153, 17])
def test_other_primes_take_bluestein(n):
    """4099 - 1 has the factor 683; 1153's Bluestein convolution (2310
    points) fits one group, one pass."""
    assert all(d["params"]["pre_mode"] != "rader_gather" for d in plan(C2C, n).dispatches)


def test_rader_indices_are_powers_of_a_primitive_root():
    """The gather table holds g^q mod n for every q < n - 1 (each nonzero
    residue once); the permutation's reads bin g^-q from element q, bin 0
    from element n - 1."""
    n = 12289
    p = plan(C2C, n)
    tables = np.frombuffer(p.tables, np.float32).reshape(-1, 2)
    gather = p.dispatches[0]["bindings"][3][2] // 8
    permute = p.dispatches[3]["bindings"][2][2] // 8
    powers = tables[gather:gather + n - 1, 0].astype(np.int64)
    sources = tables[permute:permute + n, 0].astype(np.int64)
    assert sorted(powers) == list(range(1, n))
    g = int(powers[1])
    assert np.all(powers[1:] == powers[:-1] * g % n)
    assert sources[0] == n - 1 and sorted(sources) == list(range(n))
    q = sources[1:]
    assert np.all(powers[q] * np.arange(1, n) % n == 1)  # g^q * g^-q = 1


def test_short_bluestein_convolutions_take_one_pass():
    (d,) = plan(C2C, 97).dispatches
    assert d["params"]["convolve"] == 1 and d["params"]["n"] == 196
    assert d["params"]["pre_mode"] == d["params"]["post_mode"] == "times_table"  # the chirp both ways


@pytest.mark.parametrize("n,m", [(17, 35), (97, 196), (10007, 20160), (65539, 131220), (4093, 8192)])
def test_bluestein_takes_a_shorter_smooth_length_before_a_power_of_two(n, m):
    # a 7-smooth m >= 2n - 1 at least a fifth shorter than the next power of two, else that
    inner = [d["params"]["n"] for d in plan(C2C, n).dispatches]
    assert (inner[0] if len(inner) == 1 else inner[0] * inner[1]) == m


def test_contiguous_batches_are_walked_as_one_run():
    """Where a transform's threads take fewer than 32 bytes of it at a time
    (n = 12: one thread), or its stage ends cannot meet device memory in
    registers (3125: 209 threads divide neither end's butterflies)."""
    for n, batch in ((12, 1000), (3125, 8)):
        d = plan(C2C, n, batch=batch).dispatches[0]["params"]
        assert (d["in"]["walk"], d["out"]["walk"]) == ("run", "run")
    # real input read as pairs of floats
    assert plan(R2C, 24, batch=100).dispatches[0]["params"]["in"]["walk"] == "run"


def test_four_step_columns_are_walked_across_transforms():
    first, second = (d["params"] for d in plan(C2C, 1 << 16, batch=2).dispatches)
    assert first["per_group"] > 1
    assert (first["in"]["walk"], first["out"]["walk"]) == ("across", "across")
    assert (second["in"]["walk"], second["out"]["walk"]) == ("along", "across")
    assert 1 << (2 * first["twiddle_shift"]) >= 1 << 16  # the split table's fine part covers sqrt(n)


def axis_plan(kind, shape, axis, coalesced_bytes=APPLE):
    """The plan of a transform along `axis` of a C-contiguous array."""
    n = shape[axis]
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    in_len = n // 2 + 1 if kind == C2R else n
    out_len = n // 2 + 1 if kind == R2C else n
    return _core.metal_emulator_plan(kind, True, n, outer, inner, (inner, 1, in_len * inner),
                                     (inner, 1, out_len * inner), 1.0, coalesced_bytes)


def element_address(params, side, transform, i):
    """Where element i of a dispatch's transform lies on a side (FftSide)."""
    s, c, per_batch = params[side], params["batch_interleave"], params["per_batch"]
    batch = transform // c // per_batch * c + transform % c
    residue = transform // c % per_batch
    base = batch // s["inner_count"] * s["outer_stride"] + batch % s["inner_count"] * s["inner_stride"]
    return base + (i * s["g_mul"] + residue * s["r_mul"]) * s["elem_stride"]


@pytest.mark.parametrize("shape,axis", [((4096, 4096), 0), ((8192, 6), 0), ((4099, 8), 0),
                                        ((2, 65536, 4), 1), ((64, 64, 64), 0), ((4096, 2049), 0)])
def test_strided_axes_walk_across_neighbouring_columns_in_every_pass(shape, axis):
    """Along a non-last axis, a group's neighbouring transforms are neighbours
    in memory on every side that walks across, in each pass of a split
    (the later axes' columns interleave with the split's transforms), so
    that a SIMD group's accesses are contiguous."""
    p = axis_plan(C2C, shape, axis)
    columns = int(np.prod(shape[axis + 1:]))
    for d in p.dispatches:
        q = d["params"]
        assert q["batch_interleave"] == (columns if q["per_batch"] > 1 else 1)
        for side in ("in", "out"):
            assert q[side]["walk"] == "across"
            neighbours = [t for t in range(min(q["per_group"], q["transforms"]) - 1)
                          if (t + 1) % columns != 0]
            assert neighbours
            for t in neighbours:
                assert element_address(q, side, t + 1, 0) - element_address(q, side, t, 0) == 1


@pytest.mark.parametrize("coalesced_bytes", [APPLE, NVIDIA])
def test_a_strided_axis_above_a_coalesced_length_splits_where_columns_fill_a_piece(coalesced_bytes):
    """4096 strided points fill a group alone: with as many columns as fill a
    piece (8 at 64 bytes, 4 at 32) they take two 64-point passes; with fewer,
    one pass (no piece to fill)."""
    def lengths(shape, axis):
        return [d["params"]["n"] for d in axis_plan(C2C, shape, axis, coalesced_bytes).dispatches]
    across = coalesced_bytes // 8
    assert lengths((4096, across), 0) == [64, 64]
    assert lengths((4096, across - 1), 0) == [4096]
    assert lengths((2, 4096), 1) == [4096]


def test_three_pass_routes_keep_batch_entries_apart():
    """The middle pass of three reorders its batch entries, so a strided
    length that takes three passes does not interleave the columns."""
    for d in axis_plan(C2C, (1 << 21, 4), 0).dispatches:
        assert d["params"]["batch_interleave"] == 1


def test_multiplied_sides_are_not_walked_as_runs():
    first = plan(C2C, 97).dispatches[0]["params"]  # Bluestein: chirp on load, spectrum on store
    assert first["in"]["walk"] != "run" and first["out"]["walk"] != "run"


def test_real_transforms_use_half_length():
    # one pass: the unpack fused into the store, the pack into the load
    (r2c,) = plan(R2C, 64).dispatches
    assert r2c["kernel"] == "fft_stockham_pow2" and r2c["params"]["n"] == 32
    assert r2c["params"]["post_mode"] == "r2c_unpack"
    (c2r,) = plan(C2R, 64, forward=False).dispatches
    assert c2r["params"]["n"] == 32 and c2r["params"]["pre_mode"] == "c2r_pack"
    # the pack is fused into the first stage: a length with no stage takes a pass of its own
    assert kernels(plan(C2R, 2, forward=False)) == ["fft_c2r_pack", "fft_stockham_pow2"]
    # beyond one group, a pass of its own
    assert kernels(plan(R2C, 1 << 14)) == ["fft_stockham_pow2"] * 2 + ["fft_r2c_unpack"]
    assert kernels(plan(C2R, 1 << 14, forward=False)) == ["fft_c2r_pack"] + ["fft_stockham_pow2"] * 2
    assert kernels(plan(R2C, 63)) == ["fft_stockham_smooth7"]
    assert kernels(plan(C2R, 63, forward=False)) == ["fft_c2r_expand", "fft_stockham_smooth7"]


def test_bindings_use_byte_offsets_into_tables():
    p = plan(C2C, 4099)
    offsets = {b[2] for d in p.dispatches for b in d["bindings"] if b[1] == "tables"}
    assert len(offsets) > 2 and all(o % 256 == 0 for o in offsets)
    assert max(offsets) < p.table_bytes


def test_reported_bytes():
    p = plan(C2C, 1 << 18, batch=2)
    assert p.scratch_bytes == 2 * (1 << 18) * 8
    assert p.source_bytes == p.destination_bytes == 2 * (1 << 18) * 8
    assert p.bytes >= p.table_bytes > 0
    assert p.key.startswith("metal.fft(")


def test_empty_batch_has_no_dispatches():
    assert plan(C2C, 16, batch=0).dispatches == []


def test_unsupported_lengths_raise():
    with pytest.raises(PlanBuildError):
        plan(C2C, 1 << 25)
    with pytest.raises(PlanBuildError):
        plan(C2C, 0)


RUN_ORDER = (16, 10, 8, 4, 2, 9, 3, 5, 7, 11, 13)  # the Stockham kernel's stage runs
ODD_FIRST_ORDER = (9, 3, 5, 7, 11, 13, 16, 10, 8, 4, 2)  # its other order
# Word offsets in FftParams (shaders/fft_params.h) of the modes a pipeline fixes.
MODE_WORDS = {"inverse": 18, "pre_mode": 25, "post_mode": 26, "convolve": 27, "in.kind": 31,
              "in.walk": 39, "out.kind": 40, "out.walk": 48}


@pytest.mark.parametrize("kind,n", [(C2C, 16), (C2C, 1000), (C2C, 4095), (C2C, 4097),
                                    (C2C, 10**6), (C2C, 1 << 20), (C2C, 11**5), (R2C, 1000),
                                    (C2R, 999), (C2R, 1000), (R2C, 1 << 14)])
def test_stockham_pipelines_fix_the_dispatch_shape_and_modes(kind, n):
    """A Stockham dispatch's pipeline constants are its own length, threads
    per transform, transforms per group, stages per radix in the kernel's
    run order, its modes as its FftParams holds them, transforms per batch
    entry, each side's layout facts, whether the odd radices run first, and
    1: all are fixed (shaders/fft_pipeline_constants.h). Other kernels take
    none."""
    def layout(side, touched, per_batch):  # shaders/fft_params.h, side_layout
        dense = (side["g_mul"] == side["elem_stride"] == 1
                 and (touched - 1) + (per_batch - 1) * side["r_mul"] < side["valid"])
        return int(dense) | 2 * int(side["inner_count"] == 1)

    for d in plan(kind, n, batch=3).dispatches:
        p = d["params"]
        if not d["kernel"].startswith("fft_stockham"):
            assert d["pipeline_constants"] == []
            continue
        words = struct.unpack(f"<{len(d['params_bytes']) // 4}I", d["params_bytes"])
        odd_first = p["radices"][0] % 2 == 1
        order = ODD_FIRST_ORDER if odd_first else RUN_ORDER
        assert p["radices"] == sorted(p["radices"], key=order.index)
        stages = [p["radices"].count(r) for r in RUN_ORDER]
        modes = [words[w] for w in MODE_WORDS.values()]
        assert modes[0] == p["inverse"] and modes[3] == p["convolve"]
        # a side of a real transform's bins 0..n is touched at n + 1 elements
        in_touched = p["n"] + int(p["pre_mode"] == "c2r_pack")
        out_touched = p["n"] + int(p["post_mode"] == "r2c_unpack")
        assert d["pipeline_constants"] == [p["n"], p["threads_per_transform"], p["per_group"],
                                           *stages, *modes, int(p["batch_interleave"] > 1),
                                           p["per_batch"], layout(p["in"], in_touched, p["per_batch"]),
                                           layout(p["out"], out_touched, p["per_batch"]),
                                           int(odd_first), 1]


@pytest.mark.parametrize("n", (4097, 10007))
def test_convolving_rows_walk_as_one_run(n):
    """Bluestein's convolving pass takes a group size that divides a batch
    entry's rows, so that its contiguous rows load and store as one run where
    they do not meet the stages in registers."""
    d = next(d for d in plan(C2C, n, batch=2).dispatches if d["params"]["convolve"])
    p = d["params"]
    radices, threads = p["radices"], p["threads_per_transform"]
    in_registers = (p["n"] // radices[0] % threads == 0, p["n"] // radices[-1] % threads == 0)
    assert (p["in"]["walk"], p["out"]["walk"]) == tuple(
        "along" if direct else "run" for direct in in_registers)
    if "run" in (p["in"]["walk"], p["out"]["walk"]):
        assert p["per_batch"] % p["per_group"] == 0
    most = min(4096 // p["n"], 256 // p["threads_per_transform"])
    assert 4 * p["per_group"] >= 3 * most


def test_bound_addresses_place_each_slot_in_the_call():
    """The package's binding rule, as executors outside C++ (the CUDA verifier)
    use it: each slot at its memory's address plus the record's offset."""
    p = plan(C2C, 1 << 20)
    base = {"source": 1 << 40, "destination": 2 << 40, "scratch": 3 << 40, "tables": 4 << 40}
    for i, d in enumerate(p.dispatches):
        bound = p.bound_addresses(i, base["source"], base["destination"], base["scratch"],
                                  base["tables"])
        assert bound == [(index, base[slot] + offset) for index, slot, offset in d["bindings"]]
    with pytest.raises(ValueError, match="workspace"):
        p.bound_addresses(0, base["source"], base["destination"], None, base["tables"])
    with pytest.raises(IndexError):
        p.bound_addresses(len(p.dispatches), 0, 0, None, None)
