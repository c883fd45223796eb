// The round counter of a CUDA graph's WHILE loop (sync=graph; gcbench/algorithms/gpu/loops.py,
// docs/decisions.md, "Rounds without the host"). A captured round's kernels find their pass
// from the counter (gcb_locate in common.cuh); round_step, the round's last node, moves it on
// and tells the WHILE node whether to run the round again.
#include "common.cuh"

// The device runtime's setter of a conditional node's value (cuda_device_runtime_api.h, which
// NVRTC does not include); the driver resolves it when the module loads.
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);

// Zero the slots that round r's passes count into: slots r * passes + 1 .. (r + 1) * passes.
__device__ __forceinline__ void clear_round(int* __restrict__ slots, int r, int passes)
{
    int* first = slots + ((size_t)r * passes + 1) * GCB_SLOT_WIDTH;
    for (int i = 0; i < passes * GCB_SLOT_WIDTH; i++) first[i] = 0;
}

// Before round 0 (one thread): the counter at 0, slot 0 holding `start` (what there is before
// the first pass, GCB_SLOT_WIDTH values) and round 0's slots zeroed.
extern "C" __global__ void round_reset(int* __restrict__ at, int* __restrict__ slots,
                                       const int passes, const int* __restrict__ start)
{
    *at = 0;
    for (int i = 0; i < GCB_SLOT_WIDTH; i++) slots[i] = start[i];
    clear_round(slots, 0, passes);
}

// After round r (the counter holds r; one thread): what it left is slot (r + 1) * passes. The
// counter becomes r + 1, the rounds run so far; the loop goes on while something is left and
// fewer than `cap` rounds have run, with the next round's slots zeroed.
extern "C" __global__ void round_step(const unsigned long long handle, int* __restrict__ at,
                                      int* __restrict__ slots, const int passes, const int cap)
{
    const int r = *at + 1;
    const bool more = slots[(size_t)r * passes * GCB_SLOT_WIDTH] != 0 && r < cap;
    *at = r;
    if (more) clear_round(slots, r, passes);
    cudaGraphSetConditional(handle, more ? 1u : 0u);
}
