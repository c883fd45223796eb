// Iterated greedy recoloring (Culberson & Luo 1996) on the device, for every GPU algorithm's
// `reduce=ig`. The host loop and the class order live in gcbench/algorithms/recolor.py, the
// launcher in gcbench/algorithms/gpu/recolor.py: one launch of ig_class per class, in the
// pass's order, so every vertex sees the final new colors of the classes visited before its
// own and none of its own class (which holds no neighbour of it).
#include "common.cuh"

// Add one to *counter for each lane that calls it, lanes with the same `key` naming the same
// counter: one atomic per distinct key in the warp (a class holds many of a warp's vertices).
// Returns the counter's value before the lane's own one was added.
__device__ __forceinline__ int ig_add(int* counter, const int key)
{
    const int lane = threadIdx.x & 31;
    const unsigned peers = __match_any_sync(__activemask(), key);
    const int leader = __ffs(peers) - 1;
    int start = 0;
    if (lane == leader) start = atomicAdd(counter, __popc(peers));
    return __shfl_sync(peers, start, leader) + __popc(peers & ((1u << lane) - 1u));
}

// sizes[c] = the number of vertices of color c (sizes zeroed; every color in 0..len - 1).
extern "C" __global__ void ig_count(const int n, const int* __restrict__ colors,
                                    int* __restrict__ sizes)
{
    for (int v = gcb_tid(); v < n; v += gcb_stride()) ig_add(&sizes[colors[v]], colors[v]);
}

// The pass's visit order: the class at position p = rank[colors[v]] owns order[lo[p] .. hi[p]);
// its light vertices fill it from lo[p] up (mid counts them: mid[p] starts at lo[p]), its heavy
// ones (at least `heavy_degree` neighbours, colored a block each by ig_heavy) from hi[p] down
// (taken[p] counts them), so light and heavy meet at mid[p]. The order inside a class is
// whatever the atomics give: no vertex of a class sees another of it.
extern "C" __global__ void ig_place(const int n, const int* __restrict__ colors,
                                    const int* __restrict__ rank,
                                    const int* __restrict__ indptr, const int heavy_degree,
                                    int* __restrict__ mid, const int* __restrict__ hi,
                                    int* __restrict__ taken, int* __restrict__ order)
{
    for (int v = gcb_tid(); v < n; v += gcb_stride()) {
        const int position = rank[colors[v]];
        const bool heavy = indptr[v + 1] - indptr[v] >= heavy_degree;
        const int at = ig_add(heavy ? &taken[position] : &mid[position], 2 * position + heavy);
        order[heavy ? hi[position] - 1 - at : at] = v;
    }
}

// The light vertices of the class at position `position` (order[lo .. mid)) take the smallest
// color that no neighbour already holds in `fresh` (UNCOLORED for the classes not yet visited).
// Its vertices' neighbours hold colors of the `position` classes before, so each takes a color
// <= position: 32-color windows up to there (a thread a vertex, a warp from 32 neighbours).
extern "C" __global__ void ig_class(const int* __restrict__ order, const int* __restrict__ lo,
                                    const int* __restrict__ mid, const int position,
                                    const int* __restrict__ indptr,
                                    const int* __restrict__ indices, int* __restrict__ fresh)
{
    const int begin = lo[position];
    const int count = mid[position] - begin;
    const int* const list = order + begin;
    for (int base = 0; base <= position; base += 32) {
        gcb_each_vertex<false>(
            count, list, indptr, indices, [&](int v) { return fresh[v] == GCB_UNCOLORED; },
            [&](int, int u) {
                const unsigned offset = (unsigned)(fresh[u] - base);
                return offset < 32u ? 1u << offset : 0u;
            },
            [&](int v, unsigned used) {
                if (~used) fresh[v] = base + __ffs(~used) - 1;
            });
    }
}

// The heavy vertices of the class at position `position` (order[mid .. hi)), a block each:
// the block marks its neighbours' colors in a bitmap of `window` colors (a multiple of 32, in
// window / 8 bytes of dynamic shared memory) and takes the first unmarked, window after window
// up to `position`, instead of one warp rescanning its neighbours for every 32 colors.
extern "C" __global__ void ig_heavy(const int* __restrict__ order, const int* __restrict__ mid,
                                    const int* __restrict__ hi, const int position,
                                    const int* __restrict__ indptr,
                                    const int* __restrict__ indices, int* __restrict__ fresh,
                                    const int window)
{
    extern __shared__ unsigned used[];
    __shared__ int first;
    const int words = window / 32;
    const int end = hi[position];
    for (int i = mid[position] + blockIdx.x; i < end; i += gridDim.x) {
        const int v = order[i];
        for (int base = 0; base <= position; base += window) {
            for (int w = threadIdx.x; w < words; w += blockDim.x) used[w] = 0u;
            if (threadIdx.x == 0) first = window;
            __syncthreads();
            for (int e = indptr[v] + threadIdx.x; e < indptr[v + 1]; e += blockDim.x) {
                const unsigned offset = (unsigned)(fresh[indices[e]] - base);
                if (offset < (unsigned)window) atomicOr(&used[offset / 32], 1u << (offset % 32));
            }
            __syncthreads();
            for (int w = threadIdx.x; w < words; w += blockDim.x)
                if (~used[w]) atomicMin(&first, 32 * w + __ffs(~used[w]) - 1);
            __syncthreads();
            const int found = first;  // the same in every thread: the loop ends for all at once
            __syncthreads();          // before the next window resets `first`
            if (found < window) {
                if (threadIdx.x == 0) fresh[v] = base + found;
                break;
            }
        }
    }
}

// The distance-2 problems (docs/distance2.md): the columns of the class at `position`
// (order[lo .. mid)), a warp each, take the smallest color that no column sharing a row with
// them already holds. The warp marks those colors in its own bitmap of `window` colors (a
// multiple of 32; window / 8 bytes of dynamic shared memory per warp), window after window up
// to `position`: a column's rows can hold thousands of columns, far more than a thread's scan.
extern "C" __global__ void ig_pattern_class(const int* __restrict__ order,
                                            const int* __restrict__ lo,
                                            const int* __restrict__ mid, const int position,
                                            const int* __restrict__ row_ptr,
                                            const int* __restrict__ row_cols,
                                            const int* __restrict__ col_ptr,
                                            const int* __restrict__ col_rows,
                                            int* __restrict__ fresh, const int window)
{
    extern __shared__ unsigned bitmaps[];
    const int lane = threadIdx.x & 31;
    const int words = window / 32;
    unsigned* const used = bitmaps + (threadIdx.x / 32) * words;
    const int begin = lo[position];
    const int count = mid[position] - begin;
    const int warps = gcb_stride() / 32;
    for (int i = gcb_tid() / 32; i < count; i += warps) {  // the same i in every lane
        const int c = order[begin + i];
        for (int base = 0; base <= position; base += window) {
            for (int w = lane; w < words; w += 32) used[w] = 0u;
            __syncwarp();
            for (int e = col_ptr[c]; e < col_ptr[c + 1]; e++) {
                const int r = col_rows[e];
                for (int k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += 32) {
                    const unsigned offset = (unsigned)(fresh[row_cols[k]] - base);
                    if (offset < (unsigned)window) atomicOr(&used[offset / 32], 1u << (offset % 32));
                }
            }
            __syncwarp();
            int found = window;
            for (int w0 = 0; w0 < words; w0 += 32) {
                const unsigned free = w0 + lane < words ? ~used[w0 + lane] : 0u;
                const unsigned any = __ballot_sync(GCB_FULL_MASK, free != 0u);
                if (any) {
                    const int src = __ffs(any) - 1;
                    found = 32 * (w0 + src) + __ffs(__shfl_sync(GCB_FULL_MASK, free, src)) - 1;
                    break;
                }
            }
            __syncwarp();  // every lane has read the bitmap before the next window clears it
            if (found < window) {
                if (lane == 0) fresh[c] = base + found;
                break;
            }
        }
    }
}
