#pragma once

#include <cstdint>

// Counts every operator new of the whole process (all threads, the server's included)
// while a HeapClaimWatch is alive: the TCP tests show that a frame's claimed length costs
// the server nothing before the bytes behind it arrive. Off under sanitizers, which own
// operator new themselves.
namespace rosetta::service::testing {

bool HeapClaimCountingActive();

struct HeapClaims {
  uint64_t bytes = 0;    // asked for, in total
  uint64_t largest = 0;  // the largest single request
};

class HeapClaimWatch {
 public:
  HeapClaimWatch();
  HeapClaims Stop() const;

 private:
  uint64_t bytes_;
};

}  // namespace rosetta::service::testing
