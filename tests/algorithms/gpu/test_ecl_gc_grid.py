"""ECL-GC's grid rule, without a GPU: which graphs run on 3/4 of the resident blocks, with
pass 0 in order."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import load_graph
from gcbench.algorithms.gpu.ecl_gc import (
    HIGH_DEGREE,
    coloring_blocks_per_sm,
    core_degree,
    fits_l2,
    l2_list_path,
    median_edge_span,
    orders_pass0,
)

L2 = 60 * 2**20  # an H200's 60 MiB
SMS, BLOCK = 132, 512


def test_fits_l2_counts_the_csr_and_three_words_a_vertex():
    # 4 B an entry and a row start, 12 B of state a vertex
    assert fits_l2(n=1 << 20, nnz=6_291_380, l2_bytes=L2)  # delaunay 20: 41.9 MB
    assert not fits_l2(n=1 << 20, nnz=13_790_566, l2_bytes=L2)  # rgg 20: 71.9 MB
    assert fits_l2(n=10, nnz=(L2 - 160) // 4, l2_bytes=L2)
    assert not fits_l2(n=10, nnz=(L2 - 160) // 4 + 1, l2_bytes=L2)


@pytest.mark.parametrize(
    "n, nnz, expected",
    [
        (1 << 20, 6_291_380, 3),  # delaunay 20: fits, 3.9 vertices a thread
        (1 << 20, 13_790_566, 4),  # rgg 20: past L2
        (4 << 20, 16_769_024, 4),  # grid 2048: past L2
        (1 << 16, 688_126, 4),  # rgg 16: at most one vertex a thread of 3/4 of the blocks
        (SMS * BLOCK * 3, 1000, 4),  # exactly one vertex a thread of 3/4 of them
        (SMS * BLOCK * 3 + 1, 1000, 3),  # lanes alone on every block, but more than 3/4 hold
        (1 << 18, 629_444, 3),  # road 18: 24-28 passes on every block, 17-18 on 3/4
        (SMS * BLOCK * 4 + 1, 1000, 3),  # the list path
    ],
)
def test_three_blocks_of_four_where_the_graph_fits_l2_and_outnumbers_their_threads(
    n, nnz, expected
):
    assert coloring_blocks_per_sm(4, n, nnz, BLOCK, SMS, L2) == expected


def test_never_fewer_than_one_block():
    assert coloring_blocks_per_sm(1, 10**6, 10**6, 1024, SMS, L2) == 1
    assert coloring_blocks_per_sm(16, 10**6, 10**6, 128, SMS, L2) == 12


@pytest.mark.parametrize(
    "n, nnz, expected",
    [
        (1 << 20, 6_291_380, True),  # delaunay 20
        (1 << 20, 13_790_566, False),  # rgg 20: past L2
        (SMS * BLOCK * 4, 1000, False),  # lanes alone: no pass 0 to order
        (SMS * BLOCK * 4 + 1, 1000, True),
    ],
)
def test_pass_0_in_order_only_on_the_list_path_which_runs_on_three_blocks(n, nnz, expected):
    threads = SMS * BLOCK * 4
    assert l2_list_path(n, nnz, threads, L2) is expected
    if expected:
        assert coloring_blocks_per_sm(4, n, nnz, BLOCK, SMS, L2) == 3


def test_median_edge_span_is_how_far_apart_neighbours_are_in_id():
    grid = load_graph("gen:grid2d?side=300")  # edges +-1 and +-300, about half each
    assert 1 <= median_edge_span(grid.indptr, grid.indices) <= 300
    cycle = load_graph("gen:cycle?n=1000")  # every row sampled: 1 apart, but 999 for the seam
    assert median_edge_span(cycle.indptr, cycle.indices) == 1
    er = load_graph("gen:er?n=200000&avg_degree=8")  # random: about n/3
    assert 50_000 < median_edge_span(er.indptr, er.indices) < 80_000
    empty = load_graph("gen:empty?n=10")
    assert median_edge_span(empty.indptr, empty.indices) == 0


def test_median_edge_span_samples_rows_evenly():
    # 2^17 rows, every other one sampled: rows 2k hold only the edge to 2k + 7, odd rows to 0
    n = 1 << 17
    indices = np.where(np.arange(n) % 2 == 0, np.arange(n) + 7, 0) % n
    indptr = np.arange(n + 1)
    assert median_edge_span(indptr, indices.astype(np.int32)) == 7


def test_pass_0_in_order_only_where_neighbours_share_a_band():
    threads = 3 * SMS * BLOCK
    assert orders_pass0(True, 4, threads)  # delaunay: neighbours a few ids apart
    assert not orders_pass0(True, threads, threads)  # random ids: a band apart or more
    assert not orders_pass0(False, 4, threads)  # past L2, or lanes alone


@pytest.mark.parametrize("warps", [1, 2, 3, 4, 5, 6])
def test_the_core_is_at_most_one_vertex_per_warp(warps):
    high = np.array([900, 500, 500, 40, 32])  # largest first, as _scratch keeps them
    threshold = core_degree(high, warps)
    core = int(np.count_nonzero(high > threshold))
    assert core <= warps
    assert core == {1: 1, 2: 1, 3: 3, 4: 4, 5: 5, 6: 5}[warps]  # ties stay out together
    assert (threshold == HIGH_DEGREE - 1) == (warps >= len(high))
