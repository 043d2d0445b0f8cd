#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace rosetta::service {

// The TCP protocol's framing (docs/tcp-protocol.md): frame = length:u32 body[length], and
// a request body = version op request_id input output type_len message_type payload.
inline constexpr size_t kRequestHeaderBytes = 10;

struct RequestFrame {
  uint8_t version;
  uint8_t op;
  uint32_t request_id;
  uint8_t input_format;
  uint8_t output_format;
  std::string_view message_type;
  std::string_view payload;
};

enum class FrameError : uint8_t { kNone, kShort, kVersion, kOp, kTypeLength };

// Splits a request body into its fields; the payload and type are views into `body`.
inline FrameError ParseRequestFrame(std::string_view body, RequestFrame* out) {
  auto u8 = [&](size_t i) { return static_cast<uint8_t>(body[i]); };
  if (body.size() < kRequestHeaderBytes) {
    out->request_id = body.size() >= 6 ? uint32_t{u8(2)} << 24 | uint32_t{u8(3)} << 16 |
                                             uint32_t{u8(4)} << 8 | u8(5)
                                       : 0;
    return FrameError::kShort;
  }
  out->version = u8(0);
  out->op = u8(1);
  out->request_id = uint32_t{u8(2)} << 24 | uint32_t{u8(3)} << 16 | uint32_t{u8(4)} << 8 | u8(5);
  out->input_format = u8(6);
  out->output_format = u8(7);
  const size_t type_len = size_t{u8(8)} << 8 | u8(9);
  if (out->version != 1) return FrameError::kVersion;
  if (out->op < 1 || out->op > 5) return FrameError::kOp;
  if (kRequestHeaderBytes + type_len > body.size()) return FrameError::kTypeLength;
  out->message_type = body.substr(kRequestHeaderBytes, type_len);
  out->payload = body.substr(kRequestHeaderBytes + type_len);
  return FrameError::kNone;
}

// The bytes of one connection, as they arrive. The buffer grows only with bytes actually
// received (bounded by what the current frame still needs plus some read-ahead), so a
// length prefix is never trusted with memory; kPadding readable bytes always follow the
// data, so a JSON payload is parsed in place.
class FrameReader {
 public:
  static constexpr size_t kPadding = 64;
  static constexpr size_t kReadAhead = 64 << 10;
  static constexpr size_t kKeptBytes = 64 << 10;

  // Room for the next read, given how many bytes the socket has: at least 1, at most
  // what the current frame still needs plus kReadAhead past it. 0 once that much is
  // buffered: the frames must be taken out first, so a client that sends faster than
  // its frames are answered fills the socket, not this buffer.
  std::pair<char*, size_t> Prepare(size_t available) {
    if (skip_ > 0) {  // dropping a refused frame: read in read-ahead steps, keep nothing
      const size_t want = static_cast<size_t>(std::clamp<uint64_t>(available, 1, kReadAhead));
      Reserve(want);
      return {buf_.get() + end_, want};
    }
    const size_t have = end_ - begin_;
    uint64_t bound = kReadAhead;  // buffered bytes allowed: the current frame plus read-ahead
    if (have >= 4) bound += 4 + uint64_t{Length()};
    if (have >= bound) return {buf_.get() + end_, 0};
    const size_t want = static_cast<size_t>(std::clamp<uint64_t>(available, 1, bound - have));
    Reserve(want);
    return {buf_.get() + end_, want};
  }
  void Commit(size_t n) {
    if (skip_ > 0) {  // the refused frame's bytes are dropped, what follows it kept
      const size_t dropped = static_cast<size_t>(std::min<uint64_t>(n, skip_));
      skip_ -= dropped;
      if (n > dropped) std::memmove(buf_.get() + end_, buf_.get() + end_ + dropped, n - dropped);
      n -= dropped;
    }
    end_ += n;
  }

  enum class Next { kFrame, kNeedMore, kOversized };
  // The next whole frame's body, without consuming it. kOversized when its prefix claims
  // more than max_frame (claimed() tells how much).
  Next Peek(uint64_t max_frame, std::string_view* body, size_t* padding) const {
    const size_t have = end_ - begin_;
    if (have < 4 || skip_ > 0) return Next::kNeedMore;
    const uint64_t len = Length();
    if (len > max_frame) return Next::kOversized;
    if (have < 4 + len) return Next::kNeedMore;
    *body = {buf_.get() + begin_ + 4, static_cast<size_t>(len)};
    *padding = cap_ - (begin_ + 4 + len);
    return Next::kFrame;
  }
  void Consume() { begin_ += 4 + Length(); }
  uint32_t claimed() const { return end_ - begin_ >= 4 && skip_ == 0 ? Length() : 0; }
  bool HasPartial() const { return end_ > begin_ || skip_ > 0; }
  // The current frame's prefix and request id (its body's bytes 2..5) have arrived.
  bool HeaderIn() const { return skip_ == 0 && end_ - begin_ >= 4 + 6; }
  uint32_t RequestId() const {
    auto* p = reinterpret_cast<const uint8_t*>(buf_.get() + begin_ + 4 + 2);
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
  }
  // Drops the current frame (refused before its body is kept): what has arrived of it now,
  // the rest as it arrives; the frames after it are read as usual.
  void SkipFrame() {
    const uint64_t total = 4 + uint64_t{Length()};
    const size_t have = end_ - begin_;
    if (have >= total) {
      begin_ += total;
      return;
    }
    skip_ = total - have;
    begin_ = end_ = 0;
  }
  size_t capacity() const { return cap_; }

  // After a batch: an empty buffer starts over (a large one is given back).
  void Settle() {
    if (begin_ != end_) return;  // (a skipped frame keeps no bytes: settles like an empty one)
    begin_ = end_ = 0;
    if (cap_ > kKeptBytes) Release();
  }
  void Release() {
    buf_.reset();
    cap_ = begin_ = end_ = 0;
  }

 private:
  uint32_t Length() const {
    auto* p = reinterpret_cast<const uint8_t*>(buf_.get() + begin_);
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
  }
  void Reserve(size_t more) {
    if (end_ + more + kPadding <= cap_) return;
    if (begin_ > 0) {  // compact first
      std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      if (end_ + more + kPadding <= cap_) return;
    }
    const size_t cap = std::max<size_t>({end_ + more + kPadding, cap_ * 2, 256});
    std::unique_ptr<char[]> grown(new char[cap]);
    if (end_) std::memcpy(grown.get(), buf_.get(), end_);
    buf_ = std::move(grown);
    cap_ = cap;
  }

  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, begin_ = 0, end_ = 0;
  uint64_t skip_ = 0;  // bytes of a refused frame still to drop as they arrive
};

}  // namespace rosetta::service
