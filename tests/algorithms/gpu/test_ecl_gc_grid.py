"""ECL-GC's grid rule, without a GPU: which graphs run on 3/4 of the resident blocks, with
pass 0 in order."""

from __future__ import annotations

import pytest

from gcbench.algorithms.gpu.ecl_gc import coloring_blocks_per_sm, fits_l2, l2_list_path

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
        (1 << 16, 688_126, 4),  # rgg 16: at most one vertex a thread (lanes alone)
        (SMS * BLOCK * 4, 1000, 4),  # exactly one vertex a thread
        (SMS * BLOCK * 4 + 1, 1000, 3),
    ],
)
def test_three_blocks_of_four_where_the_list_path_fits_l2(n, nnz, expected):
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
def test_pass_0_in_order_on_the_same_graphs_as_three_blocks(n, nnz, expected):
    threads = SMS * BLOCK * 4
    assert l2_list_path(n, nnz, threads, L2) is expected
    assert (coloring_blocks_per_sm(4, n, nnz, BLOCK, SMS, L2) == 3) is expected
