#pragma once

#include <cstdint>

// The process's heap counter: heap_counter.cc replaces malloc, calloc, realloc, free and
// the memalign family in the executable that links it (forwarding to glibc's own
// __libc_* entry points), so every allocation of the process is seen, operator new
// (libstdc++ builds it on malloc), protobuf's and gRPC's included. One counter for all
// who measure allocation: rosettad's per-request allocation metric, the benchmarks'
// heap counters and the tests that show a refused claim cost the heap nothing.
//
// Under a sanitizer, which owns malloc itself, nothing is replaced: CountingActive() is
// false and every count stays zero.
namespace rosetta::heap {

struct Counts {
  uint64_t bytes = 0;  // requested, in total
  uint64_t calls = 0;  // malloc, calloc, realloc, memalign, posix_memalign, aligned_alloc
};

bool CountingActive();

// Made by the calling thread since it started: thread-local, no atomics, cheap enough to
// read around every request.
Counts ThisThread();

// Made by every thread of the process, counted from the first call of Process() or the
// first Watch (until then a heap call costs no shared counter).
Counts Process();

// Process-wide, while a Watch is alive: what the heap was asked for and the largest single
// request.
struct Use {
  uint64_t bytes = 0;
  uint64_t calls = 0;
  uint64_t largest = 0;
};

class Watch {
 public:
  Watch();
  Use Stop() const;

 private:
  Counts start_;
};

}  // namespace rosetta::heap
