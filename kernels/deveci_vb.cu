// Deveci et al.'s vertex-based speculative coloring, vb and vb-bit (deveci-cmu §3.1-3.1.2).
// A round is AssignColors over the conflict list (every vertex takes the smallest color no
// neighbour shows, no atomics, races allowed) then DetectConflicts over the same list (on a
// same-colored edge the smaller id is uncolored and goes on the next list). Conflicts can only
// join two vertices of the list: a vertex off the list is final and every list vertex saw it.
// The next list comes by atomic append (vb_detect_append) or by flags, a prefix sum and
// vb_scatter (conflicts=scan, §3.1.1). Colors are int, GCB_UNCOLORED (-1) uncolored. Every
// kernel is a grid-stride loop, so any launch shape works. A round's kernels read the length of
// its list from its slot (before[0]: what the last round left, gcb_open in common.cuh) and the
// next list's length goes to the next slot (left[0]), so the host never needs to know it. The
// two lists alternate: pass p works on lists[p % 2] and fills lists[1 - p % 2], so the kernels
// take both and pick by p (gcb_locate: the host names p, or sync=graph's round counter does).
#include "common.cuh"

// Neighbours are read GCB_VB_BATCH at a time, all loads issued before any is used, so a
// thread scanning a hub's long row keeps that many loads in flight instead of one.
#define GCB_VB_BATCH 8

// The colors of row entries e, e + step, ..., e + (BATCH - 1) * step that lie in [begin, end)
// and whose vertex passes `take`; `absent` elsewhere.
template <class Take>
__device__ __forceinline__ void vb_batch(int (&out)[GCB_VB_BATCH], const int e, const int step,
                                         const int begin, const int end,
                                         const int* __restrict__ indices, const int* colors,
                                         const int absent, Take take)
{
    int u[GCB_VB_BATCH];
#pragma unroll
    for (int k = 0; k < GCB_VB_BATCH; k++) {
        const int i = e + k * step;
        u[k] = (i >= begin && i < end) ? indices[i] : -1;
    }
#pragma unroll
    for (int k = 0; k < GCB_VB_BATCH; k++) out[k] = (u[k] >= 0 && take(u[k])) ? colors[u[k]] : absent;
}

__device__ __forceinline__ bool vb_any(const int) { return true; }

// The pass a kernel runs (gcb_locate) and its two lists: the one it works on and the next.
struct VbPass {
    gcb_pass here;
    const int* list;
    int* next;
    __device__ VbPass(const int* lists0, const int* lists1, const int* at, int p, int passes,
                      const int* before, int* left, int* mirror)
        : here(gcb_locate(at, p, passes, before, left, mirror))
    {
        const bool odd = here.p & 1;
        list = odd ? lists1 : lists0;
        next = const_cast<int*>(odd ? lists0 : lists1);
    }
    __device__ bool open() const { return gcb_open(here.before, here.mirror); }
    __device__ int count() const { return here.before[0]; }
};

// vb: the unbounded forbidden array. Vertex v owns deg(v) + 1 stamps at indptr[v] + v (its
// smallest free color is at most deg(v), so that is all it can need); a stamp equal to this
// round's `stamp` marks a color as used, so nothing is ever cleared.
extern "C" __global__ void vb_assign(const int* lists0, const int* lists1,
                                     const int* __restrict__ indptr,
                                     const int* __restrict__ indices, int* colors,
                                     int* __restrict__ stamps, const int* at, const int p,
                                     const int passes, const int* before, int* left, int* mirror)
{
    const VbPass pass(lists0, lists1, at, p, passes, before, left, mirror);
    if (!pass.open()) return;
    const int* __restrict__ list = pass.list;
    const int count = pass.count(), stamp = pass.here.p + 1;  // pass p's stamp
    for (int i = gcb_tid(); i < count; i += gcb_stride()) {
        const int v = list[i];
        const int begin = indptr[v], end = indptr[v + 1], degree = end - begin;
        int* __restrict__ used = stamps + (long long)begin + v;
        for (int e = begin; e < end; e += GCB_VB_BATCH) {
            int c[GCB_VB_BATCH];
            vb_batch(c, e, 1, begin, end, indices, colors, GCB_UNCOLORED, vb_any);
#pragma unroll
            for (int k = 0; k < GCB_VB_BATCH; k++)
                if (c[k] >= 0 && c[k] <= degree) used[c[k]] = stamp;
        }
        int c = 0;
        while (used[c] == stamp) c++;
        colors[v] = c;
    }
}

// vb-bit: the fixed forbidden optimisation. A 64-bit map of the colors [offset, offset + 64)
// the neighbours use; the scan stops once the map is full and the window slides by 64.
extern "C" __global__ void vbbit_assign(const int* lists0, const int* lists1,
                                        const int* __restrict__ indptr,
                                        const int* __restrict__ indices, int* colors,
                                        const int* at, const int p, const int passes,
                                        const int* before, int* left, int* mirror)
{
    const VbPass pass(lists0, lists1, at, p, passes, before, left, mirror);
    if (!pass.open()) return;
    const int* __restrict__ list = pass.list;
    const int count = pass.count();
    for (int i = gcb_tid(); i < count; i += gcb_stride()) {
        const int v = list[i];
        const int begin = indptr[v], end = indptr[v + 1];
        for (int offset = 0;; offset += 64) {
            unsigned long long used = 0;
            for (int e = begin; e < end && ~used; e += GCB_VB_BATCH) {
                int c[GCB_VB_BATCH];
                vb_batch(c, e, 1, begin, end, indices, colors, GCB_UNCOLORED, vb_any);
#pragma unroll
                for (int k = 0; k < GCB_VB_BATCH; k++) {
                    const unsigned int bit = (unsigned int)(c[k] - offset);
                    if (bit < 64u) used |= 1ull << bit;  // uncolored (-1) wraps out of the window
                }
            }
            if (~used) {
                colors[v] = offset + __ffsll((long long)~used) - 1;
                break;
            }
        }
    }
}

// DetectConflicts for list entry i: true (and v uncolored) when a larger neighbour shares v's
// color. Rows are sorted, so the larger neighbours are the row's tail, scanned from the end.
__device__ __forceinline__ bool vb_conflict(const int v, const int* __restrict__ indptr,
                                            const int* __restrict__ indices, int* colors)
{
    const int c = colors[v], begin = indptr[v];
    for (int e = indptr[v + 1] - 1; e >= begin; e -= GCB_VB_BATCH) {
        int cu[GCB_VB_BATCH];  // -2: a smaller neighbour or past the row, never a color
        vb_batch(cu, e, -1, begin, e + 1, indices, colors, -2, [v](int u) { return u > v; });
        bool same = false;
#pragma unroll
        for (int k = 0; k < GCB_VB_BATCH; k++) same |= cu[k] == c;
        if (same) {
            colors[v] = GCB_UNCOLORED;
            return true;
        }
        if (cu[GCB_VB_BATCH - 1] == -2) break;  // the batch reached the smaller neighbours
    }
    return false;
}

// conflicts=atomic: the next list by warp-aggregated atomic append.
extern "C" __global__ void vb_detect_append(const int* lists0, const int* lists1,
                                            const int* __restrict__ indptr,
                                            const int* __restrict__ indices, int* colors,
                                            const int* at, const int p, const int passes,
                                            const int* before, int* left, int* mirror)
{
    const VbPass pass(lists0, lists1, at, p, passes, before, left, mirror);
    if (!pass.open()) return;
    const int count = pass.count();
    for (int i = gcb_tid(); i < count; i += gcb_stride()) {
        const int v = pass.list[i];
        gcb_append(pass.next, pass.here.left, vb_conflict(v, indptr, indices, colors), v);
    }
}

// conflicts=scan: flag[i] = 1 where list entry i conflicts; vb_scan_* prefix-sum the flags
// and vb_scatter writes the next list in list order.
extern "C" __global__ void vb_detect_flag(const int* lists0, const int* lists1,
                                          const int* __restrict__ indptr,
                                          const int* __restrict__ indices, int* colors,
                                          int* __restrict__ flags, const int* at, const int p,
                                          const int passes, const int* before, int* left,
                                          int* mirror)
{
    const VbPass pass(lists0, lists1, at, p, passes, before, left, mirror);
    if (!pass.open()) return;
    const int count = pass.count();
    for (int i = gcb_tid(); i < count; i += gcb_stride())
        flags[i] = vb_conflict(pass.list[i], indptr, indices, colors);
}

// The inclusive prefix sum of the flags in three launches, each sized for n so that one
// captured round serves every list length (the length is read from the slot): vb_scan_blocks
// scans each block's GCB_VB_SCAN flags and keeps the block's total in sums, vb_scan_sums scans
// the totals in one block, vb_scan_add adds the totals before each block to its entries.
#ifndef GCB_VB_SCAN
#define GCB_VB_SCAN 1024  // flags a block scans: its threads (the launcher's block size)
#endif

extern "C" __global__ void __launch_bounds__(GCB_VB_SCAN)
    vb_scan_blocks(const int* __restrict__ flags, int* __restrict__ position,
                   int* __restrict__ sums, const int* at, const int p, const int passes,
                   const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = here.before[0], first = blockIdx.x * GCB_VB_SCAN;
    if (first >= count) return;  // the whole block: no thread waits at a barrier
    const int i = first + threadIdx.x;
    const int x = gcb_block_scan(i < count ? flags[i] : 0);
    if (i < count) position[i] = x;
    if (threadIdx.x == GCB_VB_SCAN - 1) sums[blockIdx.x] = x;
}

extern "C" __global__ void __launch_bounds__(GCB_VB_SCAN)
    vb_scan_sums(int* __restrict__ sums, const int* at, const int p, const int passes,
                 const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int blocks = (here.before[0] + GCB_VB_SCAN - 1) / GCB_VB_SCAN;
    __shared__ int total;
    int carry = 0;
    for (int base = 0; base < blocks; base += GCB_VB_SCAN) {
        const int i = base + threadIdx.x;
        const int x = gcb_block_scan(i < blocks ? sums[i] : 0);
        if (i < blocks) sums[i] = x + carry;
        if (threadIdx.x == GCB_VB_SCAN - 1) total = x;
        __syncthreads();
        carry += total;
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(GCB_VB_SCAN)
    vb_scan_add(int* __restrict__ position, const int* __restrict__ sums, const int* at,
                const int p, const int passes, const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int i = blockIdx.x * GCB_VB_SCAN + threadIdx.x;
    if (blockIdx.x > 0 && i < here.before[0]) position[i] += sums[blockIdx.x - 1];
}

// next[position[i] - 1] = list[i] where flags[i] (position = inclusive prefix sum of flags);
// the next list's length, position[count - 1], to the next slot.
extern "C" __global__ void vb_scatter(const int* lists0, const int* lists1,
                                      const int* __restrict__ flags,
                                      const int* __restrict__ position, const int* at,
                                      const int p, const int passes, const int* before,
                                      int* left, int* mirror)
{
    const VbPass pass(lists0, lists1, at, p, passes, before, left, mirror);
    if (!pass.open()) return;
    const int count = pass.count();
    if (gcb_tid() == 0) *pass.here.left = position[count - 1];
    for (int i = gcb_tid(); i < count; i += gcb_stride())
        if (flags[i]) pass.next[position[i] - 1] = pass.list[i];
}
