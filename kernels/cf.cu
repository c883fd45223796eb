// cf: communication-free coloring (luby-cf §"Communication free").
//
// Pass 0 (cf_tiles): each block colors its own tile of T = blockDim.x consecutive vertices in
// shared memory, seeing only the neighbours inside the tile. Cross-tile edges may then conflict;
// cf_conflicts lists one endpoint of each (the lower hash32) and pass p (cf_list_tiles) colors
// that sorted list, tiled again, with the fresh colors [p*T, p*T + T), until no conflict is
// left. Finally cf_pull_* pull colors down one color class at a time (greedy first fit).
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

// Pass 0: tiles are id ranges [lo, hi), so a sorted row's in-tile neighbours are one run [a, b).
struct RangeTile {
    const int* __restrict__ indices;
    int a, b, lo;
    __device__ int degree() const { return b - a; }
    template <class F> __device__ void each(F f) const
    {
        for (int e = a; e < b; e++)
            if (!f(__ldg(indices + e) - lo)) return;
    }
};

// Later passes: tiles are runs [lo, hi) of the conflict list; pos[u] is u's place in it, or -1.
struct ListTile {
    const int* __restrict__ indices;
    const int* __restrict__ pos;
    int a, b, lo, hi;
    template <class F> __device__ void each(F f) const
    {
        for (int e = a; e < b; e++) {
            const int p = __ldg(pos + __ldg(indices + e));
            if (p >= lo && p < hi && !f(p - lo)) return;
        }
    }
    __device__ int degree() const
    {
        int d = 0;
        each([&](int) { d++; return true; });
        return d;
    }
};

// The smallest color no in-tile neighbour holds (at most the in-tile degree).
template <class Tile> __device__ int first_fit(const Tile& tile, const int* color_sh)
{
    for (int off = 0;; off += 32) {
        unsigned int used = 0;
        tile.each([&](int s) {
            const unsigned int c = (unsigned int)(color_sh[s] - off);
            if (c < 32u) used |= 1u << c;
            return true;
        });
        if (~used) return off + __ffs(~used) - 1;
    }
}

// Jones-Plassmann with first fit inside one tile, in shared memory: in each local round a vertex
// whose priority (in-tile degree, hash32(v)) beats every uncolored in-tile neighbour's takes the
// smallest color none of them holds. Priorities are distinct (hash32 is a bijection), so every
// round colors the tile's top vertex and the loop ends within T rounds. All threads of the block
// call this; padding threads (real == false) stand for no vertex.
template <class Tile>
__device__ int color_tile(const Tile& tile, bool real, int v, unsigned long long* key_sh,
                          int* color_sh)
{
    const int t = threadIdx.x;
    const unsigned long long mine =
        real ? ((unsigned long long)tile.degree() << 32) | gcb_hash32((unsigned int)v) : 0ull;
    key_sh[t] = mine;
    color_sh[t] = real ? GCB_UNCOLORED : 0;
    bool open = real;
    while (__syncthreads_or(open)) {
        int pick = GCB_UNCOLORED;
        if (open) {
            bool top = true;
            tile.each([&](int s) {
                top = !(color_sh[s] == GCB_UNCOLORED && key_sh[s] > mine);
                return top;
            });
            if (top) pick = first_fit(tile, color_sh);
        }
        __syncthreads();  // every read of this round before any write
        if (pick != GCB_UNCOLORED) {
            color_sh[t] = pick;
            open = false;
        }
    }
    return color_sh[t];
}

// Pass 0 over tiles of consecutive ids. Dynamic shared memory: blockDim.x * 12 bytes.
extern "C" __global__ void cf_tiles(const int n, const int* __restrict__ indptr,
                                    const int* __restrict__ indices, int* __restrict__ colors)
{
    extern __shared__ unsigned long long key_sh[];
    int* color_sh = reinterpret_cast<int*>(key_sh + blockDim.x);
    const int width = blockDim.x, tiles = (n + width - 1) / width;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int lo = tile * width, hi = lo + min(width, n - lo);
        const int v = lo + threadIdx.x;
        const bool real = v < hi;
        int a = 0, b = 0;
        if (real) {
            const int last = __ldg(indptr + v + 1);
            a = lower_bound(indices, __ldg(indptr + v), last, lo);
            b = lower_bound(indices, a, last, hi);
        }
        const int c = color_tile(RangeTile{indices, a, b, lo}, real, v, key_sh, color_sh);
        if (real) colors[v] = c;
    }
}

// Pass p >= 1 over tiles of the sorted conflict list, colors offset by `base`.
extern "C" __global__ void cf_list_tiles(const int count, const int* __restrict__ list,
                                         const int* __restrict__ pos,
                                         const int* __restrict__ indptr,
                                         const int* __restrict__ indices,
                                         int* __restrict__ colors, const int base)
{
    extern __shared__ unsigned long long key_sh[];
    int* color_sh = reinterpret_cast<int*>(key_sh + blockDim.x);
    const int width = blockDim.x, tiles = (count + width - 1) / width;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int lo = tile * width, hi = lo + min(width, count - lo);
        const int i = lo + threadIdx.x;
        const bool real = i < hi;
        const int v = real ? __ldg(list + i) : 0;
        const int a = real ? __ldg(indptr + v) : 0, b = real ? __ldg(indptr + v + 1) : 0;
        const int c = color_tile(ListTile{indices, pos, a, b, lo, hi}, real, v, key_sh, color_sh);
        if (real) colors[v] = base + c;
    }
}

// The vertices of the pass (all when identity != 0, else list[0..count)) that share their
// color with a neighbour of higher hash32 go to `out`; the other endpoint keeps its color.
extern "C" __global__ void cf_conflicts(const int count, const int* __restrict__ list,
                                        const int identity, const int* __restrict__ indptr,
                                        const int* __restrict__ indices,
                                        const int* __restrict__ colors, int* __restrict__ out,
                                        int* __restrict__ out_count)
{
    const int i = gcb_tid();
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
    gcb_append(out, out_count, lose, v);
}

// pos[list[i]] = i (set != 0) or -1 (set == 0).
extern "C" __global__ void cf_positions(const int count, const int* __restrict__ list,
                                        int* __restrict__ pos, const int set)
{
    const int i = gcb_tid();
    if (i < count) pos[__ldg(list + i)] = set ? i : -1;
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

// Pull-down of one color class, thread per vertex: v takes the smallest color none of its
// neighbours holds (at most its current one). The class is independent, so its vertices move
// together without conflict.
extern "C" __global__ void cf_pull_thread(const int count, const int* __restrict__ bucket,
                                          const int* __restrict__ indptr,
                                          const int* __restrict__ indices, int* colors)
{
    const int i = gcb_tid();
    if (i >= count) return;
    const int v = __ldg(bucket + i);
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

// Pull-down of one color class, warp per vertex (the heavy ones): a window of 1024 colors as
// 32 words of per-warp shared memory, slid until it holds a free color.
extern "C" __global__ void cf_pull_warp(const int count, const int* __restrict__ bucket,
                                        const int* __restrict__ indptr,
                                        const int* __restrict__ indices, int* colors)
{
    __shared__ unsigned int used_sh[32][32];
    const int lane = threadIdx.x & 31, w = gcb_tid() >> 5;
    if (w >= count) return;
    unsigned int* used = used_sh[threadIdx.x >> 5];
    const int v = __ldg(bucket + w);
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
