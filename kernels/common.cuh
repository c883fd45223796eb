// Device helpers shared by every algorithm family (docs/architecture.md, "Algorithm contract").
#pragma once

// A vertex without a color: registry.UNCOLORED, passed to every compile as a -D define
// (runtime.COMMON_DEFINES); this default serves a compile without it (CI's nvcc -ptx).
#ifndef GCB_UNCOLORED
#define GCB_UNCOLORED (-1)
#endif
#define GCB_FULL_MASK 0xffffffffu
#define GCB_MSB 0x80000000u  // color c of an MSB-first 32-bit bitmap is bit 31 - c

// hash32 of docs/architecture.md, "Priorities and ties": the tie-break shared by GPU and CPU.
__device__ __forceinline__ unsigned int gcb_hash32(unsigned int x)
{
    x = ((x >> 16) ^ x) * 0x45d9f3bu;
    x = ((x >> 16) ^ x) * 0x45d9f3bu;
    x = (x >> 16) ^ x;
    return x;
}

// Global thread index and grid stride for grid-stride loops.
__device__ __forceinline__ int gcb_tid() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int gcb_stride() { return gridDim.x * blockDim.x; }

// Warp-aggregated increment of a global counter: one atomic per warp instead of one per lane.
__device__ __forceinline__ void gcb_count(int* __restrict__ counter, bool flag)
{
    const unsigned int active = __activemask();  // read once: the lanes that take part
    const unsigned int mask = __ballot_sync(active, flag);
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(active) - 1;
    if (lane == leader && mask) atomicAdd(counter, __popc(mask));
}

// Device-driven rounds (docs/decisions.md, "Rounds without the host"; gcbench/algorithms/gpu/
// slots.py). Pass p of a round-based algorithm reads slot p of its counters (`before`: what pass
// p - 1 left, GCB_SLOT_WIDTH ints, the first of which ends the coloring at 0) and counts what it
// leaves into slot p + 1 (zeroed beforehand). Every kernel of the pass starts with gcb_open and
// returns at once when it is false, so passes launched after the last one change nothing.
// Thread 0 copies the slot to `mirror`, pinned host memory the host polls, so the host learns
// what pass p - 1 left without a blocking read; the count is written last, after a system
// fence, as the host takes the slot once its count is there.
#ifndef GCB_SLOT_WIDTH
#define GCB_SLOT_WIDTH 2
#endif
__device__ __forceinline__ bool gcb_open(const int* __restrict__ before, int* __restrict__ mirror)
{
    const int left = before[0];
    if (mirror != nullptr && gcb_tid() == 0) {
        for (int i = 1; i < GCB_SLOT_WIDTH; i++) mirror[i] = before[i];
        __threadfence_system();
        *(volatile int*)mirror = left;
    }
    return left != 0;
}

// Which pass a kernel runs. Under the host's protocols the host names it: `p` is the pass and
// before/left/mirror its slots, `at` is null. Under sync=graph one captured round serves every
// round of a CUDA graph's WHILE loop (kernels/rounds.cu moves the round on): `at` points at the
// device's round counter, `p` is the pass within the round (of `passes`), `before` is the
// slots' base, and the pass and its slots are found from the counter; no mirror is written.
struct gcb_pass {
    int p;
    const int* before;
    int* left;
    int* mirror;
};
__device__ __forceinline__ gcb_pass gcb_locate(const int* at, int p, int passes,
                                               const int* before, int* left, int* mirror)
{
    if (at == nullptr) return {p, before, left, mirror};
    p += *at * passes;
    const int* slot = before + (size_t)p * GCB_SLOT_WIDTH;
    return {p, slot, const_cast<int*>(slot) + GCB_SLOT_WIDTH, nullptr};
}

// Every block of the grid waits here for all the others (a persistent kernel's phases, e.g. cf's
// pull-down one color class after another): bar[0] counts the arrivals, bar[1] the barriers
// passed, both 0 at the start and bar[0] 0 again after each. What a block wrote before it is
// seen by every block after it: thread 0's fences at gpu scope order the block's writes before
// its arrival (release) and its later reads after the generation it saw move (acquire, which
// invalidates the multiprocessor's L1), and __syncthreads carries both to the block's threads.
// The grid must be resident all at once (the host sizes it by the occupancy); a wait past
// GCB_BARRIER_SPINS polls (seconds) gives up and returns false, so the wait is bounded even
// where it was not.
#define GCB_BARRIER_SPINS (1 << 22)
__device__ __forceinline__ bool gcb_grid_barrier(unsigned int* bar)
{
    __shared__ int passed;
    __syncthreads();
    if (threadIdx.x == 0) {
        passed = 1;
        const unsigned int generation = atomicAdd(&bar[1], 0u);
        __threadfence();
        if (atomicAdd(&bar[0], 1u) == gridDim.x - 1) {
            atomicExch(&bar[0], 0u);
            __threadfence();
            atomicAdd(&bar[1], 1u);
        } else {
            for (int spins = 0; *(volatile unsigned int*)&bar[1] == generation; spins++) {
                if (spins == GCB_BARRIER_SPINS) {
                    passed = 0;
                    break;
                }
            }
        }
        __threadfence();
    }
    __syncthreads();
    return passed != 0;
}

// A keyed 32-bit hash, a bijection of x for every key (so distinct vertices never tie).
// Used wherever an algorithm needs seeded pseudo-random values computed on the fly.
__device__ __forceinline__ unsigned int gcb_mix(unsigned int x, unsigned int key)
{
    return gcb_hash32(gcb_hash32(x ^ key) + key);
}

// The (value, id) order of the independent-set family: u beats v when its value is larger,
// ties broken by the larger vertex id (Gunrock's fix for equal values, issue #885).
__device__ __forceinline__ bool gcb_beats(unsigned int value_u, int u, unsigned int value_v, int v)
{
    return value_u > value_v || (value_u == value_v && u > v);
}

// Warp-aggregated append of `value` to `list` where `flag` holds: one atomic per warp.
__device__ __forceinline__ void gcb_append(int* __restrict__ list, int* __restrict__ counter,
                                           bool flag, int value)
{
    const unsigned int active = __activemask();
    const unsigned int mask = __ballot_sync(active, flag);
    if (!mask) return;
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(mask) - 1;
    int start = 0;
    if (lane == leader) start = atomicAdd(counter, __popc(mask));
    start = __shfl_sync(active, start, leader);
    if (flag) list[start + __popc(mask & ((1u << lane) - 1u))] = value;
}

// Warp-aggregated claim of a slot in a list whose length is *counter, for the lanes where
// `flag` holds (one atomic per warp): returns the lane's slot, -1 where `flag` is false.
// Unlike gcb_append the caller stores the item, so it may be of any type.
__device__ __forceinline__ int gcb_claim(int* __restrict__ counter, bool flag)
{
    const unsigned int active = __activemask();
    const unsigned int mask = __ballot_sync(active, flag);
    if (!mask) return -1;
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(mask) - 1;
    int start = 0;
    if (lane == leader) start = atomicAdd(counter, __popc(mask));
    start = __shfl_sync(active, start, leader);
    return flag ? start + __popc(mask & ((1u << lane) - 1u)) : -1;
}

// The inclusive sum of x over the block's threads up to this one (blockDim.x a multiple of 32;
// every thread of the block calls it).
__device__ __forceinline__ int gcb_block_scan(int x)
{
    __shared__ int warp_sums[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = 1; d < 32; d <<= 1) {
        const int y = __shfl_up_sync(GCB_FULL_MASK, x, d);
        if (lane >= d) x += y;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int w = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            const int y = __shfl_up_sync(GCB_FULL_MASK, w, d);
            if (lane >= d) w += y;
        }
        warp_sums[lane] = w;
    }
    __syncthreads();
    if (warp > 0) x += warp_sums[warp - 1];
    __syncthreads();  // warp_sums is reused by the next call
    return x;
}

// Visit the listed vertices (0..count-1 when list is null) for which want(v) holds; combine
// edge(v, u) over v's neighbours u with OR (or MIN) and call done(v, combined) once per vertex.
// Vertices of degree >= 32 are traversed by the whole warp, the others by one thread each.
template <bool MIN, typename Want, typename Edge, typename Done>
__device__ __forceinline__ void gcb_each_vertex(const int count, const int* __restrict__ list,
                                                const int* __restrict__ indptr,
                                                const int* __restrict__ indices, Want want,
                                                Edge edge, Done done)
{
    const unsigned identity = MIN ? GCB_FULL_MASK : 0u;
    const int lane = threadIdx.x & 31;
    for (int base = gcb_tid() - lane; base < count; base += gcb_stride()) {
        int v = -1, beg = 0, end = 0;
        if (base + lane < count) {
            v = list ? list[base + lane] : base + lane;
            if (want(v)) {
                beg = indptr[v];
                end = indptr[v + 1];
            } else {
                v = -1;
            }
        }
        const bool big = v >= 0 && end - beg >= 32;
        if (v >= 0 && !big) {
            unsigned acc = identity;
            for (int e = beg; e < end; e++) {
                const unsigned x = edge(v, indices[e]);
                acc = MIN ? min(acc, x) : acc | x;
            }
            done(v, acc);
        }
        for (unsigned todo = __ballot_sync(GCB_FULL_MASK, big); todo; todo &= todo - 1) {
            const int src = __ffs(todo) - 1;
            const int wv = __shfl_sync(GCB_FULL_MASK, v, src);
            const int wbeg = __shfl_sync(GCB_FULL_MASK, beg, src);
            const int wend = __shfl_sync(GCB_FULL_MASK, end, src);
            unsigned acc = identity;
            for (int e = wbeg + lane; e < wend; e += 32) {
                const unsigned x = edge(wv, indices[e]);
                acc = MIN ? min(acc, x) : acc | x;
            }
            acc = MIN ? __reduce_min_sync(GCB_FULL_MASK, acc)
                      : __reduce_or_sync(GCB_FULL_MASK, acc);
            if (lane == src) done(wv, acc);
        }
    }
}
