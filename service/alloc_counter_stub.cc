// Used instead of alloc_counter.cc when a sanitizer owns malloc: nothing is counted.
#include "service/alloc_counter.h"

namespace rosetta::service {

AllocationCount ThreadAllocations() { return {}; }
bool AllocationCountingActive() { return false; }

}  // namespace rosetta::service
