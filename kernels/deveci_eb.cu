// Deveci et al.'s edge-based speculative coloring: eb, eb-cs, eb-tent, eb-er (deveci-cmu §3.2).
// A round is AssignColors over the vertices, then DetectConflicts and ForbidColors over the
// lower-triangle edge list (int2: x < y), plus TentativeColor (eb-tent, eb-er) and the edge
// list's compaction (eb-er, fused into ForbidColors); cs_finish turns the color sets' one-hot
// colors into plain ones at the end. Every kernel is a grid-stride loop.
//
// Termination: a round counts the vertices still uncolored after DetectConflicts into its slot's
// left[GCB_EB_C_UNCOLORED] (AssignColors adds the ones that found no color, DetectConflicts the
// ones it uncolors); eb-er's ForbidColors counts the edges it keeps into left[GCB_EB_C_KEPT],
// the next round's edge count. Every kernel of a round is gated by its slot (`before`, what the
// last round left: gcb_open in common.cuh). The fields are deveci.Counter in
// gcbench/algorithms/gpu/deveci.py, passed to every compile as -D defines; the defaults below
// serve a compile without them (CI's nvcc -ptx), and tests/algorithms/gpu/test_kernel_constants.py
// checks that they agree.
//
// Compile-time parameters of the color-set kernels (cs_*, tent_*):
//   GCB_EB_WIDTH        colors per color set (32 for eb-cs; 31 with tentative colors, whose
//                       top bit marks a color as tentative; tests use 2)
//   GCB_EB_TENTATIVE    1 when tentative colors exist (eb-tent, eb-er)
//   GCB_EB_PAPER_RESET  1 = the paper's AssignColors, which the report's appendix shows
//                       livelocking: a vertex with no free color advances its color set only
//                       while VForbidden still has a free bit. 0 = the report's correction:
//                       advance whenever no color is free. Tests only.
#include "common.cuh"

#ifndef GCB_EB_WIDTH
#define GCB_EB_WIDTH 31
#endif
#ifndef GCB_EB_TENTATIVE
#define GCB_EB_TENTATIVE 1
#endif
#ifndef GCB_EB_PAPER_RESET
#define GCB_EB_PAPER_RESET 0
#endif
#ifndef GCB_EB_REMOVAL
#define GCB_EB_REMOVAL 0
#endif

static_assert(GCB_EB_WIDTH >= 1 && GCB_EB_WIDTH <= 32, "a color set is one 32-bit word");
static_assert(!GCB_EB_TENTATIVE || GCB_EB_WIDTH <= 31, "tentative colors need the top bit");

#ifndef GCB_EB_C_UNCOLORED
#define GCB_EB_C_UNCOLORED 0
#endif
#ifndef GCB_EB_C_KEPT
#define GCB_EB_C_KEPT 1
#endif
static_assert(GCB_EB_C_UNCOLORED == 0 && GCB_EB_C_KEPT < GCB_SLOT_WIDTH,
              "a slot holds both fields, the uncolored count first (it ends the coloring)");

#define GCB_EB_MASK (GCB_EB_WIDTH == 32 ? 0xffffffffu : ((1u << (GCB_EB_WIDTH % 32)) - 1u))
#define GCB_EB_SIGN 0x80000000u

// The edges a kernel of pass p works on (its pass from gcb_locate: the host names p, or
// sync=graph's round counter does). Without edge removal: all of them (`count`, `every`). With
// it (eb-er, GCB_EB_REMOVAL): the list round p - 1 kept, whose length is the KEPT field of the
// pass's slot (round 0: `every` edge, slot 0 holds m), or, for `kept`, the list this round keeps,
// counted into the KEPT field of the next slot; kept lists alternate between buf0 and buf1.
struct EbEdges {
    const int* count;
    const int2* edges;
};
__device__ __forceinline__ EbEdges eb_edges(const gcb_pass& here, const int* count,
                                            const int2* every, const int2* buf0, const int2* buf1,
                                            const bool kept)
{
    if (!GCB_EB_REMOVAL) return {count, every};
    if (kept) return {here.left + GCB_EB_C_KEPT, (here.p & 1) ? buf1 : buf0};
    return {here.before + GCB_EB_C_KEPT, here.p == 0 ? every : ((here.p & 1) ? buf0 : buf1)};
}

// The lowest bit of the color set that `banned` leaves free (0 when none is).
__device__ __forceinline__ unsigned int eb_first_free(const unsigned int banned)
{
    const unsigned int free = ~banned & GCB_EB_MASK;
    return free & (0u - free);
}

// ------------------------------------------------------------------------------------- eb
// Plain colors (int, -1 uncolored) and the unbounded forbidden array: vertex v owns deg(v) + 1
// flags at indptr[v] + v, set once a colored neighbour shows that color (never cleared: a
// colored vertex after DetectConflicts is final). Its smallest free color is at most deg(v).

extern "C" __global__ void eb_assign(const int n, const int* __restrict__ indptr, int* colors,
                                     const unsigned char* __restrict__ forbidden,
                                     const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        if (colors[v] >= 0) continue;
        const unsigned char* __restrict__ mine = forbidden + (long long)indptr[v] + v;
        int c = 0;
        while (mine[c]) c++;
        colors[v] = c;
    }
}

extern "C" __global__ void eb_detect(const int* __restrict__ count, const int2* __restrict__ edges,
                                     int* colors, const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int m = *count;
    for (int i = gcb_tid(); i < m; i += gcb_stride()) {
        const int2 e = edges[i];
        const int c = colors[e.x];
        bool uncolored = false;
        if (c >= 0 && c == colors[e.y])
            uncolored = atomicCAS(colors + e.x, c, GCB_UNCOLORED) == c;
        gcb_count(here.left + GCB_EB_C_UNCOLORED, uncolored);
    }
}

// Forbid the color of the colored end for the uncolored end (when it is in its window).
__device__ __forceinline__ void eb_forbid_one(const int v, const int c,
                                              const int* __restrict__ indptr,
                                              unsigned char* __restrict__ forbidden)
{
    const int begin = indptr[v];
    if (c <= indptr[v + 1] - begin) forbidden[(long long)begin + v + c] = 1;
}

extern "C" __global__ void eb_forbid(const int* __restrict__ count, const int2* __restrict__ edges,
                                     const int* __restrict__ colors,
                                     const int* __restrict__ indptr,
                                     unsigned char* __restrict__ forbidden,
                                     const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int m = *count;
    for (int i = gcb_tid(); i < m; i += gcb_stride()) {
        const int2 e = edges[i];
        const int cx = colors[e.x], cy = colors[e.y];
        if (cx < 0 && cy >= 0) eb_forbid_one(e.x, cy, indptr, forbidden);
        else if (cy < 0 && cx >= 0) eb_forbid_one(e.y, cx, indptr, forbidden);
    }
}

// ------------------------------------------------------------- eb-cs, eb-tent, eb-er
// One-hot colors inside a color set: colors[v] has the bit of v's color in set sets[v]
// (0 = uncolored; with GCB_EB_TENTATIVE the top bit marks a tentative color), vf[v] the
// colors of v's set its colored neighbours hold, tv[v] those its neighbours hold or were given
// tentatively in the last TentativeColor pass.

extern "C" __global__ void cs_assign(const int n, unsigned int* colors, int* __restrict__ sets,
                                     unsigned int* __restrict__ vf,
                                     unsigned int* __restrict__ tv,
                                     const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const unsigned int c = colors[v];
        bool open = false;
        if (GCB_EB_TENTATIVE && (c & GCB_EB_SIGN)) {
            colors[v] = c & ~GCB_EB_SIGN;  // a tentative color becomes solid
            tv[v] = 0;
        } else if (!c) {
            const unsigned int banned = vf[v] | (GCB_EB_TENTATIVE ? tv[v] : 0u);
            const unsigned int color = eb_first_free(banned);
            if (color) {
                colors[v] = color;
            } else {
                open = true;
                if (!GCB_EB_PAPER_RESET || (vf[v] & GCB_EB_MASK) != GCB_EB_MASK) {
                    sets[v]++;
                    vf[v] = 0;
                }
            }
            if (GCB_EB_TENTATIVE) tv[v] = 0;
        }
        gcb_count(here.left + GCB_EB_C_UNCOLORED, open);
    }
}

extern "C" __global__ void cs_detect(const int* count, const int2* every, const int2* buf0,
                                     const int2* buf1, unsigned int* colors,
                                     const int* __restrict__ sets,
                                     const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const EbEdges list = eb_edges(here, count, every, buf0, buf1, false);
    const int m = *list.count;
    for (int i = gcb_tid(); i < m; i += gcb_stride()) {
        const int2 e = list.edges[i];
        const unsigned int c = colors[e.x];
        bool uncolored = false;
        if (c && c == colors[e.y] && sets[e.x] == sets[e.y])
            uncolored = atomicCAS(colors + e.x, c, 0u) == c;
        gcb_count(here.left + GCB_EB_C_UNCOLORED, uncolored);
    }
}

// ForbidColors; with COMPACT (eb-er) also the edge removal of §3.2.3: an edge stays on the list
// unless both ends are colored, or one is and its color set is not above the other end's
// (same set: its color is now in the other's vf; lower set: the other end never comes back
// down to it). Kept edges go to `next`, their count to left[GCB_EB_C_KEPT].
template <bool COMPACT>
__device__ __forceinline__ void cs_forbid(const int* __restrict__ count,
                                          const int2* __restrict__ edges,
                                          const unsigned int* __restrict__ colors,
                                          const int* __restrict__ sets,
                                          unsigned int* __restrict__ vf, int2* __restrict__ next,
                                          int* __restrict__ left)
{
    const int m = *count;
    for (int i = gcb_tid(); i < m; i += gcb_stride()) {
        const int2 e = edges[i];
        const unsigned int cx = colors[e.x], cy = colors[e.y];
        const bool one = !cx != !cy;  // exactly one end colored: the only case sets matter
        const int sx = one ? sets[e.x] : 0, sy = one ? sets[e.y] : 0;
        if (one && sx == sy) atomicOr(cx ? vf + e.y : vf + e.x, cx | cy);
        if (COMPACT) {
            const bool keep = one ? (cx ? sx > sy : sy > sx) : !cx;
            const int slot = gcb_claim(left + GCB_EB_C_KEPT, keep);
            if (keep) next[slot] = e;
        }
    }
}

extern "C" __global__ void cs_forbid_all(const int* __restrict__ count,
                                         const int2* __restrict__ edges,
                                         const unsigned int* __restrict__ colors,
                                         const int* __restrict__ sets,
                                         unsigned int* __restrict__ vf,
                                         const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    cs_forbid<false>(count, edges, colors, sets, vf, nullptr, nullptr);
}

extern "C" __global__ void cs_forbid_compact(const int* count, const int2* every,
                                             const int2* buf0, const int2* buf1,
                                             const unsigned int* __restrict__ colors,
                                             const int* __restrict__ sets,
                                             unsigned int* __restrict__ vf, const int* at,
                                             const int p, const int passes, const int* before,
                                             int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const EbEdges list = eb_edges(here, count, every, buf0, buf1, false);
    int2* next = const_cast<int2*>(eb_edges(here, count, every, buf0, buf1, true).edges);
    cs_forbid<true>(list.count, list.edges, colors, sets, vf, next, here.left);
}

// TentativeColor (§3.2.2) on edges whose ends share a color set and are both not solid:
// two uncolored ends: the larger takes the first color neither end's vf bans, tentatively,
// and bans it for the smaller; one tentative end: its color is banned for the other; two equal
// tentative colors: the smaller end moves to its first color free of its vf and tv.
extern "C" __global__ void tent_color(const int* count, const int2* every, const int2* buf0,
                                      const int2* buf1, unsigned int* colors,
                                      const int* __restrict__ sets,
                                      const unsigned int* __restrict__ vf,
                                      unsigned int* __restrict__ tv,
                                      const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const EbEdges list = eb_edges(here, count, every, buf0, buf1, true);
    const int m = *list.count;
    for (int i = gcb_tid(); i < m; i += gcb_stride()) {
        const int2 e = list.edges[i];
        const unsigned int cx = colors[e.x], cy = colors[e.y];
        const bool tx = cx & GCB_EB_SIGN, ty = cy & GCB_EB_SIGN;
        if ((cx && !tx) || (cy && !ty) || sets[e.x] != sets[e.y]) continue;  // a solid end
        if (!cx && !cy) {
            const unsigned int t = eb_first_free(vf[e.x] | vf[e.y]);
            if (t) {
                colors[e.y] = t | GCB_EB_SIGN;
                atomicOr(tv + e.x, t);
            }
        } else if (tx && !cy) {
            atomicOr(tv + e.y, cx & GCB_EB_MASK);
        } else if (ty && !cx) {
            atomicOr(tv + e.x, cy & GCB_EB_MASK);
        } else if (tx && cx == cy) {
            const unsigned int t = eb_first_free(vf[e.x] | tv[e.x]);
            colors[e.x] = t ? (t | GCB_EB_SIGN) : 0u;
            if (t) atomicOr(tv + e.y, t);
        }
    }
}

// The final 0-based colors: set * width + bit position, -1 where uncolored.
extern "C" __global__ void cs_finish(const int n, const unsigned int* __restrict__ colors,
                                     const int* __restrict__ sets, int* __restrict__ out)
{
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const unsigned int c = colors[v] & GCB_EB_MASK;
        out[v] = c ? sets[v] * GCB_EB_WIDTH + __ffs((int)c) - 1 : GCB_UNCOLORED;
    }
}
