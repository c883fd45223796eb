// The runner's validation kernel: CSR entries whose endpoints share a color (2 per edge).
// Uncolored vertices and distinct colors are counted on the host from the copied-back colors.
#include "common.cuh"

extern "C" __global__ void count_conflicts(const int n, const int* __restrict__ indptr,
                                           const int* __restrict__ indices,
                                           const int* __restrict__ colors,
                                           unsigned long long* __restrict__ conflicts)
{
    unsigned long long local = 0;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const int cv = colors[v];
        if (cv < 0) continue;
        for (int e = indptr[v]; e < indptr[v + 1]; e++) local += (colors[indices[e]] == cv);
    }
    if (local) atomicAdd(conflicts, local);
}
