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
    flushed_ = 0;
    holds_ = 0;
    skip_ = 0;
    flush_failed_ = false;
    max_ = max_bytes;
    budget_ = budget;
    over_limit_ = false;
    SetRoom();  // capacity left by a larger request is not this one's
  }

  // Like Begin, keeping what the buffer holds: the records of a sequence, one request
  // each, one after the other. max_bytes counts from here.
  void Continue(uint64_t max_bytes, AllocationBudget* budget) {
    const uint64_t here = flushed_ + size_;
    max_ = max_bytes > ~uint64_t{0} - here ? ~uint64_t{0} : here + max_bytes;
    budget_ = budget;
    over_limit_ = false;
    SetRoom();
  }

  // Streaming output (the CLI): when the buffer is full, what it holds is handed to
  // `flush` and the buffer starts again, so an output never has to fit in memory. Only
  // bytes no writer will come back to are flushed: a writer that fills in a length later
  // (a CBOR or MessagePack container of unknown length, a deterministic map, a protobuf
  // message) Hold()s the buffer until it has, and nothing is flushed while any hold is on.
  // max_output_bytes counts every byte, flushed or not. `flush` returns false on an I/O
  // error: the writer then stops as for a full buffer, and flush_failed() is true.
  using FlushFn = bool (*)(void* arg, const char* data, size_t n);
  void SetFlush(FlushFn flush, void* arg) {
    flush_ = flush;
    flush_arg_ = arg;
  }
  bool streaming() const { return flush_ != nullptr; }
  struct Streaming {
    FlushFn flush;
    void* arg;
  };
  // Turns streaming off for a while (and back on): the bytes written meanwhile stay.
  Streaming TakeStreaming() {
    const Streaming s{flush_, flush_arg_};
    flush_ = nullptr;
    return s;
  }
  void RestoreStreaming(Streaming s) { SetFlush(s.flush, s.arg); }
  void Hold() { ++holds_; }
  void Release() { --holds_; }
  // A writer that stops on an error leaves its holds on: the caller that goes on writing
  // (the next record of a sequence) puts back the count it had before.
  uint32_t holds() const { return holds_; }
  void ResetHolds(uint32_t n) { holds_ = n; }
  // Hands every byte written so far to the flush function (streaming, nothing held).
  bool Flush();
  // Streaming: the next n bytes to be handed over were handed over already (a writer that
  // gave up is writing the same bytes again from the start): they are dropped, and count
  // once toward max_output_bytes.
  void SkipNext(uint64_t n) {
    flushed_ -= n;
    skip_ = n;
    SetRoom();
  }
  bool flush_failed() const { return flush_failed_; }
  // Bytes handed to the flush function since Begin.
  uint64_t flushed() const { return flushed_; }
  // Strings at least this long go through AppendBlob.
  static constexpr size_t kBlobBytes = 64 * 1024;
  // n bytes that may be far larger than the buffer: when streaming with nothing held, the
  // buffer is flushed and the bytes go straight from p to the flush function (a blob moves
  // in no copy here); else as Ensure(n) + Append. False as Ensure.
  bool AppendBlob(const void* p, size_t n);

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
  void SetRoom() {
    const uint64_t left = max_ - flushed_;
    room_ = capacity_ < left ? capacity_ : left;
  }

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t room_ = 0;  // min(capacity_, max_ - flushed_): what Ensure may hand out without Grow
  uint64_t max_ = ~uint64_t{0};
  uint64_t flushed_ = 0;
  FlushFn flush_ = nullptr;
  void* flush_arg_ = nullptr;
  uint32_t holds_ = 0;
  uint64_t skip_ = 0;  // SkipNext
  bool flush_failed_ = false;
  AllocationBudget* budget_ = nullptr;
  bool over_limit_ = false;
};

}  // namespace rosetta::codec
