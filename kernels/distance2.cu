// Distance-2 and partial distance-2 coloring of a pattern's columns (docs/distance2.md): vb-bit,
// nb-bit and jp-d2, plus the keys of the device validation. The pattern is held twice as int32
// CSR: row_ptr/row_cols lists each row's (net's) columns, sorted; col_ptr/col_rows each column's
// rows. Column c's distance-2 neighbours are the columns other than c of c's rows (d2 is this on
// the pattern of A + I, so distance-1 neighbours are among them: kokkos-kernels issue #624).
// Colors are int, GCB_UNCOLORED (-1) uncolored. Every kernel is a grid-stride loop over whole
// warps (d2_each), so a launch's block size must be a multiple of 32, and every loop is bounded
// by a CSR range or by the n_cols colors a column can ever need. A round's kernels take the pass
// arguments (at, p, passes, before, left, mirror), find their pass and its slots with gcb_locate
// and are gated by gcb_open (common.cuh): under the host's protocols the host names the round,
// under sync=graph one captured round serves every round of a CUDA graph's WHILE loop and the
// round comes from the device's counter. So nothing a round does may differ per round on the
// host side: a worklist's length is read on the device (the slot, or nb-bit's state), the two
// worklists of vb-bit and jp-d2 swap roles by the round's parity (d2_lists), and the launches
// are grid-stride loops whose grid need not fit the worklist.
#include "common.cuh"

// What gcbench/algorithms/gpu/distance2.py shares with these kernels (its WIDTH and Slot), passed
// to every compile as -D defines; these defaults serve a compile without them (CI's nvcc -ptx)
// and tests/algorithms/gpu/test_kernel_constants.py checks that they agree.
#ifndef GCB_D2_WIDTH
#define GCB_D2_WIDTH 64
#endif
#ifndef GCB_D2_C_NEXT
#define GCB_D2_C_NEXT 0
#endif
#ifndef GCB_D2_C_DEFERRED
#define GCB_D2_C_DEFERRED 1
#endif
#ifndef GCB_D2_S_COUNT
#define GCB_D2_S_COUNT 2
#endif
#ifndef GCB_D2_S_BASE
#define GCB_D2_S_BASE 3
#endif
#ifndef GCB_D2_S_CURRENT
#define GCB_D2_S_CURRENT 4
#endif
#ifndef GCB_D2_S_FOLLOWING
#define GCB_D2_S_FOLLOWING 5
#endif
#ifndef GCB_D2_S_WAITING
#define GCB_D2_S_WAITING 6
#endif
static_assert(GCB_D2_WIDTH == 64, "a color window is one 64-bit forbidden mask");

// A column whose rows hold this many entries (itself included) has its distance-2 neighbourhood
// scanned by a whole warp; a row (nb-bit's row passes) or a column's row list (nb_color) of
// GCB_D2_LONG entries or more is read by a whole warp.
#define GCB_D2_HEAVY 128
#define GCB_D2_LONG 32
// nb-bit: the column found no free color in the current window and waits for the next one.
#define GCB_D2_DEFERRED (-2)
static_assert(GCB_D2_DEFERRED < GCB_UNCOLORED, "distance2.py turns DEFERRED into UNCOLORED by max");

// vb-bit's and jp-d2's two worklists: round p works through `list` and appends the columns it
// leaves to `next`; they swap roles every round (p's parity), list0 holding round 0's worklist.
struct d2_lists {
    const int* list;
    int* next;
    __device__ d2_lists(const int p, int* list0, int* list1)
        : list((p & 1) ? list1 : list0), next((p & 1) ? list0 : list1)
    {
    }
};

// Every column as a worklist, 0 .. n - 1 in `list` (the start of a coloring under sync=graph,
// which must not allocate: the host's protocols take a fresh cp.arange).
extern "C" __global__ void d2_columns(const int n, int* __restrict__ list)
{
    for (int i = gcb_tid(); i < n; i += gcb_stride()) list[i] = i;
}

typedef unsigned long long d2_mask;

__device__ __forceinline__ int d2_lane() { return threadIdx.x & 31; }

// The bit of `color` in the window [base, base + 64); none for a negative (uncolored, deferred)
// color or one outside the window. Unsigned arithmetic: a negative color wraps far outside.
__device__ __forceinline__ d2_mask d2_bit(const int color, const int base)
{
    const unsigned int offset = (unsigned int)color - (unsigned int)base;
    return offset < GCB_D2_WIDTH ? 1ull << offset : 0ull;
}

// The OR of a 64-bit mask over the warp (all 32 lanes call it).
__device__ __forceinline__ d2_mask d2_warp_or(const d2_mask x)
{
    const unsigned int high = __reduce_or_sync(GCB_FULL_MASK, (unsigned int)(x >> 32));
    const unsigned int low = __reduce_or_sync(GCB_FULL_MASK, (unsigned int)x);
    return (d2_mask)high << 32 | low;
}

// The lowest color of window `base` that `used` leaves free (used is not full).
__device__ __forceinline__ int d2_lowest_free(const d2_mask used, const int base)
{
    return base + __ffsll((long long)~used) - 1;
}

// A warp scanning a heavy column marks the colors of a wide window [base, base + wide) in its
// own bitmap in shared memory (wide / 32 words, each lane owning wide / 1024 consecutive ones),
// so one scan of a neighbourhood settles thousands of colors where a 64-bit mask settles 64: a
// column beside a hub of degree Δ needs a color near Δ, and 64-color windows cost it Δ/64 scans
// of Δ neighbours or more. `wide` is a multiple of 1024 that distance2.py sizes to the block
// (as many colors as (blockDim.x / 32) bitmaps fit in the shared memory of a launch, at most
// 32,768), and the kernels that use it take (blockDim.x / 32) * wide / 8 bytes of it.

// This warp's bitmap, zeroed (every lane calls it).
__device__ __forceinline__ unsigned int* d2_wide_window(unsigned int* shared, const int wide)
{
    unsigned int* bits = shared + (threadIdx.x >> 5) * (wide >> 5);
    for (int w = d2_lane(); w < (wide >> 5); w += 32) bits[w] = 0u;
    __syncwarp();
    return bits;
}

// Marks `color` when it lies in the wide window [base, base + wide).
__device__ __forceinline__ void d2_wide_mark(unsigned int* bits, const int color, const int base,
                                             const int wide)
{
    const unsigned int offset = (unsigned int)color - (unsigned int)base;
    if (offset < (unsigned int)wide) atomicOr(&bits[offset >> 5], 1u << (offset & 31));
}

// The lowest color of the wide window left unmarked, or -1 when every one is marked (every lane
// calls it, after the marks; the lanes' words ascend, so the lowest lane that finds one wins).
__device__ __forceinline__ int d2_wide_lowest_free(const unsigned int* bits, const int base,
                                                   const int wide)
{
    __syncwarp();
    const int lane = d2_lane();
    const int per_lane = wide >> 10;
    int found = -1;
    for (int w = 0; w < per_lane && found < 0; w++) {
        const unsigned int word = lane * per_lane + w;
        const unsigned int free = ~bits[word];
        if (free) found = (int)(word * 32) + __ffs((int)free) - 1;
    }
    const unsigned int have = __ballot_sync(GCB_FULL_MASK, found >= 0);
    __syncwarp();  // every lane has read the bitmap before it is zeroed again
    return have ? base + __shfl_sync(GCB_FULL_MASK, found, __ffs((int)have) - 1) : -1;
}

// Visit items 0..count-1 (list[i] when list is given, else i itself). An item for which heavy(v)
// holds is worked by the whole warp: every lane calls warp(v, lane == owner), which must return
// the same flag on every lane; any other item by its own lane: light(v) returns its flag. Then
// every lane calls finish(v, flag) (v = -1 and flag false for a lane without an item), all 32
// together, so finish may vote (gcb_append). The loop runs whole warps: blockDim.x % 32 == 0.
template <class Heavy, class Light, class Warp, class Finish>
__device__ __forceinline__ void d2_each(const int count, const int* __restrict__ list, Heavy heavy,
                                        Light light, Warp warp, Finish finish)
{
    const int lane = d2_lane();
    for (int first = gcb_tid() - lane; first < count; first += gcb_stride()) {
        const int i = first + lane;
        const int v = i < count ? (list ? list[i] : i) : -1;
        const bool big = v >= 0 && heavy(v);
        bool flag = v >= 0 && !big && light(v);
        for (unsigned int todo = __ballot_sync(GCB_FULL_MASK, big); todo; todo &= todo - 1) {
            const int owner = __ffs(todo) - 1;
            const bool got = warp(__shfl_sync(GCB_FULL_MASK, v, owner), lane == owner);
            if (lane == owner) flag = got;
        }
        finish(v, flag);
    }
}

// Whether column c's rows hold GCB_D2_HEAVY entries: at most GCB_D2_HEAVY rows are read, as
// every row of c holds at least c.
__device__ __forceinline__ bool d2_heavy(const int c, const int* __restrict__ col_ptr,
                                         const int* __restrict__ col_rows,
                                         const int* __restrict__ row_ptr)
{
    int work = 0;
    const int last = col_ptr[c + 1];
    for (int e = col_ptr[c]; e < last && work < GCB_D2_HEAVY; e++) {
        const int r = col_rows[e];
        work += row_ptr[r + 1] - row_ptr[r];
    }
    return work >= GCB_D2_HEAVY;
}

// Column c's rows as ranges of `cols`: span(e) is entry e's row (col_rows[e]) as its [begin, end).
// d2_row_span is a whole row of row_cols; jp-d2 reads a part of each row (the columns before c).
struct d2_row_span {
    const int* __restrict__ col_rows;
    const int* __restrict__ row_ptr;
    __device__ int2 operator()(const int e) const
    {
        const int r = col_rows[e];
        return make_int2(row_ptr[r], row_ptr[r + 1]);
    }
};

// Column c's distance-2 neighbourhood by one thread: visit(u) for every entry u != c of
// cols[span(e)] for each entry e of c's column (a neighbour in several rows is visited once per
// row), until visit returns true; returns whether it did.
template <class Span, class Visit>
__device__ __forceinline__ bool d2_thread_walk(const int c, const int* __restrict__ col_ptr,
                                               Span span, const int* __restrict__ cols,
                                               Visit visit)
{
    const int last = col_ptr[c + 1];
    for (int e = col_ptr[c]; e < last; e++) {
        const int2 range = span(e);
        for (int k = range.x; k < range.y; k++) {
            const int u = cols[k];
            if (u != c && visit(u)) return true;
        }
    }
    return false;
}

// The whole rows of c (d2_thread_walk over d2_row_span).
template <class Visit>
__device__ __forceinline__ bool d2_thread_scan(const int c, const int* __restrict__ col_ptr,
                                               const int* __restrict__ col_rows,
                                               const int* __restrict__ row_ptr,
                                               const int* __restrict__ row_cols, Visit visit)
{
    return d2_thread_walk(c, col_ptr, d2_row_span{col_rows, row_ptr}, row_cols, visit);
}

// The same walk by the whole warp (every lane calls it with the same c). c's rows are taken 32
// at a time and their ranges laid end to end and dealt to the lanes in turn (lane l takes
// entries l, l + 32, ...), so one hub row and many short rows keep every lane busy alike: a
// lane finds the row of its entry p by a binary search over the ranges' prefix sums, held one
// per lane. visit(u) is called on the lane that holds entry u != c; stop(), called by every lane
// after every 32 entries, ends the walk when it returns true and must be warp-uniform (a vote, a
// warp reduction). A group's entries are those of distinct rows, so their sum is at most nnz and
// fits int.
// With shares > 1 the warp takes only the groups share, share + shares, ... (a block's warps
// splitting one column: jp_block_color).
template <class Span, class Visit, class Stop>
__device__ __forceinline__ void d2_warp_walk(const int c, const int* __restrict__ col_ptr,
                                             Span span, const int* __restrict__ cols, Visit visit,
                                             Stop stop, const int share = 0,
                                             const int shares = 1)
{
    const int lane = d2_lane();
    const int last = col_ptr[c + 1];
    for (int group = col_ptr[c] + 32 * share; group < last; group += 32 * shares) {
        int begin = 0, length = 0;
        if (group + lane < last) {
            const int2 range = span(group + lane);
            begin = range.x;
            length = range.y - range.x;
        }
        int end = length;  // inclusive prefix sum: this lane's row ends before entry `end`
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int before = __shfl_up_sync(GCB_FULL_MASK, end, d);
            if (lane >= d) end += before;
        }
        const int start = end - length;
        const int total = __shfl_sync(GCB_FULL_MASK, end, 31);
        for (int first = 0; first < total; first += 32) {
            const int p = first + lane;
            int j = 0;  // the row of entry p: how many rows of the group end at or before it
#pragma unroll
            for (int step = 16; step > 0; step >>= 1)
                if (__shfl_sync(GCB_FULL_MASK, end, j + step - 1) <= p) j += step;
            const int row_begin = __shfl_sync(GCB_FULL_MASK, begin, j);
            const int row_start = __shfl_sync(GCB_FULL_MASK, start, j);
            if (p < total) {
                const int u = cols[row_begin + p - row_start];
                if (u != c) visit(u);
            }
            if (stop()) return;
        }
    }
}

// The whole rows of c by the warp (d2_warp_walk over d2_row_span).
template <class Visit, class Stop>
__device__ __forceinline__ void d2_warp_scan(const int c, const int* __restrict__ col_ptr,
                                             const int* __restrict__ col_rows,
                                             const int* __restrict__ row_ptr,
                                             const int* __restrict__ row_cols, Visit visit,
                                             Stop stop)
{
    d2_warp_walk(c, col_ptr, d2_row_span{col_rows, row_ptr}, row_cols, visit, stop);
}

__device__ __forceinline__ bool d2_row_is_long(const int r, const int* __restrict__ row_ptr)
{
    return row_ptr[r + 1] - row_ptr[r] >= GCB_D2_LONG;
}

// ------------------------------------------------------------------------------------ vb-bit
// Deveci et al.'s VB-BIT (IPDPS 2016, §3.1.2) at distance 2, after Kokkos Kernels' D2 VB_BIT:
// every worklist column takes the lowest color of a 64-color window that no distance-2
// neighbour shows (the window moves on while full), then every worklist column that shares
// its color with a smaller distance-2 neighbour gives it up (Kokkos uncolors both ends of a
// conflict and finishes a round without progress on the host). A column off the worklist is final
// and every worklist column read its color, so a conflict joins two columns of this round, and
// the smallest colored column of the round keeps its color: each round fixes one color at least.

// Speculative coloring of the round's worklist (d2_lists; its length: the slot before it).
extern "C" __global__ void vb_color(int* list0, int* list1, const int* __restrict__ col_ptr,
                                    const int* __restrict__ col_rows,
                                    const int* __restrict__ row_ptr,
                                    const int* __restrict__ row_cols, int* colors, const int n_cols,
                                    const int wide, const int* at, const int p, const int passes,
                                    const int* before, int* left, int* mirror)
{
    extern __shared__ unsigned int d2_shared[];  // one wide window per warp
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = here.before[0];
    const d2_lists lists(here.p, list0, list1);
    d2_each(
        count, lists.list, [&](int c) { return d2_heavy(c, col_ptr, col_rows, row_ptr); },
        [&](int c) {
            for (int base = 0; base < n_cols; base += GCB_D2_WIDTH) {
                d2_mask used = 0;
                d2_thread_scan(c, col_ptr, col_rows, row_ptr, row_cols, [&](int u) {
                    used |= d2_bit(colors[u], base);
                    return !~used;
                });
                if (~used) {
                    colors[c] = d2_lowest_free(used, base);
                    break;
                }
            }
            return false;
        },
        [&](int c, bool owner) {
            for (int base = 0; base < n_cols; base += wide) {
                unsigned int* bits = d2_wide_window(d2_shared, wide);
                d2_warp_scan(
                    c, col_ptr, col_rows, row_ptr, row_cols,
                    [&](int u) { d2_wide_mark(bits, colors[u], base, wide); },
                    [] { return false; });
                const int color = d2_wide_lowest_free(bits, base, wide);
                if (color >= 0) {
                    if (owner) colors[c] = color;
                    break;
                }
            }
            return false;
        },
        [](int, bool) {});
}

// Conflict detection: a worklist column sharing its color with a smaller distance-2 neighbour
// is uncolored; the uncolored worklist columns (and any that found no window) form the next
// worklist (d2_lists), by warp-aggregated atomic append; its length to the next slot.
extern "C" __global__ void vb_detect(int* list0, int* list1, const int* __restrict__ col_ptr,
                                     const int* __restrict__ col_rows,
                                     const int* __restrict__ row_ptr,
                                     const int* __restrict__ row_cols, int* colors, const int* at,
                                     const int p, const int passes, const int* before, int* left,
                                     int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = here.before[0];
    const d2_lists lists(here.p, list0, list1);
    d2_each(
        count, lists.list, [&](int c) { return d2_heavy(c, col_ptr, col_rows, row_ptr); },
        [&](int c) {
            const int mine = colors[c];
            if (mine < 0) return true;
            const bool lost = d2_thread_scan(c, col_ptr, col_rows, row_ptr, row_cols,
                                             [&](int u) { return u < c && colors[u] == mine; });
            if (lost) colors[c] = GCB_UNCOLORED;
            return lost;
        },
        [&](int c, bool owner) {
            const int mine = colors[c];  // only c's owner writes it, after this
            if (mine < 0) return true;
            bool same = false;
            d2_warp_scan(
                c, col_ptr, col_rows, row_ptr, row_cols,
                [&](int u) { same |= u < c && colors[u] == mine; },
                [&] { return __any_sync(GCB_FULL_MASK, same) != 0; });
            const bool lost = __any_sync(GCB_FULL_MASK, same) != 0;
            if (lost && owner) colors[c] = GCB_UNCOLORED;
            return lost;
        },
        [&](int c, bool again) { gcb_append(lists.next, here.left, again, c); });
}

// ------------------------------------------------------------------------------------ nb-bit
// Net-based coloring, Kokkos Kernels' D2 NB_BIT (after Taş, Kaya & Saule, ICPP 2017): the colors
// go in global 64-color windows [base, base + 64), and each row (net) keeps forbidden[r], the
// window's colors its columns hold. A round: nb_refresh recomputes every row's mask from the
// colors; nb_color gives each worklist column the lowest color free in the OR of its rows' masks
// (O(its rows), not O(its distance-2 neighbourhood)) and ORs it into them, or defers the column
// to the next window when the OR is full; nb_conflicts scans each row once and uncolors every
// column whose window color an earlier (smaller) column of the row holds; nb_compact lists the
// uncolored worklist columns for the next round and the deferred ones for the next window.
//
// Progress: the masks a round reads hold every color of the window that a column colored before
// the round has in those rows, and such colors do not change during nb_color, so a column never
// takes the color of a column colored before it: a conflict joins two columns of this round. A
// row keeps the first (smallest) column of each color, so the smallest column colored in the
// round keeps its color in every row. A round colors none for good only when every worklist
// column was deferred; the next round starts a window no column has a color in, so its masks
// are empty and it colors some: at most 2 rounds per column.
//
// The window, the worklist's length and which of the three lists is the worklist, the next
// worklist and the deferred list live on the device, in `state` (the GCB_D2_S_ slots, beside the
// two counts GCB_D2_C_): nb_advance, one thread at the end of a round, moves them on as the host
// did, so the rounds need no host decision.

// The list `state` says holds `role`.
__device__ __forceinline__ int* nb_list(const int* __restrict__ state, const int role, int* a,
                                        int* b, int* c)
{
    const int which = state[role];
    return which == 0 ? a : which == 1 ? b : c;
}

// forbidden[r] = the window colors of row r's columns.
extern "C" __global__ void nb_refresh(const int n_rows, const int* __restrict__ row_ptr,
                                      const int* __restrict__ row_cols,
                                      const int* __restrict__ colors,
                                      const int* __restrict__ state,
                                      d2_mask* __restrict__ forbidden,
                                      const int* at, const int p, const int passes,
                                      const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int base = state[GCB_D2_S_BASE];
    d2_each(
        n_rows, nullptr, [&](int r) { return d2_row_is_long(r, row_ptr); },
        [&](int r) {
            d2_mask used = 0;
            const int end = row_ptr[r + 1];
            for (int k = row_ptr[r]; k < end; k++) used |= d2_bit(colors[row_cols[k]], base);
            forbidden[r] = used;
            return false;
        },
        [&](int r, bool owner) {
            d2_mask used = 0;
            const int end = row_ptr[r + 1];
            for (int k = row_ptr[r] + d2_lane(); k < end; k += 32)
                used |= d2_bit(colors[row_cols[k]], base);
            used = d2_warp_or(used);
            if (owner) forbidden[r] = used;
            return false;
        },
        [](int, bool) {});
}

// Each worklist column: the lowest color free in its rows' masks, ORed into them; or
// GCB_D2_DEFERRED when the window is full.
extern "C" __global__ void nb_color(int* lists0, int* lists1, int* lists2,
                                    const int* __restrict__ col_ptr,
                                    const int* __restrict__ col_rows, int* __restrict__ colors,
                                    const int* __restrict__ state, d2_mask* forbidden,
                                    const int* at, const int p, const int passes,
                                    const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = state[GCB_D2_S_COUNT], base = state[GCB_D2_S_BASE];
    const int* list = nb_list(state, GCB_D2_S_CURRENT, lists0, lists1, lists2);
    d2_each(
        count, list, [&](int c) { return col_ptr[c + 1] - col_ptr[c] >= GCB_D2_LONG; },
        [&](int c) {
            const int first = col_ptr[c], last = col_ptr[c + 1];
            d2_mask used = 0;
            for (int e = first; e < last && ~used; e++) used |= forbidden[col_rows[e]];
            if (!~used) {
                colors[c] = GCB_D2_DEFERRED;
                return false;
            }
            const int color = d2_lowest_free(used, base);
            colors[c] = color;
            for (int e = first; e < last; e++)
                atomicOr(&forbidden[col_rows[e]], d2_bit(color, base));
            return false;
        },
        [&](int c, bool owner) {
            const int first = col_ptr[c] + d2_lane(), last = col_ptr[c + 1];
            d2_mask used = 0;
            for (int e = first; e < last; e += 32) used |= forbidden[col_rows[e]];
            used = d2_warp_or(used);
            if (!~used) {
                if (owner) colors[c] = GCB_D2_DEFERRED;
                return false;
            }
            const int color = d2_lowest_free(used, base);
            if (owner) colors[c] = color;
            for (int e = first; e < last; e += 32)
                atomicOr(&forbidden[col_rows[e]], d2_bit(color, base));
            return false;
        },
        [](int, bool) {});
}

// Each row once: a column whose window color an earlier column of the row holds is uncolored.
// Rows are sorted, so the first holder of a color is its smallest. A warp reads a long row 32
// entries at a time: a lane loses to an earlier lane of the same color (__match_any_sync) or to
// a color seen in an earlier chunk.
extern "C" __global__ void nb_conflicts(const int n_rows, const int* __restrict__ row_ptr,
                                        const int* __restrict__ row_cols, int* colors,
                                        const int* __restrict__ state,
                                        const int* at, const int p, const int passes,
                                        const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int base = state[GCB_D2_S_BASE];
    d2_each(
        n_rows, nullptr, [&](int r) { return d2_row_is_long(r, row_ptr); },
        [&](int r) {
            d2_mask seen = 0;
            const int end = row_ptr[r + 1];
            for (int k = row_ptr[r]; k < end; k++) {
                const int c = row_cols[k];
                const d2_mask bit = d2_bit(colors[c], base);
                if (seen & bit) colors[c] = GCB_UNCOLORED;
                seen |= bit;
            }
            return false;
        },
        [&](int r, bool) {
            const int lane = d2_lane();
            const int end = row_ptr[r + 1];
            d2_mask seen = 0;
            for (int chunk = row_ptr[r]; chunk < end; chunk += 32) {
                const int k = chunk + lane;
                const int c = k < end ? row_cols[k] : -1;
                const int color = c >= 0 ? colors[c] : GCB_UNCOLORED;
                const d2_mask bit = d2_bit(color, base);
                // a lane without a window color gets a key no other lane has
                const unsigned int peers = __match_any_sync(GCB_FULL_MASK, bit ? color : -1 - lane);
                const bool earlier = (peers & ((1u << lane) - 1u)) != 0;
                if (bit && (earlier || (seen & bit))) colors[c] = GCB_UNCOLORED;
                seen |= d2_warp_or(bit);
            }
            return false;
        },
        [](int, bool) {});
}

// The worklist's uncolored columns to `next` (this window's next round), its deferred ones to
// `deferred` (the next window's worklist, which grows over the window's rounds).
extern "C" __global__ void nb_compact(int* lists0, int* lists1, int* lists2,
                                      const int* __restrict__ colors, int* __restrict__ state,
                                      const int* at, const int p, const int passes,
                                      const int* before, int* left, int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = state[GCB_D2_S_COUNT];
    const int* list = nb_list(state, GCB_D2_S_CURRENT, lists0, lists1, lists2);
    int* next = nb_list(state, GCB_D2_S_FOLLOWING, lists0, lists1, lists2);
    int* deferred = nb_list(state, GCB_D2_S_WAITING, lists0, lists1, lists2);
    for (int i = gcb_tid(); i < count; i += gcb_stride()) {
        const int c = list[i];
        const int color = colors[c];
        gcb_append(next, &state[GCB_D2_C_NEXT], color == GCB_UNCOLORED, c);
        gcb_append(deferred, &state[GCB_D2_C_DEFERRED], color == GCB_D2_DEFERRED, c);
    }
}

// The end of a round, one thread: what it left (retry + waiting) to the next slot, then the next
// round's worklist: the columns to retry in this window, else the deferred ones in the next window
// (the old worklist becomes the deferred list), else nothing.
extern "C" __global__ void nb_advance(int* __restrict__ state, const int* at, const int p,
                                      const int passes, const int* before, int* left,
                                      int* mirror)
{
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror) || gcb_tid() != 0) return;
    const int retry = state[GCB_D2_C_NEXT], waiting = state[GCB_D2_C_DEFERRED];
    here.left[0] = retry + waiting;
    const int current = state[GCB_D2_S_CURRENT];
    if (retry) {
        state[GCB_D2_S_CURRENT] = state[GCB_D2_S_FOLLOWING];
        state[GCB_D2_S_FOLLOWING] = current;
        state[GCB_D2_S_COUNT] = retry;
    } else if (waiting) {
        state[GCB_D2_S_CURRENT] = state[GCB_D2_S_WAITING];
        state[GCB_D2_S_WAITING] = current;
        state[GCB_D2_S_COUNT] = waiting;
        state[GCB_D2_S_BASE] += GCB_D2_WIDTH;
        state[GCB_D2_C_DEFERRED] = 0;
    }
    state[GCB_D2_C_NEXT] = 0;
}

// ------------------------------------------------------------------------------------- jp-d2
// Jones-Plassmann at distance 2 (Jones & Plassmann, SIAM J. Sci. Comput. 1993), driven by
// counts rather than by checks. The columns of one row are distance-2 neighbours of each other,
// so JP colors them in rank order: a column may color once, in each of its rows, the column
// just before it by rank has colored. distance2.py lays every row's columns out by rank
// (`ranked`, the row CSR reordered) and gives each entry of the column view its place there
// (`place`: entry e = (c, row r) sits at ranked[place[e]]). pending[c] counts c's rows whose
// column before c is still uncolored, and a worklist holds exactly the columns whose count has
// reached 0, so a round touches only the columns that color in it:
// - round 0 (every column) counts; a column first in every row (a root) takes color 0;
// - every later round colors its worklist: c reads, in each row, the columns ranked before it
//   (ranked[row start, place[e]): all colored) and takes the lowest color none of them has, as
//   the serial greedy in rank order does (gcbench/algorithms/cpu/greedy_d2.py), column for
//   column;
// - whoever colors releases, in each of its rows, the column just after it (one decrement a row:
//   nnz in all), and the release that brings a count to 0 lists that column for the next round,
//   whose launch reads its colors after every write of this one.
// Round 0's counts and its roots' releases meet in one atomic counter that starts at 0: a count
// reaches 0 once, when the column's own addition and every release have landed, in either
// order, and whoever lands last lists it. So a column colors in the round after its last
// lower-ranked neighbour (the rounds are the same every run), and each round colors the
// lowest-ranked uncolored column. A run of k columns that are all neighbours of each other (a row
// of k columns) needs k rounds in any JP; here each costs only the column that colors in it.
//
// Dense rows (issue 44, item 1). Reading a row's prefix costs its length: a hub row of k columns
// costs k²/2 reads over its k rounds, each on the chain (kron 18: rows of 25,000 columns). A row
// of at least distance2.py's `dense` threshold instead keeps a bitmap of the colors its colored
// columns hold (`dense[r]`: its slot, -1 for the other rows; `words` 32-bit words a slot, enough
// for every color the pattern can need, 0 when no row is dense; `dense_top[slot]`: one past the
// highest word that holds a color yet).
// Whoever colors sets its bit in each of its dense rows before it releases the next column there,
// and only one column of a row colors in a round (the next waits for it), so when c colors the
// bitmap of each of its dense rows holds exactly the colors of the columns before c in it: the
// prefix c would have read, as the words in use instead of the prefix's entries (a heavy
// column's warp reads whichever is cheaper: jp_before.bitmap).

// A column reads a dense row's bitmap instead of its prefix when the bitmap's words in use are
// at most this many times the prefix's entries: a warp reads 32 words in one coalesced step, but
// an entry costs a gather of its color and an atomic mark, and a short prefix in a row whose
// columns hold high colors is cheaper to read entry by entry (the same colors either way).
#define GCB_JP_WORDS_PER_ENTRY 4

// c's rows before c: entry e's row from its start to c's place in `ranked`. With `dense` (a heavy
// column's warp), bitmap(e) is the slot of e's row when c reads its bitmap (-1 when not dense or
// cheaper as entries), and such a row's span is empty; the bitmaps are read by jp_dense_marks.
struct jp_before {
    const int* __restrict__ col_rows;
    const int* __restrict__ row_ptr;
    const int* __restrict__ place;
    const int* __restrict__ dense;
    const int* __restrict__ dense_top;
    __device__ int bitmap(const int e) const
    {
        const int r = col_rows[e];
        const int slot = dense ? dense[r] : -1;
        if (slot < 0) return -1;
        const long long prefix = place[e] - row_ptr[r];
        return dense_top[slot] <= GCB_JP_WORDS_PER_ENTRY * prefix ? slot : -1;
    }
    __device__ int2 operator()(const int e) const
    {
        const int start = row_ptr[col_rows[e]];
        return make_int2(start, bitmap(e) >= 0 ? start : place[e]);
    }
};

// ORs into a wide window [base, base + wide) the bitmaps c reads (before.bitmap; every lane
// calls it, after the window's marks). A warp alone owns its window (lane l its words l, l + 32,
// ...) and ORs plainly; the warps of a block that share one window (shares > 1: each takes the
// entry groups share, share + shares, ...) OR atomically. Nothing writes the bitmaps meanwhile: a
// row's bitmap changes only in the round its next column colors.
__device__ __forceinline__ void jp_dense_marks(const int c, const int* __restrict__ col_ptr,
                                               const jp_before& before,
                                               const unsigned int* __restrict__ dense_bits,
                                               const int words, unsigned int* window,
                                               const int base, const int wide,
                                               const int share = 0, const int shares = 1)
{
    if (!before.dense) return;
    __syncwarp();  // the walk's marks are in the window
    const int lane = d2_lane();
    const int last = col_ptr[c + 1], first_word = base >> 5;
    for (int group = col_ptr[c] + 32 * share; group < last; group += 32 * shares) {
        const int slot = group + lane < last ? before.bitmap(group + lane) : -1;
        for (unsigned int todo = __ballot_sync(GCB_FULL_MASK, slot >= 0); todo; todo &= todo - 1) {
            const int s = __shfl_sync(GCB_FULL_MASK, slot, __ffs(todo) - 1);
            const unsigned int* row = dense_bits + (size_t)s * words;
            const int end = min(before.dense_top[s], first_word + (wide >> 5));
            for (int w = first_word + lane; w < end; w += 32) {
                if (shares > 1)
                    atomicOr(&window[w - first_word], row[w]);
                else
                    window[w - first_word] |= row[w];
            }
        }
    }
}

// A round of at most gridDim.x columns colors each with a whole block (jp_round): on kron 18 most
// rounds hold a few columns, and a round's time is its heaviest column's scan (thousands of
// dense rows), which one warp would do alone. The block's warps split c's rows (d2_warp_walk and
// jp_dense_marks in shares) and mark one window of (blockDim.x / 32) * wide - 32 colors: the
// block's shared memory but its last word, where the lowest free color is kept, the smallest
// any thread finds (a minimum over each warp, then an atomicMin); the same color as the warp's
// scan. Every thread of the block calls it, with (blockDim.x / 32) * wide >= 2048.
#define GCB_JP_NONE 0x7fffffff  // no free color in the window

template <class Release>
__device__ __forceinline__ int jp_block_color(const int c, const int* __restrict__ col_ptr,
                                              const jp_before& before,
                                              const int* __restrict__ ranked, int* colors,
                                              const unsigned int* __restrict__ dense_bits,
                                              const int words, const int n_cols, const int wide,
                                              unsigned int* window, Release release)
{
    const int warps = blockDim.x >> 5, warp = threadIdx.x >> 5;
    const int span = warps * wide - 32, span_words = span >> 5;  // colors: whole words
    int* lowest = (int*)(window + span_words);  // the window's lowest free color, from its base
    int color = -1;
    for (int base = 0; base < n_cols; base += span) {
        for (int w = threadIdx.x; w < span_words; w += blockDim.x) window[w] = 0u;
        if (threadIdx.x == 0) *lowest = GCB_JP_NONE;
        __syncthreads();
        d2_warp_walk(
            c, col_ptr, before, ranked,
            [&](int u) { d2_wide_mark(window, colors[u], base, span); }, [] { return false; },
            warp, warps);
        jp_dense_marks(c, col_ptr, before, dense_bits, words, window, base, span, warp, warps);
        __syncthreads();
        int mine = GCB_JP_NONE;  // this thread's lowest free color: its words ascend
        for (int w = threadIdx.x; w < span_words && mine == GCB_JP_NONE; w += blockDim.x) {
            const unsigned int free = ~window[w];
            if (free) mine = w * 32 + __ffs((int)free) - 1;
        }
        mine = __reduce_min_sync(GCB_FULL_MASK, mine);  // then one atomic a warp
        if ((threadIdx.x & 31) == 0 && mine != GCB_JP_NONE) atomicMin(lowest, mine);
        __syncthreads();
        const int found = *lowest;
        __syncthreads();  // every thread has read it before the next window resets it
        if (found != GCB_JP_NONE) {
            color = base + found;
            break;
        }
    }
    if (threadIdx.x == 0) colors[c] = color;  // (a window always has room below n_cols colors)
    const int first = col_ptr[c], last = col_ptr[c + 1];
    for (int e = first + threadIdx.x; e < last; e += blockDim.x) release(e, color);
    return color;
}

// The column before u in one of u's rows has colored: u joins the next worklist if that was
// the last of its rows to wait on.
__device__ __forceinline__ void jp_release(const int u, int* __restrict__ pending,
                                           int* __restrict__ next, int* __restrict__ left)
{
    if (atomicSub(&pending[u], 1) == 1) next[atomicAdd(left, 1)] = u;
}

extern "C" __global__ void jp_round(int* list0, int* list1, const int* __restrict__ col_ptr,
                                    const int* __restrict__ col_rows,
                                    const int* __restrict__ row_ptr,
                                    const int* __restrict__ row_cols,
                                    const int* __restrict__ ranked, const int* __restrict__ place,
                                    int* colors, int* __restrict__ pending,
                                    const int* __restrict__ dense, unsigned int* dense_bits,
                                    int* dense_top, const int words, const int n_cols,
                                    const int wide, const int* at, const int p, const int passes,
                                    const int* before, int* left, int* mirror)
{
    extern __shared__ unsigned int d2_shared[];  // one wide window per warp
    const gcb_pass here = gcb_locate(at, p, passes, before, left, mirror);
    if (!gcb_open(here.before, here.mirror)) return;
    const int count = here.before[0];
    const d2_lists lists(here.p, list0, list1);
    const bool counting = here.p == 0;
    const jp_before lower{col_rows, row_ptr, place, nullptr, nullptr};  // whole prefixes
    const int* rows_kept = words ? dense : nullptr;  // words = 0: no dense row, none read
    const jp_before sparse{col_rows, row_ptr, place, rows_kept, dense_top};  // or bitmaps
    // entry e of a column: 1 when its row has a column ranked before it
    const auto waits_in = [&](int e) { return (int)(place[e] > row_ptr[col_rows[e]]); };
    // entry e of a column that has taken `color`: the color into the row's bitmap if the row is
    // dense, then release the column after it in the row
    const auto release_after = [&](int e, int color) {
        const int r = col_rows[e];
        const int slot = rows_kept ? rows_kept[r] : -1;
        if (slot >= 0 && color >= 0) {  // (a column always finds a color below n_cols)
            atomicOr(&dense_bits[(size_t)slot * words + (color >> 5)], 1u << (color & 31));
            atomicMax(&dense_top[slot], (color >> 5) + 1);
        }
        const int k = place[e] + 1;
        if (k < row_ptr[r + 1]) jp_release(ranked[k], pending, lists.next, here.left);
    };
    // round 0's count of c's waits meets the releases already made: c is listed here if they
    // were all made; a root (none) is colored by the caller instead
    const auto counted = [&](int c, int waits) {
        if (waits > 0 && atomicAdd(&pending[c], waits) == -waits)
            lists.next[atomicAdd(here.left, 1)] = c;
    };
    // a column by one thread (light) and by a whole warp (heavy; every lane calls it, `owner` on
    // the lane whose column it is): d2_each's two paths
    const auto by_thread = [&](int c) {
        const int first = col_ptr[c], last = col_ptr[c + 1];
        int color = 0;  // a root's
        if (counting) {
            int waits = 0;
            for (int e = first; e < last; e++) waits += waits_in(e);
            counted(c, waits);
            if (waits > 0) return false;
        } else {
            color = -1;
            for (int base = 0; color < 0 && base < n_cols; base += GCB_D2_WIDTH) {
                d2_mask used = 0;
                d2_thread_walk(c, col_ptr, lower, ranked, [&](int u) {
                    used |= d2_bit(colors[u], base);
                    return !~used;
                });
                if (~used) color = d2_lowest_free(used, base);
            }
        }
        colors[c] = color;  // a window always has room below n_cols colors
        for (int e = first; e < last; e++) release_after(e, color);
        return false;
    };
    const auto by_warp = [&](int c, bool owner) {
        const int first = col_ptr[c], last = col_ptr[c + 1];
        int color = 0;  // a root's; the same on every lane
        if (counting) {
            int waits = 0;
            for (int e = first + d2_lane(); e < last; e += 32) waits += waits_in(e);
            waits = __reduce_add_sync(GCB_FULL_MASK, waits);
            if (owner) counted(c, waits);
            if (waits > 0) return false;
        } else {
            color = -1;
            for (int base = 0; color < 0 && base < n_cols; base += wide) {
                unsigned int* bits = d2_wide_window(d2_shared, wide);
                d2_warp_walk(
                    c, col_ptr, sparse, ranked,
                    [&](int u) { d2_wide_mark(bits, colors[u], base, wide); },
                    [] { return false; });
                jp_dense_marks(c, col_ptr, sparse, dense_bits, words, bits, base, wide);
                color = d2_wide_lowest_free(bits, base, wide);  // every lane votes
            }
        }
        if (owner) colors[c] = color;
        for (int e = first + d2_lane(); e < last; e += 32) release_after(e, color);
        return false;
    };
    // A round of few columns spreads them: a block each (jp_block_color; its window keeps 1,024
    // colors at least) while they fit the grid's blocks, else a warp each while they fit its
    // warps, so no warp colors 32 heavy columns one after another while others idle (d2_each's
    // lane-per-column mapping, kept for the large rounds and round 0).
    if (!counting && count <= (int)gridDim.x && (int)(blockDim.x >> 5) * wide >= 2048) {
        if ((int)blockIdx.x < count)
            jp_block_color(lists.list[blockIdx.x], col_ptr, sparse, ranked, colors, dense_bits,
                           words, n_cols, wide, d2_shared, release_after);
        return;
    }
    if (!counting && count <= (int)(gridDim.x * (blockDim.x >> 5))) {
        const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
        if (warp < count) by_warp(lists.list[warp], d2_lane() == 0);
        return;
    }
    d2_each(
        count, lists.list, [&](int c) { return d2_heavy(c, col_ptr, col_rows, row_ptr); },
        by_thread, by_warp, [](int, bool) {});
}

// ---------------------------------------------------------------------------------- validation
// The keys of gcbench/algorithms/gpu/pattern_check.py: for nonzero k = (r, c), (r << 32) | color
// when c is colored, so that sorted keys put a row's columns of one color side by side (each
// repeat is a conflicting nonzero, in O(nnz) whatever the rows' lengths); a distinct negative
// key, -1 - k, when c is uncolored, which equals no other.
extern "C" __global__ void pattern_keys(const int n_rows, const int* __restrict__ row_ptr,
                                        const int* __restrict__ row_cols,
                                        const int* __restrict__ colors,
                                        long long* __restrict__ keys)
{
    const auto key = [&](int r, int k) {
        const int color = colors[row_cols[k]];
        return color >= 0 ? (long long)r << 32 | color : -1ll - k;
    };
    d2_each(
        n_rows, nullptr, [&](int r) { return d2_row_is_long(r, row_ptr); },
        [&](int r) {
            const int end = row_ptr[r + 1];
            for (int k = row_ptr[r]; k < end; k++) keys[k] = key(r, k);
            return false;
        },
        [&](int r, bool) {
            const int end = row_ptr[r + 1];
            for (int k = row_ptr[r] + d2_lane(); k < end; k += 32) keys[k] = key(r, k);
            return false;
        },
        [](int, bool) {});
}
