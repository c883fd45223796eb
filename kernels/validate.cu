// The runner's validation kernel (DESIGN §4): the whole Validation of a device coloring in one
// pass, so nothing of size n goes to the host to be checked.
// out[0]: CSR entries whose endpoints share a color (2 per edge); out[1]: uncolored vertices;
// out[2]: distinct colors below n (used[] flags them); out[3]: colors >= n (then the host
// counts distinct colors itself); maxc[0]: the largest color (-1 if none).
#include "common.cuh"

extern "C" __global__ void validate_coloring(const int n, const int* __restrict__ indptr,
                                             const int* __restrict__ indices,
                                             const int* __restrict__ colors,
                                             unsigned* __restrict__ used,
                                             unsigned long long* __restrict__ out,
                                             int* __restrict__ maxc)
{
    unsigned long long conflicts = 0;
    int uncolored = 0, fresh = 0, big = 0, top = -1;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const int cv = colors[v];
        if (cv < 0) {
            uncolored++;
            continue;
        }
        top = max(top, cv);
        if (cv >= n)
            big++;
        else if (!used[cv] && atomicExch(&used[cv], 1u) == 0u)  // a read first: few atomics
            fresh++;
        for (int e = indptr[v]; e < indptr[v + 1]; e++) conflicts += (colors[indices[e]] == cv);
    }
    if (conflicts) atomicAdd(&out[0], conflicts);
    uncolored = __reduce_add_sync(GCB_FULL_MASK, uncolored);
    fresh = __reduce_add_sync(GCB_FULL_MASK, fresh);
    big = __reduce_add_sync(GCB_FULL_MASK, big);
    top = __reduce_max_sync(GCB_FULL_MASK, top);
    if ((threadIdx.x & 31) == 0) {
        if (uncolored) atomicAdd(&out[1], (unsigned long long)uncolored);
        if (fresh) atomicAdd(&out[2], (unsigned long long)fresh);
        if (big) atomicAdd(&out[3], (unsigned long long)big);
        if (top >= 0) atomicMax(maxc, top);
    }
}
