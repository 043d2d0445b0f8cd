#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "claim_assertions.h"
#include "heap/heap_counter.h"
#include "hex.h"
#include "rosetta/codec/transcode.h"

// Helpers shared by the codec tests: hex literals, one-call transcodes, and a count of
// what the heap was asked for while a claim was being refused.
namespace rosetta::codec::testing {

// "d8 18 41 01" -> bytes; spaces are ignored. Expected bytes are written by hand from the
// RFCs and the MessagePack spec, never copied from the codec's own output.
using ::rosetta::testing::Hex;
inline std::string ToHex(std::string_view bytes) { return ::rosetta::testing::ToHex(bytes); }

struct Result {
  Status status;
  std::string out;  // hex for binary outputs (see Run), text for JSON
  TranscodeStats stats;
  rosetta::heap::Use heap;  // what the heap was asked for during Transcode itself
};

// Transcodes `input` (bytes, not hex). The input is given with kInputPadding readable
// bytes after it (a server's buffers) unless `padded` is false. Binary outputs come back
// as lowercase hex, JSON as text.
Result RunTranscode(Format from, Format to, std::string_view input, const Limits& limits = {},
                    const MappingOptions& options = {}, bool padded = true);
Result Check(Format from, std::string_view input, const Limits& limits = {},
             const MappingOptions& options = {});

inline Result JsonToCbor(std::string_view json, const Limits& l = {},
                         const MappingOptions& o = {}) {
  return RunTranscode(Format::kJson, Format::kCbor, json, l, o);
}
inline Result JsonToMsgpack(std::string_view json, const Limits& l = {},
                            const MappingOptions& o = {}) {
  return RunTranscode(Format::kJson, Format::kMsgpack, json, l, o);
}
inline Result CborToJson(std::string_view hex, const Limits& l = {}, const MappingOptions& o = {}) {
  return RunTranscode(Format::kCbor, Format::kJson, Hex(hex), l, o);
}
inline Result CborToCbor(std::string_view hex, const Limits& l = {}, const MappingOptions& o = {}) {
  return RunTranscode(Format::kCbor, Format::kCbor, Hex(hex), l, o);
}
inline Result CborToMsgpack(std::string_view hex, const Limits& l = {},
                            const MappingOptions& o = {}) {
  return RunTranscode(Format::kCbor, Format::kMsgpack, Hex(hex), l, o);
}
inline Result MsgpackToCbor(std::string_view hex, const Limits& l = {},
                            const MappingOptions& o = {}) {
  return RunTranscode(Format::kMsgpack, Format::kCbor, Hex(hex), l, o);
}
inline Result MsgpackToJson(std::string_view hex, const Limits& l = {},
                            const MappingOptions& o = {}) {
  return RunTranscode(Format::kMsgpack, Format::kJson, Hex(hex), l, o);
}
inline Result MsgpackToMsgpack(std::string_view hex, const Limits& l = {},
                               const MappingOptions& o = {}) {
  return RunTranscode(Format::kMsgpack, Format::kMsgpack, Hex(hex), l, o);
}

// Limits with one field changed.
inline Limits MaxDepth(uint32_t n) {
  Limits l;
  l.max_depth = n;
  return l;
}
inline Limits MaxItems(uint64_t n) {
  Limits l;
  l.max_items = n;
  return l;
}
inline Limits MaxString(uint64_t n) {
  Limits l;
  l.max_string_bytes = n;
  return l;
}
inline Limits MaxOutput(uint64_t n) {
  Limits l;
  l.max_output_bytes = n;
  return l;
}
inline Limits MaxAlloc(uint64_t n) {
  Limits l;
  l.max_alloc_bytes = n;
  return l;
}
inline Limits MaxInput(uint64_t n) {
  Limits l;
  l.max_input_bytes = n;
  return l;
}

}  // namespace rosetta::codec::testing

// Status in failure messages: "code at byte N (path): message".
namespace rosetta::codec {
void PrintTo(const Status& s, std::ostream* os);
}

// gtest assertions on a Result: code, offset and JSON Pointer path all at once.
#define EXPECT_REFUSED(result, code_name, at, json_pointer)                                \
  do {                                                                                     \
    const auto& r_ = (result);                                                             \
    EXPECT_EQ(::rosetta::codec::CodeName(r_.status.code), code_name) << r_.status.message; \
    EXPECT_EQ(r_.status.offset, uint64_t{at}) << r_.status.message;                        \
    EXPECT_EQ(r_.status.path, json_pointer) << r_.status.message;                          \
  } while (0)

#define EXPECT_OUTPUT(result, expected)                                                 \
  do {                                                                                  \
    const auto& r_ = (result);                                                          \
    EXPECT_TRUE(r_.status.ok()) << ::rosetta::codec::CodeName(r_.status.code) << " at " \
                                << r_.status.offset << " (" << r_.status.path           \
                                << "): " << r_.status.message;                          \
    EXPECT_EQ(r_.out, expected);                                                        \
  } while (0)
