#pragma once

#include <cstdint>

#include <gtest/gtest.h>

#include "heap/heap_counter.h"

// A refused claim: `claim` is what the input said it holds (bytes, or items); the request
// was charged, and asked the heap, for nothing near it. `result` has `stats`
// (TranscodeStats) and `heap` (heap::Use), as both the codec and protobuf test Results do.
#define EXPECT_NOTHING_ALLOCATED_FOR(result, claim)                                             \
  do {                                                                                          \
    const auto& r_ = (result);                                                                  \
    const uint64_t claim_ = (claim);                                                            \
    EXPECT_LT(r_.stats.allocated_bytes, 4096u)                                                  \
        << "charged to the budget for a claim of " << claim_;                                   \
    EXPECT_LT(r_.stats.peak_bytes, 4096u) << "charged to the budget for a claim of " << claim_; \
    EXPECT_LT(r_.stats.peak_bytes, claim_);                                                     \
    if (::rosetta::heap::CountingActive()) {                                                    \
      EXPECT_LT(r_.heap.largest, 16384u) << "largest heap request for a claim of " << claim_;   \
      EXPECT_LT(r_.heap.bytes, 65536u) << "heap bytes requested for a claim of " << claim_;     \
      EXPECT_LT(r_.heap.bytes, claim_);                                                         \
    }                                                                                           \
  } while (0)
