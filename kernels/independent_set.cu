// The independent-set family (Luby / Jones-Plassmann): jpl, jpl-minmax, gunrock, cohen, luby,
// very-random (jpl-borione §III-C..E, §IV; luby-cf). One selection pass = is_thread over the
// light vertices, plus is_warp / is_block over the hub lists when the launcher balances load;
// is_permutation, is_random and is_random_float make the values of jpl, luby and gunrock.
//
// An uncolored vertex whose value beats every neighbour still in play takes color `base` (a
// local maximum); with want = MAX|MIN a local minimum takes `base + 1` (Alg. 5/6). A neighbour
// is in play when it is uncolored or was colored in this pass (color >= base): such a neighbour
// beat us, so reading it as colored or not gives the same answer (no race on `colors`).
// Values compare as (value, id) pairs (gcb_beats), so ties can never stall a pass.
//
// Compile-time GCB_KEY_HASH: 0 = values read from `vals` at (u + offset) mod n (index shift),
//                            1 = values computed on the fly: gcb_mix(u, gcb_mix(stream, seed)).
#include "common.cuh"

#ifndef GCB_KEY_HASH
#define GCB_KEY_HASH 0
#endif

// The selection bits of `want`: MAX and MIN of gcbench/algorithms/gpu/independent_set.py,
// passed to every compile as -D defines; these defaults serve a compile without them (CI's
// nvcc -ptx), and tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#ifndef GCB_MAX
#define GCB_MAX 1
#endif
#ifndef GCB_MIN
#define GCB_MIN 2
#endif
static_assert((GCB_MAX & GCB_MIN) == 0 && GCB_MAX > 0 && GCB_MIN > 0, "two disjoint bits");

// A vertex's value in this pass.
struct Key {
#if GCB_KEY_HASH
    unsigned int salt;
    __device__ Key(const unsigned int*, unsigned int, unsigned int, unsigned int seed,
                   unsigned int stream)
        : salt(gcb_mix(stream, seed))
    {
    }
    __device__ __forceinline__ unsigned int operator()(int u) const
    {
        return gcb_mix((unsigned int)u, salt);
    }
#else
    const unsigned int* __restrict__ vals;
    unsigned int n, offset;
    __device__ Key(const unsigned int* v, unsigned int n_, unsigned int off, unsigned int,
                   unsigned int)
        : vals(v), n(n_), offset(off)
    {
    }
    __device__ __forceinline__ unsigned int operator()(int u) const
    {
        unsigned int i = (unsigned int)u + offset;  // offset < n, so one subtraction wraps
        if (i >= n) i -= n;
        return __ldg(vals + i);
    }
#endif
};

// What pass p colors with and how it keys its vertices, from p alone (so a pass captured once
// serves every round under sync=graph): the max-set takes color p * base_step, the values are
// read at an index shift of (shift * p) mod n, and the hash stream is p mod stream_mod.
struct Pass {
    int base;
    unsigned int offset, stream;
    __device__ Pass(int p, int n, int base_step, unsigned int shift, int stream_mod)
        : base(p * base_step),
          offset((unsigned int)(((unsigned long long)shift * (unsigned int)p) % (unsigned int)n)),
          stream((unsigned int)(p % stream_mod))
    {
    }
};

// The set bits (GCB_MAX / GCB_MIN) that CSR entry e, a neighbour in play, rules out for v.
// The value is read first: a neighbour that cannot change the answer costs no color load.
__device__ __forceinline__ unsigned int ruled_out(const Key& key, int v, unsigned int kv, int e,
                                                  int end, const int* __restrict__ indices,
                                                  const int* colors, int base, unsigned int still)
{
    if (e >= end) return 0u;
    const int u = __ldg(indices + e);
    const unsigned int bit = gcb_beats(key(u), u, kv, v) ? GCB_MAX : GCB_MIN;
    if (!(still & bit)) return 0u;
    const int cu = colors[u];
    return (cu == GCB_UNCOLORED || cu >= base) ? bit : 0u;
}

// Color v from what survived its scan; true when v stays uncolored.
__device__ __forceinline__ bool settle(int* colors, int v, unsigned int still, int base)
{
    if (still & GCB_MAX) colors[v] = base;
    else if (still & GCB_MIN) colors[v] = base + 1;
    return !still;
}

// OR of a lane's bits over its group: a warp, or a whole block.
struct WarpOr {
    __device__ static unsigned int reduce(unsigned int bits)
    {
        return __reduce_or_sync(0xffffffffu, bits);
    }
};
struct BlockOr {
    __device__ static unsigned int reduce(unsigned int bits)
    {
        return (__syncthreads_or(bits & GCB_MAX) ? GCB_MAX : 0u) |
               (__syncthreads_or(bits & GCB_MIN) ? GCB_MIN : 0u);
    }
};

// A group of `width` threads scans v's row together, `rank` being this thread's place in it;
// every thread returns the same surviving bits. Stops as soon as nothing survives.
template <class Or>
__device__ __forceinline__ unsigned int group_scan(const Key& key, int v, int begin, int end,
                                                   int rank, int width,
                                                   const int* __restrict__ indices,
                                                   const int* colors, int base, unsigned int want)
{
    const unsigned int kv = key(v);
    unsigned int still = want;
    for (int e = begin; e < end; e += width) {
        still &= ~Or::reduce(ruled_out(key, v, kv, e + rank, end, indices, colors, base, still));
        if (!still) break;
    }
    return still;
}

// One thread per vertex for the vertices of degree < light_limit (all of them when the
// launcher does not balance load). Adds the vertices left uncolored to the pass's slot (found
// by gcb_locate, gated by gcb_open: common.cuh).
extern "C" __global__ void is_thread(const int n, const int* __restrict__ indptr,
                                     const int* __restrict__ indices, int* colors,
                                     const unsigned int* __restrict__ vals,
                                     const unsigned int seed, const int base_step,
                                     const unsigned int shift, const int stream_mod,
                                     const unsigned int want, const int light_limit,
                                     const int* at, const int p, const int passes,
                                     const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const Pass pass(here.p, n, base_step, shift, stream_mod);
    const int v = gcb_tid();
    bool open = false;
    if (v < n && colors[v] == GCB_UNCOLORED) {
        const int begin = __ldg(indptr + v), end = __ldg(indptr + v + 1);
        if (end - begin < light_limit) {
            const Key key(vals, n, pass.offset, seed, pass.stream);
            const unsigned int kv = key(v);
            unsigned int still = want;
            for (int e = begin; e < end && still; e++)
                still &= ~ruled_out(key, v, kv, e, end, indices, colors, pass.base, still);
            open = settle(colors, v, still, pass.base);
        }
    }
    gcb_count(here.left, open);
}

// One warp per vertex of `list` (the mid-degree hubs).
extern "C" __global__ void is_warp(const int* __restrict__ list, const int count, const int n,
                                   const int* __restrict__ indptr,
                                   const int* __restrict__ indices, int* colors,
                                   const unsigned int* __restrict__ vals,
                                   const unsigned int seed, const int base_step,
                                   const unsigned int shift, const int stream_mod,
                                   const unsigned int want, const int* at, const int p,
                                   const int passes, const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const Pass pass(here.p, n, base_step, shift, stream_mod);
    const int w = gcb_tid() >> 5, lane = threadIdx.x & 31;
    if (w >= count) return;
    const int v = __ldg(list + w);
    if (colors[v] != GCB_UNCOLORED) return;
    const Key key(vals, n, pass.offset, seed, pass.stream);
    const unsigned int still = group_scan<WarpOr>(key, v, __ldg(indptr + v), __ldg(indptr + v + 1),
                                                  lane, 32, indices, colors, pass.base, want);
    if (lane == 0 && settle(colors, v, still, pass.base)) atomicAdd(here.left, 1);
}

// One block per vertex of `list` (the highest-degree hubs), grid-stride over the list.
extern "C" __global__ void is_block(const int* __restrict__ list, const int count, const int n,
                                    const int* __restrict__ indptr,
                                    const int* __restrict__ indices, int* colors,
                                    const unsigned int* __restrict__ vals,
                                    const unsigned int seed, const int base_step,
                                    const unsigned int shift, const int stream_mod,
                                    const unsigned int want, const int* at, const int p,
                                    const int passes, const int* before, int* left,
                                    int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const Pass pass(here.p, n, base_step, shift, stream_mod);
    const Key key(vals, n, pass.offset, seed, pass.stream);
    for (int i = blockIdx.x; i < count; i += gridDim.x) {
        const int v = __ldg(list + i);
        if (colors[v] != GCB_UNCOLORED) continue;  // only this block writes colors[v]
        const unsigned int still =
            group_scan<BlockOr>(key, v, __ldg(indptr + v), __ldg(indptr + v + 1), threadIdx.x,
                                blockDim.x, indices, colors, pass.base, want);
        if (threadIdx.x == 0 && settle(colors, v, still, pass.base))
            atomicAdd(here.left, 1);
    }
}

// A 4-round Feistel network on 2*half bits (half <= 16) keyed by `seed`.
__device__ __forceinline__ unsigned int feistel(unsigned int x, unsigned int half,
                                                unsigned int seed)
{
    const unsigned int mask = (1u << half) - 1u;
    unsigned int l = x >> half, r = x & mask;
#pragma unroll
    for (unsigned int round = 0; round < 4; round++) {
        const unsigned int f = gcb_mix(r, gcb_mix(round, seed)) & mask;
        const unsigned int next = l ^ f;
        l = r;
        r = next;
    }
    return (l << half) | r;
}

// jpl, jpl-minmax: vals = a seeded permutation of [0, n) — the Feistel bijection of
// [0, 4^half) cycle-walked into [0, n) (the walk from v < n meets a value < n at the latest
// when its cycle returns to v; 4^half < 4n, so it takes under 4 steps on average).
extern "C" __global__ void is_permutation(const int n, unsigned int* __restrict__ vals,
                                          const unsigned int seed, const unsigned int half)
{
    const int v = gcb_tid();
    if (v >= n) return;
    unsigned int x = (unsigned int)v;
    do x = feistel(x, half, seed);
    while (x >= (unsigned int)n);
    vals[v] = x;
}

// luby: fixed seeded 32-bit random values (distinct, gcb_mix being a bijection).
extern "C" __global__ void is_random(const int n, unsigned int* __restrict__ vals,
                                     const unsigned int seed)
{
    const int v = gcb_tid();
    if (v < n) vals[v] = gcb_mix((unsigned int)v, seed);
}

// gunrock: float values in [0, n) for the uncolored vertices, made in every even round r (the
// round's first kernel, gated like its pass) from a counter-based hash of (seed, r / 2, v);
// stored as their bits (non-negative floats order like their bit patterns). Odd rounds keep
// the values (under sync=graph the kernel is in every round and returns at once in those).
// equal != 0 gives every vertex the value 0: only the id tie-break can then make progress.
extern "C" __global__ void is_random_float(const int n, unsigned int* __restrict__ vals,
                                           const int* __restrict__ colors,
                                           const unsigned int seed, const int equal,
                                           const int* at, const int p, const int* before,
                                           int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, 1, before, nullptr, mirror);
    if (here.p % 2 != 0 || !gcb_open(here.before, here.mirror)) return;
    const int v = gcb_tid();
    if (v >= n || colors[v] != GCB_UNCOLORED) return;
    const unsigned int epoch = (unsigned int)(here.p / 2);
    const unsigned int h = gcb_mix((unsigned int)v, gcb_mix(epoch, seed));
    const float f = equal ? 0.0f : (float)(h >> 8) * (1.0f / 16777216.0f) * (float)n;
    vals[v] = __float_as_uint(f);
}
