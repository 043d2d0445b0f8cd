// The TCP frame reader: bytes arrive in pieces whose sizes the input picks; frames come
// out whole and in order, an oversized prefix is caught before its body is read, and the
// buffer never holds more than what arrived plus the read-ahead.
#include <string>
#include <vector>

#include "service/frame_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using rosetta::service::FrameReader;
  if (size < 2) return 0;
  const uint64_t max_frame = 1 + data[0] * 64;  // small limits so oversized prefixes are common
  const size_t piece = 1 + data[1] % 32;
  data += 2;
  size -= 2;
  FrameReader reader;
  size_t fed = 0, consumed = 0;
  std::vector<std::string> frames;
  while (fed < size) {
    auto [room, want] = reader.Prepare(size - fed);
    const size_t n = std::min({want, piece, size - fed});
    std::memcpy(room, data + fed, n);
    reader.Commit(n);
    fed += n;
    if (reader.capacity() >
        (fed - consumed) + FrameReader::kReadAhead * 2 + FrameReader::kPadding + max_frame + 256) {
      __builtin_trap();  // grew past what arrived: a claim was trusted
    }
    for (;;) {
      std::string_view body;
      size_t padding;
      const auto next = reader.Peek(max_frame, &body, &padding);
      if (next == FrameReader::Next::kOversized) return 0;  // the connection would close here
      if (next == FrameReader::Next::kNeedMore) break;
      if (padding < FrameReader::kPadding) __builtin_trap();
      rosetta::service::RequestFrame frame;
      rosetta::service::ParseRequestFrame(body, &frame);
      frames.emplace_back(body);
      reader.Consume();
      consumed += 4 + body.size();
    }
    reader.Settle();
  }
  // The same frames, parsed directly from the whole input.
  size_t at = 0;
  for (const std::string& f : frames) {
    const uint32_t len = uint32_t{data[at]} << 24 | uint32_t{data[at + 1]} << 16 |
                         uint32_t{data[at + 2]} << 8 | data[at + 3];
    if (len != f.size() || std::memcmp(data + at + 4, f.data(), len) != 0) __builtin_trap();
    at += 4 + len;
  }
  return 0;
}
