#pragma once

#include <cstdint>

namespace rosetta::load {

// Heap calls made by the whole process since it started. heap_counter.cc replaces
// malloc, calloc, realloc and the memalign family (forwarding to glibc's __libc_*), so
// operator new, which libstdc++ builds on malloc, is counted too.
struct HeapCounts {
  uint64_t calls = 0;  // malloc, calloc, realloc, memalign, posix_memalign, aligned_alloc
  uint64_t bytes = 0;  // bytes requested by those calls
};
HeapCounts HeapCountsNow();

}  // namespace rosetta::load
