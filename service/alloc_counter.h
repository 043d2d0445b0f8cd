#pragma once

#include <cstdint>

namespace rosetta::service {

// Heap allocations made by the calling thread, counted by rosettad's malloc interposer
// (alloc_counter.cc): every malloc, calloc and realloc, so operator new, the codec's
// buffers, protobuf and gRPC are all seen. A request reads the counters before and after
// it runs on its thread (docs/metrics.md says what this does not see).
struct AllocationCount {
  uint64_t bytes = 0;
  uint64_t count = 0;
};

AllocationCount ThreadAllocations();
// True when the interposer is linked in (false in a binary that does not count).
bool AllocationCountingActive();

}  // namespace rosetta::service
