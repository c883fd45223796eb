// Class balancing by vertex-centric shuffling (Lu et al., "Balanced coloring for parallel
// computing applications", IPDPS 2015), one round's device steps: every vertex of an over-full
// class proposes an under-full class of the round's window that no neighbour holds, and of two
// adjacent vertices proposing the same class only the one of higher priority keeps it. The
// quotas, the moves and the host loop are in gcbench/algorithms/balance.py, the launcher in
// gcbench/algorithms/gpu/balance.py; the CPU twin there computes the same proposals.
#include "common.cuh"

// The most classes a round's window offers: WINDOW of gcbench/algorithms/balance.py, passed to
// every compile as a -D define; this default serves a compile without it (CI's nvcc -ptx), and
// tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#ifndef GCB_BALANCE_WINDOW
#define GCB_BALANCE_WINDOW 32
#endif
static_assert(GCB_BALANCE_WINDOW <= 32, "a vertex's free classes of the window are one word");

// The k-th set bit (0-based, from the least significant) of a mask with more than k set.
__device__ __forceinline__ int nth_bit(unsigned mask, unsigned k)
{
    for (unsigned i = 0; i < k; i++) mask &= mask - 1;
    return __ffs(mask) - 1;
}

// proposal[v] (filled with -1 before): for v in a class that may give (give[c] > 0), one of the
// window's classes no neighbour holds, picked by gcb_mix(v, pick_key) among them; slot[c] is
// c's place in the window (-1 outside it), width the window's length (<= GCB_BALANCE_WINDOW).
extern "C" __global__ void propose(const int n, const int* __restrict__ indptr,
                                   const int* __restrict__ indices, const int* __restrict__ colors,
                                   const int* __restrict__ give, const int* __restrict__ slot,
                                   const int* __restrict__ window, const int width,
                                   const unsigned pick_key, int* __restrict__ proposal)
{
    const unsigned all = width >= 32 ? GCB_FULL_MASK : (1u << width) - 1u;
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices, [&](int v) { return give[colors[v]] > 0; },
        [&](int, int u) {
            const int s = slot[colors[u]];
            return s >= 0 ? 1u << s : 0u;
        },
        [&](int v, unsigned held) {
            const unsigned free = all & ~held;
            if (free) {
                const unsigned k = gcb_mix((unsigned)v, pick_key) % (unsigned)__popc(free);
                proposal[v] = window[nth_bit(free, k)];
            }
        });
}

// target[v] (filled with -1 before) = proposal[v] unless a neighbour proposing the same class
// beats v on (gcb_mix(u, priority_key), u); priority[v] = v's value, for the quotas.
extern "C" __global__ void resolve(const int n, const int* __restrict__ indptr,
                                   const int* __restrict__ indices,
                                   const int* __restrict__ proposal,
                                   const unsigned priority_key, int* __restrict__ target,
                                   unsigned* __restrict__ priority)
{
    gcb_each_vertex<false>(
        n, nullptr, indptr, indices, [&](int v) { return proposal[v] >= 0; },
        [&](int v, int u) {
            return (unsigned)(proposal[u] == proposal[v] &&
                              gcb_beats(gcb_mix((unsigned)u, priority_key), u,
                                        gcb_mix((unsigned)v, priority_key), v));
        },
        [&](int v, unsigned beaten) {
            priority[v] = gcb_mix((unsigned)v, priority_key);
            if (!beaten) target[v] = proposal[v];
        });
}
