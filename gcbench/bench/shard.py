"""``--shard K/N``: the K-th of N deterministic, cost-balanced shares of a run's cases, by graph
(docs/cluster.md), for SLURM arrays and other batch systems; ``gcbench merge`` joins them.

Every shard computes the same split from the expanded cases alone (no cache, clock or host
enters it): graphs sorted by estimated cost (:mod:`gcbench.bench.cost`, largest first, ties
by spec), each given to the share with the least cost so far (ties: the lowest share) — the
longest-processing-time-first rule, within 4/3 of the best split.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from gcbench.bench.cost import estimate_nnz
from gcbench.bench.suite import Case
from gcbench.errors import SpecError

Shard = tuple[int, int]  # (K, N), 1-based
GraphKey = tuple[str, str | None]  # (spec, stand-in)

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(value: str | Sequence[int]) -> Shard:
    """``"2/3"`` or ``(2, 3)`` → (2, 3); K must lie in 1..N."""
    if isinstance(value, str):
        match = _SHARD.fullmatch(value)
        if match is None:
            raise SpecError(f"--shard {value!r}: write K/N, e.g. --shard 2/3 (share 2 of 3)")
        k, n = int(match[1]), int(match[2])
    else:
        k, n = (int(v) for v in value)
    if not 1 <= k <= n:
        raise SpecError(f"--shard {k}/{n}: K must be between 1 and N (e.g. --shard 1/{max(n, 1)})")
    return k, n


def split(cases: Sequence[Case], shards: int) -> list[list[GraphKey]]:
    """The graphs of each of ``shards`` shares, in the order they were assigned."""
    counts = Counter((case.graph, case.standin) for case in cases)
    cost = {
        key: max(estimate_nnz(key[0], key[1], use_cache=False), 1.0) * count
        for key, count in counts.items()
    }
    loads = [0.0] * shards
    shares: list[list[GraphKey]] = [[] for _ in range(shards)]
    for key in sorted(cost, key=lambda g: (-cost[g], g[0], g[1] or "")):
        share = min(range(shards), key=lambda i: (loads[i], i))
        loads[share] += cost[key]
        shares[share].append(key)
    return shares


def select(cases: Sequence[Case], shard: Shard) -> tuple[list[Case], str]:
    """The cases of share K of N (in expansion order) and a one-line note saying what it is."""
    k, n = shard
    mine = set(split(cases, n)[k - 1])
    kept = [case for case in cases if (case.graph, case.standin) in mine]
    total = len({(case.graph, case.standin) for case in cases})
    note = f"shard {k}/{n}: {len(mine)} of {total} graphs, {len(kept)} of {len(cases)} cases"
    return kept, note
