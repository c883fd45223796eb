// cf: communication-free coloring (luby-cf §"Communication free").
//
// Pass 0 (cf_tiles): each block colors its own tile of T consecutive vertices in shared memory,
// seeing only the neighbours inside the tile. Cross-tile edges may then conflict; cf_conflicts
// marks one endpoint of each (the lower hash32) as lost and counts them into the pass's slot,
// and pass p colors the lost vertices, highest degree first (cf_select and cf_gather list them
// in the graph's rank order), tiled again (cf_list_tiles) with the fresh colors
// [p*T, p*T + T), until no conflict is left; the list's tiles get their in-tile adjacency from
// cf_positions and cf_tile_adjacency first. Every kernel of a pass p >= 1 learns the list's
// length from the pass's slot and returns at once when it is 0 (gcb_locate, gcb_open in
// common.cuh), so the host launches passes without reading anything back. Finally cf_bucket
// groups the vertices by color class and the pull-down moves colors down one class at a time
// (greedy first fit): cf_pull_all in one launch, or cf_pull_* a class a launch (sync=round).
// The host loop is gcbench/algorithms/gpu/cf.py.
#include "common.cuh"

__device__ __forceinline__ int lower_bound(const int* __restrict__ indices, int first, int last,
                                           int value)
{
    while (first < last) {
        const int mid = first + (last - first) / 2;
        if (__ldg(indices + mid) < value) first = mid + 1;
        else last = mid;
    }
    return first;
}

// Shared memory per tile slot: TILE_BYTES of gcbench/algorithms/gpu/cf.py, which sizes the
// launches' dynamic shared memory and the largest tile with it, passed to every compile as a
// -D define; this default serves a compile without it (CI's nvcc -ptx), and
// tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#ifndef GCB_CF_TILE_BYTES
#define GCB_CF_TILE_BYTES 24
#endif

// A tile in shared memory: per slot an 8-byte priority, a color, this round's pick, and the
// slot's in-tile neighbours as the range [a, b) of `ids` (local slot = ids[e] - lo).
struct Tile {
    unsigned long long* key;
    int *color, *pick, *a, *b;
    const int* __restrict__ ids;
    int lo, count;  // slots 0..count-1 hold vertices

    __device__ static Tile carve(int width, const int* ids, int lo, int count)
    {
        extern __shared__ unsigned long long tile_sh[];
        int* rest = reinterpret_cast<int*>(tile_sh + width);
        return Tile{tile_sh, rest, rest + width, rest + 2 * width, rest + 3 * width, ids, lo, count};
    }
    // Slot s holds vertex v; its in-tile neighbours are ids[a..b).
    __device__ void place(int s, int v, int first, int last) const
    {
        key[s] = ((unsigned long long)(last - first) << 32) | gcb_hash32((unsigned int)v);
        color[s] = GCB_UNCOLORED;
        a[s] = first;
        b[s] = last;
    }
    template <class F> __device__ void each(int s, F f) const
    {
        for (int e = a[s]; e < b[s]; e++)
            if (!f(__ldg(ids + e) - lo)) return;
    }
    // The smallest color no in-tile neighbour of s holds (at most its in-tile degree).
    __device__ int first_fit(int s) const
    {
        for (int off = 0;; off += 32) {
            unsigned int used = 0;
            each(s, [&](int t) {
                const unsigned int c = (unsigned int)(color[t] - off);
                if (c < 32u) used |= 1u << c;
                return true;
            });
            if (~used) return off + __ffs(~used) - 1;
        }
    }
    // Jones-Plassmann with first fit inside the tile: each local round, every slot whose
    // priority (in-tile degree, hash32(v)) beats all its uncolored in-tile neighbours takes the
    // smallest color none of them holds. Priorities are distinct (hash32 is a bijection), so a
    // round colors at least the top uncolored slot and the loop ends within `count` rounds.
    // Called by every thread of the block after all slots are placed; thread t owns slots
    // t, t + blockDim.x, ...
    __device__ void color_all() const
    {
        for (;;) {
            __syncthreads();  // placements and last round's writes before any read
            bool open = false;
            for (int s = threadIdx.x; s < count; s += blockDim.x) {
                pick[s] = GCB_UNCOLORED;
                if (color[s] != GCB_UNCOLORED) continue;
                open = true;
                const unsigned long long mine = key[s];
                bool top = true;
                each(s, [&](int t) {
                    top = !(color[t] == GCB_UNCOLORED && key[t] > mine);
                    return top;
                });
                if (top) pick[s] = first_fit(s);
            }
            if (!__syncthreads_or(open)) return;  // every read of this round before any write
            for (int s = threadIdx.x; s < count; s += blockDim.x)
                if (pick[s] != GCB_UNCOLORED) color[s] = pick[s];
        }
    }
};

static_assert(sizeof(unsigned long long) + 4 * sizeof(int) == GCB_CF_TILE_BYTES,
              "Tile::carve takes a key and four ints a slot");

// Pass 0 over tiles of `width` consecutive ids; in a sorted row the in-tile neighbours of v are
// one run, found by binary search. Dynamic shared memory: width * GCB_CF_TILE_BYTES.
extern "C" __global__ void cf_tiles(const int n, const int width, const int* __restrict__ indptr,
                                    const int* __restrict__ indices, int* __restrict__ colors)
{
    const int tiles = (n + width - 1) / width;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int lo = t * width, count = min(width, n - lo);
        const Tile tile = Tile::carve(width, indices, lo, count);
        for (int s = threadIdx.x; s < count; s += blockDim.x) {
            const int v = lo + s, last = __ldg(indptr + v + 1);
            const int a = lower_bound(indices, __ldg(indptr + v), last, lo);
            tile.place(s, v, a, lower_bound(indices, a, last, lo + count));
        }
        tile.color_all();
        for (int s = threadIdx.x; s < count; s += blockDim.x) colors[lo + s] = tile.color[s];
        __syncthreads();  // before the next tile reuses the shared memory
    }
}

// In-tile degree (fill == 0) or in-tile neighbours (fill != 0, at adj[offsets[i]..]) of every
// list entry, tiles being runs of `width` list entries and pos[u] u's place in the list or -1.
extern "C" __global__ void cf_tile_adjacency(const int width, const int* __restrict__ list,
                                             const int* __restrict__ pos,
                                             const int* __restrict__ indptr,
                                             const int* __restrict__ indices, const int fill,
                                             int* __restrict__ degree,
                                             const int* __restrict__ offsets,
                                             int* __restrict__ adj, const int* at, const int p,
                                             const int passes, const int* before, int* left,
                                             int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = here.before[0], i = gcb_tid();
    if (i >= count) return;
    const int v = __ldg(list + i), lo = i / width * width, hi = min(lo + width, count);
    int d = 0, out = fill ? __ldg(offsets + i) : 0;
    const int end = __ldg(indptr + v + 1);
    for (int e = __ldg(indptr + v); e < end; e++) {
        const int q = __ldg(pos + __ldg(indices + e));
        if (q < lo || q >= hi) continue;
        if (fill) adj[out++] = q - lo;
        else d++;
    }
    if (!fill) degree[i] = d;
}

// Pass p >= 1 over tiles of `width` entries of the conflict list, with the in-tile adjacency
// built by cf_tile_adjacency; colors offset by `base`.
extern "C" __global__ void cf_list_tiles(const int width, const int* __restrict__ list,
                                         const int* __restrict__ offsets,
                                         const int* __restrict__ adj, int* __restrict__ colors,
                                         const int base, const int* at, const int p,
                                         const int passes, const int* before, int* left,
                                         int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = here.before[0], tiles = (count + width - 1) / width;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int lo = t * width, in = min(width, count - lo);
        const Tile tile = Tile::carve(width, adj, 0, in);
        for (int s = threadIdx.x; s < in; s += blockDim.x)
            tile.place(s, __ldg(list + lo + s), __ldg(offsets + lo + s),
                       __ldg(offsets + lo + s + 1));
        tile.color_all();
        for (int s = threadIdx.x; s < in; s += blockDim.x)
            colors[__ldg(list + lo + s)] = base + tile.color[s];
        __syncthreads();
    }
}

// The vertices of the pass (all when identity != 0, else list[0..count), count the pass's
// slot) that share their color with a neighbour of higher hash32 are marked `lost` and counted
// into the next slot; the other endpoint keeps its color.
extern "C" __global__ void cf_conflicts(const int* __restrict__ list, const int identity,
                                        const int* __restrict__ indptr,
                                        const int* __restrict__ indices,
                                        const int* __restrict__ colors, int* __restrict__ lost,
                                        const int* at, const int p, const int passes,
                                        const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = here.before[0], i = gcb_tid();
    bool lose = false;
    int v = 0;
    if (i < count) {
        v = identity ? i : __ldg(list + i);
        const int cv = colors[v];
        const unsigned int hv = gcb_hash32((unsigned int)v);
        const int end = __ldg(indptr + v + 1);
        for (int e = __ldg(indptr + v); e < end; e++) {
            const int u = __ldg(indices + e);
            if (colors[u] == cv && gcb_beats(gcb_hash32((unsigned int)u), u, hv, v)) {
                lose = true;
                break;
            }
        }
    }
    if (lose) lost[v] = 1;
    gcb_count(here.left, lose);
}

// pos[list[i]] = i (set != 0) or -1 (set == 0), for the pass's count of entries.
extern "C" __global__ void cf_positions(const int* __restrict__ list, int* __restrict__ pos,
                                        const int set, const int* at, const int p,
                                        const int passes, const int* before, int* left,
                                        int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int i = gcb_tid();
    if (i < here.before[0]) pos[__ldg(list + i)] = set ? i : -1;
}

// The lost vertices in the graph's rank order (`by_rank`: highest degree first, then id), in
// two steps around a prefix sum of `marked`: cf_select marks the ranks whose vertex was lost,
// cf_gather writes each to list[place - 1] and clears its mark, so the next pass's list is
// sorted as a sort of the lost vertices' ranks would leave it.
extern "C" __global__ void cf_select(const int n, const int* __restrict__ by_rank,
                                     const int* __restrict__ lost, int* __restrict__ marked,
                                     const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int i = gcb_tid();
    if (i < n) marked[i] = lost[__ldg(by_rank + i)];
}

extern "C" __global__ void cf_gather(const int n, const int* __restrict__ by_rank,
                                     const int* __restrict__ marked,
                                     const int* __restrict__ place, int* __restrict__ list,
                                     int* __restrict__ lost, const int* at, const int p,
                                     const int passes, const int* before, int* left,
                                     int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int i = gcb_tid();
    if (i >= n || !marked[i]) return;
    const int v = __ldg(by_rank + i);
    list[place[i] - 1] = v;
    lost[v] = 0;
}

// Bucket of v for the pull-down: 2 * color + (degree >= heavy).
__device__ __forceinline__ int bucket_of(const int* __restrict__ indptr,
                                         const int* __restrict__ colors, int v, int heavy)
{
    return 2 * colors[v] + (__ldg(indptr + v + 1) - __ldg(indptr + v) >= heavy);
}

// Place of each vertex's bucket: mode 0 counts bucket sizes into `slots`; mode 1 scatters v
// into order[slots[k]++] (slots = the buckets' starts). Lanes with the same bucket share one
// atomic. Order inside a bucket does not matter: a bucket is one color class, used as a set.
extern "C" __global__ void cf_bucket(const int n, const int* __restrict__ indptr,
                                     const int* __restrict__ colors, const int heavy,
                                     const int mode, int* __restrict__ slots,
                                     int* __restrict__ order)
{
    const int v = gcb_tid();
    if (v >= n) return;
    const int k = bucket_of(indptr, colors, v, heavy);
    const unsigned int active = __activemask();
    const unsigned int peers = __match_any_sync(active, k);
    const int lane = threadIdx.x & 31, leader = __ffs(peers) - 1;
    int start = 0;
    if (lane == leader) start = atomicAdd(slots + k, __popc(peers));
    if (mode == 0) return;
    start = __shfl_sync(active, start, leader);
    order[start + __popc(peers & ((1u << lane) - 1u))] = v;
}

// v takes the smallest color none of its neighbours holds (at most its current one), thread per
// vertex.
__device__ __forceinline__ void pull_thread(const int v, const int* __restrict__ indptr,
                                            const int* __restrict__ indices, int* colors)
{
    const int begin = __ldg(indptr + v), end = __ldg(indptr + v + 1);
    for (int off = 0;; off += 32) {  // the answer is at most the degree: ends by off > degree
        unsigned int used = 0;
        for (int e = begin; e < end; e++) {
            const unsigned int c = (unsigned int)(colors[__ldg(indices + e)] - off);
            if (c < 32u) used |= 1u << c;
        }
        if (~used) {
            colors[v] = off + __ffs(~used) - 1;
            return;
        }
    }
}

// The same, warp per vertex (the heavy ones): a window of 1024 colors as the warp's 32 words of
// shared memory `used`, slid until it holds a free color.
__device__ __forceinline__ void pull_warp(const int v, unsigned int* used,
                                          const int* __restrict__ indptr,
                                          const int* __restrict__ indices, int* colors)
{
    const int lane = threadIdx.x & 31;
    const int begin = __ldg(indptr + v), end = __ldg(indptr + v + 1);
    for (int off = 0;; off += 1024) {
        used[lane] = 0u;
        __syncwarp();
        for (int e = begin + lane; e < end; e += 32) {
            const unsigned int c = (unsigned int)(colors[__ldg(indices + e)] - off);
            if (c < 1024u) atomicOr(used + (c >> 5), 1u << (c & 31u));
        }
        __syncwarp();
        const unsigned int free = ~used[lane];
        const unsigned int has = __ballot_sync(0xffffffffu, free != 0u);
        if (has) {
            if (lane == __ffs(has) - 1) colors[v] = off + 32 * lane + __ffs(free) - 1;
            return;
        }
        __syncwarp();
    }
}

// Pull-down of one color class (a bucket: its vertices are independent, so they move together
// without conflict), thread per vertex; the host launches one per non-empty bucket (sync=round).
extern "C" __global__ void cf_pull_thread(const int count, const int* __restrict__ bucket,
                                          const int* __restrict__ indptr,
                                          const int* __restrict__ indices, int* colors)
{
    const int i = gcb_tid();
    if (i < count) pull_thread(__ldg(bucket + i), indptr, indices, colors);
}

// The same, warp per vertex (the heavy bucket).
extern "C" __global__ void cf_pull_warp(const int count, const int* __restrict__ bucket,
                                        const int* __restrict__ indptr,
                                        const int* __restrict__ indices, int* colors)
{
    __shared__ unsigned int used_sh[32][32];
    const int w = gcb_tid() >> 5;
    if (w < count)
        pull_warp(__ldg(bucket + w), used_sh[threadIdx.x >> 5], indptr, indices, colors);
}

// The whole pull-down in one launch (sync=device|batch): the color classes 1 .. classes - 1 one
// after another, a grid barrier between two, so the host neither reads the bucket sizes nor
// launches a kernel per class. ends[k] is where bucket k (color k / 2, heavy when k is odd) ends
// in `order`; place[j] counts the non-empty classes among colors 1 .. j + 1, so the i-th is the
// first j with place[j] > i. The grid must be resident all at once (the launcher sizes it). The
// colors are read as plain loads: the barrier's fences at gpu scope (release before it, acquire
// after) make every write of the classes before it visible to them, L1 included (PTX memory
// model; the acquire invalidates the multiprocessor's L1).
extern "C" __global__ void cf_pull_all(const int classes, const int* __restrict__ place,
                                       const int* __restrict__ ends,
                                       const int* __restrict__ order,
                                       const int* __restrict__ indptr,
                                       const int* __restrict__ indices, int* colors,
                                       unsigned int* bar)
{
    __shared__ unsigned int used_sh[32][32];
    unsigned int* used = used_sh[threadIdx.x >> 5];
    const int total = classes > 1 ? __ldg(place + classes - 2) : 0;
    const int warp = gcb_tid() >> 5, warps = gcb_stride() >> 5;
    for (int i = 0; i < total; i++) {
        const int c = 1 + lower_bound(place, 0, classes - 1, i + 1);
        const int light = __ldg(ends + 2 * c - 1), heavy = __ldg(ends + 2 * c),
                  last = __ldg(ends + 2 * c + 1);
        for (int k = light + gcb_tid(); k < heavy; k += gcb_stride())
            pull_thread(__ldg(order + k), indptr, indices, colors);
        for (int k = heavy + warp; k < last; k += warps)
            pull_warp(__ldg(order + k), used, indptr, indices, colors);
        if (i + 1 < total && !gcb_grid_barrier(bar)) return;
    }
}
