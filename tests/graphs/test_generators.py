"""Generated families against their definitions: sizes, degree statistics, determinism."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from gcbench.errors import SpecError
from gcbench.graphs import generators
from gcbench.graphs.generators import FAMILIES, GRAPH500_INITIATOR, get_family
from gcbench.graphs.graph import Graph, check_invariant

SMALL = {
    "rgg": {"scale": 10, "seed": 3},
    "kron": {"scale": 10, "edgefactor": 8, "seed": 3},
    "rmat": {"scale": 10, "a": 0.45, "b": 0.15, "c": 0.15, "seed": 3},
    "delaunay": {"scale": 10, "seed": 3},
    "road": {"scale": 10, "extra": 0.2, "seed": 3},
    "regular": {"n": 500, "d": 6, "seed": 3},
    "er": {"n": 400, "p": 0.02, "seed": 3},
    "grid2d": {"rows": 9, "cols": 13},
    "complete": {"n": 9},
    "cycle": {"n": 9},
    "bipartite": {"a": 4, "b": 7},
    "crown": {"n": 6},
    "mycielski": {"k": 5},
    "queen": {"n": 6},
    "rook": {"n": 5},
    "star": {"leaves": 8},
    "empty": {"n": 5},
}
RANDOM = ("rgg", "kron", "rmat", "delaunay", "road", "regular", "er")


def build(name: str, **params: object) -> Graph:
    return get_family(name).generate(params)


def adjacency(g: Graph) -> sp.csr_matrix:
    data = np.ones(g.nnz, dtype=np.int64)
    return sp.csr_matrix((data, g.indices, g.indptr), shape=(g.n, g.n))


def test_every_family_is_exercised():
    assert set(SMALL) == set(FAMILIES)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_output_satisfies_the_invariant_and_is_named_by_its_spec(name):
    g = build(name, **SMALL[name])
    check_invariant(g)
    assert g.name == g.source == get_family(name).spec(get_family(name).resolve(SMALL[name]))
    assert g.name.startswith(f"gen:{name}")


@pytest.mark.parametrize("name", RANDOM)
def test_random_families_are_deterministic_per_seed(name):
    first, again = build(name, **SMALL[name]), build(name, **SMALL[name])
    other = build(name, **{**SMALL[name], "seed": 4})
    assert np.array_equal(first.indptr, again.indptr)
    assert np.array_equal(first.indices, again.indices)
    assert first.indices.size != other.indices.size or not np.array_equal(
        first.indices, other.indices
    )


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_declared_defaults_match_the_function_signature(name):
    signature = inspect.signature(getattr(generators, name)).parameters
    assert [p.name for p in FAMILIES[name].params] == list(signature)
    for p in FAMILIES[name].params:
        default = signature[p.name].default
        assert p.default == (None if default is inspect.Parameter.empty else default)


def test_rgg_average_degree_matches_the_dimacs10_radius():
    g = generators.rgg(16)
    n = 2**16
    assert g.n == n
    expected = math.pi * 0.55**2 * math.log(n)  # 10.54, less a small boundary effect
    assert abs(g.avg_degree - 10.5) <= 0.05 * 10.5
    assert g.avg_degree < expected
    assert g.max_degree < 4 * expected  # no hubs: a geometric graph


def test_rgg_is_numbered_for_locality():
    g = generators.rgg(14)
    rows = np.repeat(np.arange(g.n), g.degrees)
    spread = np.median(np.abs(rows - g.indices))
    assert spread < g.n / 20  # random labels would give about n/3


def test_delaunay_average_degree_is_six():
    g = generators.delaunay(14)
    assert g.n == 2**14
    assert abs(g.avg_degree - 6.0) <= 0.01 * 6.0
    assert g.degrees.min() >= 2
    hull = 6 * g.n - 6 - 2 * g.m  # Euler: m = 3n - 3 - h for h hull vertices
    assert 0 < hull < 10 * math.sqrt(g.n)


def connected(g: Graph) -> bool:
    return connected_components(adjacency(g), directed=False)[0] == 1


def test_road_is_a_connected_sparse_subgraph_of_delaunay():
    g = generators.road(12)
    tri = generators.delaunay(12)
    assert g.n == tri.n == 2**12
    assert connected(g)
    assert 2.0 < g.avg_degree < 3.0
    assert (adjacency(g) > adjacency(tri)).nnz == 0  # every edge is a triangulation edge
    tree = generators.road(12, extra=0.0)
    assert tree.m == g.n - 1 and connected(tree)  # a spanning tree
    full = generators.road(12, extra=1.0)
    assert np.array_equal(full.indptr, tri.indptr) and np.array_equal(full.indices, tri.indices)


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (1, 7), (6, 1), (5, 8), (32, 32)])
def test_grid2d_has_the_exact_edge_count(rows, cols):
    g = generators.grid2d(rows=rows, cols=cols)
    check_invariant(g)
    assert g.n == rows * cols
    assert g.m == rows * (cols - 1) + cols * (rows - 1)
    assert g.max_degree <= 4


def test_grid2d_side_is_a_square_grid_with_four_neighbours():
    g = generators.grid2d(side=16)
    assert g.n == 256 and g.m == 2 * 16 * 15
    centre = 5 * 16 + 7
    assert g.indices[g.indptr[centre] : g.indptr[centre + 1]].tolist() == [
        centre - 16,
        centre - 1,
        centre + 1,
        centre + 16,
    ]


def test_kron_edge_count_and_heavy_tail():
    scale, edgefactor = 14, 16
    g = generators.kron(scale, edgefactor=edgefactor)
    n = 2**scale
    assert g.n == n
    assert 0.6 * edgefactor * n <= g.m <= edgefactor * n  # duplicates and loops dropped
    assert g.max_degree > 50 * g.avg_degree
    assert np.count_nonzero(g.degrees == 0) > 0.1 * n  # Graph500 graphs leave many isolated


def test_kron_is_rmat_with_the_graph500_initiator_and_permuted_labels():
    kron = generators.kron(12, seed=5)
    rmat = generators.rmat(12, seed=5)
    assert tuple(FAMILIES["rmat"].resolve({"scale": 12})[k] for k in "abc") == GRAPH500_INITIATOR
    assert np.array_equal(np.sort(kron.degrees), np.sort(rmat.degrees))
    assert not np.array_equal(kron.degrees, rmat.degrees)
    assert int(np.argmax(rmat.degrees)) == 0  # unpermuted: vertex 0 is the top hub


def test_rmat_quadrant_probabilities():
    rng = np.random.default_rng(1)
    a, b, c = 0.45, 0.15, 0.25
    rows, cols = generators._recursive_matrix(1, 1 << 20, a, b, c, rng)
    freq = np.bincount(2 * rows + cols, minlength=4) / rows.size
    assert np.allclose(freq, [a, b, c, 1 - a - b - c], atol=0.003)


def test_rmat_degenerate_initiators_are_exact():
    assert generators.rmat(5, a=1.0, b=0.0, c=0.0).m == 0  # every edge is the loop (0, 0)
    g = generators.rmat(5, a=0.0, b=1.0, c=0.0)  # every edge is (0, n-1)
    assert g.m == 1 and g.indices.tolist() == [31, 0]


def test_rmat_rejects_probabilities_over_one():
    with pytest.raises(SpecError, match="exceeds 1"):
        generators.rmat(5, a=0.6, b=0.3, c=0.2)


@pytest.mark.parametrize(
    ("n", "d"), [(1000, 3), (501, 4), (64, 1), (12, 5), (10, 7), (9, 8), (7, 0), (0, 3), (1, 0)]
)
def test_regular_graph_is_simple_and_exactly_regular(n, d):
    g = generators.regular(n, d, seed=2)
    check_invariant(g)
    assert g.n == n
    assert np.all(g.degrees == d)
    assert g.normalisation.duplicates == 0 and g.normalisation.self_loops == 0


def test_regular_rejects_impossible_degrees():
    with pytest.raises(SpecError, match="odd"):
        generators.regular(7, 3)
    with pytest.raises(SpecError, match="n > d"):
        generators.regular(5, 5)


def test_er_edge_count_is_binomial():
    n, p = 2000, 0.005
    g = generators.er(n, p=p, seed=1)
    pairs = n * (n - 1) / 2
    assert abs(g.m - p * pairs) < 5 * math.sqrt(p * (1 - p) * pairs)


def test_er_avg_degree_and_extremes():
    g = generators.er(3000, avg_degree=8.0, seed=2)
    assert abs(g.avg_degree - 8.0) < 0.3
    assert generators.er(40, p=1.0).m == 40 * 39 // 2
    assert generators.er(40, p=0.0).m == 0
    assert generators.er(1, avg_degree=0.0).n == 1


def test_er_needs_exactly_one_of_p_and_avg_degree():
    with pytest.raises(SpecError, match="exactly one of"):
        generators.er(10)
    with pytest.raises(SpecError, match="exactly one of"):
        generators.er(10, p=0.1, avg_degree=2.0)
    with pytest.raises(SpecError, match="exceeds n-1"):
        generators.er(10, avg_degree=12.0)


def test_pair_index_inverts_exactly():
    n = 300
    i, j = np.triu_indices(n, 1)
    order = np.lexsort((i, j))  # column-major: k = j(j-1)/2 + i
    u, v = generators._pair_from_index(np.arange(n * (n - 1) // 2))
    assert np.array_equal(u, i[order]) and np.array_equal(v, j[order])
    j_big = np.array([2**31 - 2, 2**31 - 2, 1_500_000_001], dtype=np.int64)  # largest vertex ids
    i_big = np.array([2**31 - 3, 0, 1_500_000_000], dtype=np.int64)
    u, v = generators._pair_from_index(j_big * (j_big - 1) // 2 + i_big)
    assert np.array_equal(u, i_big) and np.array_equal(v, j_big)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 30])
def test_complete(n):
    g = generators.complete(n)
    check_invariant(g)
    assert (g.n, g.m) == (n, n * (n - 1) // 2)


@pytest.mark.parametrize("n", [3, 4, 11])
def test_cycle(n):
    g = generators.cycle(n)
    assert (g.n, g.m) == (n, n)
    assert np.all(g.degrees == 2)


@pytest.mark.parametrize(("a", "b"), [(1, 1), (3, 5), (0, 4)])
def test_bipartite(a, b):
    g = generators.bipartite(a, b)
    check_invariant(g)
    assert (g.n, g.m) == (a + b, a * b)
    u, v = g.edges()
    assert np.all(u < a) and np.all(v >= a)


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_crown(n):
    g = generators.crown(n)
    check_invariant(g)
    assert (g.n, g.m) == (2 * n, n * (n - 1))
    u, v = g.edges()
    assert np.all((u + v) % 2 == 1)  # every edge joins an even u_i and an odd v_j
    assert not np.any((u % 2 == 0) & (v == u + 1))  # ... but never its own partner 2i+1
    assert np.all(g.degrees == n - 1)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7])
def test_mycielski_sizes_and_triangle_free(k):
    g = generators.mycielski(k)
    check_invariant(g)
    n, m = 1, 0
    for step in range(2, k + 1):
        n, m = (2, 1) if step == 2 else (2 * n + 1, 3 * m + n)
    assert (g.n, g.m) == (n, m)
    if k >= 3:
        assert g.n == 3 * 2 ** (k - 2) - 1
    a = adjacency(g)
    assert (a @ a).multiply(a).nnz == 0  # triangle-free


def test_mycielski_3_is_the_five_cycle():
    g = generators.mycielski(3)
    assert g.n == 5 and np.all(g.degrees == 2)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
def test_queen(n):
    g = generators.queen(n)
    check_invariant(g)
    assert (g.n, g.m) == (n * n, n * (n - 1) * (5 * n - 1) // 3)
    corner = g.indices[g.indptr[0] : g.indptr[1]]
    diagonal = [(n + 1) * t for t in range(1, n)]
    assert set(range(1, n)) | {n * t for t in range(1, n)} | set(diagonal) == set(corner.tolist())


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_rook(n):
    g = generators.rook(n)
    check_invariant(g)
    assert (g.n, g.m) == (n * n, n * n * (n - 1))
    assert set(g.degrees.tolist()) == {2 * (n - 1)}
    corner = g.indices[g.indptr[0] : g.indptr[1]]
    assert set(corner.tolist()) == set(range(1, n)) | {n * t for t in range(1, n)}


def test_star_and_empty():
    g = generators.star(6)
    assert (g.n, g.m, g.max_degree) == (7, 6, 6)
    assert g.indices[: g.indptr[1]].tolist() == [1, 2, 3, 4, 5, 6]
    assert generators.star(0).n == 1
    for n in (0, 3):
        e = generators.empty(n)
        check_invariant(e)
        assert (e.n, e.m) == (n, 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: generators.rgg(1.5), "scale=1.5 is not an integer"),
        (lambda: generators.rgg(31), r"outside \[0, 30\] \(n = 2\^scale vertices; int32 ids\)"),
        (lambda: generators.rgg("ten"), "not an integer"),
        (lambda: generators.complete(-1), "outside"),
        (lambda: generators.cycle(2), "outside"),
        (lambda: generators.er(10, p=1.5), "outside"),
        (lambda: generators.er(10, p=float("nan")), "finite number"),
        (lambda: generators.grid2d(side=3, rows=2, cols=2), "exactly one of"),
        (lambda: generators.grid2d(rows=2), "exactly one of"),
        (lambda: get_family("grid2d").generate({"sides": 3}), "unknown parameter 'sides'"),
        (lambda: get_family("regular").generate({"n": 10}), "needs parameter 'd'"),
        (lambda: get_family("hypercube"), "unknown graph family 'hypercube'; known: bipartite"),
    ],
)
def test_bad_parameters_are_one_line_spec_errors(call, message):
    with pytest.raises(SpecError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_integral_floats_are_accepted_as_integers():
    assert generators.grid2d(side=4.0).name == "gen:grid2d?side=4"
