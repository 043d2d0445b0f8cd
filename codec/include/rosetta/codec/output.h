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
    room_ =
        capacity_ < max_ ? capacity_ : max_;  // capacity left by a larger request is not this one's
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
  [[gnu::always_inline]] void Append(const void* p, size_t n) {  // after Ensure(n)
    char* const d = data_ + size_;
    const char* const s = static_cast<const char*>(p);
    size_ += n;
    // Up to 16 bytes (keys, names, literals) as two loads and two stores that overlap,
    // not a call to memcpy; nothing outside [d, d + n) is read or written.
    if (n >= 8 && n <= 16) {
      uint64_t a, b;
      std::memcpy(&a, s, 8);
      std::memcpy(&b, s + n - 8, 8);
      std::memcpy(d, &a, 8);
      std::memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
      uint32_t a, b;
      std::memcpy(&a, s, 4);
      std::memcpy(&b, s + n - 4, 4);
      std::memcpy(d, &a, 4);
      std::memcpy(d + n - 4, &b, 4);
    } else if (n > 0 && n < 4) {  // p may be null for an empty view
      d[0] = s[0];
      d[n / 2] = s[n / 2];
      d[n - 1] = s[n - 1];
    } else if (n > 16) {
      std::memcpy(d, s, n);
    }
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
