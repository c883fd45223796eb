// gm-gpu: Gebremedhin-Manne speculative coloring over device worklists, after Atos (Chen et
// al., ICPP 2022, as jpl-borione §II-B describes it). A pass is two kernels over the frontier
// only: gm_color gives every frontier vertex the smallest color none of its neighbours shows,
// reading each neighbour once (neighbours colored at the same moment race, as in GM), and
// gm_check retires every frontier vertex whose color no higher-priority neighbour shares and
// sends the others back to the frontier (priority: (degree, hash32, id), docs/architecture.md,
// "Priorities and ties").
//
// Frontiers come from the launcher's layout: vertices grouped in degree buckets, highest
// first (one bucket for buckets=none). A bucket is the frontier of its first pass; each later
// pass takes the losers of the pass before; once none is left the next bucket starts. While a
// bucket runs, higher buckets are final and lower ones uncolored, so a vertex reads its whole
// row once (its first pass) and afterwards only its neighbours of the same bucket (the `same`
// CSR). Retired neighbours' colors persist in a forbidden set, so no row is read twice for them.
//
// colors[v]: c >= 0 final, -1 none, -(c + 2) tentative color c (speculated this pass).
// Forbidden sets: light vertices (degree < 32, colors < 32) one word in lforbid[v]; heavier
// ones colors 0..deg in hbits from word (indptr[v] >> 5) + v, which never reaches the next
// vertex's first word. Light vertices get a thread, warp vertices (< block_degree) a warp,
// the rest a thread block; a frontier keeps the three classes in separate segments.
//
// status[]: S_BUCKET[p] = bucket + 1 of the last pass of parity p, S_COUNT[p][3] = its losers
// per class, S_PASSES = non-empty passes, then (S_TRACE on) the frontier size of each pass.
// Only the first block's first thread of gm_color writes the slots of its own parity; every
// other read is of the other parity, fixed during a kernel.
//
// The status[] offsets GCB_S_*, GCB_WARP_DEGREE (light vertices are those below it) and
// GCB_SMEM_WORDS (dynamic shared memory per warp) are defined once in
// gcbench/algorithms/gpu/gm_gpu.py and passed to every compile as -D defines; the defaults
// below serve a compile without them (CI's nvcc -ptx), and
// tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#include "common.cuh"

#define FULL_MASK 0xffffffffu
#define WINDOW 1024  // colors in a group's shared-memory window: 32 words, one a lane
#define WINDOW_WORDS (WINDOW / 32)
#define BATCH 4  // neighbour loads a thread keeps in flight

static_assert(GCB_UNCOLORED == -1, "a tentative color c is stored as -(c + 2), below none");

#ifndef GCB_WARP_DEGREE
#define GCB_WARP_DEGREE 32
#endif
static_assert(GCB_WARP_DEGREE <= 32, "a light vertex's forbidden colors are one word");

#ifndef GCB_SMEM_WORDS
#define GCB_SMEM_WORDS 64
#endif
static_assert(GCB_SMEM_WORDS == 2 * WINDOW_WORDS, "per warp: all shown colors, then finals only");

#ifndef GCB_S_BUCKET
#define GCB_S_BUCKET 0
#endif
#ifndef GCB_S_COUNT
#define GCB_S_COUNT 2
#endif
#ifndef GCB_S_PASSES
#define GCB_S_PASSES 8
#endif
#ifndef GCB_S_TRACE
#define GCB_S_TRACE 16
#endif
static_assert(GCB_S_BUCKET + 2 <= GCB_S_COUNT && GCB_S_COUNT + 6 <= GCB_S_PASSES &&
                  GCB_S_PASSES < GCB_S_TRACE,
              "status[]: 2 buckets, then 2 x 3 loser counts, the passes, the trace");

extern __shared__ unsigned gm_smem[];  // GCB_SMEM_WORDS per warp of the block

// The color a state shows: its final or tentative color, -1 for none.
__device__ __forceinline__ int shown(const int s) { return s >= 0 ? s : -s - 2; }

// Is u before v in the order (degree, hash32, id), larger first?
__device__ __forceinline__ bool before(const int u, const int v, const int* __restrict__ indptr)
{
    const int du = indptr[u + 1] - indptr[u], dv = indptr[v + 1] - indptr[v];
    if (du != dv) return du > dv;
    const unsigned hu = gcb_hash32(u), hv = gcb_hash32(v);
    return hu != hv ? hu > hv : u > v;
}

struct Rows {
    const int* __restrict__ indptr;
    const int* __restrict__ indices;
};

// Call f(u, colors[u]) for row entries e, e + step, ... below end, BATCH loads in flight,
// until f returns true; returns whether it did.
template <class F>
__device__ __forceinline__ bool scan(const Rows& rows, int e, const int end, const int step,
                                     const int* colors, F f)
{
    for (; e < end; e += BATCH * step) {
        int u[BATCH], s[BATCH];
#pragma unroll
        for (int k = 0; k < BATCH; k++) u[k] = e + k * step < end ? rows.indices[e + k * step] : -1;
#pragma unroll
        for (int k = 0; k < BATCH; k++) s[k] = u[k] >= 0 ? colors[u[k]] : -1;
#pragma unroll
        for (int k = 0; k < BATCH; k++)
            if (u[k] >= 0 && f(u[k], s[k])) return true;
    }
    return false;
}

// The frontier of a pass: the losers of the pass before, or else the next bucket's vertices.
struct Frontier {
    const int* items[3];
    int count[3];
    int bucket;  // bucket index + 1
    bool first;  // the bucket's first pass: rows are read whole

    __device__ int total() const { return count[0] + count[1] + count[2]; }
};

__device__ __forceinline__ Frontier frontier(const int pass, const int* status,
                                             const int* __restrict__ order,
                                             const int* __restrict__ buckets, const int nbuckets,
                                             const int* queues, const int n, const int seg1,
                                             const int seg2)
{
    const int q = (pass & 1) ^ 1;  // parity of the pass before
    const int* losers = status + GCB_S_COUNT + 3 * q;
    const int prev = status[GCB_S_BUCKET + q];
    const int seg[3] = {0, seg1, seg2};
    Frontier f;
    f.first = losers[0] + losers[1] + losers[2] == 0;
    f.bucket = f.first ? prev + 1 : prev;
#pragma unroll
    for (int c = 0; c < 3; c++) {
        if (!f.first) {
            f.items[c] = queues + (size_t)q * n + seg[c];
            f.count[c] = losers[c];
        } else if (prev < nbuckets) {  // buckets[b] = offset, count of each class in order[]
            f.items[c] = order + buckets[6 * prev + 2 * c];
            f.count[c] = buckets[6 * prev + 2 * c + 1];
        } else {
            f.items[c] = order;
            f.count[c] = 0;
        }
    }
    return f;
}

// A warp or a whole block working on one vertex, with its shared-memory windows.
struct Warp {
    int rank, width;
    unsigned *all, *fin;  // window of every shown color, and of the finals only
    __device__ Warp()
        : rank(threadIdx.x & 31), width(32),
          all(gm_smem + (threadIdx.x >> 5) * GCB_SMEM_WORDS), fin(all + WINDOW_WORDS)
    {
    }
    __device__ void sync() const { __syncwarp(); }
    __device__ bool any(const bool x) const { return __any_sync(FULL_MASK, x); }
};
struct Block {
    int rank, width;
    unsigned *all, *fin;
    __device__ Block()
        : rank(threadIdx.x), width(blockDim.x), all(gm_smem), fin(gm_smem + WINDOW_WORDS)
    {
    }
    __device__ void sync() const { __syncthreads(); }
    __device__ bool any(const bool x) const { return __syncthreads_or(x) != 0; }
};

// Smallest color in [base, limit) whose bit in window (colors base..base+1023, LSB-first)
// is clear, or -1; called by all 32 lanes of a warp.
__device__ __forceinline__ int window_free(const unsigned* window, const int base, const int limit)
{
    const int lane = threadIdx.x & 31, lo = base + 32 * lane;
    unsigned free_bits = ~window[lane];
    if (limit - lo <= 0) free_bits = 0u;
    else if (limit - lo < 32) free_bits &= (1u << (limit - lo)) - 1u;
    const unsigned hit = __ballot_sync(FULL_MASK, free_bits != 0u);
    if (!hit) return -1;
    const int src = __ffs(hit) - 1;
    return base + 32 * src + __ffs(__shfl_sync(FULL_MASK, free_bits, src)) - 1;
}

__device__ __forceinline__ int pick(const Warp& g, const int base, const int limit)
{
    return window_free(g.all, base, limit);
}
__device__ __forceinline__ int pick(const Block& g, const int base, const int limit)
{
    __shared__ int picked;
    if (threadIdx.x < 32) {
        const int c = window_free(g.all, base, limit);
        if (threadIdx.x == 0) picked = c;
    }
    __syncthreads();
    const int c = picked;
    __syncthreads();
    return c;
}

// gm_color for one light vertex: a single word of forbidden colors suffices (deg < 32).
__device__ __forceinline__ void color_light(const int v, const bool first, const Rows& full,
                                            const Rows& same, int* colors,
                                            unsigned* __restrict__ lforbid)
{
    const Rows rows = first ? full : same;
    unsigned fin = first ? 0u : lforbid[v], all = 0u;
    scan(rows, rows.indptr[v], rows.indptr[v + 1], 1, colors, [&](int, int s) {
        const int c = shown(s);
        if ((unsigned)c < 32u) {
            all |= 1u << c;
            if (s >= 0) fin |= 1u << c;
        }
        return false;
    });
    lforbid[v] = fin;
    colors[v] = -(__ffs(~all & ~fin) - 1) - 2;  // at most deg <= 31 bits are set
}

// gm_color for one heavier vertex by group g. Window 0 (colors 0..1023) holds the forbidden
// bits of earlier passes plus every color the row shows now; the finals among them are
// added to the persistent bits. If window 0 is full, at least 1024 neighbours show colors in
// it, so the finals of the others leave a color <= deg free in the persistent bits, which the
// later windows search without reading the row again.
template <class G>
__device__ __forceinline__ void color_group(const G& g, const int v, const bool first,
                                            const Rows& full, const Rows& same, int* colors,
                                            unsigned* hbits)
{
    const int beg = full.indptr[v], deg = full.indptr[v + 1] - beg;
    unsigned* const words = hbits + (beg >> 5) + v;  // colors 0..deg
    const int nwords = (deg >> 5) + 1;
    for (int j = g.rank; j < WINDOW_WORDS; j += g.width) {
        g.all[j] = first || j >= nwords ? 0u : __ldcg(words + j);
        g.fin[j] = 0u;
    }
    if (first)
        for (int j = WINDOW_WORDS + g.rank; j < nwords; j += g.width) words[j] = 0u;
    g.sync();
    const Rows rows = first ? full : same;
    scan(rows, rows.indptr[v] + g.rank, rows.indptr[v + 1], g.width, colors, [&](int, int s) {
        const int c = shown(s);
        if (c >= 0 && c < WINDOW) {
            atomicOr(g.all + (c >> 5), 1u << (c & 31));
            if (s >= 0) atomicOr(g.fin + (c >> 5), 1u << (c & 31));
        } else if (s >= WINDOW && s <= deg) {
            atomicOr(words + (s >> 5), 1u << (s & 31));
        }
        return false;
    });
    g.sync();
    for (int j = g.rank; j < WINDOW_WORDS && j < nwords; j += g.width)
        words[j] = (first ? 0u : words[j]) | g.fin[j];
    int c = pick(g, 0, deg + 1);
    for (int base = WINDOW; c < 0 && base <= deg; base += WINDOW) {
        g.sync();
        for (int j = g.rank; j < WINDOW_WORDS; j += g.width) {
            const int w = (base >> 5) + j;
            g.all[j] = w < nwords ? __ldcg(words + w) : 0u;
        }
        g.sync();
        c = pick(g, base, deg + 1);
    }
    if (g.rank == 0) colors[v] = -c - 2;  // c >= 0 by the argument above
    g.sync();  // the windows are reused by the next vertex
}

// gm_check for one vertex scanned by a group of `width` threads (1 for light vertices): does a
// higher-priority neighbour of the same bucket show v's tentative color? Rows of earlier
// buckets hold final colors v avoided; rows of later buckets are uncolored.
__device__ __forceinline__ bool loses(const int v, const int t, const int rank, const int width,
                                      const Rows& same, const int* __restrict__ indptr,
                                      const int* colors)
{
    return scan(same, same.indptr[v] + rank, same.indptr[v + 1], width, colors,
                [&](int u, int s) { return shown(s) == t && before(u, v, indptr); });
}

// Which pass a kernel runs: `pass_index`, named by the host (sync=device|batch|round), or, when
// `pass_at` is not null, the round counter of a CUDA graph's WHILE loop (sync=graph; a round is
// one pass, kernels/rounds.cu moves the counter on after gm_left).
__device__ __forceinline__ int pass_of(const int pass_index, const int* __restrict__ pass_at)
{
    return pass_at == nullptr ? pass_index : *pass_at;
}

// Pass `pass_index` (or *pass_at), first kernel: tentative colors for the frontier. Also
// publishes the pass's bucket, clears its loser counts and records the frontier size.
extern "C" __global__ void gm_color(const int pass_index, const int* __restrict__ pass_at,
                                    const int n, const int* __restrict__ indptr,
                                    const int* __restrict__ indices,
                                    const int* __restrict__ same_indptr,
                                    const int* __restrict__ same_indices, int* colors,
                                    unsigned* __restrict__ lforbid, unsigned* hbits,
                                    const int* __restrict__ order,
                                    const int* __restrict__ buckets, const int nbuckets,
                                    const int* __restrict__ queues, const int seg1,
                                    const int seg2, int* status, const int trace_len)
{
    const int pass = pass_of(pass_index, pass_at);
    const Frontier f = frontier(pass, status, order, buckets, nbuckets, queues, n, seg1, seg2);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const int p = pass & 1;
        status[GCB_S_BUCKET + p] = f.bucket;
        for (int c = 0; c < 3; c++) status[GCB_S_COUNT + 3 * p + c] = 0;
        if (f.total()) status[GCB_S_PASSES]++;
        status[GCB_S_TRACE + min(pass, trace_len - 1)] = f.total();
    }
    if (f.total() == 0) return;
    const Rows full{indptr, indices}, same{same_indptr, same_indices};
    for (int i = blockIdx.x; i < f.count[2]; i += gridDim.x)
        color_group(Block(), f.items[2][i], f.first, full, same, colors, hbits);
    __syncthreads();
    const int lane = threadIdx.x & 31;
    for (int i = (gcb_tid() - lane) >> 5; i < f.count[1]; i += gcb_stride() >> 5)
        color_group(Warp(), f.items[1][i], f.first, full, same, colors, hbits);
    for (int i = gcb_tid(); i < f.count[0]; i += gcb_stride())
        color_light(f.items[0][i], f.first, full, same, colors, lforbid);
}

// Pass `pass_index` (or *pass_at), second kernel: retire the winners, queue the losers (colors
// reset to none).
// A loser's reset races with its neighbours' checks: one that reads "none" instead of the
// shared color may retire, which is safe because the loser will recolor around it.
extern "C" __global__ void gm_check(const int pass_index, const int* __restrict__ pass_at,
                                    const int n, const int* __restrict__ indptr,
                                    const int* __restrict__ same_indptr,
                                    const int* __restrict__ same_indices, int* colors,
                                    const int* __restrict__ order,
                                    const int* __restrict__ buckets, const int nbuckets,
                                    int* queues, const int seg1, const int seg2, int* status)
{
    const int pass = pass_of(pass_index, pass_at);
    const Frontier f = frontier(pass, status, order, buckets, nbuckets, queues, n, seg1, seg2);
    if (f.total() == 0) return;
    const Rows same{same_indptr, same_indices};
    const int p = pass & 1;
    int* const next = queues + (size_t)p * n;
    int* const count = status + GCB_S_COUNT + 3 * p;
    for (int i = blockIdx.x; i < f.count[2]; i += gridDim.x) {
        const int v = f.items[2][i], t = shown(colors[v]);
        const bool lost = Block().any(
            t < 0 || loses(v, t, threadIdx.x, blockDim.x, same, indptr, colors));
        if (threadIdx.x == 0) {
            colors[v] = lost ? GCB_UNCOLORED : t;
            if (lost) next[seg2 + atomicAdd(count + 2, 1)] = v;
        }
    }
    const int lane = threadIdx.x & 31;
    for (int i = (gcb_tid() - lane) >> 5; i < f.count[1]; i += gcb_stride() >> 5) {
        const int v = f.items[1][i], t = shown(colors[v]);
        const bool lost = Warp().any(t < 0 || loses(v, t, lane, 32, same, indptr, colors));
        if (lane == 0) {
            colors[v] = lost ? GCB_UNCOLORED : t;
            if (lost) next[seg1 + atomicAdd(count + 1, 1)] = v;
        }
    }
    for (int i = gcb_tid(); i < f.count[0]; i += gcb_stride()) {
        const int v = f.items[0][i], t = shown(colors[v]);
        const bool lost = t < 0 || loses(v, t, 0, 1, same, indptr, colors);
        colors[v] = lost ? GCB_UNCOLORED : t;
        gcb_append(next, count, lost, v);
    }
}

// sync=graph, after the pass of round *at (one thread): what the pass left, into the rounds'
// slot *at + 1 (loops.DeviceRounds, one pass a round), for round_step and the trace. Field 0
// is the host's stopping test: the loser count of the pass's parity, plus 1 while a bucket is
// still to come (0 exactly when the host's loop would stop); field 1 is the loser count alone.
static_assert(GCB_SLOT_WIDTH >= 2, "gm_left writes two fields a slot");
extern "C" __global__ void gm_left(const int* __restrict__ at, int* __restrict__ slots,
                                   const int* __restrict__ status, const int nbuckets)
{
    const gcb_pass pass = gcb_locate(at, 0, 1, slots, nullptr, nullptr);
    const int p = pass.p & 1;
    const int* const losers = status + GCB_S_COUNT + 3 * p;
    const int count = losers[0] + losers[1] + losers[2];
    pass.left[0] = count + (status[GCB_S_BUCKET + p] < nbuckets ? 1 : 0);
    pass.left[1] = count;
}
