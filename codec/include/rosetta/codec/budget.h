#pragma once

#include <cstddef>
#include <cstdint>

namespace rosetta::codec {

// The bytes a request may allocate. Every codec allocation is charged here first, so a
// claim in the input can never make the codec allocate past `limit`.
class AllocationBudget {
 public:
  explicit AllocationBudget(uint64_t limit) : limit_(limit) {}

  // False (and nothing charged) when `bytes` would take the request past its limit.
  bool Charge(uint64_t bytes) {
    if (bytes > limit_ - used_) return false;
    used_ += bytes;
    if (used_ > peak_) peak_ = used_;
    return true;
  }
  void Release(uint64_t bytes) { used_ -= bytes < used_ ? bytes : used_; }

  uint64_t used() const { return used_; }
  uint64_t peak() const { return peak_; }
  uint64_t limit() const { return limit_; }

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
};

}  // namespace rosetta::codec
