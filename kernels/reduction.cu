// Color reduction (ecl-gc §4, Alg. 4-5) on the device, for every GPU algorithm's `reduce`
// parameter and ecl-gc's. "hic" is the highest color. All kernels take a complete coloring;
// the host loop lives in gcbench/algorithms/reduction.py, the launcher in
// gcbench/algorithms/gpu/reduction.py.
#include "common.cuh"

#define FULL_MASK GCB_FULL_MASK
#define MSB GCB_MSB

// Heuristic 2 moves vertices among the first GCB_H2_COLORS colors only: H2_COLORS of
// gcbench/algorithms/reduction.py (its host twin's, and the launcher's size of avail[]),
// passed to every compile as a -D define; this default serves a compile without it (CI's
// nvcc -ptx), and tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#ifndef GCB_H2_COLORS
#define GCB_H2_COLORS 32
#endif
static_assert(GCB_H2_COLORS == 32, "a set's target colors for one color are one 32-bit word");

// Heuristic 1 (Alg. 4), step 1: near[v] = 1 for every vertex with a hic neighbour.
extern "C" __global__ void h1_near(const int n, const int* __restrict__ indptr,
                                   const int* __restrict__ indices, const int* __restrict__ colors,
                                   const int hic, unsigned char* __restrict__ near)
{
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices, [&](int v) { return colors[v] != hic; },
        [&](int, int u) { return (unsigned)(colors[u] == hic); },
        [&](int v, unsigned any) { near[v] = (unsigned char)any; });
}

// Step 2: forbid[x][y] (one bit per y) once a near vertex of color x has a neighbour of color y.
extern "C" __global__ void h1_forbid(const int n, const int* __restrict__ indptr,
                                     const int* __restrict__ indices,
                                     const int* __restrict__ colors, const int hic,
                                     const unsigned char* __restrict__ near,
                                     unsigned* __restrict__ forbid, const int words)
{
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices, [&](int v) { return near[v] != 0; },
        [&](int v, int u) {
            const int x = colors[v], y = colors[u];
            if (x >= 0 && x < hic && y >= 0 && y < hic) {
                unsigned* const word = &forbid[(size_t)x * words + y / 32];
                const unsigned bit = 1u << (y % 32);
                if (!(*word & bit)) atomicOr(word, bit);
            }
            return 0u;
        },
        [&](int, unsigned) {});
}

// Step 3: the lexicographically smallest allowed pair (x, y), x != y, as x * hic + y.
extern "C" __global__ void h1_pick(const int hic, const unsigned* __restrict__ forbid,
                                   const int words, int* __restrict__ pick)
{
    for (int x = gcb_tid(); x < hic; x += gcb_stride()) {
        for (int j = 0; j < words; j++) {
            unsigned f = forbid[(size_t)x * words + j];
            if (j == x / 32) f |= 1u << (x % 32);
            if (hic - 32 * j < 32) f |= FULL_MASK << (hic - 32 * j);
            if (~f) {
                atomicMin(pick, x * hic + 32 * j + __ffs(~f) - 1);
                break;
            }
        }
    }
}

// Step 4: near vertices of color x take y, hic vertices take x.
extern "C" __global__ void h1_apply(const int n, int* __restrict__ colors,
                                    const unsigned char* __restrict__ near, const int hic,
                                    const int x, const int y)
{
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const int c = colors[v];
        if (c == hic)
            colors[v] = x;
        else if (c == x && near[v])
            colors[v] = y;
    }
}

// Union-find over the h hic vertices: parents only ever point to smaller indices, so each
// set's root is its smallest member whatever the order of the unions (deterministic sets).
__device__ __forceinline__ int uf_find(volatile int* __restrict__ parent, int x, const int h)
{
    for (int step = 0; step < h; step++) {
        const int p = parent[x];
        if (p == x) break;
        const int g = parent[p];
        if (g != p) parent[x] = g;  // path halving: g is an ancestor, smaller than p
        x = p;
    }
    return x;
}

__device__ __forceinline__ void uf_unite(volatile int* __restrict__ parent, int a, int b,
                                         const int h)
{
    for (int tries = 0; tries <= h; tries++) {  // each failed CAS is another union's success
        a = uf_find(parent, a, h);
        b = uf_find(parent, b, h);
        if (a == b) return;
        if (a > b) {
            const int t = a;
            a = b;
            b = t;
        }
        if (atomicCAS((int*)&parent[b], b, a) == b) return;
    }
}

// Heuristic 2 (Alg. 5), step 1: anchor[v] = the smallest hic index among v's neighbours.
extern "C" __global__ void h2_anchor(const int n, const int* __restrict__ indptr,
                                     const int* __restrict__ indices,
                                     const int* __restrict__ colors, const int hic,
                                     const int* __restrict__ hidx, int* __restrict__ anchor)
{
    gcb_each_vertex<true>(
        n, nullptr, indptr, indices, [&](int) { return true; },
        [&](int, int u) { return colors[u] == hic ? (unsigned)hidx[u] : FULL_MASK; },
        [&](int v, unsigned least) { anchor[v] = least == FULL_MASK ? -1 : (int)least; });
}

// Step 2: hic vertices with a common neighbour share one set.
extern "C" __global__ void h2_union(const int n, const int* __restrict__ indptr,
                                    const int* __restrict__ indices,
                                    const int* __restrict__ colors, const int hic,
                                    const int* __restrict__ hidx, const int* __restrict__ anchor,
                                    int* __restrict__ parent, const int h)
{
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices, [&](int v) { return anchor[v] >= 0; },
        [&](int v, int u) {
            if (colors[u] == hic && hidx[u] != anchor[v]) uf_unite(parent, anchor[v], hidx[u], h);
            return 0u;
        },
        [&](int, unsigned) {});
}

// Step 3: every hic index points at its set's root; every set's GCB_H2_COLORS recoloring bitmaps
// start as avail[i] = colors i+1 .. min(hic - 1, GCB_H2_COLORS - 1) (MSB-first).
extern "C" __global__ void h2_sets(int* __restrict__ parent, const int h, const int hic,
                                   unsigned* __restrict__ avail)
{
    const int top = min(hic - 1, GCB_H2_COLORS - 1);
    for (int j = gcb_tid(); j < h; j += gcb_stride()) {
        parent[j] = uf_find(parent, j, h);
        for (int i = 0; i < GCB_H2_COLORS; i++)
            avail[(size_t)j * GCB_H2_COLORS + i] =
                i + 1 > top ? 0u
                            : (FULL_MASK >> (i + 1)) & ~(top == 31 ? 0u : FULL_MASK >> (top + 1));
    }
}

// Step 4: for a neighbour v (color c < GCB_H2_COLORS) of set s, remove its neighbours' colors
// < GCB_H2_COLORS from avail[s][c].
extern "C" __global__ void h2_restrict(const int n, const int* __restrict__ indptr,
                                       const int* __restrict__ indices,
                                       const int* __restrict__ colors,
                                       const int* __restrict__ anchor,
                                       const int* __restrict__ parent,
                                       unsigned* __restrict__ avail)
{
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices,
        [&](int v) { return anchor[v] >= 0 && (unsigned)colors[v] < GCB_H2_COLORS; },
        [&](int, int u) { return (unsigned)colors[u] < GCB_H2_COLORS ? MSB >> colors[u] : 0u; },
        [&](int v, unsigned used) {
            atomicAnd(&avail[(size_t)parent[anchor[v]] * GCB_H2_COLORS + colors[v]], ~used);
        });
}

// Step 5: adjacent neighbours v (set s, color c) and u (set t != s, color d) must not both move
// to one color: the smaller bitmap of the snapshot `before` (ties: the smaller set index) loses
// the larger one's colors. Decided on the snapshot, so the result is order-independent.
extern "C" __global__ void h2_resolve(const int n, const int* __restrict__ indptr,
                                      const int* __restrict__ indices,
                                      const int* __restrict__ colors,
                                      const int* __restrict__ anchor,
                                      const int* __restrict__ parent,
                                      const unsigned* __restrict__ before,
                                      unsigned* __restrict__ avail)
{
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices,
        [&](int v) { return anchor[v] >= 0 && (unsigned)colors[v] < GCB_H2_COLORS; },
        [&](int v, int u) {
            const int d = colors[u];
            if (anchor[u] < 0 || (unsigned)d >= GCB_H2_COLORS) return 0u;
            const int s = parent[anchor[v]], t = parent[anchor[u]];
            if (s == t) return 0u;
            const unsigned mine = before[(size_t)s * GCB_H2_COLORS + colors[v]];
            const unsigned theirs = before[(size_t)t * GCB_H2_COLORS + d];
            const int pm = __popc(mine), pt = __popc(theirs);
            return pt > pm || (pt == pm && t > s) ? theirs : 0u;
        },
        [&](int v, unsigned lost) {
            if (lost)
                atomicAnd(&avail[(size_t)parent[anchor[v]] * GCB_H2_COLORS + colors[v]], ~lost);
        });
}

// Step 6a: each hic vertex's move, (i << 8) | b: neighbours of color i take b, it takes i.
extern "C" __global__ void h2_choose(const int* __restrict__ parent, const int h, const int hic,
                                     const unsigned* __restrict__ avail, int* __restrict__ choice)
{
    for (int j = gcb_tid(); j < h; j += gcb_stride()) {
        const unsigned* const sets = avail + (size_t)parent[j] * GCB_H2_COLORS;
        int pick = -1;
        for (int i = 0; i < min(hic, GCB_H2_COLORS); i++) {
            if (sets[i]) {
                pick = (i << 8) | __clz(sets[i]);
                break;
            }
        }
        choice[j] = pick;
    }
}

// Step 6b: apply the moves; recolored[0] counts the hic vertices that moved.
extern "C" __global__ void h2_apply(const int h, const int* __restrict__ hv,
                                    const int* __restrict__ indptr,
                                    const int* __restrict__ indices, int* __restrict__ colors,
                                    const int* __restrict__ hidx, const int* __restrict__ choice,
                                    int* __restrict__ recolored)
{
    gcb_each_vertex<false>(
        h, hv, indptr, indices, [&](int v) { return choice[hidx[v]] >= 0; },
        [&](int v, int u) {
            const int pick = choice[hidx[v]];
            if (colors[u] == pick >> 8) colors[u] = pick & 0xff;
            return 0u;
        },
        [&](int v, unsigned) {
            colors[v] = choice[hidx[v]] >> 8;
            atomicAdd(recolored, 1);
        });
}
