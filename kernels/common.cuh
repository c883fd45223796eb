// Device helpers shared by every algorithm family (DESIGN §3).
#pragma once

#define GCB_UNCOLORED (-1)

// hash32 of DESIGN §3: the tie-break shared by GPU and CPU code.
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
    const unsigned int mask = __ballot_sync(__activemask(), flag);
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(__activemask()) - 1;
    if (lane == leader && mask) atomicAdd(counter, __popc(mask));
}
