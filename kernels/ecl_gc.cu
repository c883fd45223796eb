// ECL-GC (Alabandi & Burtscher): Jones-Plassmann largest-degree-first coloring with
// shortcuts, on persistent asynchronous kernels, plus the color-reduction heuristics
// (ecl-gc §2-4, Alg. 1-5). The coloring equals serial first-fit greedy in the order
// (degree, hash32(v), v), largest first (DESIGN §3), for every shortcut setting.
//
// State per vertex (only ever monotone: bits are cleared, best colors rise):
//   posscol[v]  possible colors 0..31, MSB-first (color c is bit 31-c), so the best color
//               is a count-leading-zeros and the worst one is cleared with x & (x - 1).
//               A low-degree vertex is colored once one bit is left. A colored high-degree
//               vertex publishes its color here too (0 when the color is 32 or more).
//   pending[v]  low degree: the adjacency positions of the higher-priority neighbours still
//               to resolve, MSB-first, plus bit 0 set once Shortcut 2 dropped an edge to an
//               uncolored neighbour. High degree: how many in-neighbours remain in dag[].
//   hstate[v]   high degree only: worst color (= number of in-neighbours) << 32 | best
//               color while uncolored, COLORED << 32 | color once colored. 32 bits each, so
//               nothing overflows where the original's 16-bit fields trap.
//   hbits[]     high degree colors 32..k, word indptr[v] / 32 + c / 32 (the words of two
//               vertices never overlap because each vertex has at least 32 edges).
#include "common.cuh"

#ifndef GCB_BLOCK
#define GCB_BLOCK 512
#endif
#ifndef GCB_MIN_BLOCKS
#define GCB_MIN_BLOCKS 1
#endif

#define FULL_MASK GCB_FULL_MASK
#define MSB GCB_MSB
#define HIGH_DEGREE 32
#define COLORED 0xffffffffu
#define USE_SC1 1
#define USE_SC2 2

// counters[] slots, mirrored in gcbench/algorithms/gpu/ecl_gc.py
#define C_WORKLIST 0
#define C_CAPPED 1
#define C_PASSES_HIGH 2
#define C_PASSES_LOW 3
#define C_INIT 4
#define C_SHORTCUT 5
#define C_CONVENTIONAL 6

__device__ __forceinline__ unsigned lanemask_lt() { return (1u << (threadIdx.x & 31)) - 1u; }

// Colors 0..k as an MSB-first word (all 32 bits once k >= 31).
__device__ __forceinline__ unsigned first_colors(const int k)
{
    return k >= 31 ? FULL_MASK : ~(FULL_MASK >> (k + 1));
}

// Priority of DESIGN §3: (degree, hash32, id), larger first. Is u before v?
__device__ __forceinline__ bool precedes(const int u, const int du, const int v, const int dv)
{
    if (du != dv) return du > dv;
    const unsigned hu = gcb_hash32(u), hv = gcb_hash32(v);
    if (hu != hv) return hu > hv;
    return u > v;
}

__device__ __forceinline__ unsigned long long pack(const unsigned hi, const unsigned lo)
{
    return ((unsigned long long)hi << 32) | lo;
}

// Another thread's possible colors, read and written at gpu scope (ld/st.relaxed.gpu): coherent
// in L2 like a volatile access, which compiles to the costlier system scope (measured 2-3%).
__device__ __forceinline__ unsigned load_state(const volatile unsigned* p)
{
    unsigned x;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(x) : "l"(p) : "memory");
    return x;
}

__device__ __forceinline__ void store_state(volatile unsigned* p, const unsigned x)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(x) : "memory");
}

// ---------------------------------------------------------------------------------------------
// Alg. 1: priorities, the DAG of higher-priority neighbours, initial possible colors, and the
// worklist of high-degree vertices. Low-degree vertices at thread granularity, high-degree
// ones by the whole warp (ballot-compacted into dag[]). Roots (no in-neighbour) take color 0.
extern "C" __global__ void __launch_bounds__(GCB_BLOCK) ecl_init(
    const int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    int* __restrict__ dag, unsigned* __restrict__ posscol, unsigned* __restrict__ pending,
    unsigned long long* __restrict__ hstate, unsigned* __restrict__ hbits,
    int* __restrict__ worklist, int* __restrict__ colors, int* __restrict__ counters)
{
    const int lane = threadIdx.x & 31;
    int roots = 0;
    for (int base = gcb_tid() - lane; base < n; base += gcb_stride()) {
        const int v = base + lane;
        int beg = 0, deg = 0;
        if (v < n) {
            beg = indptr[v];
            deg = indptr[v + 1] - beg;
        }
        const bool high = v < n && deg >= HIGH_DEGREE;
        if (v < n && !high) {
            unsigned active = 0;
            for (int i = 0; i < deg; i++) {
                const int u = indices[beg + i];
                if (precedes(u, indptr[u + 1] - indptr[u], v, deg)) active |= MSB >> i;
            }
            const int k = __popc(active);
            posscol[v] = first_colors(k);
            pending[v] = active;
            colors[v] = k == 0 ? 0 : GCB_UNCOLORED;
            roots += k == 0;
        }
        const unsigned highs = __ballot_sync(FULL_MASK, high);
        if (highs) {
            int slot = 0;
            if (lane == 0) slot = atomicAdd(&counters[C_WORKLIST], __popc(highs));
            slot = __shfl_sync(FULL_MASK, slot, 0);
            if (high) worklist[slot + __popc(highs & lanemask_lt())] = v;
        }
        for (unsigned todo = highs; todo; todo &= todo - 1) {
            const int src = __ffs(todo) - 1;
            const int w = __shfl_sync(FULL_MASK, v, src);
            const int wbeg = __shfl_sync(FULL_MASK, beg, src);
            const int wdeg = __shfl_sync(FULL_MASK, deg, src);
            int k = 0;
            for (int i0 = 0; i0 < wdeg; i0 += 32) {
                const int i = i0 + lane;
                int u = 0;
                bool in = false;
                if (i < wdeg) {
                    u = indices[wbeg + i];
                    in = precedes(u, indptr[u + 1] - indptr[u], w, wdeg);
                }
                const unsigned b = __ballot_sync(FULL_MASK, in);
                if (in) dag[wbeg + k + __popc(b & lanemask_lt())] = u;
                k += __popc(b);
            }
            for (int j = 1 + lane; j <= k / 32; j += 32) hbits[wbeg / 32 + j] = FULL_MASK;
            if (lane == src) {
                posscol[w] = first_colors(k);
                pending[w] = k;
                hstate[w] = k == 0 ? pack(COLORED, 0) : pack(k, 0);
                colors[w] = k == 0 ? 0 : GCB_UNCOLORED;
                roots += k == 0;
            }
        }
    }
    roots = __reduce_add_sync(FULL_MASK, roots);
    if (lane == 0 && roots) atomicAdd(&counters[C_INIT], roots);
}

// First set bit at or above color `from` among colors 32..worst of a high-degree vertex,
// searched by the whole warp 32 words at a time. A set bit <= worst always exists: at most
// worst in-neighbours clear one bit each of the worst + 1 colors.
__device__ __forceinline__ int high_best(const volatile unsigned* __restrict__ words,
                                         const int from, const int worst, const int lane)
{
    const int last = worst / 32;
    for (int j0 = max(1, from / 32); j0 <= last; j0 += 32) {
        const int j = j0 + lane;
        const unsigned x = j <= last ? words[j] : 0u;
        const unsigned hit = __ballot_sync(FULL_MASK, x != 0);
        if (hit) {
            const int src = __ffs(hit) - 1;
            return (j0 + src) * 32 + __clz(__shfl_sync(FULL_MASK, x, src));
        }
    }
    return worst;
}

// Alg. 2: the high-degree vertices of the worklist, one warp per vertex, persistent and
// asynchronous. Colored in-neighbours clear their color and leave dag[] (compacted in
// place); Shortcut 1 is approximated with each uncolored in-neighbour's [best, worst] range.
extern "C" __global__ void __launch_bounds__(GCB_BLOCK, GCB_MIN_BLOCKS) ecl_high(
    const int* __restrict__ indptr, int* __restrict__ dag, volatile unsigned* __restrict__ posscol,
    volatile unsigned* __restrict__ pending, volatile unsigned long long* __restrict__ hstate,
    volatile unsigned* __restrict__ hbits, const int* __restrict__ worklist,
    int* __restrict__ colors, int* __restrict__ counters, int* __restrict__ trace,
    const int shortcuts, const int cap, const int trace_len)
{
    const int lane = threadIdx.x & 31;
    const int warp = (gcb_tid() - lane) / 32;
    const int warps = gcb_stride() / 32;
    const int size = counters[C_WORKLIST];
    if (size == 0) return;
    int by_shortcut = 0, conventional = 0, pass = 0;
    for (bool again = true; again; pass++) {
        if (pass == cap) {
            if (lane == 0) atomicExch(&counters[C_CAPPED], 1);
            break;
        }
        again = false;
        int colored = 0;
        for (int item = warp; item < size; item += warps) {
            // per-vertex values are broadcast from lane 0 so that every lane takes the same path
            const int v = worklist[item];
            const unsigned long long sv = __shfl_sync(FULL_MASK, hstate[v], 0);
            if ((unsigned)(sv >> 32) == COLORED) continue;
            const int worst = (int)(sv >> 32), best = (int)(unsigned)sv;
            const int beg = indptr[v];
            const int count = __shfl_sync(FULL_MASK, (int)pending[v], 0);
            volatile unsigned* const words = hbits + beg / 32;
            unsigned taken = 0;  // colors < 32 of colored in-neighbours seen by this lane
            bool blocked = false;  // an uncolored in-neighbour may still take `best`
            int kept = 0;
            for (int i0 = 0; i0 < count; i0 += 32) {
                const int i = i0 + lane;
                int u = 0;
                bool keep = false;
                if (i < count) {
                    u = dag[beg + i];
                    const unsigned long long su = hstate[u];
                    const unsigned hi = (unsigned)(su >> 32), lo = (unsigned)su;
                    if (hi == COLORED) {
                        if (lo < 32)
                            taken |= MSB >> lo;
                        else if ((int)lo >= best && (int)lo <= worst)
                            atomicAnd((unsigned*)&words[lo / 32], ~(MSB >> (lo % 32)));
                    } else {
                        keep = true;
                        blocked |= (int)lo <= best && best <= (int)hi;
                    }
                }
                const unsigned b = __ballot_sync(FULL_MASK, keep);
                if (keep) dag[beg + kept + __popc(b & lanemask_lt())] = u;
                kept += __popc(b);
            }
            taken = __reduce_or_sync(FULL_MASK, taken);
            blocked = __any_sync(FULL_MASK, blocked);
            __syncwarp();
            const unsigned first = __shfl_sync(FULL_MASK, posscol[v], 0) & ~taken;
            const int nbest = first ? __clz(first) : high_best(words, best, worst, lane);
            const bool shortcut = (shortcuts & USE_SC1) && kept > 0 && !blocked && nbest == best;
            if (kept == 0 || shortcut) {
                if (lane == 0) {
                    colors[v] = nbest;
                    posscol[v] = nbest < 32 ? MSB >> nbest : 0u;
                    hstate[v] = pack(COLORED, nbest);
                }
                colored++;
                by_shortcut += shortcut;
                conventional += !shortcut;
            } else {
                if (lane == 0) {
                    posscol[v] = first;
                    pending[v] = kept;
                    if (nbest != best) hstate[v] = pack(worst, nbest);
                }
                again = true;
            }
            __syncwarp();
        }
        if (lane == 0 && colored) atomicAdd(&trace[min(pass, trace_len - 1)], colored);
    }
    if (lane == 0) {
        atomicMax(&counters[C_PASSES_HIGH], pass);
        if (by_shortcut) atomicAdd(&counters[C_SHORTCUT], by_shortcut);
        if (conventional) atomicAdd(&counters[C_CONVENTIONAL], conventional);
    }
}

// Alg. 3: every remaining (low-degree) vertex, one thread each, persistent and asynchronous,
// with 32-bit bitmaps; both shortcuts exact. Runs after ecl_high, so every high-degree
// neighbour is already colored and published in posscol (0 for colors >= 32).
// A visit is bound by dependent loads and, on graphs larger than L2, by the bytes of the
// vertices still waiting (docs/ecl-gc.md, "Performance"):
// - the pending in-neighbours are read LOW_BATCH at a time so their loads overlap (reading
//   a neighbour early is just an older, still valid, view);
// - a register mask remembers which of a thread's first 64 vertices are done, and the state
//   of its first vertex stays in registers (all of it when n <= the grid's threads);
// - LOW_SYNC (chosen per graph by the launcher): a block's threads visit their vertices in
//   step, a barrier per step, so each pass sweeps consecutive ids and its working set stays
//   in L2 (the original's runSmall has that barrier); it pays off once the graph is over
//   twice the L2 and costs barriers below that.
#define LOW_BATCH 4
#ifndef LOW_SYNC
#define LOW_SYNC 0
#endif
extern "C" __global__ void __launch_bounds__(GCB_BLOCK, GCB_MIN_BLOCKS) ecl_low(
    const int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    volatile unsigned* __restrict__ posscol, unsigned* __restrict__ pending,
    int* __restrict__ colors, int* __restrict__ counters, int* __restrict__ trace,
    const int shortcuts, const int cap, const int trace_len)
{
    if (*(volatile int*)&counters[C_CAPPED]) return;
    const int lane = threadIdx.x & 31;
    int by_shortcut = 0, conventional = 0, pass = 0;
    unsigned long long finished = 0;  // bit j: this thread's j-th vertex is colored
    unsigned first_pcol = 0, first_keep = 0;  // the first vertex's state once visited
    int first_beg = -1;
    for (bool again = true; again; pass++) {
        if (pass == cap) {
            if (lane == 0) atomicExch(&counters[C_CAPPED], 1);
            break;
        }
        bool waiting = false;
        int colored = 0, j = 0;
        // block-uniform trip count: the barriers and warp votes see every thread
        for (int base = blockIdx.x * blockDim.x; base < n; base += gcb_stride(), j++) {
#if LOW_SYNC
            __syncthreads();  // the block's threads step through their vertices together
#endif
            const int v = base + threadIdx.x;
            const unsigned long long me = j < 64 ? 1ull << j : 0ull;
            if (v >= n || (finished & me)) continue;
            unsigned pcol, keep;
            int beg;
            if (j == 0 && first_beg >= 0) {
                pcol = first_pcol;
                keep = first_keep;
                beg = first_beg;
            } else {
                // v's own state in one round trip: the mask above already says v is open
                // (only this thread colors v), so indptr and pending are rarely wasted
                pcol = load_state(&posscol[v]);
                beg = indptr[v];
                keep = pending[v];
                if (__popc(pcol) <= 1) {  // a root, colored by ecl_init
                    finished |= me;
                    continue;
                }
            }
            unsigned others = 0;  // union of the possible colors of uncolored in-neighbours
            for (unsigned todo = keep & ~1u; todo;) {
                unsigned batch = 0, np[LOW_BATCH];
                int u[LOW_BATCH];
#pragma unroll
                for (int k = 0; k < LOW_BATCH; k++) {
                    const unsigned bit = todo ? MSB >> __clz(todo) : 0u;
                    todo ^= bit;
                    batch |= bit;
                    u[k] = bit ? indices[beg + __clz(bit)] : -1;
                }
#pragma unroll
                for (int k = 0; k < LOW_BATCH; k++)
                    np[k] = u[k] >= 0 ? load_state(&posscol[u[k]]) : 0u;  // no load for a gap
#pragma unroll
                for (int k = 0; k < LOW_BATCH; k++) {
                    if (!batch) break;
                    const unsigned bit = MSB >> __clz(batch);
                    batch ^= bit;
                    if (__popc(np[k]) <= 1) {  // colored: its color is no longer possible
                        if (pcol & np[k])
                            pcol ^= np[k];
                        else if (shortcuts & USE_SC2)
                            pcol &= pcol - 1;  // the edge never mattered: drop the worst color
                        keep ^= bit;
                    } else if ((shortcuts & USE_SC2) && !(pcol & np[k])) {  // Shortcut 2
                        pcol &= pcol - 1;
                        keep = (keep ^ bit) | 1u;
                    } else {
                        others |= np[k];
                    }
                }
            }
            const unsigned best = MSB >> __clz(pcol);
            const bool open = keep & ~1u;
            const bool shortcut = open && (shortcuts & USE_SC1) && !(best & others);
            if (!open || shortcut) {
                pcol = best;
                colors[v] = __clz(best);
                finished |= me;
                colored++;
                const bool early = shortcut || (keep & 1u);
                by_shortcut += early;
                conventional += !early;
            } else if (j == 0) {
                first_pcol = pcol;
                first_keep = keep;
                first_beg = beg;
                waiting = true;
            } else {
                pending[v] = keep;  // unconditional stores measured faster than guarded ones
                waiting = true;
            }
            store_state(&posscol[v], pcol);
        }
        colored = __reduce_add_sync(FULL_MASK, colored);
        if (lane == 0 && colored) atomicAdd(&trace[min(pass, trace_len - 1)], colored);
#if LOW_SYNC
        again = __syncthreads_or(waiting);
#else
        again = __any_sync(FULL_MASK, waiting);
#endif
    }
    by_shortcut = __reduce_add_sync(FULL_MASK, by_shortcut);
    conventional = __reduce_add_sync(FULL_MASK, conventional);
    if (lane == 0) {
        atomicMax(&counters[C_PASSES_LOW], pass);
        if (by_shortcut) atomicAdd(&counters[C_SHORTCUT], by_shortcut);
        if (conventional) atomicAdd(&counters[C_CONVENTIONAL], conventional);
    }
}
