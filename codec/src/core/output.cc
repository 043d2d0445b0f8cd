#include <cstdlib>
#include <new>

#include "rosetta/codec/output.h"

namespace rosetta::codec {

OutputBuffer::~OutputBuffer() { std::free(data_); }

bool OutputBuffer::Grow(size_t n) {
  const uint64_t need = uint64_t{size_} + n;
  // Set on every growth: a buffer reused across requests must not carry the flag over.
  over_limit_ = need > max_;
  if (over_limit_) return false;
  uint64_t cap = capacity_ * 2 > need ? capacity_ * 2 : need;
  if (cap < 256) cap = 256;
  if (cap > max_) cap = max_;
  if (budget_ != nullptr && !budget_->Charge(cap - capacity_)) {
    cap = need;  // no headroom: try the exact size
    if (!budget_->Charge(cap - capacity_)) return false;
  }
  // realloc: large blocks move by remapping pages, not by copying them.
  char* p = static_cast<char*>(std::realloc(data_, cap));
  if (p == nullptr) throw std::bad_alloc();
  data_ = p;
  capacity_ = cap;
  room_ = capacity_ < max_ ? capacity_ : max_;
  return true;
}

void OutputBuffer::ShrinkTo(size_t keep) {
  if (capacity_ <= keep) return;
  std::free(data_);
  data_ = nullptr;
  capacity_ = 0;
  room_ = 0;
  size_ = 0;
}

}  // namespace rosetta::codec
