#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>

#include "claim_assertions.h"
#include "heap/heap_counter.h"
#include "hex.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/transcode.h"

// Helpers shared by the protobuf tests: the test schema (testdata/test.proto) as rosetta
// loads it and as libprotobuf does, wire bytes written by libprotobuf from text format
// (never by rosetta), and one-call transcodes that record what was allocated.
namespace rosetta::codec::prototest {

inline constexpr std::string_view kTest = "rosetta.test.Test";

// rosetta's Schema over the FileDescriptorSet protoc built from testdata/test.proto.
const Schema& TestSchema();
std::string DescriptorSetPath();

// The same FileDescriptorSet in a libprotobuf pool of its own (no generated underlay),
// and DynamicMessages over it.
const google::protobuf::DescriptorPool& Pool();
std::unique_ptr<google::protobuf::Message> NewMessage(std::string_view type = kTest);

// Protobuf text format -> the bytes libprotobuf serializes for it. Fails the test on a
// text format error.
std::string Wire(std::string_view text, std::string_view type = kTest);
// Wire bytes -> text format as libprotobuf parses them ("<unparsable>" if it cannot).
std::string Text(std::string_view wire, std::string_view type = kTest);

using ::rosetta::testing::Hex;  // "0a 03" -> bytes, spaces ignored
inline std::string ToHex(std::string_view bytes) { return ::rosetta::testing::ToHex(bytes, " "); }

// Wire pieces written by hand, for inputs libprotobuf would never serialize.
std::string Varint(uint64_t v);
std::string Tag(uint32_t number, int wire_type);
std::string VarintField(uint32_t number, uint64_t v);
std::string LenField(uint32_t number, std::string_view bytes);
std::string Fixed32Field(uint32_t number, uint32_t v);
std::string Fixed64Field(uint32_t number, uint64_t v);

struct Result {
  Status status;
  std::string out;  // raw output bytes (JSON text or binary)
  TranscodeStats stats;
  rosetta::heap::Use heap;  // what the heap was asked for during Transcode itself
};

// Transcodes `input` (with kInputPadding readable bytes after it).
Result Convert(Format from, Format to, std::string_view input, std::string_view type = kTest,
               const MappingOptions& options = {}, const Limits& limits = {});
Result Check(Format from, std::string_view input, std::string_view type = kTest,
             const MappingOptions& options = {}, const Limits& limits = {});

inline Result ToJson(std::string_view wire, std::string_view type = kTest,
                     const MappingOptions& o = {}, const Limits& l = {}) {
  return Convert(Format::kProtobuf, Format::kJson, wire, type, o, l);
}
inline Result FromJson(std::string_view json, std::string_view type = kTest,
                       const MappingOptions& o = {}, const Limits& l = {}) {
  return Convert(Format::kJson, Format::kProtobuf, json, type, o, l);
}

inline MappingOptions RejectUnknown() {
  MappingOptions o;
  o.reject_unknown_fields = true;
  return o;
}
inline MappingOptions IgnoreUnknown() {
  MappingOptions o;
  o.ignore_unknown_fields = true;
  return o;
}
inline Limits MaxDepth(uint32_t n) {
  Limits l;
  l.max_depth = n;
  return l;
}

}  // namespace rosetta::codec::prototest

namespace rosetta::codec {
void PrintTo(const Status& s, std::ostream* os);
}

// The output of a transcode that must succeed.
#define EXPECT_PB_OUTPUT(result, expected)                                              \
  do {                                                                                  \
    const auto& r_ = (result);                                                          \
    EXPECT_TRUE(r_.status.ok()) << ::rosetta::codec::CodeName(r_.status.code) << " at " \
                                << r_.status.offset << " (" << r_.status.path           \
                                << "): " << r_.status.message;                          \
    EXPECT_EQ(r_.out, expected);                                                        \
  } while (0)

// A refusal: its code, byte offset and JSON Pointer.
#define EXPECT_PB_REFUSED(result, code_name, at, json_pointer)                             \
  do {                                                                                     \
    const auto& r_ = (result);                                                             \
    EXPECT_EQ(::rosetta::codec::CodeName(r_.status.code), code_name) << r_.status.message; \
    EXPECT_EQ(r_.status.offset, uint64_t{at}) << r_.status.message;                        \
    EXPECT_EQ(r_.status.path, json_pointer) << r_.status.message;                          \
  } while (0)
