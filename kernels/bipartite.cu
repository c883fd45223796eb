// Two colors for a bipartite graph, found without rounds: union-find over the graph's bipartite
// double cover (vertex v as two copies 2v and 2v + 1, each edge {u, v} joining 2u to 2v + 1 and
// 2u + 1 to 2v). The graph is bipartite exactly when no vertex's two copies end up in one set;
// then a vertex's color is which of its copies holds the smaller root, and the two ends of an
// edge always disagree. The launcher is gcbench/algorithms/gpu/bipartite.py; the hooking is
// lock-free, the larger root hooked under the smaller with a compare-and-swap, as in ECL-CC
// (Jaiganesh & Burtscher, HPDC 2018), with path halving in find.
#include "common.cuh"

// The root of x's set, halving the path on the way (a benign race: any ancestor is a valid
// parent). At most `limit` steps: a path never holds more nodes than the forest.
__device__ __forceinline__ int bp_find(int* __restrict__ parent, int x, const int limit)
{
    for (int step = 0; step < limit; step++) {
        const int p = parent[x];
        if (p == x) return x;
        const int g = parent[p];
        if (g != p) parent[x] = g;
        x = g;
    }
    return -1;  // unreachable for a forest; reported by the caller
}

// Join the sets of a and b; false if a step bound was reached (never, for a forest).
__device__ __forceinline__ bool bp_union(int* __restrict__ parent, int a, int b, const int limit)
{
    for (int attempt = 0; attempt < limit; attempt++) {
        a = bp_find(parent, a, limit);
        b = bp_find(parent, b, limit);
        if (a < 0 || b < 0) return false;
        if (a == b) return true;
        if (a < b) {
            const int t = a;
            a = b;
            b = t;
        }
        if (atomicCAS(&parent[a], a, b) == a) return true;  // else a gained a parent: retry
    }
    return false;
}

// parent[x] = x for the 2n copies.
extern "C" __global__ void bp_init(const int copies, int* __restrict__ parent)
{
    for (int x = gcb_tid(); x < copies; x += gcb_stride()) parent[x] = x;
}

// Join v's copies with those of its neighbour u (once per edge: u > v).
__device__ __forceinline__ void bp_edge(int* __restrict__ parent, const int v, const int u,
                                        const int limit, int* __restrict__ failed)
{
    if (u <= v) return;
    const bool done = bp_union(parent, 2 * v, 2 * u + 1, limit) &&
                      bp_union(parent, 2 * v + 1, 2 * u, limit);
    if (!done) atomicAdd(failed, 1);
}

// Every edge {v, u} with u > v joins 2v with 2u + 1 and 2v + 1 with 2u: a thread a vertex, the
// whole warp for a vertex of 32 neighbours or more (a hub's edges would keep one thread busy
// long after the rest). `failed` counts unions that hit the step bound (the launcher refuses
// the result then).
extern "C" __global__ void bp_hook(const int n, const int* __restrict__ indptr,
                                   const int* __restrict__ indices, int* __restrict__ parent,
                                   int* __restrict__ failed)
{
    const int limit = 2 * n + 1;
    const int lane = threadIdx.x & 31;
    for (int base = gcb_tid() - lane; base < n; base += gcb_stride()) {  // warp-uniform
        const int v = base + lane;
        const int beg = v < n ? indptr[v] : 0;
        const int end = v < n ? indptr[v + 1] : 0;
        const bool big = end - beg >= 32;
        if (!big)
            for (int e = beg; e < end; e++) bp_edge(parent, v, indices[e], limit, failed);
        for (unsigned todo = __ballot_sync(GCB_FULL_MASK, big); todo; todo &= todo - 1) {
            const int src = __ffs(todo) - 1;
            const int wv = __shfl_sync(GCB_FULL_MASK, v, src);
            const int wend = __shfl_sync(GCB_FULL_MASK, end, src);
            for (int e = __shfl_sync(GCB_FULL_MASK, beg, src) + lane; e < wend; e += 32)
                bp_edge(parent, wv, indices[e], limit, failed);
        }
    }
}

// colors[v] = 0 when v's first copy holds the smaller root, else 1; `odd` counts vertices
// whose copies share a root (an odd cycle through them: not bipartite).
extern "C" __global__ void bp_color(const int n, int* __restrict__ parent,
                                    int* __restrict__ colors, int* __restrict__ odd,
                                    int* __restrict__ failed)
{
    const int limit = 2 * n + 1;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const int a = bp_find(parent, 2 * v, limit);
        const int b = bp_find(parent, 2 * v + 1, limit);
        if (a < 0 || b < 0) atomicAdd(failed, 1);
        gcb_count(odd, a == b);
        colors[v] = a < b ? 0 : 1;
    }
}
