#include <cstdlib>
#include <new>

#include "rosetta/codec/output.h"

namespace rosetta::codec {

OutputBuffer::~OutputBuffer() { std::free(data_); }

bool OutputBuffer::Flush() {
  if (flush_ == nullptr || holds_ != 0 || size_ == 0) return true;
  const uint64_t skip = skip_ < size_ ? skip_ : size_;
  skip_ -= skip;
  if (skip < size_ && !flush_(flush_arg_, data_ + skip, size_ - skip)) {
    flush_failed_ = true;
    return false;
  }
  flushed_ += size_;
  size_ = 0;
  SetRoom();
  return true;
}

bool OutputBuffer::AppendBlob(const void* p, size_t n) {
  if (flush_ == nullptr || holds_ != 0) {
    if (!Ensure(n)) return false;
    Append(p, n);
    return true;
  }
  over_limit_ = flushed_ + size_ + n > max_;
  if (over_limit_ || !Flush()) return false;
  const uint64_t skip = skip_ < n ? skip_ : n;
  skip_ -= skip;
  if (skip < n && !flush_(flush_arg_, static_cast<const char*>(p) + skip, n - skip)) {
    flush_failed_ = true;
    return false;
  }
  flushed_ += n;
  SetRoom();
  return true;
}

bool OutputBuffer::Grow(size_t n) {
  // Set on every growth: a buffer reused across requests must not carry the flag over.
  over_limit_ = flushed_ + size_ + n > max_;
  if (over_limit_) return false;
  // Streaming: hand over what is written and start again when that makes the room.
  if (flush_ != nullptr && holds_ == 0 && size_ != 0) {
    if (!Flush()) return false;
    if (n <= room_) return true;
  }
  if (flush_failed_) return false;
  const uint64_t need = uint64_t{size_} + n;
  uint64_t cap = capacity_ * 2 > need ? capacity_ * 2 : need;
  if (cap < 256) cap = 256;
  if (cap > max_ - flushed_) cap = max_ - flushed_;
  if (budget_ != nullptr && !budget_->Charge(cap - capacity_)) {
    cap = need;  // no headroom: try the exact size
    if (!budget_->Charge(cap - capacity_)) return false;
  }
  // realloc: large blocks move by remapping pages, not by copying them.
  char* p = static_cast<char*>(std::realloc(data_, cap));
  if (p == nullptr) throw std::bad_alloc();
  data_ = p;
  capacity_ = cap;
  SetRoom();
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
