// The stream held until a timed call is queued (docs/decisions.md, "The device held until the
// call is queued"; gcbench/algorithms/gpu/runtime.py, held). The timing protocol launches
// hold_stream before a timed call's start event and lets it go once the host has queued the
// call, so the device meets the start event with the whole call waiting behind it: the
// host's launch latency and its Python between launches fall outside the timed region, as in
// nvbench's blocking kernel. A read back inside the call lets it go first; so does the timeout,
// which bounds the spin when something waits for the device without saying so.
// Every family's compile gets the common defines; common.cuh holds their defaults.
#include "common.cuh"

// One thread. `go` is pinned host memory: the hold ends once it reaches `ticket` (tickets only
// grow, so a late hold never waits on an earlier one's go) or after `timeout_ns`. `outcome`
// (pinned too) receives `ticket` when let go, -`ticket` when it timed out.
extern "C" __global__ void hold_stream(const volatile long long* go, long long* outcome,
                                       const long long ticket,
                                       const unsigned long long timeout_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    now = start;
    bool let_go = false;
    while (!(let_go = *go >= ticket) && now - start < timeout_ns) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(500);
#endif
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    }
    *outcome = let_go ? ticket : -ticket;  // what ended the loop, not a later look at `go`
}
