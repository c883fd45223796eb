"""ECL-GC on the GPU: equal to serial greedy LDF vertex for vertex for every shortcut setting,
on every generated family; bounded; its device reduction equals the host one."""

from __future__ import annotations

import numpy as np
import pytest

from gcbench import algorithms, load_graph
from gcbench.algorithms.cpu.greedy import greedy_colors
from gcbench.algorithms.execute import execute, prepare
from gcbench.algorithms.gpu import ecl_gc
from gcbench.algorithms.reduction import reduce_colors
from gcbench.algorithms.sampling import Sampling
from gcbench.algorithms.validation import validate
from gcbench.errors import RoundCapError, SpecError
from gcbench.graphs.graph import from_edges

pytestmark = pytest.mark.gpu

SHORTCUTS = ("both", "sc1", "sc2", "none")
HUB = "kron 17 + hub"  # a vertex adjacent to all 131,072 others: degree > 100k
SPECS = [
    "gen:rgg?scale=15",
    "gen:rgg?scale=19",  # more vertices than grid threads: cached and uncached vertices mixed
    "gen:kron?scale=16&edgefactor=48",
    "gen:rmat?scale=14&a=0.45&b=0.15&c=0.15",
    HUB,
    "gen:grid2d?side=300",
    "gen:delaunay?scale=14",
    "gen:er?n=5000&avg_degree=40",
    "gen:regular?n=20000&d=5",  # equal degrees: ties decided by the hash (thread path)
    "gen:regular?n=4000&d=300",  # equal degrees on the warp path, colors past 64
    "gen:cycle?n=10001",
    "gen:complete?n=300",
    "gen:crown?n=300",
    "gen:bipartite?a=40&b=90",
    "gen:mycielski?k=9",
    "gen:queen?n=16",
    "gen:star?leaves=1000000",
    "gen:empty?n=1000",
    "gen:empty?n=0",
]


def _hub_graph():
    kron = load_graph("gen:kron?scale=17")
    rows, cols = kron.edges()
    everyone = np.arange(1, kron.n, dtype=rows.dtype)
    rows = np.concatenate([rows, np.zeros_like(everyone)])
    cols = np.concatenate([cols, everyone])
    return from_edges(kron.n, rows, cols, name=HUB, source=HUB)


@pytest.fixture(scope="module")
def on_gpu():
    """spec -> (Graph, Prepared, greedy LDF colors), each built and copied once."""
    cache: dict = {}

    def get(spec: str):
        if spec not in cache:
            graph = _hub_graph() if spec == HUB else load_graph(spec)
            cache[spec] = graph, prepare(graph, "gpu"), greedy_colors(graph, "ldf")
        return cache[spec]

    return get


def run(on_gpu, spec: str, block_size: int = 512, **params):
    graph, prepared, _ = on_gpu(spec)
    spec_ = algorithms.get("ecl-gc")
    return execute(spec_, prepared, block_size, spec_.resolve_params(params))


@pytest.mark.parametrize("spec", SPECS)
def test_equals_greedy_ldf_for_every_shortcut_setting(on_gpu, spec):
    graph, _, reference = on_gpu(spec)
    for shortcuts in SHORTCUTS:
        outcome = run(on_gpu, spec, shortcuts=shortcuts)
        assert outcome.validation.valid, (spec, shortcuts)
        mismatch = np.flatnonzero(outcome.colors != reference)
        assert mismatch.size == 0, (spec, shortcuts, mismatch[:10])
        trace = outcome.coloring.trace
        if graph.n:
            parts = trace["colored_init"][0] + trace["colored_shortcut"][0]
            assert parts + trace["colored_conventional"][0] == graph.n
            assert sum(trace["colored"]) + trace["colored_init"][0] == graph.n
            assert outcome.coloring.iterations == len(trace["colored"]) >= 1
        if shortcuts == "none":
            assert trace.get("colored_shortcut", [0.0]) == [0.0]


def test_the_hub_and_the_star_exceed_16_bits(on_gpu):
    assert on_gpu(HUB)[0].max_degree > 100_000
    assert on_gpu("gen:star?leaves=1000000")[0].max_degree == 1_000_000


def test_three_quarters_in_order_and_all_in_band_order_both_equal_greedy_ldf(on_gpu, monkeypatch):
    # rgg 19 fits L2 and has more vertices than the device has threads: 3/4 of the blocks,
    # pass 0 in order; with the rule off (a fresh copy, so a fresh capture), all of them in
    # band order
    graph, _, reference = on_gpu("gen:rgg?scale=19")
    spec_ = algorithms.get("ecl-gc")
    grids = []
    for fits in (True, False):
        monkeypatch.setattr(ecl_gc, "fits_l2", lambda n, nnz, l2_bytes, fits=fits: fits)
        prepared = prepare(graph, "gpu")
        grids.append(ecl_gc.coloring_grid(prepared.handle, 512, "both"))
        outcome = execute(spec_, prepared, 512, spec_.resolve_params({}))
        assert np.array_equal(outcome.colors, reference), fits
    assert grids[0].blocks < grids[1].blocks
    assert grids[0].ordered and not grids[1].ordered


def test_pass_0_past_eight_steps_keeps_band_order(on_gpu, monkeypatch):
    # pass 0 orders at most 8 slots a thread: grid 1448 (forced into the L2 rule) has more on
    # 3/4 of the grid, so the kernel must visit them in band order and still color them all
    graph, _, reference = on_gpu("gen:grid2d?side=1448")
    monkeypatch.setattr(ecl_gc, "fits_l2", lambda n, nnz, l2_bytes: True)
    prepared = prepare(graph, "gpu")
    grid = ecl_gc.coloring_grid(prepared.handle, 512, "both")
    assert grid.ordered and -(-graph.n // (grid.blocks * 512)) > 8
    spec_ = algorithms.get("ecl-gc")
    for shortcuts in ("both", "none"):
        outcome = execute(spec_, prepared, 512, spec_.resolve_params({"shortcuts": shortcuts}))
        assert np.array_equal(outcome.colors, reference), shortcuts


@pytest.mark.parametrize("core", ["none", "some", "all"])
def test_core_and_front_parts_equal_greedy_ldf(on_gpu, monkeypatch, core):
    # the hub graph has hubs of every size (a block builds the lists of degree >= 1024); with
    # the core forced empty, to 100 vertices, and to every high-degree vertex (a fresh copy,
    # so a fresh capture), ecl_high's two parts and ecl_dag's two lists still give LDF's colors
    graph, _, reference = on_gpu(HUB)
    degrees = {"none": lambda high, warps: int(high[0]), "some": lambda high, warps: int(high[100]),
               "all": lambda high, warps: ecl_gc.HIGH_DEGREE - 1}[core]  # fmt: skip
    monkeypatch.setattr(ecl_gc, "core_degree", degrees)
    prepared = prepare(graph, "gpu")
    spec_ = algorithms.get("ecl-gc")
    for shortcuts in ("both", "none"):
        outcome = execute(spec_, prepared, 512, spec_.resolve_params({"shortcuts": shortcuts}))
        assert np.array_equal(outcome.colors, reference), (core, shortcuts)


@pytest.mark.parametrize("block_size", [64, 128, 1024])
def test_block_size_changes_nothing(on_gpu, block_size):
    spec = "gen:kron?scale=16&edgefactor=48"
    outcome = run(on_gpu, spec, block_size=block_size)
    assert np.array_equal(outcome.colors, on_gpu(spec)[2])


def test_shortcuts_color_early_on_kron(on_gpu):
    trace = run(on_gpu, "gen:kron?scale=16&edgefactor=48").coloring.trace
    assert trace["colored_shortcut"][0] > 0


@pytest.mark.parametrize(
    "spec", ["gen:complete?n=300", "gen:delaunay?scale=14", "gen:delaunay?scale=19"]
)
def test_reaching_the_pass_cap_is_a_timeout_not_a_hang(on_gpu, monkeypatch, spec):
    # the clique caps in ecl_high; the meshes (all degrees < 32) in ecl_low,
    # delaunay 14 where each lane visits its own vertex, delaunay 19 where a block keeps in step
    assert spec == "gen:complete?n=300" or on_gpu(spec)[0].max_degree < 32
    monkeypatch.setattr(ecl_gc, "pass_cap", lambda n: 2)
    with pytest.raises(RoundCapError, match="after 2 passes"):
        run(on_gpu, spec, shortcuts="none")
    monkeypatch.undo()
    outcome = run(on_gpu, spec)
    assert np.array_equal(outcome.colors, on_gpu(spec)[2])


@pytest.mark.parametrize("spec", SPECS)
def test_device_reduction_equals_host_reduction(on_gpu, spec):
    graph, prepared, reference = on_gpu(spec)
    start = validate(graph, reference).colors
    for mode in ("h1", "h2", "both"):
        outcome = run(on_gpu, spec, reduce=mode)
        host, report = reduce_colors(graph, reference, mode)
        assert outcome.validation.valid, (spec, mode)
        assert outcome.validation.colors <= start, (spec, mode)
        assert np.array_equal(outcome.colors, host), (spec, mode)
        trace = outcome.coloring.trace
        if graph.n:
            assert trace["colors_before"] == [start] and trace["colors_after"] == [
                report.colors_after
            ]
            assert 0 < trace["reduce_ms"][0] <= outcome.time_ms


def test_grid2d_reduction_reaches_four_colors(on_gpu):
    graph, _, reference = on_gpu("gen:grid2d?side=300")
    assert validate(graph, reference).colors == 5
    outcome = run(on_gpu, "gen:grid2d?side=300", reduce="both")
    assert outcome.validation.valid and outcome.validation.colors == 4


@pytest.mark.parametrize("name", ["jpl", "cusparse"])
def test_other_gpu_algorithms_reduce_on_the_device(on_gpu, name):
    try:
        spec = algorithms.get(name)
    except SpecError:
        pytest.skip(f"{name} is not registered")
    graph, prepared, _ = on_gpu("gen:rgg?scale=15")
    plain = execute(spec, prepared, 256, spec.resolve_params({}))
    reduced = execute(spec, prepared, 256, spec.resolve_params({"reduce": "both"}))
    host, report = reduce_colors(graph, plain.colors, "both")
    assert reduced.validation.valid and reduced.validation.colors <= plain.validation.colors
    if spec.deterministic:
        assert np.array_equal(reduced.colors, host)


def test_priming_compiles_everything_a_larger_graph_runs(on_gpu):
    # the primer graph fits one step of ecl_low; rgg 19 needs several and the waiting lists
    from gcbench.algorithms import execute
    from gcbench.algorithms.gpu import runtime

    spec_ = algorithms.get("ecl-gc")
    params = spec_.resolve_params({})
    execute.prime(spec_, 512, params)
    before = runtime.compile_count()
    graph, prepared, reference = on_gpu("gen:rgg?scale=19")
    outcome = execute.measure(spec_, prepared, 512, params, sampling=Sampling(1, 0)).last
    assert np.array_equal(outcome.colors, reference)
    assert runtime.compile_count() == before
