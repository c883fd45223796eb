"""gm-gpu: its frontier layout and a CPU model of its passes (both run in CI), then the kernels
on the GPU: valid on every test-set family and the hard graphs, bounded, traces consistent,
colors within a modest factor of greedy LDF."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from gcbench import algorithms, load_graph, validate
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.execute import execute
from gcbench.algorithms.gpu import gm_gpu, runtime
from gcbench.algorithms.priority import ldf_order
from gcbench.errors import RoundCapError

HARD = [
    "gen:complete?n=300",  # one clique: a chain of conflicts
    "gen:regular?n=2000&d=5",  # equal degrees: ties decided by hash and id
    "gen:regular?n=600&d=40",  # equal degrees on the warp path
    "gen:star?leaves=100000",
    "gen:crown?n=60",
    "gen:kron?scale=12&edgefactor=48",
    "gen:grid2d?side=40",
    "gen:mycielski?k=7",
    "gen:empty?n=50",
]
WIDTHS = {"degree": gm_gpu.BUCKET_WIDTH, "none": None}
SYNCS = ("graph", "device", "batch", "round")


# ----------------------------------------------------------------- the layout (CPU)


@pytest.mark.parametrize("spec", HARD)
@pytest.mark.parametrize("buckets", list(WIDTHS))
def test_layout_lists_every_vertex_once_by_bucket_and_class(spec, buckets):
    graph = load_graph(spec)
    lay = gm_gpu.layout(graph.indptr, graph.indices, WIDTHS[buckets], np)
    np.testing.assert_array_equal(np.sort(lay.order), np.arange(graph.n))
    degrees = graph.degrees
    lowest = np.inf
    for b in range(lay.nbuckets):
        members = []
        for c, (low, high) in enumerate([(0, 32), (32, 2048), (2048, np.inf)]):
            offset, count = lay.buckets[b, 2 * c : 2 * c + 2]
            part = degrees[lay.order[offset : offset + count]]
            assert np.all((part >= low) & (part < high)), (b, c)
            members.append(part)
        part = np.concatenate(members)
        assert part.size > 0, "buckets are never empty"
        assert part.max() <= lowest, "buckets go from high degrees to low"
        lowest = part.min()
    assert sum(lay.classes) == graph.n
    if buckets == "none":
        assert lay.nbuckets == 1


@pytest.mark.parametrize("spec", ["gen:kron?scale=12&edgefactor=48", "gen:rgg?scale=12"])
def test_same_bucket_rows_are_exactly_the_edges_inside_a_bucket(spec):
    graph = load_graph(spec)
    lay = gm_gpu.layout(graph.indptr, graph.indices, gm_gpu.BUCKET_WIDTH, np)
    bucket = gm_gpu.degree_buckets(graph.degrees, gm_gpu.BUCKET_WIDTH, np)
    assert lay.nbuckets == bucket.max() + 1 > 1
    for v in range(0, graph.n, 97):
        row = graph.indices[graph.indptr[v] : graph.indptr[v + 1]]
        same = lay.same_indices[lay.same_indptr[v] : lay.same_indptr[v + 1]]
        np.testing.assert_array_equal(same, row[bucket[row] == bucket[v]])


# -------------------------------------------------------- a CPU model of the passes


@numba.njit(cache=True)
def _shown(s):  # type: ignore[no-untyped-def]
    return s if s >= 0 else -s - 2


@numba.njit(cache=True)
def _model(ip, ix, order, buckets, sip, six, rank, wave, cap):  # type: ignore[no-untyped-def]
    """kernels/gm_gpu.cu's passes, with neighbour reads of a color phase seeing the states at
    the start of their wave of ``wave`` frontier vertices (1: one at a time; n: all at once),
    and a check phase that reads the states after the color phase. Returns (states, passes,
    whether every pass retired its frontier's highest-rank vertex)."""
    n = ip.shape[0] - 1
    state = np.full(n, -1, np.int64)
    finals = np.zeros(ix.shape[0] + n + 1, np.bool_)  # a vertex's colors 0..deg at ip[v] + v
    used = np.zeros(n + 2, np.bool_)
    fresh = np.empty(n, np.int64)
    passes, top_retires = 0, True
    for b in range(buckets.shape[0]):
        frontier = np.concatenate(
            (order[buckets[b, 0] : buckets[b, 0] + buckets[b, 1]],
             order[buckets[b, 2] : buckets[b, 2] + buckets[b, 3]],
             order[buckets[b, 4] : buckets[b, 4] + buckets[b, 5]])
        )  # fmt: skip
        first = True
        while frontier.shape[0] and passes < cap:
            f = frontier.shape[0]
            for start in range(0, f, wave):
                for i in range(start, min(f, start + wave)):
                    v = frontier[i]
                    deg, base = ip[v + 1] - ip[v], ip[v] + v
                    lo, hi, rows = (ip[v], ip[v + 1], ix) if first else (sip[v], sip[v + 1], six)
                    if first:
                        finals[base : base + deg + 1] = False
                    used[: deg + 1] = finals[base : base + deg + 1]
                    for e in range(lo, hi):
                        s = state[rows[e]]
                        c = _shown(s)
                        if 0 <= c <= deg:
                            used[c] = True
                            if s >= 0:
                                finals[base + c] = True
                    c = 0
                    while used[c]:
                        c += 1
                    fresh[v] = c
                for i in range(start, min(f, start + wave)):
                    state[frontier[i]] = -fresh[frontier[i]] - 2
            lost = np.zeros(f, np.bool_)
            top = 0
            for i in range(f):
                v = frontier[i]
                if rank[v] > rank[frontier[top]]:
                    top = i
                t = _shown(state[v])
                for e in range(sip[v], sip[v + 1]):
                    u = six[e]
                    if _shown(state[u]) == t and rank[u] > rank[v]:
                        lost[i] = True
                        break
            top_retires &= not lost[top]
            for i in range(f):
                v = frontier[i]
                state[v] = -1 if lost[i] else _shown(state[v])
            frontier = frontier[lost]
            first = False
            passes += 1
    return state, passes, top_retires


def model(graph, buckets: str, wave: int):
    lay = gm_gpu.layout(graph.indptr, graph.indices, WIDTHS[buckets], np)
    rank = np.empty(graph.n, np.int64)
    rank[ldf_order(graph)] = np.arange(graph.n, 0, -1)
    return _model(graph.indptr, graph.indices, lay.order, lay.buckets.astype(np.int64),
                  lay.same_indptr, lay.same_indices, rank, max(wave, 1), graph.n + 1)  # fmt: skip


@pytest.mark.parametrize("spec", HARD)
@pytest.mark.parametrize("buckets", list(WIDTHS))
@pytest.mark.parametrize("wave", [1, 64, 10**9])
def test_model_colors_validly_within_n_passes_and_the_top_vertex_always_retires(
    spec, buckets, wave
):
    graph = load_graph(spec)
    states, passes, top_retires = model(graph, buckets, wave)
    check = validate(graph, states.astype(np.int32))
    assert check.valid and check.uncolored == 0
    assert passes <= graph.n and top_retires
    assert check.max_color <= graph.max_degree


def test_model_with_degree_buckets_is_close_to_greedy_ldf_where_one_frontier_is_not():
    graph = load_graph("gen:kron?scale=14")
    ldf = validate(graph, greedy_colors(graph, "ldf")).colors
    bucketed = validate(graph, model(graph, "degree", 256)[0].astype(np.int32)).colors
    single = validate(graph, model(graph, "none", 256)[0].astype(np.int32)).colors
    assert bucketed <= 1.1 * ldf < single


def test_registered_as_a_nondeterministic_gpu_algorithm():
    spec = algorithms.get("gm-gpu")
    assert spec.backend == "gpu" and not spec.deterministic and spec.setup is not None
    assert spec.resolve_params({}) == {
        "buckets": "degree",
        "batch": gm_gpu.BATCH,
        "sync": "graph",
        "reduce": "none",
        "balance": "none",
    }


def test_sync_takes_every_host_protocol_and_graph_its_default():
    sync = algorithms.get("gm-gpu").param("sync")
    assert sync.default == "graph"
    assert set(sync.choices) == {"device", "batch", "round", "graph"}


def test_the_kernels_take_the_pass_from_the_host_or_the_graphs_counter():
    """pass_index first (the host's launches vary only it), then pass_at (null: use it);
    gm_left writes the round's slot from the counter and the status."""
    for name in ("gm_color", "gm_check"):
        assert runtime.kernel_params("gm_gpu", name)[:2] == ("pass_index", "pass_at")
    assert runtime.kernel_params("gm_gpu", "gm_left") == ("at", "slots", "status", "nbuckets")


# ------------------------------------------------------------------------------ GPU


def run(prepared, block_size: int = gm_gpu.BLOCK, **params):
    spec = algorithms.get("gm-gpu")
    return execute(spec, prepared, block_size, spec.resolve_params(params))


def check_run(graph, outcome, buckets: str) -> None:
    """Valid, and iterations and the frontier trace agree with each other and the layout."""
    assert validate(graph, outcome.colors).valid and outcome.validation.valid
    frontier = outcome.coloring.trace["frontier"]
    assert outcome.coloring.iterations == len(frontier)
    if graph.n == 0:
        return
    assert min(frontier) >= 1 and len(frontier) <= graph.n
    lay = gm_gpu.layout(graph.indptr, graph.indices, WIDTHS[buckets], np)
    assert frontier[0] == lay.buckets[0, 1::2].sum()  # the first bucket, whole
    if buckets == "none":
        assert frontier[0] == graph.n
        assert all(a > b for a, b in zip(frontier, frontier[1:], strict=False))


@pytest.mark.gpu
@pytest.mark.parametrize("buckets", list(WIDTHS))
def test_valid_on_every_family(on_gpu, family_spec, buckets):
    graph, prepared = on_gpu(family_spec)
    check_run(graph, run(prepared, buckets=buckets), buckets)


@pytest.mark.gpu
@pytest.mark.parametrize("spec", [*HARD, "gen:star?leaves=1000000"])
@pytest.mark.parametrize("buckets", list(WIDTHS))
def test_valid_and_bounded_on_the_hard_graphs(on_gpu, spec, buckets):
    graph, prepared = on_gpu(spec)
    outcome = run(prepared, buckets=buckets)
    check_run(graph, outcome, buckets)
    if spec.startswith("gen:complete"):
        assert outcome.validation.colors == graph.n
    if spec.startswith("gen:star"):
        assert outcome.validation.colors == 2


@pytest.mark.gpu
@pytest.mark.parametrize("buckets", list(WIDTHS))
def test_a_hub_of_degree_over_100k(on_gpu, kron_hub, buckets):
    graph, prepared = kron_hub
    assert graph.max_degree > 100_000
    check_run(graph, run(prepared, buckets=buckets), buckets)


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["gen:kron?scale=16&edgefactor=48", "gen:rgg?scale=15"])
def test_colors_within_a_modest_factor_of_greedy_ldf(on_gpu, spec):
    graph, prepared = on_gpu(spec)
    ldf = validate(graph, greedy_colors(graph, "ldf")).colors
    assert run(prepared, buckets="degree").validation.colors <= 1.5 * ldf
    assert run(prepared, buckets="none").validation.colors <= 2.0 * ldf


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", [32, 128, 1024])
@pytest.mark.parametrize("batch", [1, 3])
def test_any_block_size_and_batch(on_gpu, block_size, batch):
    graph, prepared = on_gpu("gen:kron?scale=16&edgefactor=48")
    check_run(graph, run(prepared, block_size, batch=batch), "degree")


@pytest.mark.gpu
@pytest.mark.parametrize("sync", SYNCS)
def test_reaching_the_pass_cap_is_a_timeout_not_a_hang(on_gpu, monkeypatch, sync):
    graph, prepared = on_gpu("gen:star?leaves=100000")  # two buckets: two passes at least
    monkeypatch.setattr(gm_gpu, "pass_cap", lambda n: 1)
    with pytest.raises(RoundCapError, match="vertices to recolor after 1 passes"):
        run(prepared, batch=1, sync=sync)
    monkeypatch.undo()
    check_run(graph, run(prepared, batch=1, sync=sync), "degree")


# ------------------------------------------------------------------- sync=graph (GPU)


@pytest.mark.gpu
@pytest.mark.parametrize("buckets", list(WIDTHS))
def test_graph_colors_validly_without_a_read_like_the_host_protocols(on_gpu, family_spec, buckets):
    graph, prepared = on_gpu(family_spec)
    for sync in SYNCS:
        outcome = run(prepared, buckets=buckets, sync=sync)
        check_run(graph, outcome, buckets)
        if sync == "graph":
            assert outcome.coloring.host_syncs == 0
            assert outcome.coloring.device_ms == pytest.approx(outcome.time_ms, rel=1e-4)
        elif graph.n:
            assert outcome.coloring.host_syncs >= 1


@pytest.mark.gpu
@pytest.mark.parametrize("spec", HARD)
@pytest.mark.parametrize("buckets", list(WIDTHS))
def test_graph_is_valid_and_bounded_on_the_hard_graphs(on_gpu, spec, buckets):
    graph, prepared = on_gpu(spec)
    outcome = run(prepared, buckets=buckets, sync="graph")
    check_run(graph, outcome, buckets)
    assert outcome.coloring.host_syncs == 0
    if spec.startswith("gen:complete"):
        assert outcome.validation.colors == graph.n
    if spec.startswith("gen:star"):
        assert outcome.validation.colors == 2


@pytest.mark.gpu
@pytest.mark.parametrize("block_size", [32, 1024])
def test_a_captured_graph_serves_repeated_calls(on_gpu, block_size):
    """Later calls reuse the captured loops (colors, status and counter cleared by the graph
    itself), the two bucketings' loops of one graph in turns."""
    graph, prepared = on_gpu("gen:kron?scale=14&edgefactor=16")
    for buckets in ("degree", "none", "degree", "none"):
        outcome = run(prepared, block_size, buckets=buckets, sync="graph")
        check_run(graph, outcome, buckets)
        assert outcome.coloring.host_syncs == 0


def test_degree_buckets_are_exact_at_powers_of_four():
    # [4^k, 4^(k+1)): 63 and 64 on either side of 4^3, computed without a float log
    degrees = np.array([1, 3, 4, 15, 16, 63, 64, 255, 256, 2**31 - 1])
    levels = np.frexp(degrees.astype(float))[1] - 1
    assert (levels // 2).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 15]
    buckets = gm_gpu.degree_buckets(degrees, 2, np)
    assert buckets.tolist() == [5, 5, 4, 4, 3, 3, 2, 2, 1, 0]  # ranked over the levels present
