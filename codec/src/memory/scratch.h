#pragma once

#include <cstdlib>
#include <new>

#include "memory/budget_vector.h"

namespace rosetta::codec {

// Blocks that live until the request ends (strings assembled from CBOR chunks, numbers
// converted to bignums): views into them stay valid, so keys can point into them.
class Scratch {
 public:
  explicit Scratch(Context& ctx) : ctx_(ctx), blocks_(ctx) {}
  ~Scratch() {
    for (size_t i = 0; i < blocks_.size(); ++i) std::free(blocks_[i]);
  }
  // Null (with the error recorded) when the budget does not allow n bytes.
  char* Allocate(size_t n) {
    if (!ctx_.budget.Charge(n)) {
      ctx_.BudgetExceeded(n);
      return nullptr;
    }
    char* p = static_cast<char*>(std::malloc(n ? n : 1));
    if (p == nullptr) throw std::bad_alloc();
    if (!blocks_.Push(p)) {
      std::free(p);
      return nullptr;
    }
    return p;
  }

 private:
  Context& ctx_;
  BudgetVector<char*> blocks_;
};

}  // namespace rosetta::codec
