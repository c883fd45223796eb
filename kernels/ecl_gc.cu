// ECL-GC (Alabandi & Burtscher): Jones-Plassmann largest-degree-first coloring with
// shortcuts, on persistent asynchronous kernels (ecl-gc §2-3, Alg. 1-3): ecl_init and ecl_dag
// (Alg. 1), ecl_high (Alg. 2, the vertices of degree >= GCB_HIGH_DEGREE) and ecl_low (Alg. 3,
// the rest).
// The coloring equals serial first-fit greedy in the order (degree, hash32(v), v), largest
// first (docs/architecture.md, "Priorities and ties"), for every shortcut setting. The color
// reduction (ecl-gc §4, Alg. 4-5) is kernels/reduction.cu, shared with every GPU algorithm.
//
// State per vertex (only ever monotone: bits are cleared, best colors rise):
//   posscol[v]  possible colors 0..31, MSB-first (color c is bit 31-c), so the best color
//               is a count-leading-zeros and the worst one is cleared with x & (x - 1).
//               A low-degree vertex is colored once one bit is left. A colored high-degree
//               vertex publishes its color here too (0 when the color is 32 or more).
//   pending[v]  low degree: the adjacency positions of the higher-priority neighbours still
//               to resolve, MSB-first, plus bit 0 set once Shortcut 2 dropped an edge to an
//               uncolored neighbour; ecl_init writes it, and ecl_low keeps the live copy in
//               the vertex's entry (waiting[], or a lane's registers). High degree: how many
//               in-neighbours remain in dag[].
//   hstate[v]   high degree only: worst color (= number of in-neighbours) << 32 | best
//               color while uncolored, COLORED << 32 | color once colored. 32 bits each, so
//               nothing overflows where the original's 16-bit fields trap.
//   hbits[]     high degree colors 32..k, word indptr[v] / 32 + c / 32 (the words of two
//               vertices never overlap because each vertex has at least 32 edges).
//   waiting[]   the per-warp lists of the low-degree vertices still waiting (ecl_low).
//   worklist[]  the vertices of degree >= GCB_HIGH_DEGREE: the front part from index 0, the
//               core part (the largest degrees, ecl_high's fronts) from index n - 1 down.
//   counters[]  GCB_COUNTERS ints: both parts' lengths, whether a kernel hit its pass cap,
//               the passes each coloring kernel made and the colorings by kind (GCB_C_*).
//
// Each compile gets, as -D defines, the module's variant (GCB_BLOCK, GCB_MIN_BLOCKS and
// GCB_SHORTCUTS, bit 0: Shortcut 1, bit 1: Shortcut 2: each setting is its own module, so the
// visit's per-neighbour steps carry no test of it) and the constants the launcher shares
// (GCB_HIGH_DEGREE, GCB_TRACE_COPIES, GCB_COUNTERS and the counters[] slots GCB_C_*, defined
// once in gcbench/algorithms/gpu/ecl_gc.py). The defaults below serve a compile without them
// (CI's nvcc -ptx); tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#include "common.cuh"

#ifndef GCB_BLOCK
#define GCB_BLOCK 512
#endif
#ifndef GCB_MIN_BLOCKS
#define GCB_MIN_BLOCKS 1
#endif
#ifndef GCB_SHORTCUTS
#define GCB_SHORTCUTS 3
#endif

// Degree from which a vertex is on ecl_high's worklist: a low-degree vertex keeps its pending
// adjacency positions in bits 31..1 of a word (deg <= 31), and hbits needs 32 edges a vertex.
#ifndef GCB_HIGH_DEGREE
#define GCB_HIGH_DEGREE 32
#endif
static_assert(GCB_HIGH_DEGREE == 32, "pending[] and hbits[] are laid out for degree 32");

// A kernel's per-pass trace is GCB_TRACE_COPIES copies of trace_len slots, summed by the host:
// a warp adds to copy (warp % GCB_TRACE_COPIES), so the warps ending a pass together do not all
// queue on one L2 address (one copy was slower: docs/ecl-gc.md, "Trace").
#ifndef GCB_TRACE_COPIES
#define GCB_TRACE_COPIES 32
#endif

// counters[] slots (ecl_gc.Counter) and their number.
#ifndef GCB_COUNTERS
#define GCB_COUNTERS 16
#endif
#ifndef GCB_C_WORKLIST
#define GCB_C_WORKLIST 0
#endif
#ifndef GCB_C_CAPPED
#define GCB_C_CAPPED 1
#endif
#ifndef GCB_C_PASSES_HIGH
#define GCB_C_PASSES_HIGH 2
#endif
#ifndef GCB_C_PASSES_LOW
#define GCB_C_PASSES_LOW 3
#endif
#ifndef GCB_C_INIT
#define GCB_C_INIT 4
#endif
#ifndef GCB_C_SHORTCUT
#define GCB_C_SHORTCUT 5
#endif
#ifndef GCB_C_CONVENTIONAL
#define GCB_C_CONVENTIONAL 6
#endif
#ifndef GCB_C_CORE
#define GCB_C_CORE 7
#endif
static_assert(GCB_C_WORKLIST < GCB_COUNTERS && GCB_C_CAPPED < GCB_COUNTERS &&
                  GCB_C_PASSES_HIGH < GCB_COUNTERS && GCB_C_PASSES_LOW < GCB_COUNTERS &&
                  GCB_C_INIT < GCB_COUNTERS && GCB_C_SHORTCUT < GCB_COUNTERS &&
                  GCB_C_CONVENTIONAL < GCB_COUNTERS && GCB_C_CORE < GCB_COUNTERS,
              "every counters[] slot lies before the traces");

#define FULL_MASK GCB_FULL_MASK
#define MSB GCB_MSB
#define COLORED 0xffffffffu
#define EMPTY 0xffffffffu  // an entry's vertex when there is none (lane_passes)
#define USE_SC1 (GCB_SHORTCUTS & 1)
#define USE_SC2 (GCB_SHORTCUTS & 2)

__device__ __forceinline__ unsigned lanemask_lt() { return (1u << (threadIdx.x & 31)) - 1u; }

// This warp's copy of a per-pass trace (see GCB_TRACE_COPIES).
__device__ __forceinline__ int* trace_copy(int* __restrict__ trace, const int trace_len)
{
    return trace + (size_t)((gcb_tid() >> 5) % GCB_TRACE_COPIES) * trace_len;
}

// Colors 0..k as an MSB-first word (all 32 bits once k >= 31).
__device__ __forceinline__ unsigned first_colors(const int k)
{
    return k >= 31 ? FULL_MASK : ~(FULL_MASK >> (k + 1));
}

// Priority of docs/architecture.md, "Priorities and ties": (degree, hash32, id), larger first,
// as one 64-bit key compared without branches: hash32 is a bijection, so distinct vertices
// never tie on (degree, hash32) and the id never decides.
__device__ __forceinline__ unsigned long long priority(const int v, const int deg)
{
    return ((unsigned long long)deg << 32) | gcb_hash32(v);
}

__device__ __forceinline__ unsigned long long pack(const unsigned hi, const unsigned lo)
{
    return ((unsigned long long)hi << 32) | lo;
}

// Another thread's possible colors, read and written at gpu scope (ld/st.relaxed.gpu): coherent
// in L2 like a volatile access, which compiles to the costlier system scope (docs/ecl-gc.md,
// "State access").
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
#define INIT_BATCH 4  // neighbours whose degrees ecl_init reads at once

// Alg. 1 for the low-degree vertices: priorities, the in-neighbours as pending adjacency
// positions, the initial possible colors; roots (no in-neighbour) take color 0. The vertices of
// degree >= GCB_HIGH_DEGREE only go on the worklist: ecl_dag builds their in-neighbour lists,
// spread over the grid, so a warp that meets a run of hubs (R-MAT's low ids) does not hold up
// the kernel. Those of degree > core_degree (at most one per ecl_high warp, chosen by the host)
// are the core: they go on the worklist's core part, from its end (worklist[n - 1 - i]),
// GCB_C_CORE of them; the others on its front, GCB_C_WORKLIST of them (docs/ecl-gc.md, "The
// hub phase").
extern "C" __global__ void __launch_bounds__(GCB_BLOCK) ecl_init(
    const int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    unsigned* __restrict__ posscol, unsigned* __restrict__ pending, int* __restrict__ worklist,
    int* __restrict__ colors, int* __restrict__ counters, const int core_degree)
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
        const bool high = v < n && deg >= GCB_HIGH_DEGREE;
        if (v < n && !high) {
            const unsigned long long pv = priority(v, deg);
            unsigned active = 0;
            for (int i0 = 0; i0 < deg; i0 += INIT_BATCH) {  // INIT_BATCH loads in flight at once
                int u[INIT_BATCH], du[INIT_BATCH];
#pragma unroll
                for (int k = 0; k < INIT_BATCH; k++)
                    u[k] = i0 + k < deg ? indices[beg + i0 + k] : -1;
#pragma unroll
                for (int k = 0; k < INIT_BATCH; k++)
                    du[k] = u[k] >= 0 ? indptr[u[k] + 1] - indptr[u[k]] : 0;
#pragma unroll
                for (int k = 0; k < INIT_BATCH; k++)
                    if (u[k] >= 0 && priority(u[k], du[k]) > pv) active |= MSB >> (i0 + k);
            }
            const int k = __popc(active);
            posscol[v] = first_colors(k);
            pending[v] = active;
            colors[v] = k == 0 ? 0 : GCB_UNCOLORED;
            roots += k == 0;
        }
        const unsigned highs = __ballot_sync(FULL_MASK, high && deg <= core_degree);
        if (highs) {
            int slot = 0;
            if (lane == 0) slot = atomicAdd(&counters[GCB_C_WORKLIST], __popc(highs));
            slot = __shfl_sync(FULL_MASK, slot, 0);
            if (highs >> lane & 1u) worklist[slot + __popc(highs & lanemask_lt())] = v;
        }
        const unsigned cores = __ballot_sync(FULL_MASK, high && deg > core_degree);
        if (cores) {
            int slot = 0;
            if (lane == 0) slot = atomicAdd(&counters[GCB_C_CORE], __popc(cores));
            slot = __shfl_sync(FULL_MASK, slot, 0);
            if (cores >> lane & 1u) worklist[n - 1 - slot - __popc(cores & lanemask_lt())] = v;
        }
    }
    roots = __reduce_add_sync(FULL_MASK, roots);
    if (lane == 0 && roots) atomicAdd(&counters[GCB_C_INIT], roots);
}

// Degree from which ecl_dag builds a high-degree vertex's list with a whole block rather than
// one warp: 32 of a warp's 32-neighbour steps.
#define HUB_DEGREE 1024

// Item i of the worklist's two parts as one list: the front's `size` items, then the core's.
__device__ __forceinline__ int listed(const int* __restrict__ worklist, const long long i,
                                      const int size, const int n)
{
    return i < size ? worklist[i] : worklist[n - 1 - (int)(i - size)];
}

// Whether u precedes w (priority pw, see priority()) in the coloring order.
__device__ __forceinline__ bool precedes(const int u, const int* __restrict__ indptr,
                                         const unsigned long long pw)
{
    return priority(u, indptr[u + 1] - indptr[u]) > pw;
}

// One 32-neighbour step of w's row (start wbeg, degree wdeg, priority pw) from position i0:
// this lane's neighbour u (0 past the row) and the warp's ballot of the neighbours that precede
// w, i.e. its in-neighbours in this step.
__device__ __forceinline__ unsigned dag_step(const int i0, const int wbeg, const int wdeg,
                                             const int* __restrict__ indptr,
                                             const int* __restrict__ indices,
                                             const unsigned long long pw, int& u)
{
    const int i = i0 + (threadIdx.x & 31);
    u = i < wdeg ? indices[wbeg + i] : 0;
    return __ballot_sync(FULL_MASK, i < wdeg && precedes(u, indptr, pw));
}

// The rest of Alg. 1 for the high-degree vertex w with k in-neighbours, once its list is
// built: colors 32..k possible (hbits, written by the calling group's `lane` of `lanes`), its
// state, and color 0 if it is a root. Returns whether it is one (counted once, by lane 0).
__device__ __forceinline__ bool high_start(const int w, const int wbeg, const int k,
                                           const int lane, const int lanes,
                                           unsigned* __restrict__ posscol,
                                           unsigned* __restrict__ pending,
                                           unsigned long long* __restrict__ hstate,
                                           unsigned* __restrict__ hbits, int* __restrict__ colors)
{
    for (int j = 1 + lane; j <= k / 32; j += lanes) hbits[wbeg / 32 + j] = FULL_MASK;
    if (lane != 0) return false;
    posscol[w] = first_colors(k);
    pending[w] = k;
    hstate[w] = k == 0 ? pack(COLORED, 0) : pack(k, 0);
    colors[w] = k == 0 ? 0 : GCB_UNCOLORED;
    return k == 0;
}

// Alg. 1 for the worklist's vertices: each one's in-neighbours, ballot-compacted into dag[]
// (from its row start), then high_start. Hubs (degree >= HUB_DEGREE) are built by a whole
// block, its warps appending their 32-neighbour steps through a shared counter (so a hub's
// list is in no fixed order: it is a set, and the colors do not depend on it); the others by
// one warp each. Blocks and warps take the worklist's items interleaved (item i to block i mod
// blocks, resp. warp i mod warps), so runs of neighbouring hubs are spread out.
extern "C" __global__ void __launch_bounds__(GCB_BLOCK) ecl_dag(
    const int n, const int* __restrict__ indptr, const int* __restrict__ indices, int* __restrict__ dag,
    unsigned* __restrict__ posscol, unsigned* __restrict__ pending,
    unsigned long long* __restrict__ hstate, unsigned* __restrict__ hbits,
    const int* __restrict__ worklist, int* __restrict__ colors, int* __restrict__ counters)
{
    __shared__ int hubs[GCB_BLOCK];
    __shared__ int found, kept;
    const int lane = threadIdx.x & 31;
    const int size = counters[GCB_C_WORKLIST], all = size + counters[GCB_C_CORE];
    int roots = 0;
    // hubs, one block each: this block's items are blockIdx.x + j * gridDim.x
    for (long long base = blockIdx.x; base < all; base += (long long)blockDim.x * gridDim.x) {
        if (threadIdx.x == 0) found = 0;
        __syncthreads();
        const long long item = base + (long long)threadIdx.x * gridDim.x;
        if (item < all) {
            const int v = listed(worklist, item, size, n);
            if (indptr[v + 1] - indptr[v] >= HUB_DEGREE) hubs[atomicAdd(&found, 1)] = v;
        }
        __syncthreads();
        for (int h = 0; h < found; h++) {
            const int w = hubs[h], wbeg = indptr[w], wdeg = indptr[w + 1] - wbeg;
            const unsigned long long pw = priority(w, wdeg);
            if (threadIdx.x == 0) kept = 0;
            __syncthreads();
            for (int i0 = threadIdx.x - lane; i0 < wdeg; i0 += blockDim.x) {
                int u;
                const unsigned b = dag_step(i0, wbeg, wdeg, indptr, indices, pw, u);
                int slot = 0;
                if (lane == 0 && b) slot = atomicAdd(&kept, __popc(b));
                slot = __shfl_sync(FULL_MASK, slot, 0);
                if (b >> lane & 1u) dag[wbeg + slot + __popc(b & lanemask_lt())] = u;
            }
            __syncthreads();
            roots += high_start(w, wbeg, kept, threadIdx.x, blockDim.x, posscol, pending, hstate,
                                hbits, colors);
            __syncthreads();  // `kept` is read before the next hub resets it
        }
        __syncthreads();  // `found` is read before the next window resets it
    }
    // the others, one warp each: this warp's items are warp + j * warps, 32 read at once
    const int warp = (gcb_tid() - lane) / 32, warps = gcb_stride() / 32;
    for (long long base = warp; base < all; base += 32LL * warps) {
        const long long item = base + (long long)lane * warps;
        int v = 0, beg = 0, deg = 0;
        if (item < all) {
            v = listed(worklist, item, size, n);
            beg = indptr[v];
            deg = indptr[v + 1] - beg;
        }
        for (unsigned todo = __ballot_sync(FULL_MASK, item < all && deg < HUB_DEGREE); todo;
             todo &= todo - 1) {
            const int src = __ffs(todo) - 1;
            const int w = __shfl_sync(FULL_MASK, v, src);
            const int wbeg = __shfl_sync(FULL_MASK, beg, src);
            const int wdeg = __shfl_sync(FULL_MASK, deg, src);
            const unsigned long long pw = priority(w, wdeg);
            int k = 0;
            for (int i0 = 0; i0 < wdeg; i0 += 32) {
                int u;
                const unsigned b = dag_step(i0, wbeg, wdeg, indptr, indices, pw, u);
                if (b >> lane & 1u) dag[wbeg + k + __popc(b & lanemask_lt())] = u;
                k += __popc(b);
            }
            roots += high_start(w, wbeg, k, lane, 32, posscol, pending, hstate, hbits, colors);
        }
    }
    roots = __reduce_add_sync(FULL_MASK, roots);
    if (lane == 0 && roots) atomicAdd(&counters[GCB_C_INIT], roots);
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

// Alg. 2, one visit of the uncolored high-degree vertex v by its warp (every argument
// warp-uniform: sv = hstate[v], beg = indptr[v], count = pending[v], pcol = posscol[v], read
// by v's lane beforehand). Colored in-neighbours clear their color and leave dag[] (compacted
// in place); Shortcut 1 is approximated with each uncolored in-neighbour's [best, worst]
// range. Returns whether v was colored.
__device__ __forceinline__ bool high_visit(const int v, const unsigned long long sv,
                                           const int beg, const int count, const unsigned pcol,
                                           int* __restrict__ dag,
                                           volatile unsigned* __restrict__ posscol,
                                           volatile unsigned* __restrict__ pending,
                                           volatile unsigned long long* __restrict__ hstate,
                                           volatile unsigned* __restrict__ hbits,
                                           int* __restrict__ colors, int& by_shortcut)
{
    const int lane = threadIdx.x & 31;
    const int worst = (int)(sv >> 32), best = (int)(unsigned)sv;
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
    const unsigned first = pcol & ~taken;
    const int nbest = first ? __clz(first) : high_best(words, best, worst, lane);
    const bool shortcut = USE_SC1 && kept > 0 && !blocked && nbest == best;
    const bool done = kept == 0 || shortcut;
    if (lane == 0) {
        if (done) {
            colors[v] = nbest;
            posscol[v] = nbest < 32 ? MSB >> nbest : 0u;
            hstate[v] = pack(COLORED, nbest);
        } else {
            posscol[v] = first;
            pending[v] = kept;
            if (nbest != best) hstate[v] = pack(worst, nbest);
        }
    }
    by_shortcut += done && shortcut;
    __syncwarp();
    return done;
}

// One visit of the warp's core vertex `front` (none once it is -1, warp-uniform), from its
// current state; sets front to -1 once it is colored. Returns whether this visit colored it.
__device__ __forceinline__ bool front_visit(int& front, const int beg, int* __restrict__ dag,
                                            volatile unsigned* __restrict__ posscol,
                                            volatile unsigned* __restrict__ pending,
                                            volatile unsigned long long* __restrict__ hstate,
                                            volatile unsigned* __restrict__ hbits,
                                            int* __restrict__ colors, int& by_shortcut)
{
    if (front < 0) return false;
    const unsigned long long sv = hstate[front];
    if ((unsigned)(sv >> 32) == COLORED) {  // a root, colored by ecl_dag
        front = -1;
        return false;
    }
    const bool done = high_visit(front, sv, beg, (int)pending[front], posscol[front], dag,
                                 posscol, pending, hstate, hbits, colors, by_shortcut);
    if (done) front = -1;
    return done;
}

// Alg. 2: the high-degree vertices of the worklist, persistent and asynchronous.
// - The core (the worklist's end: the highest degrees, at most one vertex per warp, ecl_init)
//   is where JP-LDF's longest chains of dependencies run (each hub waits for the hubs above
//   it). Warp w owns core vertex w as its `front` and visits it again after each of its other
//   visits, so a link of such a chain costs a visit or two, not a whole pass of the warp.
// - Warp w also owns items w + j * warps of the worklist's front part (and of the core
//   vertices past one per warp, should the host's core_degree leave any), 32 of them per step
//   (one per lane). A pass reads the state of a step's vertices in parallel, one lane each
//   (with the row start, pending count and possible colors of the open ones), and the warp
//   then visits only the open ones, one after the other (high_visit): a colored vertex costs
//   one lane's load, not a warp's visit. Steps whose vertices are all colored are skipped
//   without a load (`closed`, one bit per step for the first 32 steps).
extern "C" __global__ void __launch_bounds__(GCB_BLOCK, GCB_MIN_BLOCKS) ecl_high(
    const int n, const int* __restrict__ indptr, int* __restrict__ dag,
    volatile unsigned* __restrict__ posscol, volatile unsigned* __restrict__ pending,
    volatile unsigned long long* __restrict__ hstate, volatile unsigned* __restrict__ hbits,
    const int* __restrict__ worklist, int* __restrict__ colors, int* __restrict__ counters,
    int* __restrict__ trace, const int cap, const int trace_len)
{
    const int lane = threadIdx.x & 31;
    const int warp = (gcb_tid() - lane) / 32;
    const int warps = gcb_stride() / 32;
    const int size = counters[GCB_C_WORKLIST], core = counters[GCB_C_CORE];
    if (size == 0 && core == 0) return;
    trace = trace_copy(trace, trace_len);
    int front = warp < core ? worklist[n - 1 - warp] : -1;
    // the front part, then any core vertices past one per warp (the host avoids them)
    const int rest = size + max(0, core - warps);
    const int front_beg = front < 0 ? 0 : indptr[front];
    int by_shortcut = 0, colored_all = 0, pass = 0;
    unsigned closed = 0;  // bit k: every vertex of step k is colored
    for (bool again = true; again; pass++) {
        if (pass == cap) {
            if (lane == 0) atomicExch(&counters[GCB_C_CAPPED], 1);
            break;
        }
        again = false;
        int colored = front_visit(front, front_beg, dag, posscol, pending, hstate, hbits, colors,
                                  by_shortcut);
        for (long long base = warp, step = 0; base < rest; base += 32LL * warps, step++) {
            if (step < 32 && (closed >> step & 1u)) continue;
            const long long item = base + (long long)lane * warps;
            int v = 0, beg = 0, count = 0;
            unsigned long long sv = 0;
            unsigned pcol = 0;
            bool open = false;
            if (item < rest) {
                v = listed(worklist, item, size, n - warps);
                sv = hstate[v];
                open = (unsigned)(sv >> 32) != COLORED;
                if (open) {
                    beg = indptr[v];
                    count = (int)pending[v];
                    pcol = posscol[v];
                }
            }
            unsigned todo = __ballot_sync(FULL_MASK, open);
            if (step < 32 && !todo) closed |= 1u << step;
            for (; todo; todo &= todo - 1) {
                const int src = __ffs(todo) - 1;
                const bool done = high_visit(
                    __shfl_sync(FULL_MASK, v, src), __shfl_sync(FULL_MASK, sv, src),
                    __shfl_sync(FULL_MASK, beg, src), __shfl_sync(FULL_MASK, count, src),
                    __shfl_sync(FULL_MASK, pcol, src), dag, posscol, pending, hstate, hbits,
                    colors, by_shortcut);
                colored += done;
                again |= !done;
                colored += front_visit(front, front_beg, dag, posscol, pending, hstate, hbits,
                                       colors, by_shortcut);
            }
        }
        again |= front >= 0;
        colored_all += colored;
        if (lane == 0 && colored) atomicAdd(&trace[min(pass, trace_len - 1)], colored);
    }
    if (lane == 0) {
        atomicMax(&counters[GCB_C_PASSES_HIGH], pass);
        if (by_shortcut) atomicAdd(&counters[GCB_C_SHORTCUT], by_shortcut);
        if (colored_all > by_shortcut)
            atomicAdd(&counters[GCB_C_CONVENTIONAL], colored_all - by_shortcut);
    }
}

// Alg. 3, one visit of the low-degree vertex of entry e = (v, row start, pending, possible
// colors): its pending in-neighbours (MSB-first adjacency positions) are read LOW_BATCH at a
// time so their loads overlap (reading a neighbour early is just an older, still valid,
// view), both shortcuts are applied exactly, and v is colored if it can be. Updates e,
// publishes v's possible colors, and returns whether v still waits.
#define LOW_BATCH 4
__device__ __forceinline__ bool low_visit(uint4& e, const int* __restrict__ indices,
                                          volatile unsigned* __restrict__ posscol,
                                          int* __restrict__ colors, int& colored,
                                          int& by_shortcut)
{
    const int v = (int)e.x, beg = (int)e.y;
    unsigned keep = e.z, pcol = e.w;
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
                else if (USE_SC2)
                    pcol &= pcol - 1;  // the edge never mattered: drop the worst color
                keep ^= bit;
            } else if (USE_SC2 && !(pcol & np[k])) {  // Shortcut 2
                pcol &= pcol - 1;
                keep = (keep ^ bit) | 1u;
            } else {
                others |= np[k];
            }
        }
    }
    const unsigned best = MSB >> __clz(pcol);
    const bool open = keep & ~1u;
    const bool shortcut = open && USE_SC1 && !(best & others);
    const bool done = !open || shortcut;
    if (done) {
        pcol = best;
        colors[v] = __clz(best);
        colored++;
        by_shortcut += shortcut || (keep & 1u);
    }
    store_state(&posscol[v], pcol);  // unconditional stores measured faster than guarded ones
    e.z = keep;
    e.w = pcol;
    return !done;
}

// Builds v's first entry e (v, row start, pending, possible colors) from its row and
// pending[v] alone: its possible colors are still ecl_init's first_colors(popc(pending)), so
// posscol[v] need not be read first. False (e untouched) for a high-degree vertex or a root,
// which ecl_high and ecl_init color.
__device__ __forceinline__ bool first_entry(const int v, const int* __restrict__ indptr,
                                            const unsigned* __restrict__ pending, uint4& e)
{
    const int beg = indptr[v], deg = indptr[v + 1] - beg;
    const unsigned pend = pending[v];
    if (deg >= GCB_HIGH_DEGREE || !pend) return false;
    e = make_uint4(v, beg, pend, first_colors(__popc(pend)));
    return true;
}

// Pass 0 in order (`ordered`, at most ORDER_SLOTS steps): a thread's slots k < steps (vertex
// first + k * threads) as one byte each, slot k in byte k % 4 of keys.x (k < 4) or keys.y:
// (32 - pending in-neighbours) << 3 | k, so the largest byte is the slot with the fewest, the
// later slot on a tie; 0 for a slot with nothing to visit (past n, or no pending[] bit set: a
// root). A high-degree vertex's pending[] is a count, so it may get a byte; first_entry skips
// it anyway. Only the visits' order changes, never a color.
#define ORDER_SLOTS 8
__device__ __forceinline__ uint2 pass0_keys(const int n, const unsigned* __restrict__ pending,
                                            const int first, const int threads, const int steps)
{
    uint2 keys = make_uint2(0, 0);
#pragma unroll
    for (int k = 0; k < ORDER_SLOTS; k++) {
        const int v = first + k * threads;
        unsigned key = 0;
        if (k < steps && v < n) {
            const unsigned pend = pending[v];
            key = pend ? (unsigned)(32 - __popc(pend)) << 3 | k : 0u;
        }
        if (k < 4)
            keys.x |= key << (8 * k);
        else
            keys.y |= key << (8 * (k - 4));
    }
    return keys;
}

// The slot of the largest byte of keys, which it clears; -1 once every byte is 0.
__device__ __forceinline__ int pass0_next(uint2& keys)
{
    unsigned m = __vmaxu4(keys.x, keys.y);
    m = __vmaxu4(m, m >> 16);
    m = __vmaxu4(m, m >> 8) & 0xffu;
    const int k = m & 7;
    if (k < 4)
        keys.x &= ~(0xffu << (8 * k));
    else
        keys.y &= ~(0xffu << (8 * (k - 4)));
    return m ? k : -1;
}

// Visits the entry e (none if EMPTY) until its vertex is colored, with nothing warp-wide per
// pass; returns the passes made. A lane's pass p is still its warp's pass p (the lanes go
// through them together), so each coloring is added to the trace slot of its pass.
__device__ __forceinline__ int lane_passes(uint4 e, const int* __restrict__ indices,
                                           volatile unsigned* __restrict__ posscol,
                                           int* __restrict__ colors, int& by_shortcut,
                                           int* __restrict__ trace, const int trace_len,
                                           int* __restrict__ capped, const int cap, int made)
{
    int colored = 0;  // low_visit's per-warp count, unused: a lane adds its coloring itself
    for (bool waits = e.x != EMPTY; waits; made++) {
        if (made == cap) {
            atomicExch(capped, 1);
            break;
        }
        waits = low_visit(e, indices, posscol, colors, colored, by_shortcut);
        if (!waits) atomicAdd(&trace[min(made, trace_len - 1)], 1);
    }
    return made;
}

// Appends the entries `e` of the lanes with `wait` to a warp's list of `count` entries
// (warp-uniform): positions 0..31 live in the lanes' registers (`head`, one per lane), the
// rest in `list` at their position. So a list of up to 32 entries never touches memory.
__device__ __forceinline__ void low_append(uint4& head, uint4* __restrict__ list, int& count,
                                           const bool wait, const uint4 e)
{
    const int lane = threadIdx.x & 31;
    const unsigned ahead = __ballot_sync(FULL_MASK, wait);
    const int pos = count + __popc(ahead & lanemask_lt());
    if (wait && pos >= 32) list[pos] = e;
    if (count < 32) {  // this lane's head takes the survivor ranked lane - count, if any
        const int rank = lane - count;
        const bool take = rank >= 0 && rank < __popc(ahead);
        const int src = take ? __fns(ahead, 0, rank + 1) : lane;
        const uint4 got = make_uint4(
            __shfl_sync(FULL_MASK, e.x, src), __shfl_sync(FULL_MASK, e.y, src),
            __shfl_sync(FULL_MASK, e.z, src), __shfl_sync(FULL_MASK, e.w, src));
        if (take) head = got;
    }
    count += __popc(ahead);
}

// Alg. 3: every remaining (low-degree) vertex, one thread per visit, persistent and
// asynchronous, with 32-bit bitmaps; both shortcuts exact. Runs after ecl_high, so every
// high-degree neighbour is already colored and published in posscol (0 for colors >= 32).
// Pass 0 visits each thread's slots (vertex k * threads + the thread's id, slot k) from
// ecl_init's state: in band order (step k, slot k), or with `ordered` (set by the host where
// the working set fits in L2 and neighbours are close in id, orders_pass0 in ecl_gc.py; at
// most ORDER_SLOTS steps) each step the slot with the fewest pending in-neighbours left
// (pass0_keys), so more visits find their in-neighbours colored (delaunay 20: 227 K
// colorings in pass 0 against 110 K). It appends the vertices still waiting to the warp's
// own list (v, row start, pending, possible colors: 16 bytes an entry; the first 32 in
// registers, low_append), each entry built by first_entry (one dependent load less per
// pass-0 step than reading posscol).
// Every later pass visits only that list, 32 entries at a time, and compacts it in place, so
// a pass's lanes all work and finished vertices cost nothing. A block's warps make each step
// of pass 0 and each pass together (a barrier each, as the original's runSmall): a block's
// working set then stays in L2, and those barriers measured cheaper than letting warps drift
// apart on every graph (docs/ecl-gc.md); within a pass each warp goes through its own list's
// steps without waiting for the others (faster than a barrier per step: docs/ecl-gc.md, "A
// block in step, pass by pass").
// Once every list of a block fits its registers, and from the start where the graph has at
// most one vertex per thread, each lane visits its own entry until it is colored, with no
// barrier, compaction or warp-wide step per pass (lane_passes): a pass is then one visit.
extern "C" __global__ void __launch_bounds__(GCB_BLOCK, GCB_MIN_BLOCKS) ecl_low(
    const int n, const int* __restrict__ indptr, const int* __restrict__ indices,
    volatile unsigned* __restrict__ posscol, const unsigned* __restrict__ pending,
    uint4* __restrict__ waiting, int* __restrict__ colors, int* __restrict__ counters,
    int* __restrict__ trace, const int cap, const int trace_len, const int ordered)
{
    if (*(volatile int*)&counters[GCB_C_CAPPED]) return;
    trace = trace_copy(trace, trace_len);
    const int lane = threadIdx.x & 31;
    const int threads = gcb_stride();
    int by_shortcut = 0, passes = 1;  // passes: made so far (the most of any lane)
    if (n <= threads) {  // grid-uniform: each thread has at most one vertex, kept in registers
        const int v = gcb_tid();
        uint4 e = make_uint4(EMPTY, 0, 0, 0);
        if (v < n) first_entry(v, indptr, pending, e);
        const int made = lane_passes(e, indices, posscol, colors, by_shortcut, trace, trace_len,
                                     &counters[GCB_C_CAPPED], cap, 0);
        passes = max(1, __reduce_max_sync(FULL_MASK, made));
    } else {
        const int steps = (n - 1) / threads + 1;  // of pass 0; a warp's list holds 32 per step
        uint4* const list = waiting + (size_t)((gcb_tid() - lane) / 32) * 32 * steps;
        uint4 head = make_uint4(0, 0, 0, 0);
        int colored = 0, count = 0;  // count: entries in the warp's list (warp-uniform)
        const int first = gcb_tid();  // the vertex of the thread's slot k is first + k * threads
        const bool in_order = ordered && steps <= ORDER_SLOTS;  // grid-uniform
        uint2 keys = in_order ? pass0_keys(n, pending, first, threads, steps) : make_uint2(0, 0);
        for (int base = blockIdx.x * blockDim.x; __syncthreads_or(base < n); base += threads) {
            int v = base + threadIdx.x;  // band order: step k visits slot k
            if (in_order) {
                const int k = pass0_next(keys);
                v = k < 0 ? n : first + k * threads;
            }
            uint4 e = make_uint4(v, 0, 0, 0);  // v, row start, pending, possible colors
            bool wait = false;
            if (v < n && first_entry(v, indptr, pending, e))
                wait = low_visit(e, indices, posscol, colors, colored, by_shortcut);
            low_append(head, list, count, wait, e);
        }
        for (;; passes++) {  // record the pass just made, then make the next one over the list
            colored = __reduce_add_sync(FULL_MASK, colored);
            if (lane == 0 && colored) atomicAdd(&trace[min(passes - 1, trace_len - 1)], colored);
            colored = 0;
            if (!__syncthreads_or(count > 32)) {  // every list of the block is in registers
                if (lane >= count) head.x = EMPTY;
                const int made = lane_passes(head, indices, posscol, colors, by_shortcut, trace,
                                             trace_len, &counters[GCB_C_CAPPED], cap, passes);
                passes = __reduce_max_sync(FULL_MASK, made);
                break;
            }
            if (passes == cap) {
                if (lane == 0) atomicExch(&counters[GCB_C_CAPPED], 1);
                break;
            }
            int kept = 0;
            for (int first = 0; first < count; first += 32) {
                const int i = first + lane;
                uint4 e = head;
                bool wait = false;
                if (i < count) {
                    if (first) e = list[i];
                    wait = low_visit(e, indices, posscol, colors, colored, by_shortcut);
                }
                // in place: entries go at or below `first`, and this step's are read already
                low_append(head, list, kept, wait, e);
            }
            count = kept;
        }
    }
    // the conventional colorings are the trace's others: counted off here, added by the host
    by_shortcut = __reduce_add_sync(FULL_MASK, by_shortcut);
    if (lane == 0) {
        atomicMax(&counters[GCB_C_PASSES_LOW], passes);
        if (by_shortcut) {
            atomicAdd(&counters[GCB_C_SHORTCUT], by_shortcut);
            atomicSub(&counters[GCB_C_CONVENTIONAL], by_shortcut);
        }
    }
}
