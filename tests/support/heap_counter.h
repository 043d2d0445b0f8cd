#pragma once

#include <cstdint>

// Counts what the heap is asked for (malloc, calloc, realloc, and operator new through
// them) while a HeapWatch is alive: the claim-guard tests show that a refused claim cost
// the heap nothing near the claim. Linked only into test binaries; off under
// AddressSanitizer, which owns malloc itself.
namespace rosetta::testing {

bool HeapCountingAvailable();

struct HeapUse {
  uint64_t bytes = 0;    // requested, in total
  uint64_t largest = 0;  // the largest single request
  uint64_t calls = 0;
};

class HeapWatch {
 public:
  HeapWatch();
  HeapUse Stop();

 private:
  uint64_t bytes_;
  uint64_t calls_;
};

}  // namespace rosetta::testing
