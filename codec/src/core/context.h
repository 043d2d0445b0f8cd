#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rosetta/codec/budget.h"
#include "rosetta/codec/limits.h"
#include "rosetta/codec/options.h"
#include "rosetta/codec/status.h"

namespace rosetta::codec {

// What one request's reader and writer share: its limits, options, budget and the first
// error. A writer records an error with Fail and returns false; the reader then adds the
// offset and path it knows (Locate) and stops.
struct Context {
  Context(const Limits& l, const MappingOptions& o)
      : limits(l), options(o), budget(l.max_alloc_bytes) {}

  const Limits& limits;
  const MappingOptions& options;
  AllocationBudget budget;
  Status status;
  bool located = false;
  // The output is JSON, where an integer key is written as its decimal text: key identity
  // for duplicates is then the member name ("1" and 1 are the same key).
  bool json_member_names = false;
  // The output keeps CBOR tags (it is CBOR): a tagged key differs from its untagged item.
  bool tags_kept = false;
  // A record of a sequence (CBOR, MessagePack): the reader stops after the first data item
  // and stores where it ends here; what follows is the next record, not trailing data.
  uint64_t* item_end = nullptr;

  [[gnu::cold]] bool Fail(ErrorCode code, std::string message) {
    if (status.ok()) {
      status.code = code;
      status.message = std::move(message);
    }
    return false;
  }
  [[gnu::cold]] bool FailAt(ErrorCode code, uint64_t offset, std::string message) {
    if (status.ok()) {
      status.code = code;
      status.message = std::move(message);
      status.offset = offset;
      located = true;
    }
    return false;
  }
  [[gnu::cold]] bool BudgetExceeded(uint64_t bytes) {
    return Fail(ErrorCode::kBudgetExceeded, "allocating " + std::to_string(bytes) +
                                                " bytes would pass max_alloc_bytes " +
                                                std::to_string(limits.max_alloc_bytes));
  }
};

}  // namespace rosetta::codec
