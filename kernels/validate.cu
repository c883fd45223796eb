// The runner's validation (docs/architecture.md, "Validation"): the whole Validation of a device
// coloring, balance columns included, from one pass over the graph, so nothing of size n goes to
// the host to be checked. validate_coloring makes that pass; class_sums then reads only the
// class sizes it counted.
//
// out[GCB_SUM_ENTRIES]: CSR entries whose endpoints share a color (2 per edge);
// out[GCB_SUM_UNCOLORED]: uncolored vertices; out[GCB_SUM_BIG]: colors >= n (then the host
// counts the classes itself); out[GCB_SUM_CLASSES]: non-empty classes below n;
// out[GCB_SUM_SQUARES]: the sum of their squared sizes; out[GCB_SUM_SMALLEST]: the smallest
// (start: ~0); out[GCB_SUM_LARGEST]: the largest. size[c]: the size of class c < n (start: 0);
// maxc[0]: the largest color (start: -1).
#include "common.cuh"

// out[]'s slots: runtime.Sum in gcbench/algorithms/gpu/runtime.py is their definition, passed
// to every compile as -D defines; these defaults serve a compile without them (CI's nvcc -ptx)
// and tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#ifndef GCB_SUM_ENTRIES
#define GCB_SUM_ENTRIES 0
#endif
#ifndef GCB_SUM_UNCOLORED
#define GCB_SUM_UNCOLORED 1
#endif
#ifndef GCB_SUM_BIG
#define GCB_SUM_BIG 2
#endif
#ifndef GCB_SUM_CLASSES
#define GCB_SUM_CLASSES 3
#endif
#ifndef GCB_SUM_SQUARES
#define GCB_SUM_SQUARES 4
#endif
#ifndef GCB_SUM_SMALLEST
#define GCB_SUM_SMALLEST 5
#endif
#ifndef GCB_SUM_LARGEST
#define GCB_SUM_LARGEST 6
#endif

// size[key] += the lanes of the warp holding `key` (none for key < 0): one atomic per distinct
// key per warp, so the few large classes of a coloring are not one atomic per vertex.
__device__ __forceinline__ void count_key(unsigned* __restrict__ size, const int key)
{
    const unsigned active = __activemask();
    const unsigned peers = __match_any_sync(active, key);
    if (key >= 0 && (threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&size[key], __popc(peers));
}

extern "C" __global__ void validate_coloring(const int n, const int* __restrict__ indptr,
                                             const int* __restrict__ indices,
                                             const int* __restrict__ colors,
                                             unsigned* __restrict__ size,
                                             unsigned long long* __restrict__ out,
                                             int* __restrict__ maxc)
{
    unsigned long long conflicts = 0;
    int uncolored = 0, big = 0, top = -1;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const int cv = colors[v];
        count_key(size, cv < n ? cv : -1);
        if (cv < 0) {
            uncolored++;
            continue;
        }
        top = max(top, cv);
        big += cv >= n;
        for (int e = indptr[v]; e < indptr[v + 1]; e++) conflicts += (colors[indices[e]] == cv);
    }
    if (conflicts) atomicAdd(&out[GCB_SUM_ENTRIES], conflicts);
    uncolored = __reduce_add_sync(GCB_FULL_MASK, uncolored);
    big = __reduce_add_sync(GCB_FULL_MASK, big);
    top = __reduce_max_sync(GCB_FULL_MASK, top);
    if ((threadIdx.x & 31) == 0) {
        if (uncolored) atomicAdd(&out[GCB_SUM_UNCOLORED], (unsigned long long)uncolored);
        if (big) atomicAdd(&out[GCB_SUM_BIG], (unsigned long long)big);
        if (top >= 0) atomicMax(maxc, top);
    }
}

__device__ __forceinline__ unsigned long long warp_sum64(unsigned long long x)
{
    for (int lane = 16; lane > 0; lane >>= 1) x += __shfl_xor_sync(GCB_FULL_MASK, x, lane);
    return x;
}

// The class sums of size[0 .. min(maxc, n - 1)]: launched after validate_coloring on the same
// stream, it reads the largest color from the device (no host round trip in between).
extern "C" __global__ void class_sums(const int n, const unsigned* __restrict__ size,
                                      const int* __restrict__ maxc,
                                      unsigned long long* __restrict__ out)
{
    const int classes = min(*maxc + 1, n);
    unsigned count = 0, least = GCB_FULL_MASK, most = 0;
    unsigned long long squares = 0;
    for (int c = gcb_tid(); c < classes; c += gcb_stride()) {
        const unsigned s = size[c];
        if (s) {
            count++;
            squares += (unsigned long long)s * s;
            least = min(least, s);
            most = max(most, s);
        }
    }
    count = __reduce_add_sync(GCB_FULL_MASK, count);
    least = __reduce_min_sync(GCB_FULL_MASK, least);
    most = __reduce_max_sync(GCB_FULL_MASK, most);
    squares = warp_sum64(squares);
    if ((threadIdx.x & 31) == 0 && count) {
        atomicAdd(&out[GCB_SUM_CLASSES], (unsigned long long)count);
        atomicAdd(&out[GCB_SUM_SQUARES], squares);
        atomicMin(&out[GCB_SUM_SMALLEST], (unsigned long long)least);
        atomicMax(&out[GCB_SUM_LARGEST], (unsigned long long)most);
    }
}
