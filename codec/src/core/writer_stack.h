#pragma once

#include <cstdint>

#include "memory/budget_vector.h"

namespace rosetta::codec {

// One open container in a writer. `slot` is where its header was reserved when the input
// gave no count (LengthSlot), `count` the items written so far (keys and values apart).
struct WriterLevel {
  uint64_t slot;
  uint64_t count;
  bool is_map;
  bool unknown_length;
};

// A writer's container stack, with the same depth limit as the readers.
class WriterStack {
 public:
  explicit WriterStack(Context& ctx) : ctx_(ctx), levels_(ctx) {
    levels_.Push(WriterLevel{0, 0, false, false});  // the root holds the one top-level item
  }
  [[gnu::always_inline]] bool Push(WriterLevel level) {
    if (levels_.size() > ctx_.limits.max_depth) [[unlikely]]
      return DepthExceeded();
    return levels_.Push(level);
  }
  WriterLevel Pop() {
    WriterLevel l = levels_.back();
    levels_.Pop();
    return l;
  }
  WriterLevel& top() { return levels_.back(); }
  size_t depth() const { return levels_.size() - 1; }

 private:
  [[gnu::cold, gnu::noinline]] bool DepthExceeded() {
    return ctx_.Fail(ErrorCode::kDepthExceeded, "writer: nesting deeper than max_depth " +
                                                    std::to_string(ctx_.limits.max_depth));
  }

  Context& ctx_;
  BudgetVector<WriterLevel, 32> levels_;
};

}  // namespace rosetta::codec
