#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "rosetta/codec/budget.h"

namespace rosetta::codec {

// The bytes a writer produces. Kept between requests (a server reuses one per thread);
// each request sets its max_output_bytes and budget with Begin, and only growth made
// during the request is charged to that request's budget.
class OutputBuffer {
 public:
  OutputBuffer() = default;
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  ~OutputBuffer();

  void Begin(uint64_t max_bytes, AllocationBudget* budget) {
    size_ = 0;
    max_ = max_bytes;
    budget_ = budget;
    over_limit_ = false;
    room_ = capacity_ < max_ ? capacity_ : max_;  // capacity left by a larger request is not this one's
  }

  // Makes room for n more bytes. False when that would pass max_output_bytes
  // (over_limit() is then true) or the budget.
  bool Ensure(size_t n) {
    if (n <= room_ - size_) return true;
    return Grow(n);
  }
  char* cursor() { return data_ + size_; }
  // The end of the room Ensure has made: cursor() .. room_end() may be written, then
  // Advance()d over, without another Ensure.
  char* room_end() { return data_ + room_; }
  void Advance(size_t n) { size_ += n; }
  void Append(const void* p, size_t n) {  // after Ensure(n)
    if (n == 0) return;  // p may be null for an empty view
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  void Put(char c) { data_[size_++] = c; }  // after Ensure(1)

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void Resize(size_t n) { size_ = n; }  // n <= capacity
  std::string_view view() const { return {data_, size_}; }
  bool over_limit() const { return over_limit_; }
  // Gives back memory above `keep` bytes (a server calls this after a large request).
  void ShrinkTo(size_t keep);

 private:
  bool Grow(size_t n);

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t room_ = 0;  // min(capacity_, max_): what Ensure may hand out without Grow
  uint64_t max_ = ~uint64_t{0};
  AllocationBudget* budget_ = nullptr;
  bool over_limit_ = false;
};

}  // namespace rosetta::codec
