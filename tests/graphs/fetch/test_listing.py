"""The cache listing (``gcbench list graphs``, ``gcbench cache``) with graph and pattern
caches: both listed and labelled, each checked by ``is_cached``, both removed."""

from __future__ import annotations

import os

import numpy as np
from click.testing import CliRunner

from gcbench.cli import main
from gcbench.graphs.fetch import cached_graphs, is_cached, resolve
from gcbench.graphs.fetch.listing import describe, last_used, remove
from gcbench.graphs.formats.npz import PATTERN_FORMAT, save_cache, save_pattern_cache
from gcbench.graphs.generators import get_family
from gcbench.graphs.pattern import from_entries

SPEC = "ss:Test/m"


def cache_both(data_dir, spec=SPEC):
    """A graph (the 5-cycle) and a 3 × 5 pattern (4 nonzeros) cached for ``spec``."""
    remote = resolve(spec, data_dir)
    save_cache(get_family("cycle").generate({"n": 5}), remote.cache, spec=spec)
    pattern = from_entries(3, 5, [0, 0, 2, 2], [4, 0, 1, 3], source="https://x/m.tar.gz")
    save_pattern_cache(pattern, remote.pattern_cache, spec=spec)
    return remote


def test_graphs_and_patterns_are_listed_apart_and_labelled(data_dir):
    remote = cache_both(data_dir)
    assert remote.pattern_cache == data_dir / "ss" / "Test" / "m.pattern.npz"
    listed = cached_graphs(data_dir)
    assert [(g.label, g.kind, g.n, g.m, g.nnz, g.stale) for g in listed] == [
        (SPEC, "graph", 5, 5, 10, False),
        (f"{SPEC} (pattern)", "pattern", 3, 4, 4, False),
    ]
    assert [g.path for g in listed] == [remote.cache, remote.pattern_cache]
    assert listed[1].source == "https://x/m.tar.gz"
    assert listed[1].bytes == remote.pattern_cache.stat().st_size


def test_is_cached_asks_for_the_graph_or_the_pattern(data_dir):
    remote = cache_both(data_dir)
    assert is_cached(SPEC, data_dir) and is_cached(SPEC, data_dir, pattern=True)
    remote.cache.unlink()
    assert not is_cached(SPEC, data_dir) and is_cached(SPEC, data_dir, pattern=True)
    # another spec's pattern, or one of another format, is not this one's
    pattern = from_entries(1, 1, [0], [0])
    save_pattern_cache(pattern, remote.pattern_cache, spec="ss:Test/other")
    assert not is_cached(SPEC, data_dir, pattern=True)
    save_pattern_cache(pattern, remote.pattern_cache, spec=SPEC)
    with np.load(remote.pattern_cache) as npz:
        arrays = dict(npz)
    np.savez(remote.pattern_cache, **{**arrays, "pattern_format": np.int64(PATTERN_FORMAT + 1)})
    assert not is_cached(SPEC, data_dir, pattern=True)
    assert describe(remote.pattern_cache).stale


def test_remove_clears_patterns_too(data_dir):
    cache_both(data_dir)
    listed = cached_graphs(data_dir)
    assert remove(listed) == sum(g.bytes for g in listed)
    assert cached_graphs(data_dir) == []


def test_cache_command_lists_and_clears_both(data_dir):
    remote = cache_both(data_dir)
    cache_both(data_dir, "ss:Test/n")
    runner = CliRunner()
    listed = runner.invoke(main, ["cache"])
    assert listed.exit_code == 0, listed.output
    assert [row.split()[0] for row in listed.stdout.splitlines()[1:-1]] == [SPEC] * 2 + [
        "ss:Test/n"
    ] * 2
    os.utime(remote.pattern_cache, (0, 0))  # not used since 1970
    assert [g.kind for g in cached_graphs(data_dir) if last_used(g) < 1] == ["pattern"]
    aged = runner.invoke(main, ["cache", "--older-than", "1"])
    assert aged.exit_code == 0 and "removed 1 cached graphs" in aged.stdout
    assert not remote.pattern_cache.exists() and remote.cache.exists()
    cleared = runner.invoke(main, ["cache", "ss:Test/n", "--clear"])
    assert cleared.exit_code == 0 and "removed 2 cached graphs" in cleared.stdout
    assert [g.spec for g in cached_graphs(data_dir)] == [SPEC]
