// Color reduction (ecl-gc §4, Alg. 4-5) on the device, for every GPU algorithm's `reduce`
// parameter and ecl-gc's. "hic" is the highest color. All kernels take a complete coloring whose
// colors 0..hic are all used. One round is r_begin, Heuristic 1's kernels, Heuristic 2's, r_end;
// what a round needs to know (hic, the pair Heuristic 1 picked, how many hic vertices Heuristic
// 2 listed and moved) lives in `st` on the device, so the rounds run without the host: a CUDA
// graph's WHILE node repeats them, or the host reads `st` after each (the launcher is
// gcbench/algorithms/gpu/reduction.py, the host twin gcbench/algorithms/reduction.py).
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
// Heuristic 1 keeps a hic x hic bit matrix, so it is skipped above this many colors.
#ifndef GCB_H1_MAX_COLORS
#define GCB_H1_MAX_COLORS 8192
#endif
// The fields of `st` (the launcher's State enum, GCB_R_<NAME>).
#ifndef GCB_R_HIC
#define GCB_R_HIC 0  // the highest color
#endif
#ifndef GCB_R_H
#define GCB_R_H 1  // hic vertices Heuristic 2 listed this round
#endif
#ifndef GCB_R_PICK
#define GCB_R_PICK 2  // Heuristic 1's pair x * hic + y this round, INT_MAX when none
#endif
#ifndef GCB_R_RECOLORED
#define GCB_R_RECOLORED 3  // hic vertices Heuristic 2 moved this round
#endif
#ifndef GCB_R_ROUNDS
#define GCB_R_ROUNDS 4  // successful rounds so far
#endif
#ifndef GCB_R_LEFT
#define GCB_R_LEFT 5  // 1 while another round is to run
#endif
#ifndef GCB_R_OVERFLOW
#define GCB_R_OVERFLOW 6  // the hic vertices outnumbered the launcher's room for them
#endif
#ifndef GCB_R_FIELDS
#define GCB_R_FIELDS 7
#endif
#define NONE 0x7fffffff  // INT_MAX: Heuristic 1 found no pair

// The block size of the listing kernels (h2_count, h2_offsets, h2_list): the launcher's
// LIST_BLOCK.
#ifndef GCB_R_LIST_BLOCK
#define GCB_R_LIST_BLOCK 1024
#endif

__device__ __forceinline__ bool h1_on(const int* st) { return st[GCB_R_HIC] <= GCB_H1_MAX_COLORS; }
// Heuristic 2 runs when Heuristic 1 did not (or found nothing) and the hic vertices fit.
__device__ __forceinline__ bool h2_on(const int* st)
{
    return st[GCB_R_PICK] == NONE && !st[GCB_R_OVERFLOW];
}

// The start of a reduction (one thread): hic, no round yet, one to run.
extern "C" __global__ void r_start(int* __restrict__ st, const int hic)
{
    for (int i = 0; i < GCB_R_FIELDS; i++) st[i] = 0;
    st[GCB_R_HIC] = hic;
    st[GCB_R_LEFT] = 1;
}

// The start of a round (one thread).
extern "C" __global__ void r_begin(int* __restrict__ st)
{
    st[GCB_R_PICK] = NONE;
    st[GCB_R_H] = 0;
    st[GCB_R_RECOLORED] = 0;
}

// The end of a round (one thread): a round that recolored every hic vertex lowers hic by one
// (colors below hic never empty: each move's source color receives the hic vertices that
// freed it); another round runs while this one made progress, hic >= 2 and fewer than
// max_rounds succeeded. Under a CUDA graph (`at` not null) that is also round *at's count,
// which round_step (kernels/rounds.cu) reads.
extern "C" __global__ void r_end(int* __restrict__ st, const int max_rounds, const int* at,
                                 int* __restrict__ slots)
{
    const bool one = st[GCB_R_PICK] != NONE;
    const bool two = !one && !st[GCB_R_OVERFLOW] && st[GCB_R_RECOLORED] > 0;
    if (one || two) {
        st[GCB_R_ROUNDS]++;
        if (one || st[GCB_R_RECOLORED] == st[GCB_R_H]) st[GCB_R_HIC]--;
    }
    st[GCB_R_LEFT] = (one || two) && st[GCB_R_HIC] >= 2 && st[GCB_R_ROUNDS] < max_rounds;
    if (at) slots[(size_t)(*at + 1) * GCB_SLOT_WIDTH] = st[GCB_R_LEFT];
}

// The smallest and the largest color (stats[0], stats[1], set to INT_MAX and INT_MIN before)
// and used[c] = 1 for every color 0 <= c < room (zeroed before).
extern "C" __global__ void r_marks(const int n, const int* __restrict__ colors,
                                   unsigned char* __restrict__ used, const int room,
                                   int* __restrict__ stats)
{
    int low = NONE, high = -NONE - 1;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const int c = colors[v];
        low = min(low, c);
        high = max(high, c);
        if (c >= 0 && c < room && !used[c]) used[c] = 1;
    }
    low = __reduce_min_sync(FULL_MASK, low);
    high = __reduce_max_sync(FULL_MASK, high);
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&stats[0], low);
        atomicMax(&stats[1], high);
    }
}

// Heuristic 1's matrix cleared for this hic (hic rows of (hic + 31) / 32 words), and near.
extern "C" __global__ void h1_clear(const int n, const int* __restrict__ st,
                                    unsigned* __restrict__ forbid,
                                    unsigned char* __restrict__ near)
{
    if (!h1_on(st)) return;
    const int hic = st[GCB_R_HIC];
    const size_t words = (size_t)hic * ((hic + 31) / 32);
    for (size_t i = gcb_tid(); i < words; i += gcb_stride()) forbid[i] = 0u;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) near[v] = 0;
}

// Heuristic 1 (Alg. 4), step 1: near[u] = 1 for every vertex u not of color hic with a hic
// neighbour (near is zeroed before). Pushed from the hic vertices, so only their edges are
// walked: the highest colors are few, and often hubs' (a pull over every vertex walked the
// whole graph each round).
extern "C" __global__ void h1_near(const int n, const int* __restrict__ indptr,
                                   const int* __restrict__ indices, const int* __restrict__ colors,
                                   const int* __restrict__ st, unsigned char* __restrict__ near)
{
    if (!h1_on(st)) return;
    const int hic = st[GCB_R_HIC];
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices, [&](int v) { return colors[v] == hic; },
        [&](int, int u) {
            if (colors[u] != hic) near[u] = 1;
            return 0u;
        },
        [&](int, unsigned) {});
}

// Step 2: forbid[x][y] (one bit per y) once a near vertex of color x has a neighbour of color y.
extern "C" __global__ void h1_forbid(const int n, const int* __restrict__ indptr,
                                     const int* __restrict__ indices,
                                     const int* __restrict__ colors,
                                     const int* __restrict__ st,
                                     const unsigned char* __restrict__ near,
                                     unsigned* __restrict__ forbid)
{
    if (!h1_on(st)) return;
    const int hic = st[GCB_R_HIC], words = (hic + 31) / 32;
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
extern "C" __global__ void h1_pick(int* __restrict__ st, const unsigned* __restrict__ forbid)
{
    if (!h1_on(st)) return;
    const int hic = st[GCB_R_HIC], words = (hic + 31) / 32;
    for (int x = gcb_tid(); x < hic; x += gcb_stride()) {
        for (int j = 0; j < words; j++) {
            unsigned f = forbid[(size_t)x * words + j];
            if (j == x / 32) f |= 1u << (x % 32);
            if (hic - 32 * j < 32) f |= FULL_MASK << (hic - 32 * j);
            if (~f) {
                atomicMin(&st[GCB_R_PICK], x * hic + 32 * j + __ffs(~f) - 1);
                break;
            }
        }
    }
}

// Step 4: near vertices of color x take y, hic vertices take x (when step 3 found a pair).
extern "C" __global__ void h1_apply(const int n, int* __restrict__ colors,
                                    const unsigned char* __restrict__ near,
                                    const int* __restrict__ st)
{
    const int hic = st[GCB_R_HIC], pick = st[GCB_R_PICK];
    if (pick == NONE) return;
    const int x = pick / hic, y = pick % hic;
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

// Heuristic 2 (Alg. 5), step 0: the hic vertices listed in vertex order (hv), each one's place
// in the list (hidx) and a set of its own (parent), in three launches over blocks of
// GCB_R_LIST_BLOCK vertices: h2_count counts each block's hic vertices into sums, h2_offsets
// sums them up in one block (their total is h; more than `room` is an overflow, and nothing is
// listed), h2_list writes each block's part.
extern "C" __global__ void __launch_bounds__(GCB_R_LIST_BLOCK)
    h2_count(const int n, const int* __restrict__ colors, const int* __restrict__ st,
             int* __restrict__ sums)
{
    if (!h2_on(st)) return;
    const int v = blockIdx.x * GCB_R_LIST_BLOCK + threadIdx.x;
    const int count = __syncthreads_count(v < n && colors[v] == st[GCB_R_HIC]);
    if (threadIdx.x == 0) sums[blockIdx.x] = count;
}

extern "C" __global__ void __launch_bounds__(GCB_R_LIST_BLOCK)
    h2_offsets(const int n, int* __restrict__ sums, int* __restrict__ st, const int room)
{
    if (!h2_on(st)) return;
    const int blocks = (n + GCB_R_LIST_BLOCK - 1) / GCB_R_LIST_BLOCK;
    __shared__ int total;
    int carry = 0;
    for (int base = 0; base < blocks; base += GCB_R_LIST_BLOCK) {
        const int i = base + threadIdx.x;
        const int x = gcb_block_scan(i < blocks ? sums[i] : 0);
        if (i < blocks) sums[i] = x + carry;  // inclusive: the hic vertices up to block i's end
        if (threadIdx.x == GCB_R_LIST_BLOCK - 1) total = x;
        __syncthreads();
        carry += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        st[GCB_R_H] = carry;
        st[GCB_R_OVERFLOW] = carry > room;
    }
}

extern "C" __global__ void __launch_bounds__(GCB_R_LIST_BLOCK)
    h2_list(const int n, const int* __restrict__ colors, const int* __restrict__ st,
            const int* __restrict__ sums, int* __restrict__ hv, int* __restrict__ hidx,
            int* __restrict__ parent)
{
    if (!h2_on(st)) return;
    const int v = blockIdx.x * GCB_R_LIST_BLOCK + threadIdx.x;
    const bool hic = v < n && colors[v] == st[GCB_R_HIC];
    const int j = gcb_block_scan(hic) - 1 + (blockIdx.x ? sums[blockIdx.x - 1] : 0);
    if (hic) {
        hv[j] = v;
        hidx[v] = j;
        parent[j] = j;
    }
}

// Step 1: anchor[v] = the smallest hic index among v's neighbours.
extern "C" __global__ void h2_anchor(const int n, const int* __restrict__ indptr,
                                     const int* __restrict__ indices,
                                     const int* __restrict__ colors, const int* __restrict__ st,
                                     const int* __restrict__ hidx, int* __restrict__ anchor)
{
    if (!h2_on(st)) return;
    const int hic = st[GCB_R_HIC];
    gcb_each_vertex<true>(
        n, nullptr, indptr, indices, [&](int) { return true; },
        [&](int, int u) { return colors[u] == hic ? (unsigned)hidx[u] : FULL_MASK; },
        [&](int v, unsigned least) { anchor[v] = least == FULL_MASK ? -1 : (int)least; });
}

// Step 2: hic vertices with a common neighbour share one set.
extern "C" __global__ void h2_union(const int n, const int* __restrict__ indptr,
                                    const int* __restrict__ indices,
                                    const int* __restrict__ colors, const int* __restrict__ st,
                                    const int* __restrict__ hidx, const int* __restrict__ anchor,
                                    int* __restrict__ parent)
{
    if (!h2_on(st)) return;
    const int hic = st[GCB_R_HIC], h = st[GCB_R_H];
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
extern "C" __global__ void h2_sets(const int* __restrict__ st, int* __restrict__ parent,
                                   unsigned* __restrict__ avail)
{
    if (!h2_on(st)) return;
    const int hic = st[GCB_R_HIC], h = st[GCB_R_H];
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
                                       const int* __restrict__ st,
                                       const int* __restrict__ anchor,
                                       const int* __restrict__ parent,
                                       unsigned* __restrict__ avail)
{
    if (!h2_on(st)) return;
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices,
        [&](int v) { return anchor[v] >= 0 && (unsigned)colors[v] < GCB_H2_COLORS; },
        [&](int, int u) { return (unsigned)colors[u] < GCB_H2_COLORS ? MSB >> colors[u] : 0u; },
        [&](int v, unsigned used) {
            atomicAnd(&avail[(size_t)parent[anchor[v]] * GCB_H2_COLORS + colors[v]], ~used);
        });
}

// Step 4b: the snapshot of the h sets' bitmaps that step 5 decides on.
extern "C" __global__ void h2_snapshot(const int* __restrict__ st,
                                       const unsigned* __restrict__ avail,
                                       unsigned* __restrict__ before)
{
    if (!h2_on(st)) return;
    const size_t words = (size_t)st[GCB_R_H] * GCB_H2_COLORS;
    for (size_t i = gcb_tid(); i < words; i += gcb_stride()) before[i] = avail[i];
}

// Step 5: adjacent neighbours v (set s, color c) and u (set t != s, color d) must not both move
// to one color: the smaller bitmap of the snapshot `before` (ties: the smaller set index) loses
// the larger one's colors. Decided on the snapshot, so the result is order-independent.
extern "C" __global__ void h2_resolve(const int n, const int* __restrict__ indptr,
                                      const int* __restrict__ indices,
                                      const int* __restrict__ colors,
                                      const int* __restrict__ st,
                                      const int* __restrict__ anchor,
                                      const int* __restrict__ parent,
                                      const unsigned* __restrict__ before,
                                      unsigned* __restrict__ avail)
{
    if (!h2_on(st)) return;
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
extern "C" __global__ void h2_choose(const int* __restrict__ st, const int* __restrict__ parent,
                                     const unsigned* __restrict__ avail, int* __restrict__ choice)
{
    if (!h2_on(st)) return;
    const int hic = st[GCB_R_HIC], h = st[GCB_R_H];
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

// Step 6b: apply the moves; st's RECOLORED counts the hic vertices that moved.
extern "C" __global__ void h2_apply(int* __restrict__ st, const int* __restrict__ hv,
                                    const int* __restrict__ indptr,
                                    const int* __restrict__ indices, int* __restrict__ colors,
                                    const int* __restrict__ hidx, const int* __restrict__ choice)
{
    if (!h2_on(st)) return;
    gcb_each_vertex<false>(
        st[GCB_R_H], hv, indptr, indices, [&](int v) { return choice[hidx[v]] >= 0; },
        [&](int v, int u) {
            const int pick = choice[hidx[v]];
            if (colors[u] == pick >> 8) colors[u] = pick & 0xff;
            return 0u;
        },
        [&](int v, unsigned) {
            colors[v] = choice[hidx[v]] >> 8;
            atomicAdd(&st[GCB_R_RECOLORED], 1);
        });
}
