"""Two colors for a bipartite graph on the device (``kernels/bipartite.cu``): what ``auto``
with ``objective=fewest`` tries first on the GPU (issue 45, item 4), since a bipartite graph
(grids, even cycles, trees, crowns, complete bipartite graphs) has χ = 2 and the speculative
and greedy algorithms often give it 3 to 5.

Union-find over the bipartite double cover: no rounds, three launches and one blocking read
(the count of vertices whose two copies share a set, which is zero exactly when the graph is
bipartite). docs/auto.md, "Two colors first".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gcbench.algorithms.gpu import runtime

BLOCK = 256
KERNELS = ("bp_init", "bp_hook", "bp_color")
MAX_VERTICES = 2**30 - 1  # two copies of each vertex must fit int32 ids


def two_colors(dgraph: runtime.DeviceGraph) -> Any | None:
    """Device colors 0/1 (int32) of ``dgraph`` when it is bipartite, else None (and None for
    a graph too large for the copies' int32 ids, where the check is not made)."""
    cp = runtime.cupy()
    n = dgraph.n
    if n > MAX_VERTICES:
        return None
    runtime.require_device(4 * (2 * n + n), "the bipartite check")  # parents and colors
    parent = cp.empty(2 * n, dtype=cp.int32)
    colors = cp.empty(n, dtype=cp.int32)
    counts = cp.zeros(2, dtype=cp.int32)  # vertices on an odd cycle, unions past their bound
    if n:
        grid = (min(runtime.grid_for(2 * n, BLOCK), runtime.persistent_grid(BLOCK)),)
        init, hook, color = (runtime.kernel("bipartite", name) for name in KERNELS)
        init(grid, (BLOCK,), (np.int32(2 * n), parent))
        hook(grid, (BLOCK,), (np.int32(n), dgraph.indptr, dgraph.indices, parent, counts[1:]))
        color(grid, (BLOCK,), (np.int32(n), parent, colors, counts[:1], counts[1:]))
    odd, failed = (int(x) for x in runtime.read_back(counts))
    if failed:
        raise RuntimeError(f"bipartite check: {failed} unions or finds past their step bound")
    return colors if odd == 0 else None
