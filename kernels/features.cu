// The graph features `auto` decides from (gcbench/algorithms/auto.py): the largest degree, in
// one pass over the offsets. n and nnz are the arrays' lengths; the mean degree follows.
#include "common.cuh"

extern "C" __global__ void max_degree(const int n, const int* __restrict__ indptr,
                                      int* __restrict__ out)
{
    int top = 0;
    for (int v = gcb_tid(); v < n; v += gcb_stride()) top = max(top, indptr[v + 1] - indptr[v]);
    top = __reduce_max_sync(GCB_FULL_MASK, top);
    if ((threadIdx.x & 31) == 0 && top) atomicMax(out, top);
}
